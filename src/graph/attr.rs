//! `AttrValue`: the value of an op attribute (TensorFlow's `AttrValue` proto, in Rust).

use crate::tensor::{DType, Shape, Tensor};
use litemap::LiteMap;

/// The attrs of one op, by name, sorted by name: a map kept in one small vector (ops have
/// a handful of attrs), with `BTreeMap`'s interface (`get`, `insert`, `iter`, ...).
pub type Attrs = LiteMap<String, AttrValue>;

/// An op attribute value, as in TensorFlow's `attr_value.proto`.
#[derive(Debug, Clone, PartialEq)]
pub enum AttrValue {
    /// `s`: bytes (TensorFlow strings are bytes).
    String(Vec<u8>),
    /// `i`: a 64-bit integer.
    Int(i64),
    /// `f`: a 32-bit float.
    Float(f32),
    /// `b`: a boolean.
    Bool(bool),
    /// `type`: a dtype.
    Type(DType),
    /// `shape`: a possibly partial shape.
    Shape(Shape),
    /// `tensor`: a constant tensor.
    Tensor(Tensor),
    /// `list.s`
    ListString(Vec<Vec<u8>>),
    /// `list.i`
    ListInt(Vec<i64>),
    /// `list.f`
    ListFloat(Vec<f32>),
    /// `list.type`
    ListType(Vec<DType>),
    /// `list.shape`
    ListShape(Vec<Shape>),
    /// A value kept exactly as TensorFlow's `AttrValue` proto message, uninterpreted: the
    /// attrs of an imported node whose op type tensorgraph does not register (see
    /// [`Graph::unknown_ops`](crate::Graph::unknown_ops)), so that exporting the graph
    /// writes them back unchanged.
    Unparsed(Box<crate::format::proto::AttrValue>),
}

impl AttrValue {
    /// The `_class` attr value colocating an op with the op `name` (`[b"loc:@name"]`),
    /// as TensorFlow gives a variable's `Assign` and `read`.
    pub fn colocation(name: &str) -> AttrValue {
        AttrValue::ListString(vec![format!("loc:@{name}").into_bytes()])
    }
}

impl From<DType> for AttrValue {
    fn from(v: DType) -> Self {
        AttrValue::Type(v)
    }
}
impl From<bool> for AttrValue {
    fn from(v: bool) -> Self {
        AttrValue::Bool(v)
    }
}
impl From<i64> for AttrValue {
    fn from(v: i64) -> Self {
        AttrValue::Int(v)
    }
}
impl From<f32> for AttrValue {
    fn from(v: f32) -> Self {
        AttrValue::Float(v)
    }
}
impl From<&str> for AttrValue {
    fn from(v: &str) -> Self {
        AttrValue::String(v.as_bytes().to_vec())
    }
}
impl From<Shape> for AttrValue {
    fn from(v: Shape) -> Self {
        AttrValue::Shape(v)
    }
}
impl From<Tensor> for AttrValue {
    fn from(v: Tensor) -> Self {
        AttrValue::Tensor(v)
    }
}
