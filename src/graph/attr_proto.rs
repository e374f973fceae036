//! Conversion between a graph's [`AttrValue`] and TensorFlow's `AttrValue` proto message
//! (the graph layer reads and writes the byte formats below it).

use super::AttrValue;
use crate::error::{Error, Result};
use crate::format::proto::{
    dtype_from_proto, dtype_to_proto, AttrValue as ProtoAttr, AttrValueKind as Value, ListValue, TensorProto,
    TensorShapeProto,
};

impl AttrValue {
    /// This value as TensorFlow's `AttrValue` proto message.
    pub fn to_proto(&self) -> ProtoAttr {
        let list = |l: ListValue| ProtoAttr::new(Value::List(Box::new(l)));
        match self {
            AttrValue::String(s) => ProtoAttr::new(Value::S(s.clone())),
            AttrValue::Int(i) => ProtoAttr::new(Value::I(*i)),
            AttrValue::Float(f) => ProtoAttr::new(Value::F(*f)),
            AttrValue::Bool(b) => ProtoAttr::new(Value::B(*b)),
            AttrValue::Type(t) => ProtoAttr::new(Value::Type(dtype_to_proto(*t))),
            AttrValue::Shape(s) => ProtoAttr::new(Value::Shape(Box::new(TensorShapeProto::from_shape(s)))),
            AttrValue::Tensor(t) => ProtoAttr::new(Value::Tensor(Box::new(TensorProto::from_tensor(t)))),
            AttrValue::ListString(v) => list(ListValue { s: v.clone(), ..Default::default() }),
            AttrValue::ListInt(v) => list(ListValue { i: v.clone(), ..Default::default() }),
            AttrValue::ListFloat(v) => list(ListValue { f: v.clone(), ..Default::default() }),
            AttrValue::ListType(v) => {
                list(ListValue { r#type: v.iter().map(|d| dtype_to_proto(*d)).collect(), ..Default::default() })
            }
            AttrValue::ListShape(v) => {
                list(ListValue { shape: v.iter().map(TensorShapeProto::from_shape).collect(), ..Default::default() })
            }
            AttrValue::Unparsed(p) => (**p).clone(),
        }
    }

    /// The attr value of TensorFlow's `AttrValue` proto message. An empty list (`list {}`, whose element type the wire
    /// does not tell) becomes an empty `ListString`.
    /// Errors: `Unimplemented` for kinds tensorgraph's attrs cannot hold (`func`,
    /// `placeholder`, `list(bool)`, `list(tensor)`, `list(func)`) and for dtypes it lacks;
    /// `InvalidArgument` for an attr without a value, a list mixing kinds, or a bad
    /// shape or tensor.
    pub fn from_proto(proto: &ProtoAttr) -> Result<AttrValue> {
        Ok(match &proto.value {
            None => return Err(Error::invalid_argument("AttrValue has no value set")),
            Some(Value::S(s)) => AttrValue::String(s.clone()),
            Some(Value::I(i)) => AttrValue::Int(*i),
            Some(Value::F(f)) => AttrValue::Float(*f),
            Some(Value::B(b)) => AttrValue::Bool(*b),
            Some(Value::Type(t)) => AttrValue::Type(dtype_from_proto(*t)?),
            Some(Value::Shape(s)) => AttrValue::Shape(s.to_shape()?),
            Some(Value::Tensor(t)) => AttrValue::Tensor(t.to_tensor()?),
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
                    [] => AttrValue::ListString(Vec::new()),
                    ["s"] => AttrValue::ListString(l.s.clone()),
                    ["i"] => AttrValue::ListInt(l.i.clone()),
                    ["f"] => AttrValue::ListFloat(l.f.clone()),
                    ["type"] => {
                        AttrValue::ListType(l.r#type.iter().map(|t| dtype_from_proto(*t)).collect::<Result<_>>()?)
                    }
                    ["shape"] => AttrValue::ListShape(l.shape.iter().map(|s| s.to_shape()).collect::<Result<_>>()?),
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
    use crate::format::proto::{AttrMap, NameAttrList};
    use crate::tensor::{DType, Shape, Tensor};
    use prost::Message;

    #[test]
    fn graph_attrs_round_trip() {
        let vals = [
            AttrValue::String(b"x".to_vec()),
            AttrValue::Int(-3),
            AttrValue::Float(0.5),
            AttrValue::Bool(true),
            AttrValue::Type(DType::Half),
            AttrValue::Shape(Shape::partial(&[None, Some(2)])),
            AttrValue::Tensor(Tensor::new(&[2], vec![1i32, 2]).unwrap()),
            AttrValue::ListString(vec![b"loc:@v1".to_vec()]),
            AttrValue::ListInt(vec![1, 2]),
            AttrValue::ListFloat(vec![1.5]),
            AttrValue::ListType(vec![DType::Float, DType::Int64]),
            AttrValue::ListShape(vec![Shape::unknown(), Shape::scalar()]),
        ];
        for v in vals {
            let p = v.to_proto();
            let back = ProtoAttr::decode(p.encode_to_vec().as_slice()).unwrap();
            assert_eq!(AttrValue::from_proto(&back).unwrap(), v);
        }
        let f = ProtoAttr::new(Value::Func(Box::new(NameAttrList { name: "f".into(), attr: AttrMap::new() })));
        assert_eq!(AttrValue::from_proto(&f).unwrap_err().code, crate::Code::Unimplemented);
        let mixed = ProtoAttr::new(Value::List(Box::new(ListValue { i: vec![1], f: vec![1.0], ..Default::default() })));
        assert_eq!(AttrValue::from_proto(&mixed).unwrap_err().code, crate::Code::InvalidArgument);
    }
}
