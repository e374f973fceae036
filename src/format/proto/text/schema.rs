//! Field tables ("descriptors") of the TensorFlow messages the text format covers: for each
//! message its fields' names, numbers, types and presence, as in TensorFlow 2.21's `.proto`
//! files (formats.md §3). Messages the Rust structs keep as serialized bytes
//! (`FunctionDef`, `FullTypeDef`, `GraphDebugInfo`, resource handles, variants) are
//! described too, so their text form is TensorFlow's.

use super::super::types::data_type_name;

/// How often a field occurs and whether an unset value is distinguishable from its default.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Card {
    /// proto3 singular scalar: the default (0, "", false) is not written.
    Implicit,
    /// A singular sub-message (or `optional` scalar): written whenever set.
    Optional,
    /// Member of the `oneof` with this index (per message): written whenever set, and
    /// setting it clears the other members.
    Oneof(u8),
    /// `repeated` (numbers packed on the wire); map fields are repeated entry messages.
    Repeated,
}

/// The type of a field.
#[derive(Clone, Copy)]
pub(crate) enum Type {
    Int32,
    Int64,
    UInt32,
    UInt64,
    Fixed64,
    Bool,
    Float,
    Double,
    String,
    Bytes,
    Enum(&'static EnumDesc),
    Message(&'static MessageDesc),
    /// A message whose fields are not described (`SavedObjectGraph`, `TypeSpecProto`):
    /// its text form is not implemented.
    Opaque(&'static str),
}

/// One field of a message.
pub(crate) struct Field {
    pub name: &'static str,
    pub number: u32,
    pub ty: Type,
    pub card: Card,
}

/// A message: its full name (for error messages) and fields in field-number order.
pub(crate) struct MessageDesc {
    pub name: &'static str,
    pub fields: &'static [Field],
    /// True for the synthetic entry message of a map field (key = 1, value = 2).
    pub map_entry: bool,
}

impl MessageDesc {
    /// The field called `name`.
    pub fn field_named(&self, name: &str) -> Option<&'static Field> {
        let fields: &'static [Field] = self.fields;
        fields.iter().find(|f| f.name == name)
    }

    /// The field numbered `number`.
    pub fn field_numbered(&self, number: u32) -> Option<&'static Field> {
        let fields: &'static [Field] = self.fields;
        fields.iter().find(|f| f.number == number)
    }
}

/// An enum type: names by number.
pub(crate) enum EnumDesc {
    /// Explicit `(name, number)` pairs.
    Table(&'static [(&'static str, i32)]),
    /// `tensorflow.DataType` (with the `_REF` values), via [`data_type_name`].
    DataType,
}

impl EnumDesc {
    /// The name of `v`, `None` when the enum does not define it (then it is written as a
    /// number, like Python's `text_format`).
    pub fn name(&self, v: i32) -> Option<std::string::String> {
        match self {
            EnumDesc::Table(t) => t.iter().find(|e| e.1 == v).map(|e| e.0.to_string()),
            EnumDesc::DataType => Some(data_type_name(v)).filter(|n| !n.starts_with("DataType(")),
        }
    }

    /// The number of the value called `name`.
    pub fn number(&self, name: &str) -> Option<i32> {
        match self {
            EnumDesc::Table(t) => t.iter().find(|e| e.0 == name).map(|e| e.1),
            EnumDesc::DataType => (0..34).chain(101..134).find(|&v| data_type_name(v) == name),
        }
    }
}

macro_rules! f {
    ($name:literal, $num:literal, $ty:expr, $card:expr) => {
        Field { name: $name, number: $num, ty: $ty, card: $card }
    };
}
macro_rules! message {
    ($id:ident, $name:literal, [$($field:expr),* $(,)?]) => {
        pub(crate) static $id: MessageDesc = MessageDesc { name: $name, fields: &[$($field),*], map_entry: false };
    };
}
macro_rules! map_entry {
    ($id:ident, $name:literal, $key:expr, $value:expr) => {
        pub(crate) static $id: MessageDesc = MessageDesc {
            name: $name,
            fields: &[
                Field { name: "key", number: 1, ty: $key, card: Card::Implicit },
                Field {
                    name: "value",
                    number: 2,
                    ty: $value,
                    card: if matches!($value, Type::Message(_)) { Card::Optional } else { Card::Implicit },
                },
            ],
            map_entry: true,
        };
    };
}

use Card::{Implicit as I, Oneof as O, Optional as Opt, Repeated as R};
use Type::*;

static DATA_TYPE: EnumDesc = EnumDesc::DataType;

static FULL_TYPE_ID: EnumDesc = EnumDesc::Table(&[
    ("TFT_UNSET", 0),
    ("TFT_VAR", 1),
    ("TFT_ANY", 2),
    ("TFT_PRODUCT", 3),
    ("TFT_NAMED", 4),
    ("TFT_FOR_EACH", 20),
    ("TFT_CALLABLE", 100),
    ("TFT_TENSOR", 1000),
    ("TFT_ARRAY", 1001),
    ("TFT_OPTIONAL", 1002),
    ("TFT_LITERAL", 1003),
    ("TFT_ENCODED", 1004),
    ("TFT_SHAPE_TENSOR", 1005),
    ("TFT_BOOL", 200),
    ("TFT_UINT8", 201),
    ("TFT_UINT16", 202),
    ("TFT_UINT32", 203),
    ("TFT_UINT64", 204),
    ("TFT_INT8", 205),
    ("TFT_INT16", 206),
    ("TFT_INT32", 207),
    ("TFT_INT64", 208),
    ("TFT_HALF", 209),
    ("TFT_FLOAT", 210),
    ("TFT_DOUBLE", 211),
    ("TFT_BFLOAT16", 215),
    ("TFT_COMPLEX64", 212),
    ("TFT_COMPLEX128", 213),
    ("TFT_STRING", 214),
    ("TFT_DATASET", 10102),
    ("TFT_RAGGED", 10103),
    ("TFT_ITERATOR", 10104),
    ("TFT_MUTEX_LOCK", 10202),
    ("TFT_LEGACY_VARIANT", 10203),
]);

static CHECKPOINT_FORMAT_VERSION: EnumDesc = EnumDesc::Table(&[("LEGACY", 0), ("V1", 1), ("V2", 2)]);

// tensor_shape.proto
message!(DIM, "tensorflow.TensorShapeProto.Dim", [f!("size", 1, Int64, I), f!("name", 2, String, I)]);
message!(
    TENSOR_SHAPE,
    "tensorflow.TensorShapeProto",
    [f!("dim", 2, Message(&DIM), R), f!("unknown_rank", 3, Bool, I),]
);

// full_type.proto
message!(
    FULL_TYPE_DEF,
    "tensorflow.FullTypeDef",
    [
        f!("type_id", 1, Enum(&FULL_TYPE_ID), I),
        f!("args", 2, Message(&FULL_TYPE_DEF), R),
        f!("s", 3, String, O(0)),
        f!("i", 4, Int64, O(0)),
    ]
);

// resource_handle.proto
message!(
    DTYPE_AND_SHAPE,
    "tensorflow.ResourceHandleProto.DtypeAndShape",
    [
        f!("dtype", 1, Enum(&DATA_TYPE), I),
        f!("shape", 2, Message(&TENSOR_SHAPE), Opt),
        f!("type", 4, Message(&FULL_TYPE_DEF), Opt),
    ]
);
message!(
    RESOURCE_HANDLE,
    "tensorflow.ResourceHandleProto",
    [
        f!("device", 1, String, I),
        f!("container", 2, String, I),
        f!("name", 3, String, I),
        f!("hash_code", 4, UInt64, I),
        f!("maybe_type_name", 5, String, I),
        f!("dtypes_and_shapes", 6, Message(&DTYPE_AND_SHAPE), R),
    ]
);

// tensor.proto
message!(
    VARIANT_TENSOR_DATA,
    "tensorflow.VariantTensorDataProto",
    [f!("type_name", 1, String, I), f!("metadata", 2, Bytes, I), f!("tensors", 3, Message(&TENSOR), R),]
);
message!(
    TENSOR,
    "tensorflow.TensorProto",
    [
        f!("dtype", 1, Enum(&DATA_TYPE), I),
        f!("tensor_shape", 2, Message(&TENSOR_SHAPE), Opt),
        f!("version_number", 3, Int32, I),
        f!("tensor_content", 4, Bytes, I),
        f!("float_val", 5, Float, R),
        f!("double_val", 6, Double, R),
        f!("int_val", 7, Int32, R),
        f!("string_val", 8, Bytes, R),
        f!("scomplex_val", 9, Float, R),
        f!("int64_val", 10, Int64, R),
        f!("bool_val", 11, Bool, R),
        f!("dcomplex_val", 12, Double, R),
        f!("half_val", 13, Int32, R),
        f!("resource_handle_val", 14, Message(&RESOURCE_HANDLE), R),
        f!("variant_val", 15, Message(&VARIANT_TENSOR_DATA), R),
        f!("uint32_val", 16, UInt32, R),
        f!("uint64_val", 17, UInt64, R),
        f!("float8_val", 18, Bytes, I),
    ]
);

// attr_value.proto
message!(
    LIST_VALUE,
    "tensorflow.AttrValue.ListValue",
    [
        f!("s", 2, Bytes, R),
        f!("i", 3, Int64, R),
        f!("f", 4, Float, R),
        f!("b", 5, Bool, R),
        f!("type", 6, Enum(&DATA_TYPE), R),
        f!("shape", 7, Message(&TENSOR_SHAPE), R),
        f!("tensor", 8, Message(&TENSOR), R),
        f!("func", 9, Message(&NAME_ATTR_LIST), R),
    ]
);
message!(
    ATTR_VALUE,
    "tensorflow.AttrValue",
    [
        f!("list", 1, Message(&LIST_VALUE), O(0)),
        f!("s", 2, Bytes, O(0)),
        f!("i", 3, Int64, O(0)),
        f!("f", 4, Float, O(0)),
        f!("b", 5, Bool, O(0)),
        f!("type", 6, Enum(&DATA_TYPE), O(0)),
        f!("shape", 7, Message(&TENSOR_SHAPE), O(0)),
        f!("tensor", 8, Message(&TENSOR), O(0)),
        f!("placeholder", 9, String, O(0)),
        f!("func", 10, Message(&NAME_ATTR_LIST), O(0)),
    ]
);
map_entry!(ATTR_ENTRY, "tensorflow.AttrEntry", String, Message(&ATTR_VALUE));
message!(
    NAME_ATTR_LIST,
    "tensorflow.NameAttrList",
    [f!("name", 1, String, I), f!("attr", 2, Message(&ATTR_ENTRY), R),]
);

// node_def.proto
message!(
    EXPERIMENTAL_DEBUG_INFO,
    "tensorflow.NodeDef.ExperimentalDebugInfo",
    [f!("original_node_names", 1, String, R), f!("original_func_names", 2, String, R),]
);
message!(
    NODE_DEF,
    "tensorflow.NodeDef",
    [
        f!("name", 1, String, I),
        f!("op", 2, String, I),
        f!("input", 3, String, R),
        f!("device", 4, String, I),
        f!("attr", 5, Message(&ATTR_ENTRY), R),
        f!("experimental_debug_info", 6, Message(&EXPERIMENTAL_DEBUG_INFO), Opt),
        f!("experimental_type", 7, Message(&FULL_TYPE_DEF), Opt),
    ]
);

// op_def.proto
message!(
    ARG_DEF,
    "tensorflow.OpDef.ArgDef",
    [
        f!("name", 1, String, I),
        f!("description", 2, String, I),
        f!("type", 3, Enum(&DATA_TYPE), I),
        f!("type_attr", 4, String, I),
        f!("number_attr", 5, String, I),
        f!("type_list_attr", 6, String, I),
        f!("handle_data", 7, Message(&DTYPE_AND_SHAPE), R),
        f!("is_ref", 16, Bool, I),
        f!("experimental_full_type", 17, Message(&FULL_TYPE_DEF), Opt),
    ]
);
message!(
    ATTR_DEF,
    "tensorflow.OpDef.AttrDef",
    [
        f!("name", 1, String, I),
        f!("type", 2, String, I),
        f!("default_value", 3, Message(&ATTR_VALUE), Opt),
        f!("description", 4, String, I),
        f!("has_minimum", 5, Bool, I),
        f!("minimum", 6, Int64, I),
        f!("allowed_values", 7, Message(&ATTR_VALUE), Opt),
    ]
);
message!(OP_DEPRECATION, "tensorflow.OpDeprecation", [f!("version", 1, Int32, I), f!("explanation", 2, String, I),]);
message!(
    OP_DEF,
    "tensorflow.OpDef",
    [
        f!("name", 1, String, I),
        f!("input_arg", 2, Message(&ARG_DEF), R),
        f!("output_arg", 3, Message(&ARG_DEF), R),
        f!("attr", 4, Message(&ATTR_DEF), R),
        f!("summary", 5, String, I),
        f!("description", 6, String, I),
        f!("deprecation", 8, Message(&OP_DEPRECATION), Opt),
        f!("is_aggregate", 16, Bool, I),
        f!("is_stateful", 17, Bool, I),
        f!("is_commutative", 18, Bool, I),
        f!("allows_uninitialized_input", 19, Bool, I),
        f!("control_output", 20, String, R),
        f!("is_distributed_communication", 21, Bool, I),
    ]
);
message!(OP_LIST, "tensorflow.OpList", [f!("op", 1, Message(&OP_DEF), R)]);

// function.proto
message!(ARG_ATTRS, "tensorflow.FunctionDef.ArgAttrs", [f!("attr", 1, Message(&ATTR_ENTRY), R)]);
map_entry!(ARG_ATTR_ENTRY, "tensorflow.FunctionDef.ArgAttrEntry", UInt32, Message(&ARG_ATTRS));
map_entry!(RESOURCE_ARG_ENTRY, "tensorflow.FunctionDef.ResourceArgUniqueIdEntry", UInt32, UInt32);
map_entry!(STRING_STRING_ENTRY, "tensorflow.StringStringEntry", String, String);
message!(
    FUNCTION_DEF,
    "tensorflow.FunctionDef",
    [
        f!("signature", 1, Message(&OP_DEF), Opt),
        f!("node_def", 3, Message(&NODE_DEF), R),
        f!("ret", 4, Message(&STRING_STRING_ENTRY), R),
        f!("attr", 5, Message(&ATTR_ENTRY), R),
        f!("control_ret", 6, Message(&STRING_STRING_ENTRY), R),
        f!("arg_attr", 7, Message(&ARG_ATTR_ENTRY), R),
        f!("resource_arg_unique_id", 8, Message(&RESOURCE_ARG_ENTRY), R),
    ]
);
message!(
    GRADIENT_DEF,
    "tensorflow.GradientDef",
    [f!("function_name", 1, String, I), f!("gradient_func", 2, String, I),]
);
message!(
    REGISTERED_GRADIENT,
    "tensorflow.RegisteredGradient",
    [f!("gradient_func", 1, String, I), f!("registered_op_type", 2, String, I),]
);
message!(
    FUNCTION_DEF_LIBRARY,
    "tensorflow.FunctionDefLibrary",
    [
        f!("function", 1, Message(&FUNCTION_DEF), R),
        f!("gradient", 2, Message(&GRADIENT_DEF), R),
        f!("registered_gradients", 3, Message(&REGISTERED_GRADIENT), R),
    ]
);

// graph_debug_info.proto
message!(
    FILE_LINE_COL,
    "tensorflow.GraphDebugInfo.FileLineCol",
    [
        f!("file_index", 1, Int32, Opt),
        f!("line", 2, Int32, Opt),
        f!("col", 3, Int32, Opt),
        f!("func", 4, String, Opt),
        f!("code", 5, String, Opt),
    ]
);
message!(
    STACK_TRACE,
    "tensorflow.GraphDebugInfo.StackTrace",
    [f!("file_line_cols", 1, Message(&FILE_LINE_COL), R), f!("frame_id", 2, Fixed64, R),]
);
map_entry!(FRAMES_BY_ID_ENTRY, "tensorflow.GraphDebugInfo.FramesByIdEntry", Fixed64, Message(&FILE_LINE_COL));
map_entry!(TRACES_BY_ID_ENTRY, "tensorflow.GraphDebugInfo.TracesByIdEntry", Fixed64, Message(&STACK_TRACE));
map_entry!(TRACES_ENTRY, "tensorflow.GraphDebugInfo.TracesEntry", String, Message(&STACK_TRACE));
map_entry!(NAME_TO_TRACE_ID_ENTRY, "tensorflow.GraphDebugInfo.NameToTraceIdEntry", String, Fixed64);
message!(
    GRAPH_DEBUG_INFO,
    "tensorflow.GraphDebugInfo",
    [
        f!("files", 1, String, R),
        f!("traces", 2, Message(&TRACES_ENTRY), R),
        f!("frames_by_id", 4, Message(&FRAMES_BY_ID_ENTRY), R),
        f!("name_to_trace_id", 5, Message(&NAME_TO_TRACE_ID_ENTRY), R),
        f!("traces_by_id", 6, Message(&TRACES_BY_ID_ENTRY), R),
    ]
);

// graph.proto, versions.proto
message!(
    VERSION_DEF,
    "tensorflow.VersionDef",
    [f!("producer", 1, Int32, I), f!("min_consumer", 2, Int32, I), f!("bad_consumers", 3, Int32, R),]
);
message!(
    GRAPH_DEF,
    "tensorflow.GraphDef",
    [
        f!("node", 1, Message(&NODE_DEF), R),
        f!("library", 2, Message(&FUNCTION_DEF_LIBRARY), Opt),
        f!("version", 3, Int32, I),
        f!("versions", 4, Message(&VERSION_DEF), Opt),
        f!("debug_info", 5, Message(&GRAPH_DEBUG_INFO), Opt),
    ]
);

// meta_graph.proto, saver.proto
message!(ANY, "google.protobuf.Any", [f!("type_url", 1, String, I), f!("value", 2, Bytes, I)]);
message!(
    META_INFO_DEF,
    "tensorflow.MetaGraphDef.MetaInfoDef",
    [
        f!("meta_graph_version", 1, String, I),
        f!("stripped_op_list", 2, Message(&OP_LIST), Opt),
        f!("any_info", 3, Message(&ANY), Opt),
        f!("tags", 4, String, R),
        f!("tensorflow_version", 5, String, I),
        f!("tensorflow_git_version", 6, String, I),
        f!("stripped_default_attrs", 7, Bool, I),
        f!("function_aliases", 8, Message(&STRING_STRING_ENTRY), R),
    ]
);
message!(
    SAVER_DEF,
    "tensorflow.SaverDef",
    [
        f!("filename_tensor_name", 1, String, I),
        f!("save_tensor_name", 2, String, I),
        f!("restore_op_name", 3, String, I),
        f!("max_to_keep", 4, Int32, I),
        f!("sharded", 5, Bool, I),
        f!("keep_checkpoint_every_n_hours", 6, Float, I),
        f!("version", 7, Enum(&CHECKPOINT_FORMAT_VERSION), I),
    ]
);
message!(NODE_LIST, "tensorflow.CollectionDef.NodeList", [f!("value", 1, String, R)]);
message!(BYTES_LIST, "tensorflow.CollectionDef.BytesList", [f!("value", 1, Bytes, R)]);
message!(INT64_LIST, "tensorflow.CollectionDef.Int64List", [f!("value", 1, Int64, R)]);
message!(FLOAT_LIST, "tensorflow.CollectionDef.FloatList", [f!("value", 1, Float, R)]);
message!(ANY_LIST, "tensorflow.CollectionDef.AnyList", [f!("value", 1, Message(&ANY), R)]);
message!(
    COLLECTION_DEF,
    "tensorflow.CollectionDef",
    [
        f!("node_list", 1, Message(&NODE_LIST), O(0)),
        f!("bytes_list", 2, Message(&BYTES_LIST), O(0)),
        f!("int64_list", 3, Message(&INT64_LIST), O(0)),
        f!("float_list", 4, Message(&FLOAT_LIST), O(0)),
        f!("any_list", 5, Message(&ANY_LIST), O(0)),
    ]
);
message!(
    COO_SPARSE,
    "tensorflow.TensorInfo.CooSparse",
    [
        f!("values_tensor_name", 1, String, I),
        f!("indices_tensor_name", 2, String, I),
        f!("dense_shape_tensor_name", 3, String, I),
    ]
);
message!(
    TENSOR_INFO,
    "tensorflow.TensorInfo",
    [
        f!("name", 1, String, O(0)),
        f!("dtype", 2, Enum(&DATA_TYPE), I),
        f!("tensor_shape", 3, Message(&TENSOR_SHAPE), Opt),
        f!("coo_sparse", 4, Message(&COO_SPARSE), O(0)),
        f!("composite_tensor", 5, Opaque("tensorflow.TensorInfo.CompositeTensor"), O(0)),
    ]
);
map_entry!(TENSOR_INFO_ENTRY, "tensorflow.SignatureDef.TensorInfoEntry", String, Message(&TENSOR_INFO));
map_entry!(TENSOR_ENTRY, "tensorflow.SignatureDef.DefaultsEntry", String, Message(&TENSOR));
message!(
    SIGNATURE_DEF,
    "tensorflow.SignatureDef",
    [
        f!("inputs", 1, Message(&TENSOR_INFO_ENTRY), R),
        f!("outputs", 2, Message(&TENSOR_INFO_ENTRY), R),
        f!("method_name", 3, String, I),
        f!("defaults", 4, Message(&TENSOR_ENTRY), R),
    ]
);
message!(
    ASSET_FILE_DEF,
    "tensorflow.AssetFileDef",
    [f!("tensor_info", 1, Message(&TENSOR_INFO), Opt), f!("filename", 2, String, I),]
);
map_entry!(COLLECTION_ENTRY, "tensorflow.MetaGraphDef.CollectionDefEntry", String, Message(&COLLECTION_DEF));
map_entry!(SIGNATURE_ENTRY, "tensorflow.MetaGraphDef.SignatureDefEntry", String, Message(&SIGNATURE_DEF));
message!(
    META_GRAPH_DEF,
    "tensorflow.MetaGraphDef",
    [
        f!("meta_info_def", 1, Message(&META_INFO_DEF), Opt),
        f!("graph_def", 2, Message(&GRAPH_DEF), Opt),
        f!("saver_def", 3, Message(&SAVER_DEF), Opt),
        f!("collection_def", 4, Message(&COLLECTION_ENTRY), R),
        f!("signature_def", 5, Message(&SIGNATURE_ENTRY), R),
        f!("asset_file_def", 6, Message(&ASSET_FILE_DEF), R),
        f!("object_graph_def", 7, Opaque("tensorflow.SavedObjectGraph"), Opt),
    ]
);

// saved_model.proto
message!(
    SAVED_MODEL,
    "tensorflow.SavedModel",
    [f!("saved_model_schema_version", 1, Int64, I), f!("meta_graphs", 2, Message(&META_GRAPH_DEF), R),]
);

message!(
    CHECKPOINT_STATE,
    "tensorflow.CheckpointState",
    [
        f!("model_checkpoint_path", 1, String, I),
        f!("all_model_checkpoint_paths", 2, String, R),
        f!("all_model_checkpoint_timestamps", 3, Double, R),
        f!("last_preserved_timestamp", 4, Double, I),
    ]
);
