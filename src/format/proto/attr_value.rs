//! `AttrValue`, `AttrValue.ListValue` and `NameAttrList` (formats.md §3.4). The graph
//! layer converts them to and from its own attr values (`graph/attr_proto.rs`).

use super::map_fields::{self, AttrMap};
use super::tensor::TensorProto;
use super::types::TensorShapeProto;
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
        map_fields::encode_message_map(2, &self.attr, buf);
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
            2 => map_fields::merge_attr_map(wire_type, &mut self.attr, buf, ctx),
            _ => encoding::skip_field(wire_type, tag, buf, ctx),
        }
    }
    fn encoded_len(&self) -> usize {
        (if self.name.is_empty() { 0 } else { encoding::string::encoded_len(1, &self.name) })
            + map_fields::message_map_len(2, &self.attr)
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn zero_values_are_written() {
        assert_eq!(AttrValue::new(Value::I(0)).encode_to_vec(), [0x18, 0x00]);
        assert_eq!(AttrValue::new(Value::B(false)).encode_to_vec(), [0x28, 0x00]);
        assert_eq!(AttrValue::new(Value::S(vec![])).encode_to_vec(), [0x12, 0x00]);
        assert_eq!(AttrValue::new(Value::List(Box::default())).encode_to_vec(), [0x0a, 0x00]);
    }
}
