//! A message as a list of `(field, value)` pairs driven by the field tables of
//! [`schema`](super::schema), with the protobuf wire decoding and TensorFlow's
//! deterministic wire encoding of it. The text printer and parser work on this form, so
//! one printer and one parser serve every message type.

use super::schema::{Card, Field, MessageDesc, Type};
use crate::error::{Error, Result};
use std::cmp::Ordering;

/// How deeply messages may nest (protobuf's default recursion limit).
pub(crate) const MAX_DEPTH: usize = 100;

/// One field value.
#[derive(Clone)]
pub(crate) enum Val {
    /// `int32`, `int64` (an `int32` sign-extended).
    Int(i64),
    /// `uint32`, `uint64`, `fixed64`.
    UInt(u64),
    Bool(bool),
    F32(f32),
    F64(f64),
    /// `string` (UTF-8 checked when parsed), `bytes`, and opaque messages.
    Bytes(Vec<u8>),
    Enum(i32),
    Msg(Msg),
}

/// A message: its set fields in the order they were read.
#[derive(Clone, Default)]
pub(crate) struct Msg {
    pub fields: Vec<(&'static Field, Val)>,
}

impl Msg {
    /// Sets `f` as protobuf's merge does: a repeated field gets one more element, a
    /// singular scalar is replaced, a singular message is merged into, and a `oneof`
    /// member clears the other members.
    pub fn set(&mut self, f: &'static Field, v: Val) {
        if f.card == Card::Repeated {
            self.fields.push((f, v));
            return;
        }
        if let Card::Oneof(k) = f.card {
            self.fields.retain(|(g, _)| g.card != Card::Oneof(k) || g.number == f.number);
        }
        match self.fields.iter().position(|(g, _)| g.number == f.number) {
            Some(pos) => match (&mut self.fields[pos].1, v) {
                (Val::Msg(old), Val::Msg(new)) => old.merge(new),
                (slot, v) => *slot = v,
            },
            None => self.fields.push((f, v)),
        }
    }

    /// Merges `other` into `self` field by field ([`Msg::set`]).
    pub fn merge(&mut self, other: Msg) {
        for (f, v) in other.fields {
            self.set(f, v);
        }
    }

    /// The values of the field numbered `number`, in order.
    pub fn values(&self, number: u32) -> impl Iterator<Item = &Val> {
        self.fields.iter().filter(move |(f, _)| f.number == number).map(|(_, v)| v)
    }
}

/// The default value of a field of type `ty`.
pub(crate) fn default_value(ty: Type) -> Val {
    match ty {
        Type::Int32 | Type::Int64 => Val::Int(0),
        Type::UInt32 | Type::UInt64 | Type::Fixed64 => Val::UInt(0),
        Type::Bool => Val::Bool(false),
        Type::Float => Val::F32(0.0),
        Type::Double => Val::F64(0.0),
        Type::String | Type::Bytes | Type::Opaque(_) => Val::Bytes(Vec::new()),
        Type::Enum(_) => Val::Enum(0),
        Type::Message(_) => Val::Msg(Msg::default()),
    }
}

/// True for a proto3 default (compared bitwise for floats, so -0.0 is not a default).
pub(crate) fn is_default(v: &Val) -> bool {
    match v {
        Val::Int(x) => *x == 0,
        Val::UInt(x) => *x == 0,
        Val::Bool(b) => !b,
        Val::F32(x) => x.to_bits() == 0,
        Val::F64(x) => x.to_bits() == 0,
        Val::Bytes(b) => b.is_empty(),
        Val::Enum(e) => *e == 0,
        Val::Msg(_) => false,
    }
}

/// The key of a map entry (its field 1, or the default).
pub(crate) fn map_key(entry: &Val, desc: &MessageDesc) -> Val {
    let key_field = &desc.fields[0];
    match entry {
        Val::Msg(m) => m.values(1).last().cloned().unwrap_or_else(|| default_value(key_field.ty)),
        _ => default_value(key_field.ty),
    }
}

/// The entries of a map field sorted by `cmp` on their keys, a repeated key keeping its
/// last entry (map semantics).
pub(crate) fn sorted_map_entries<'a>(
    entries: Vec<&'a Val>,
    desc: &MessageDesc,
    cmp: impl Fn(&Val, &Val) -> Ordering,
) -> Vec<&'a Val> {
    let mut keyed: Vec<(Val, usize, &Val)> =
        entries.into_iter().enumerate().map(|(i, e)| (map_key(e, desc), i, e)).collect();
    // Sort by key, later entries of the same key first, then keep the first of each key.
    keyed.sort_by(|a, b| cmp(&a.0, &b.0).then(b.1.cmp(&a.1)));
    keyed.dedup_by(|a, b| cmp(&a.0, &b.0) == Ordering::Equal);
    keyed.into_iter().map(|(_, _, e)| e).collect()
}

// ---------------------------------------------------------------------------------------
// Wire decoding

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

fn truncated(what: &str) -> Error {
    Error::data_loss(format!("truncated protobuf message (in {what})"))
}

impl Reader<'_> {
    fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for i in 0..10 {
            let b = *self.buf.get(self.pos).ok_or_else(|| truncated("a varint"))?;
            self.pos += 1;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(Error::data_loss("protobuf varint longer than 10 bytes"))
    }

    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len()).ok_or_else(|| truncated("a field"))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn len_delimited(&mut self) -> Result<&[u8]> {
        let n = self.varint()?;
        let n = usize::try_from(n).map_err(|_| truncated("a length-delimited field"))?;
        self.take(n)
    }

    fn skip(&mut self, wire_type: u8, number: u64, depth: usize) -> Result<()> {
        match wire_type {
            0 => self.varint().map(drop),
            1 => self.take(8).map(drop),
            2 => self.len_delimited().map(drop),
            5 => self.take(4).map(drop),
            3 => {
                if depth >= MAX_DEPTH {
                    return Err(Error::data_loss("protobuf groups nested too deeply"));
                }
                loop {
                    let key = self.varint()?;
                    let (n, wt) = (key >> 3, (key & 7) as u8);
                    if wt == 4 {
                        return if n == number {
                            Ok(())
                        } else {
                            Err(Error::data_loss("mismatched protobuf end-group"))
                        };
                    }
                    self.skip(wt, n, depth + 1)?;
                }
            }
            _ => Err(Error::data_loss(format!("invalid protobuf wire type {wire_type}"))),
        }
    }
}

/// The wire type a non-packed value of `ty` uses.
fn wire_type(ty: Type) -> u8 {
    match ty {
        Type::Int32 | Type::Int64 | Type::UInt32 | Type::UInt64 | Type::Bool | Type::Enum(_) => 0,
        Type::Fixed64 | Type::Double => 1,
        Type::Float => 5,
        Type::String | Type::Bytes | Type::Message(_) | Type::Opaque(_) => 2,
    }
}

/// True for the types whose repeated fields are packed.
fn packable(ty: Type) -> bool {
    wire_type(ty) != 2
}

fn scalar_from_wire(ty: Type, r: &mut Reader) -> Result<Val> {
    Ok(match ty {
        Type::Int32 => Val::Int(i64::from(r.varint()? as i32)),
        Type::Int64 => Val::Int(r.varint()? as i64),
        Type::UInt32 => Val::UInt(u64::from(r.varint()? as u32)),
        Type::UInt64 => Val::UInt(r.varint()?),
        Type::Bool => Val::Bool(r.varint()? != 0),
        Type::Enum(_) => Val::Enum(r.varint()? as i32),
        Type::Float => {
            let b = r.take(4)?;
            Val::F32(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        }
        Type::Double | Type::Fixed64 => {
            let mut a = [0u8; 8];
            a.copy_from_slice(r.take(8)?);
            if matches!(ty, Type::Double) {
                Val::F64(f64::from_le_bytes(a))
            } else {
                Val::UInt(u64::from_le_bytes(a))
            }
        }
        Type::String | Type::Bytes | Type::Message(_) | Type::Opaque(_) => Val::Bytes(r.len_delimited()?.to_vec()),
    })
}

/// Decodes the binary message `buf` of type `desc`. Unknown fields (and known ones with
/// an unexpected wire type) are skipped, as protobuf does.
/// Errors: `DataLoss` for malformed bytes or nesting deeper than [`MAX_DEPTH`].
pub(crate) fn decode(buf: &[u8], desc: &'static MessageDesc, depth: usize) -> Result<Msg> {
    if depth > MAX_DEPTH {
        return Err(Error::data_loss(format!("protobuf messages nested deeper than {MAX_DEPTH} levels")));
    }
    let mut r = Reader { buf, pos: 0 };
    let mut msg = Msg::default();
    while r.pos < buf.len() {
        let key = r.varint()?;
        let (number, wt) = (key >> 3, (key & 7) as u8);
        if number == 0 || number > u64::from(u32::MAX >> 3) {
            return Err(Error::data_loss(format!("invalid protobuf field number {number}")));
        }
        let field = match desc.field_numbered(number as u32) {
            Some(f) => f,
            None => {
                r.skip(wt, number, depth)?;
                continue;
            }
        };
        let expected = wire_type(field.ty);
        if wt == 2 && expected != 2 && field.card == Card::Repeated {
            let mut packed = Reader { buf: r.len_delimited()?, pos: 0 };
            while packed.pos < packed.buf.len() {
                msg.set(field, scalar_from_wire(field.ty, &mut packed)?);
            }
        } else if wt != expected {
            r.skip(wt, number, depth)?;
        } else if let Type::Message(sub) = field.ty {
            let bytes = r.len_delimited()?;
            let m = decode(bytes, sub, depth + 1).map_err(|e| e.context(format!("in {}.{}", desc.name, field.name)))?;
            msg.set(field, Val::Msg(m));
        } else {
            let v = scalar_from_wire(field.ty, &mut r)?;
            msg.set(field, v);
        }
    }
    Ok(msg)
}

// ---------------------------------------------------------------------------------------
// Wire encoding

fn put_varint(v: u64, out: &mut Vec<u8>) {
    prost::encoding::encode_varint(v, out);
}

fn put_key(number: u32, wire_type: u8, out: &mut Vec<u8>) {
    put_varint((u64::from(number) << 3) | u64::from(wire_type), out);
}

/// The bytes of one value without its key (length-prefixed for wire type 2).
fn put_value(ty: Type, v: &Val, out: &mut Vec<u8>) {
    match (ty, v) {
        (Type::Fixed64, Val::UInt(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (_, Val::Int(x)) => put_varint(*x as u64, out),
        (_, Val::UInt(x)) => put_varint(*x, out),
        (_, Val::Bool(b)) => out.push(u8::from(*b)),
        (_, Val::Enum(e)) => put_varint(i64::from(*e) as u64, out),
        (_, Val::F32(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (_, Val::F64(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (_, Val::Bytes(b)) => {
            put_varint(b.len() as u64, out);
            out.extend_from_slice(b);
        }
        (Type::Message(sub), Val::Msg(m)) => {
            let mut inner = Vec::new();
            encode_into(m, sub, &mut inner);
            put_varint(inner.len() as u64, out);
            out.extend_from_slice(&inner);
        }
        (_, Val::Msg(_)) => put_varint(0, out),
    }
}

fn put_field(f: &Field, v: &Val, out: &mut Vec<u8>) {
    put_key(f.number, wire_type(f.ty), out);
    put_value(f.ty, v, out);
}

/// Unsigned-bytewise order, except that a key that is a proper prefix of another comes
/// after it: the map order of TensorFlow's deterministic serialization
/// ([`tf_key_order`](super::super::tf_key_order)).
fn tf_bytes_order(a: &[u8], b: &[u8]) -> Ordering {
    if a.len() < b.len() && b.starts_with(a) {
        Ordering::Greater
    } else if b.len() < a.len() && a.starts_with(b) {
        Ordering::Less
    } else {
        a.cmp(b)
    }
}

/// Map-key order on the wire: [`tf_bytes_order`] for strings, numeric for integers.
fn wire_key_order(a: &Val, b: &Val) -> Ordering {
    match (a, b) {
        (Val::Bytes(x), Val::Bytes(y)) => tf_bytes_order(x, y),
        (Val::Int(x), Val::Int(y)) => x.cmp(y),
        (Val::UInt(x), Val::UInt(y)) => x.cmp(y),
        _ => Ordering::Equal,
    }
}

fn encode_into(msg: &Msg, desc: &MessageDesc, out: &mut Vec<u8>) {
    for f in desc.fields {
        let vals: Vec<&Val> = msg.values(f.number).collect();
        if vals.is_empty() {
            continue;
        }
        match (f.card, f.ty) {
            (Card::Repeated, Type::Message(entry)) if entry.map_entry => {
                for e in sorted_map_entries(vals, entry, wire_key_order) {
                    let mut inner = Vec::new();
                    for kf in entry.fields {
                        let v = match e {
                            Val::Msg(m) => m.values(kf.number).last().cloned(),
                            _ => None,
                        };
                        put_field(kf, &v.unwrap_or_else(|| default_value(kf.ty)), &mut inner);
                    }
                    put_key(f.number, 2, out);
                    put_varint(inner.len() as u64, out);
                    out.extend_from_slice(&inner);
                }
            }
            (Card::Repeated, ty) if packable(ty) => {
                let mut inner = Vec::new();
                for v in vals {
                    put_value(ty, v, &mut inner);
                }
                put_key(f.number, 2, out);
                put_varint(inner.len() as u64, out);
                out.extend_from_slice(&inner);
            }
            (Card::Implicit, _) => {
                if let Some(v) = vals.last().filter(|v| !is_default(v)) {
                    put_field(f, v, out);
                }
            }
            _ => {
                for v in vals {
                    put_field(f, v, out);
                }
            }
        }
    }
}

/// The binary encoding of `msg`, as TensorFlow's deterministic serialization writes it:
/// fields in number order, proto3 defaults omitted, numbers packed, map entries with key
/// and value always written and in TensorFlow's key order.
pub(crate) fn encode(msg: &Msg, desc: &MessageDesc) -> Vec<u8> {
    let mut out = Vec::new();
    encode_into(msg, desc, &mut out);
    out
}
