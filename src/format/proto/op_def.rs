//! `OpDef` and `OpList` (formats.md §3.7), as found in `MetaInfoDef.stripped_op_list`.

use super::attr_value::AttrValue;
use super::types::TensorShapeProto;

/// `ResourceHandleProto.DtypeAndShape`: dtype and shape of a resource's value.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DtypeAndShape {
    /// `DataType` number.
    #[prost(int32, tag = "1")]
    pub dtype: i32,
    /// The shape.
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
}

/// `OpDef.ArgDef`: one input or output argument of an op.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ArgDef {
    /// Argument name (`ref`, `value`).
    #[prost(string, tag = "1")]
    pub name: String,
    /// Human-readable description (stripped in `.meta` files).
    #[prost(string, tag = "2")]
    pub description: String,
    /// Fixed `DataType` number, when the type is not an attr.
    #[prost(int32, tag = "3")]
    pub r#type: i32,
    /// Name of the `type` attr giving the dtype (`T`, `dtype`).
    #[prost(string, tag = "4")]
    pub type_attr: String,
    /// Name of the `int` attr giving the number of tensors (`N`).
    #[prost(string, tag = "5")]
    pub number_attr: String,
    /// Name of the `list(type)` attr giving the dtypes (`dtypes`).
    #[prost(string, tag = "6")]
    pub type_list_attr: String,
    /// Resource handle data.
    #[prost(message, repeated, tag = "7")]
    pub handle_data: Vec<DtypeAndShape>,
    /// True for reference arguments (`VariableV2`'s `ref`).
    #[prost(bool, tag = "16")]
    pub is_ref: bool,
    /// A serialized `FullTypeDef`, passed through.
    #[prost(bytes = "vec", optional, tag = "17")]
    pub experimental_full_type: Option<Vec<u8>>,
}

/// `OpDef.AttrDef`: one attr an op declares.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttrDef {
    /// Attr name (`T`, `transpose_a`).
    #[prost(string, tag = "1")]
    pub name: String,
    /// Attr type (`"type"`, `"shape"`, `"list(type)"`, `"int"`, ...).
    #[prost(string, tag = "2")]
    pub r#type: String,
    /// Default value, when the attr may be omitted.
    #[prost(message, optional, tag = "3")]
    pub default_value: Option<AttrValue>,
    /// Human-readable description (stripped in `.meta` files).
    #[prost(string, tag = "4")]
    pub description: String,
    /// True when `minimum` applies.
    #[prost(bool, tag = "5")]
    pub has_minimum: bool,
    /// Minimum int value or list length.
    #[prost(int64, tag = "6")]
    pub minimum: i64,
    /// Allowed values (for `type` attrs, a `list(type)`).
    #[prost(message, optional, tag = "7")]
    pub allowed_values: Option<AttrValue>,
}

/// `OpDeprecation`: since which GraphDef version an op is deprecated.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct OpDeprecation {
    /// First GraphDef version in which the op is refused.
    #[prost(int32, tag = "1")]
    pub version: i32,
    /// What to use instead.
    #[prost(string, tag = "2")]
    pub explanation: String,
}

/// `tensorflow.OpDef`: the signature of an op type.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OpDef {
    /// Op type name (`MatMul`).
    #[prost(string, tag = "1")]
    pub name: String,
    /// Inputs.
    #[prost(message, repeated, tag = "2")]
    pub input_arg: Vec<ArgDef>,
    /// Outputs.
    #[prost(message, repeated, tag = "3")]
    pub output_arg: Vec<ArgDef>,
    /// Attrs.
    #[prost(message, repeated, tag = "4")]
    pub attr: Vec<AttrDef>,
    /// One-line summary (stripped in `.meta` files).
    #[prost(string, tag = "5")]
    pub summary: String,
    /// Description (stripped in `.meta` files).
    #[prost(string, tag = "6")]
    pub description: String,
    /// Deprecation, if any.
    #[prost(message, optional, tag = "8")]
    pub deprecation: Option<OpDeprecation>,
    /// True for ops like `AddN` whose inputs may be combined.
    #[prost(bool, tag = "16")]
    pub is_aggregate: bool,
    /// True for ops with side effects or randomness (`VariableV2`, `Assign`).
    #[prost(bool, tag = "17")]
    pub is_stateful: bool,
    /// True for commutative binary ops.
    #[prost(bool, tag = "18")]
    pub is_commutative: bool,
    /// True when uninitialized reference inputs are allowed (`Assign`).
    #[prost(bool, tag = "19")]
    pub allows_uninitialized_input: bool,
    /// Control outputs (function ops).
    #[prost(string, repeated, tag = "20")]
    pub control_output: Vec<String>,
    /// True for collective communication ops.
    #[prost(bool, tag = "21")]
    pub is_distributed_communication: bool,
}

/// `tensorflow.OpList`: a list of op signatures.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OpList {
    /// The ops (sorted by name in a `stripped_op_list`).
    #[prost(message, repeated, tag = "1")]
    pub op: Vec<OpDef>,
}
