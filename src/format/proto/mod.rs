//! TensorFlow's graph protobuf messages as hand-written `prost` structs (no protoc):
//! `DataType` (as `i32`), `TensorShapeProto`, `TensorProto`, `AttrValue`, `NodeDef`,
//! `GraphDef`, `OpDef`/`OpList`, `MetaGraphDef` and its parts, `SavedModel`, `ConfigProto`
//! (its thread fields), `Example` (`tf.train.Example`), `RunOptions`/`RunMetadata` with
//! step statistics, and TensorBoard's `Event`, `Summary` and `HistogramProto`. Field numbers
//! come from TensorFlow 2.21's descriptors (formats.md §3).
//!
//! Encoding gives TensorFlow's bytes: fields in number order, proto3 defaults omitted,
//! sub-messages and oneof members written when set, repeated numbers packed, and map
//! entries (`NodeDef.attr`, `MetaGraphDef.collection_def`, ...) in the order TensorFlow's
//! deterministic serialization uses. Messages TensorFlow nests that
//! tensorgraph does not interpret (`FunctionDef`, `FullTypeDef`, `SavedObjectGraph`,
//! `GraphDebugInfo`, resource handles) are kept as their serialized bytes, so they
//! round-trip unchanged. Unknown fields are skipped when reading.

mod attr_value;
mod checkpoint_state;
mod config;
mod event;
mod example;
mod function;
mod graph;
mod map_fields;
pub(crate) mod meta_graph;
mod op_def;
mod run_metadata;
mod saved_model;
mod tensor;
pub mod text;
mod types;

pub use attr_value::{AttrValue, ListValue, NameAttrList, Value as AttrValueKind};
pub use checkpoint_state::CheckpointState;
pub use config::{ConfigProto, GraphOptions, RewriterConfig, Toggle};
pub use event::{
    Audio, Event, EventKind, HistogramProto, Image, LogMessage, PluginData, SessionLog, SourceMetadata, Summary,
    SummaryKind, SummaryMetadata, SummaryValue, TaggedRunMetadata, EVENT_FILE_VERSION,
};
pub use example::{Example, Feature, FeatureKind, Features};
pub use function::{FunctionDef, GradientDef};
pub use graph::{
    ExperimentalDebugInfo, FunctionDefLibrary, GraphDef, NodeDef, VersionDef, GRAPH_DEF_VERSION,
    GRAPH_DEF_VERSION_MIN_CONSUMER, GRAPH_DEF_VERSION_MIN_PRODUCER,
};
pub use map_fields::AttrMap;
pub use meta_graph::{
    Any, AnyList, AssetFileDef, BytesList, CollectionDef, CooSparse, Encoding as TensorInfoEncoding, FloatList,
    Int64List, Kind as CollectionKind, MetaGraphDef, MetaInfoDef, NodeList, SaveSliceInfoDef, SaverDef, SignatureDef,
    TensorInfo, VariableDef, SAVER_DEF_V2,
};
pub use op_def::{ArgDef, AttrDef, DtypeAndShape, OpDef, OpDeprecation, OpList};
pub use run_metadata::{
    AllocationDescription, AllocatorMemoryUsed, DeviceStepStats, NodeExecStats, NodeOutput, RunMetadata, RunOptions,
    StepStats, TensorDescription, TraceLevel,
};
pub use saved_model::{SavedModel, SAVED_MODEL_SCHEMA_VERSION};
pub use tensor::{TensorProto, MAX_SPLAT_BYTES};
pub use types::{
    data_type_name, dtype_from_proto, dtype_to_proto, Dim, TensorShapeProto, DT_INVALID, DT_REF_OFFSET, DT_RESOURCE,
    DT_VARIANT,
};
