//! `AttrValue`, `AttrValue.ListValue` and `NameAttrList` (formats.md §3.4), with the
//! conversion to and from tensorgraph's [`graph::AttrValue`](crate::graph::AttrValue).

use super::tensor::TensorProto;
use super::types::{dtype_from_proto, dtype_to_proto, TensorShapeProto};
use super::wire::{self, AttrMap};
use crate::error::{Error, Result};
use crate::graph::AttrValue as GraphAttr;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};
use prost::DecodeError;

/// `tensorflow.AttrValue.ListValue`: a list attr. Only one of the fields is used.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListValue {
    /// `list(string)`
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub s: Vec<Vec<u8>>,
    /// `list(int)`
    #[prost(int64, repeated, tag = "3")]
    pub i: Vec<i64>,
    /// `list(float)`
    #[prost(float, repeated, tag = "4")]
    pub f: Vec<f32>,
    /// `list(bool)`
    #[prost(bool, repeated, tag = "5")]
    pub b: Vec<bool>,
    /// `list(type)`: `DataType` numbers.
    #[prost(int32, repeated, tag = "6")]
    pub r#type: Vec<i32>,
    /// `list(shape)`
    #[prost(message, repeated, tag = "7")]
    pub shape: Vec<TensorShapeProto>,
    /// `list(tensor)`
    #[prost(message, repeated, tag = "8")]
    pub tensor: Vec<TensorProto>,
    /// `list(func)`
    #[prost(message, repeated, tag = "9")]
    pub func: Vec<NameAttrList>,
}

/// The `oneof value` of [`AttrValue`]. Every member is written even when zero. The
/// message members are boxed, keeping an attr map entry small.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Value {
    /// A list of values.
    #[prost(message, boxed, tag = "1")]
    List(Box<ListValue>),
    /// `string` (bytes).
    #[prost(bytes = "vec", tag = "2")]
    S(Vec<u8>),
    /// `int`
    #[prost(int64, tag = "3")]
    I(i64),
    /// `float`
    #[prost(float, tag = "4")]
    F(f32),
    /// `bool`
    #[prost(bool, tag = "5")]
    B(bool),
    /// `type`: a `DataType` number.
    #[prost(int32, tag = "6")]
    Type(i32),
    /// `shape`
    #[prost(message, boxed, tag = "7")]
    Shape(Box<TensorShapeProto>),
    /// `tensor`
    #[prost(message, boxed, tag = "8")]
    Tensor(Box<TensorProto>),
    /// A placeholder naming an attr of the enclosing function (function bodies only).
    #[prost(string, tag = "9")]
    Placeholder(String),
    /// `func`: a function name with attrs.
    #[prost(message, boxed, tag = "10")]
    Func(Box<NameAttrList>),
}

/// `tensorflow.AttrValue`: the value of one attr of a `NodeDef`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttrValue {
    /// The value; `None` only in malformed protos.
    #[prost(oneof = "Value", tags = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10")]
    pub value: Option<Value>,
}

/// `tensorflow.NameAttrList`: a function name and its attrs (`func` attrs).
#[derive(Clone, PartialEq, Default, Debug)]
pub struct NameAttrList {
    /// The function name.
    pub name: String,
    /// Attrs, written in TensorFlow's key order.
    pub attr: AttrMap<AttrValue>,
}

impl prost::Message for NameAttrList {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        if !self.name.is_empty() {
            encoding::string::encode(1, &self.name, buf);
        }
        wire::encode_message_map(2, &self.attr, buf);
    }
    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        match tag {
            1 => encoding::string::merge(wire_type, &mut self.name, buf, ctx),
            2 => wire::merge_attr_map(wire_type, &mut self.attr, buf, ctx),
            _ => encoding::skip_field(wire_type, tag, buf, ctx),
        }
    }
    fn encoded_len(&self) -> usize {
        (if self.name.is_empty() { 0 } else { encoding::string::encoded_len(1, &self.name) })
            + wire::message_map_len(2, &self.attr)
    }
    fn clear(&mut self) {
        *self = Self::default();
    }
}

impl AttrValue {
    /// An attr holding `v`.
    pub fn new(v: Value) -> Self {
        AttrValue { value: Some(v) }
    }

    /// The proto of a tensorgraph attr value.
    pub fn from_graph(v: &GraphAttr) -> AttrValue {
        let list = |l: ListValue| AttrValue::new(Value::List(Box::new(l)));
        match v {
            GraphAttr::String(s) => AttrValue::new(Value::S(s.clone())),
            GraphAttr::Int(i) => AttrValue::new(Value::I(*i)),
            GraphAttr::Float(f) => AttrValue::new(Value::F(*f)),
            GraphAttr::Bool(b) => AttrValue::new(Value::B(*b)),
            GraphAttr::Type(t) => AttrValue::new(Value::Type(dtype_to_proto(*t))),
            GraphAttr::Shape(s) => AttrValue::new(Value::Shape(Box::new(TensorShapeProto::from_shape(s)))),
            GraphAttr::Tensor(t) => AttrValue::new(Value::Tensor(Box::new(TensorProto::from_tensor(t)))),
            GraphAttr::ListString(v) => list(ListValue { s: v.clone(), ..Default::default() }),
            GraphAttr::ListInt(v) => list(ListValue { i: v.clone(), ..Default::default() }),
            GraphAttr::ListFloat(v) => list(ListValue { f: v.clone(), ..Default::default() }),
            GraphAttr::ListType(v) => {
                list(ListValue { r#type: v.iter().map(|d| dtype_to_proto(*d)).collect(), ..Default::default() })
            }
            GraphAttr::ListShape(v) => {
                list(ListValue { shape: v.iter().map(TensorShapeProto::from_shape).collect(), ..Default::default() })
            }
        }
    }

    /// The tensorgraph attr value. An empty list (`list {}`, whose element type the wire
    /// does not tell) becomes an empty `ListString`.
    /// Errors: `Unimplemented` for kinds tensorgraph's attrs cannot hold (`func`,
    /// `placeholder`, `list(bool)`, `list(tensor)`, `list(func)`) and for dtypes it lacks;
    /// `InvalidArgument` for an attr without a value, a list mixing kinds, or a bad
    /// shape or tensor.
    pub fn to_graph(&self) -> Result<GraphAttr> {
        Ok(match &self.value {
            None => return Err(Error::invalid_argument("AttrValue has no value set")),
            Some(Value::S(s)) => GraphAttr::String(s.clone()),
            Some(Value::I(i)) => GraphAttr::Int(*i),
            Some(Value::F(f)) => GraphAttr::Float(*f),
            Some(Value::B(b)) => GraphAttr::Bool(*b),
            Some(Value::Type(t)) => GraphAttr::Type(dtype_from_proto(*t)?),
            Some(Value::Shape(s)) => GraphAttr::Shape(s.to_shape()?),
            Some(Value::Tensor(t)) => GraphAttr::Tensor(t.to_tensor()?),
            Some(Value::Placeholder(p)) => {
                return Err(Error::unimplemented(format!(
                    "attr placeholders (placeholder: \"{p}\") are not supported by tensorgraph"
                )))
            }
            Some(Value::Func(f)) => {
                return Err(Error::unimplemented(format!(
                    "function-valued attrs (func: \"{}\") are not supported by tensorgraph",
                    f.name
                )))
            }
            Some(Value::List(l)) => {
                let kinds = [
                    ("s", l.s.len()),
                    ("i", l.i.len()),
                    ("f", l.f.len()),
                    ("b", l.b.len()),
                    ("type", l.r#type.len()),
                    ("shape", l.shape.len()),
                    ("tensor", l.tensor.len()),
                    ("func", l.func.len()),
                ];
                let used: Vec<&str> = kinds.iter().filter(|k| k.1 > 0).map(|k| k.0).collect();
                match used.as_slice() {
                    [] => GraphAttr::ListString(Vec::new()),
                    ["s"] => GraphAttr::ListString(l.s.clone()),
                    ["i"] => GraphAttr::ListInt(l.i.clone()),
                    ["f"] => GraphAttr::ListFloat(l.f.clone()),
                    ["type"] => {
                        GraphAttr::ListType(l.r#type.iter().map(|t| dtype_from_proto(*t)).collect::<Result<_>>()?)
                    }
                    ["shape"] => GraphAttr::ListShape(l.shape.iter().map(|s| s.to_shape()).collect::<Result<_>>()?),
                    [k] => {
                        return Err(Error::unimplemented(format!(
                            "list({}) attrs are not supported by tensorgraph",
                            match *k {
                                "b" => "bool",
                                other => other,
                            }
                        )))
                    }
                    _ => {
                        return Err(Error::invalid_argument(format!(
                            "AttrValue list mixes several kinds of values ({})",
                            used.join(", ")
                        )))
                    }
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::{DType, Shape, Tensor};
    use prost::Message;

    #[test]
    fn zero_values_are_written() {
        assert_eq!(AttrValue::new(Value::I(0)).encode_to_vec(), [0x18, 0x00]);
        assert_eq!(AttrValue::new(Value::B(false)).encode_to_vec(), [0x28, 0x00]);
        assert_eq!(AttrValue::new(Value::S(vec![])).encode_to_vec(), [0x12, 0x00]);
        assert_eq!(AttrValue::new(Value::List(Box::default())).encode_to_vec(), [0x0a, 0x00]);
    }

    #[test]
    fn graph_attrs_round_trip() {
        let vals = [
            GraphAttr::String(b"x".to_vec()),
            GraphAttr::Int(-3),
            GraphAttr::Float(0.5),
            GraphAttr::Bool(true),
            GraphAttr::Type(DType::Half),
            GraphAttr::Shape(Shape::partial(&[None, Some(2)])),
            GraphAttr::Tensor(Tensor::new(&[2], vec![1i32, 2]).unwrap()),
            GraphAttr::ListString(vec![b"loc:@v1".to_vec()]),
            GraphAttr::ListInt(vec![1, 2]),
            GraphAttr::ListFloat(vec![1.5]),
            GraphAttr::ListType(vec![DType::Float, DType::Int64]),
            GraphAttr::ListShape(vec![Shape::unknown(), Shape::scalar()]),
        ];
        for v in vals {
            let p = AttrValue::from_graph(&v);
            let back = AttrValue::decode(p.encode_to_vec().as_slice()).unwrap();
            assert_eq!(back.to_graph().unwrap(), v);
        }
        let f = AttrValue::new(Value::Func(Box::new(NameAttrList { name: "f".into(), attr: AttrMap::new() })));
        assert_eq!(f.to_graph().unwrap_err().code, crate::Code::Unimplemented);
        let mixed = AttrValue::new(Value::List(Box::new(ListValue { i: vec![1], f: vec![1.0], ..Default::default() })));
        assert_eq!(mixed.to_graph().unwrap_err().code, crate::Code::InvalidArgument);
    }
}
