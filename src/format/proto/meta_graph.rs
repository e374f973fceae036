//! `MetaGraphDef` and its parts (formats.md §3.8–§3.11): `MetaInfoDef`, `SaverDef`,
//! `CollectionDef`, `VariableDef`, `SaveSliceInfoDef`, `SignatureDef`, `TensorInfo`.

use super::graph::GraphDef;
use super::map_fields;
use super::op_def::OpList;
use super::tensor::TensorProto;
use super::types::TensorShapeProto;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};
use prost::DecodeError;
use std::collections::BTreeMap;

/// `google.protobuf.Any`: a type URL and serialized message.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct Any {
    /// `type.googleapis.com/<full message name>`.
    #[prost(string, tag = "1")]
    pub type_url: String,
    /// The serialized message.
    #[prost(bytes = "vec", tag = "2")]
    pub value: Vec<u8>,
}

/// `tensorflow.MetaGraphDef.MetaInfoDef`: what wrote the meta graph and its op list.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MetaInfoDef {
    /// User-set version string (empty from `Saver`).
    #[prost(string, tag = "1")]
    pub meta_graph_version: String,
    /// One `OpDef` per op type used, sorted by name, descriptions stripped.
    #[prost(message, optional, tag = "2")]
    pub stripped_op_list: Option<OpList>,
    /// Arbitrary user info.
    #[prost(message, optional, tag = "3")]
    pub any_info: Option<Any>,
    /// SavedModel tags.
    #[prost(string, repeated, tag = "4")]
    pub tags: Vec<String>,
    /// `tf.__version__` of the writer (`"2.21.0"`).
    #[prost(string, tag = "5")]
    pub tensorflow_version: String,
    /// `tf.__git_version__` of the writer.
    #[prost(string, tag = "6")]
    pub tensorflow_git_version: String,
    /// True when default-valued attrs were removed from the NodeDefs.
    #[prost(bool, tag = "7")]
    pub stripped_default_attrs: bool,
    /// Function aliases (SavedModel).
    #[prost(btree_map = "string, string", tag = "8")]
    pub function_aliases: BTreeMap<String, String>,
}

/// `SaverDef.CheckpointFormatVersion::V2`, the format tensorgraph reads and writes.
pub const SAVER_DEF_V2: i32 = 2;

/// `tensorflow.SaverDef`: where a `Saver`'s ops are in the graph.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SaverDef {
    /// Tensor to feed the checkpoint prefix into (`"save/Const:0"`).
    #[prost(string, tag = "1")]
    pub filename_tensor_name: String,
    /// Tensor to fetch to save (`"save/control_dependency:0"`).
    #[prost(string, tag = "2")]
    pub save_tensor_name: String,
    /// Op to run to restore (`"save/restore_all"`).
    #[prost(string, tag = "3")]
    pub restore_op_name: String,
    /// How many recent checkpoints to keep (5).
    #[prost(int32, tag = "4")]
    pub max_to_keep: i32,
    /// True when saving writes one shard per device.
    #[prost(bool, tag = "5")]
    pub sharded: bool,
    /// Keep one checkpoint every this many hours (10000).
    #[prost(float, tag = "6")]
    pub keep_checkpoint_every_n_hours: f32,
    /// `CheckpointFormatVersion`: 0 LEGACY, 1 V1, 2 V2.
    #[prost(int32, tag = "7")]
    pub version: i32,
}

/// `CollectionDef.NodeList`: op or tensor names.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct NodeList {
    /// Names (`"train"`, `"loss:0"`).
    #[prost(string, repeated, tag = "1")]
    pub value: Vec<String>,
}

/// `CollectionDef.BytesList`: serialized protos or strings.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct BytesList {
    /// The items.
    #[prost(bytes = "vec", repeated, tag = "1")]
    pub value: Vec<Vec<u8>>,
}

/// `CollectionDef.Int64List`.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct Int64List {
    /// The items (packed).
    #[prost(int64, repeated, tag = "1")]
    pub value: Vec<i64>,
}

/// `CollectionDef.FloatList`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FloatList {
    /// The items (packed).
    #[prost(float, repeated, tag = "1")]
    pub value: Vec<f32>,
}

/// `CollectionDef.AnyList`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AnyList {
    /// The items.
    #[prost(message, repeated, tag = "1")]
    pub value: Vec<Any>,
}

/// The `oneof kind` of [`CollectionDef`] (written even when empty).
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Kind {
    /// Op or tensor names.
    #[prost(message, tag = "1")]
    NodeList(NodeList),
    /// Bytes (serialized protos such as `VariableDef`).
    #[prost(message, tag = "2")]
    BytesList(BytesList),
    /// Integers.
    #[prost(message, tag = "3")]
    Int64List(Int64List),
    /// Floats.
    #[prost(message, tag = "4")]
    FloatList(FloatList),
    /// `Any` messages.
    #[prost(message, tag = "5")]
    AnyList(AnyList),
}

/// `tensorflow.CollectionDef`: one graph collection.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CollectionDef {
    /// The items.
    #[prost(oneof = "Kind", tags = "1, 2, 3, 4, 5")]
    pub kind: Option<Kind>,
}

/// `tensorflow.SaveSliceInfoDef`: where a partition sits in its full variable.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct SaveSliceInfoDef {
    /// Name of the full variable (`"part"`).
    #[prost(string, tag = "1")]
    pub full_name: String,
    /// Shape of the full variable.
    #[prost(int64, repeated, tag = "2")]
    pub full_shape: Vec<i64>,
    /// Offset of this partition.
    #[prost(int64, repeated, tag = "3")]
    pub var_offset: Vec<i64>,
    /// Shape of this partition.
    #[prost(int64, repeated, tag = "4")]
    pub var_shape: Vec<i64>,
}

/// `tensorflow.VariableDef`: a variable's ops, as stored in the `variables` collections.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct VariableDef {
    /// The variable tensor (`"v1:0"`).
    #[prost(string, tag = "1")]
    pub variable_name: String,
    /// The initializer op (`"v1/Assign"`).
    #[prost(string, tag = "2")]
    pub initializer_name: String,
    /// The snapshot tensor (`"v1/read:0"`).
    #[prost(string, tag = "3")]
    pub snapshot_name: String,
    /// Partition info (partitioned variables only).
    #[prost(message, optional, tag = "4")]
    pub save_slice_info_def: Option<SaveSliceInfoDef>,
    /// True for resource variables.
    #[prost(bool, tag = "5")]
    pub is_resource: bool,
    /// The initial value tensor (`"Const:0"`).
    #[prost(string, tag = "6")]
    pub initial_value_name: String,
    /// Whether the variable is trainable.
    #[prost(bool, tag = "7")]
    pub trainable: bool,
    /// `VariableSynchronization`: 0 AUTO, 1 NONE, 2 ON_WRITE, 3 ON_READ.
    #[prost(int32, tag = "8")]
    pub synchronization: i32,
    /// `VariableAggregation`: 0 NONE, 1 SUM, 2 MEAN, 3 ONLY_FIRST_REPLICA.
    #[prost(int32, tag = "9")]
    pub aggregation: i32,
}

/// `TensorInfo.CooSparse`: the three tensors of a sparse tensor.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct CooSparse {
    /// Values tensor name.
    #[prost(string, tag = "1")]
    pub values_tensor_name: String,
    /// Indices tensor name.
    #[prost(string, tag = "2")]
    pub indices_tensor_name: String,
    /// Dense shape tensor name.
    #[prost(string, tag = "3")]
    pub dense_shape_tensor_name: String,
}

/// The `oneof encoding` of [`TensorInfo`].
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Encoding {
    /// A dense tensor's name (`"x:0"`).
    #[prost(string, tag = "1")]
    Name(String),
    /// A sparse tensor.
    #[prost(message, tag = "4")]
    CooSparse(CooSparse),
    /// A serialized `CompositeTensor`, passed through.
    #[prost(bytes = "vec", tag = "5")]
    CompositeTensor(Vec<u8>),
}

/// `tensorflow.TensorInfo`: a signature's input or output.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorInfo {
    /// How the tensor is found.
    #[prost(oneof = "Encoding", tags = "1, 4, 5")]
    pub encoding: Option<Encoding>,
    /// `DataType` number.
    #[prost(int32, tag = "2")]
    pub dtype: i32,
    /// Static shape.
    #[prost(message, optional, tag = "3")]
    pub tensor_shape: Option<TensorShapeProto>,
}

/// `tensorflow.SignatureDef` (SavedModel signatures).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SignatureDef {
    /// Inputs by key.
    #[prost(btree_map = "string, message", tag = "1")]
    pub inputs: BTreeMap<String, TensorInfo>,
    /// Outputs by key.
    #[prost(btree_map = "string, message", tag = "2")]
    pub outputs: BTreeMap<String, TensorInfo>,
    /// `"tensorflow/serving/predict"`, ...
    #[prost(string, tag = "3")]
    pub method_name: String,
    /// Default values of inputs.
    #[prost(btree_map = "string, message", tag = "4")]
    pub defaults: BTreeMap<String, TensorProto>,
}

/// `tensorflow.AssetFileDef`: an asset file a graph needs.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AssetFileDef {
    /// The tensor holding the asset's path.
    #[prost(message, optional, tag = "1")]
    pub tensor_info: Option<TensorInfo>,
    /// File name relative to the assets folder.
    #[prost(string, tag = "2")]
    pub filename: String,
}

/// `tensorflow.MetaGraphDef`: a graph with its saver, collections and signatures
/// (a `.meta` file).
#[derive(Clone, PartialEq, Default, Debug)]
pub struct MetaGraphDef {
    /// Writer information and the stripped op list.
    pub meta_info_def: Option<MetaInfoDef>,
    /// The graph.
    pub graph_def: Option<GraphDef>,
    /// The saver's ops.
    pub saver_def: Option<SaverDef>,
    /// Collections by key; written in TensorFlow's key order.
    pub collection_def: BTreeMap<String, CollectionDef>,
    /// Signatures by key; written in TensorFlow's key order.
    pub signature_def: BTreeMap<String, SignatureDef>,
    /// Asset files.
    pub asset_file_def: Vec<AssetFileDef>,
    /// Field 7, a serialized `SavedObjectGraph`, passed through.
    pub object_graph_def: Option<Vec<u8>>,
}

impl prost::Message for MetaGraphDef {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        map_fields::encode_opt(1, &self.meta_info_def, buf);
        map_fields::encode_opt(2, &self.graph_def, buf);
        map_fields::encode_opt(3, &self.saver_def, buf);
        map_fields::encode_message_map(4, &self.collection_def, buf);
        map_fields::encode_message_map(5, &self.signature_def, buf);
        encoding::message::encode_repeated(6, &self.asset_file_def, buf);
        if let Some(o) = &self.object_graph_def {
            encoding::bytes::encode(7, o, buf);
        }
    }
    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        match tag {
            1 => map_fields::merge_opt(wire_type, &mut self.meta_info_def, buf, ctx),
            2 => map_fields::merge_opt(wire_type, &mut self.graph_def, buf, ctx),
            3 => map_fields::merge_opt(wire_type, &mut self.saver_def, buf, ctx),
            4 => map_fields::merge_message_map(wire_type, &mut self.collection_def, buf, ctx),
            5 => map_fields::merge_message_map(wire_type, &mut self.signature_def, buf, ctx),
            6 => encoding::message::merge_repeated(wire_type, &mut self.asset_file_def, buf, ctx),
            7 => encoding::bytes::merge(wire_type, self.object_graph_def.get_or_insert_with(Vec::new), buf, ctx),
            _ => encoding::skip_field(wire_type, tag, buf, ctx),
        }
    }
    fn encoded_len(&self) -> usize {
        map_fields::opt_len(1, &self.meta_info_def)
            + map_fields::opt_len(2, &self.graph_def)
            + map_fields::opt_len(3, &self.saver_def)
            + map_fields::message_map_len(4, &self.collection_def)
            + map_fields::message_map_len(5, &self.signature_def)
            + encoding::message::encoded_len_repeated(6, &self.asset_file_def)
            + self.object_graph_def.as_ref().map_or(0, |o| encoding::bytes::encoded_len(7, o))
    }
    fn clear(&mut self) {
        *self = Self::default();
    }
}

impl MetaGraphDef {
    /// Decodes a binary `MetaGraphDef` (a `.meta` file's bytes).
    /// Errors: `DataLoss` when the bytes are not a valid `MetaGraphDef`.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<MetaGraphDef> {
        <MetaGraphDef as prost::Message>::decode(bytes)
            .map_err(|e| crate::Error::data_loss(format!("cannot parse a MetaGraphDef: {e}")))
    }

    /// The binary encoding, with map entries in TensorFlow's deterministic order (the
    /// bytes `Saver.save` writes for the same message).
    pub fn to_bytes(&self) -> Vec<u8> {
        prost::Message::encode_to_vec(self)
    }
}
