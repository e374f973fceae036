//! SavedModels, TensorFlow 1.x style (`tf.compat.v1.saved_model`): the directory format TF
//! Serving and `tf.compat.v1.saved_model.loader.load` read.
//!
//! A SavedModel directory holds `saved_model.pb` (or its text form `saved_model.pbtxt`): a
//! `SavedModel` message with one `MetaGraphDef` per tag set (`{"serve"}`, `{"train"}`), each
//! with its signatures (`SignatureDef`: named inputs and outputs mapped to tensor names);
//! `variables/variables.index` and `variables/variables.data-*-of-*`, the checkpoint every
//! meta graph restores; and `assets/`, files the graph reads (vocabularies), whose paths are
//! fed to the init op when loading.
//!
//! - [`SavedModelBundle::load`] is `tf.compat.v1.saved_model.loader.load`: the meta graph
//!   whose tags equal the given set, imported into a fresh graph, its variables restored,
//!   its init op run with the asset paths fed;
//! - [`SavedModelBundle::signatures`] lists the signatures and
//!   [`SavedModelBundle::run_signature`] runs one by its input and output keys;
//! - [`SavedModelBuilder`] is `tf.compat.v1.saved_model.Builder`: it writes a SavedModel that
//!   TensorFlow loads.
//!
//! TensorFlow 2 SavedModels (`tf.saved_model.save`, whose signatures call functions of the
//! graph's function library) load as far as their meta graph imports; their signatures run
//! only where the functions they call are supported.
//!
//! ```no_run
//! use tensorgraph::io::saved_model::SavedModelBundle;
//! use tensorgraph::Tensor;
//! # fn main() -> tensorgraph::Result<()> {
//! let model = SavedModelBundle::load("half_plus_two/00000123", &["serve"])?;
//! for sig in model.signatures() {
//!     println!("{sig}");
//! }
//! let x = Tensor::new(&[3], vec![1f32, 2., 5.])?;
//! let out = model.run_signature("serving_default", &[("x", x)], &["y"])?;
//! println!("{:?}", out[0]);
//! # Ok(()) }
//! ```

mod builder;
mod load;
mod prune;
mod read;
mod signature;

pub use builder::{build_tensor_info, predict_signature_def, SavedModelBuilder};
pub use load::SavedModelBundle;
pub use read::{read_saved_model, variables_prefix};
pub use signature::{Signature, TensorSpec};

/// `tag_constants.SERVING`: the tag of a meta graph for serving.
pub const SERVING: &str = "serve";
/// `tag_constants.TRAINING`: the tag of a meta graph for training.
pub const TRAINING: &str = "train";
/// `signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY`.
pub const DEFAULT_SERVING_SIGNATURE_DEF_KEY: &str = "serving_default";
/// `signature_constants.PREDICT_METHOD_NAME`.
pub const PREDICT_METHOD_NAME: &str = "tensorflow/serving/predict";
/// `constants.MAIN_OP_KEY`: the collection holding the op run after restoring.
pub const MAIN_OP_KEY: &str = "saved_model_main_op";
/// `constants.LEGACY_INIT_OP_KEY`: the older name of [`MAIN_OP_KEY`].
pub const LEGACY_INIT_OP_KEY: &str = "legacy_init_op";
/// `constants.INIT_OP_SIGNATURE_KEY`: the signature whose output is the init op (TF 2's
/// `SavedModelBuilder` stores it there instead of a collection).
pub const INIT_OP_SIGNATURE_KEY: &str = "__saved_model_init_op";
/// `constants.ASSETS_KEY`: the collection of `AssetFileDef`s (as `Any`) TF 1's builder writes.
pub const ASSETS_KEY: &str = "saved_model_assets";
/// `constants.SAVED_MODEL_FILENAME_PB`.
pub const SAVED_MODEL_FILENAME_PB: &str = "saved_model.pb";
/// `constants.SAVED_MODEL_FILENAME_PBTXT`.
pub const SAVED_MODEL_FILENAME_PBTXT: &str = "saved_model.pbtxt";
