//! `tensorflow.SavedModel` (`saved_model.proto`): the message in a SavedModel directory's
//! `saved_model.pb` (or, as text, `saved_model.pbtxt`).

use super::meta_graph::MetaGraphDef;

/// The schema version TensorFlow writes (`constants.SAVED_MODEL_SCHEMA_VERSION`).
pub const SAVED_MODEL_SCHEMA_VERSION: i64 = 1;

/// `tensorflow.SavedModel`: one or more meta graphs, each tagged with a set of tags
/// (`meta_info_def.tags`, such as `["serve"]`), sharing the directory's `variables/` and
/// `assets/`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedModel {
    /// Field 1: the schema version (1).
    #[prost(int64, tag = "1")]
    pub saved_model_schema_version: i64,
    /// Field 2: the meta graphs, one per tag set.
    #[prost(message, repeated, tag = "2")]
    pub meta_graphs: Vec<MetaGraphDef>,
}

impl SavedModel {
    /// Decodes a binary `SavedModel` (a `saved_model.pb` file's bytes).
    /// Errors: `DataLoss` when the bytes are not a valid `SavedModel`.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<SavedModel> {
        <SavedModel as prost::Message>::decode(bytes)
            .map_err(|e| crate::Error::data_loss(format!("cannot parse a SavedModel: {e}")))
    }

    /// The binary encoding, with map entries in TensorFlow's deterministic order (what
    /// `SavedModelBuilder.save()` writes, `SerializeToString(deterministic=True)`).
    pub fn to_bytes(&self) -> Vec<u8> {
        prost::Message::encode_to_vec(self)
    }
}
