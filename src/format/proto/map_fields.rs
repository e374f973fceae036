//! Wire helpers shared by the hand-written `prost::Message` impls: map fields written in
//! the key order TensorFlow's `.meta` files use (formats.md §0.4).

use litemap::LiteMap;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};
use prost::DecodeError;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// The map-entry order of TensorFlow 2.21's deterministic serialization (Python upb):
/// ascending unsigned-bytewise by key, except that a key that is a proper prefix of
/// another comes after it (`"Tshape"` before `"T"`).
pub fn tf_key_order(a: &str, b: &str) -> Ordering {
    if a.len() < b.len() && b.as_bytes().starts_with(a.as_bytes()) {
        return Ordering::Greater;
    }
    if b.len() < a.len() && a.as_bytes().starts_with(b.as_bytes()) {
        return Ordering::Less;
    }
    a.as_bytes().cmp(b.as_bytes())
}

/// The attrs of a `NodeDef` or `NameAttrList` (`map<string, AttrValue>`): one small sorted
/// vector, since an op has a handful of attrs.
pub type AttrMap<V> = LiteMap<String, V>;

/// `entries` in [`tf_key_order`].
fn ordered<'a, V: 'a>(entries: impl IntoIterator<Item = (&'a String, &'a V)>) -> Vec<(&'a String, &'a V)> {
    let mut v: Vec<(&String, &V)> = entries.into_iter().collect();
    v.sort_by(|a, b| tf_key_order(a.0, b.0));
    v
}

fn entry_len<V: prost::Message>(key: &String, val: &V) -> usize {
    encoding::string::encoded_len(1, key) + encoding::message::encoded_len(2, val)
}

/// Writes a `map<string, Message>` field (a `BTreeMap` or [`AttrMap`] by reference): one
/// entry per key, key and value always written, in [`tf_key_order`].
pub(crate) fn encode_message_map<'a, V: prost::Message + 'a>(
    tag: u32,
    map: impl IntoIterator<Item = (&'a String, &'a V)>,
    buf: &mut impl BufMut,
) {
    for (k, v) in ordered(map) {
        encoding::encode_key(tag, WireType::LengthDelimited, buf);
        encoding::encode_varint(entry_len(k, v) as u64, buf);
        encoding::string::encode(1, k, buf);
        encoding::message::encode(2, v, buf);
    }
}

/// The encoded length of [`encode_message_map`]'s output.
pub(crate) fn message_map_len<'a, V: prost::Message + 'a>(
    tag: u32,
    map: impl IntoIterator<Item = (&'a String, &'a V)>,
) -> usize {
    map.into_iter()
        .map(|(k, v)| {
            let l = entry_len(k, v);
            encoding::key_len(tag) + encoding::encoded_len_varint(l as u64) + l
        })
        .sum()
}

/// Reads one entry of a `map<string, Message>` field (missing key or value: the default).
pub(crate) fn merge_message_map<V: prost::Message + Default>(
    wire_type: WireType,
    map: &mut BTreeMap<String, V>,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), DecodeError> {
    encoding::check_wire_type(WireType::LengthDelimited, wire_type)?;
    encoding::btree_map::merge(encoding::string::merge, encoding::message::merge, map, buf, ctx)
}

/// [`merge_message_map`] for an [`AttrMap`]; a repeated key keeps the last value.
pub(crate) fn merge_attr_map<V: prost::Message + Default>(
    wire_type: WireType,
    map: &mut AttrMap<V>,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), DecodeError> {
    encoding::check_wire_type(WireType::LengthDelimited, wire_type)?;
    let mut key = String::new();
    let mut value = V::default();
    encoding::merge_loop(&mut (&mut key, &mut value), buf, ctx, |(key, value), buf, ctx| {
        let (tag, wire_type) = encoding::decode_key(buf)?;
        match tag {
            1 => encoding::string::merge(wire_type, key, buf, ctx),
            2 => encoding::message::merge(wire_type, *value, buf, ctx),
            _ => encoding::skip_field(wire_type, tag, buf, ctx),
        }
    })?;
    map.insert(key, value);
    Ok(())
}

/// Writes `Option<M>` as a sub-message when set (even when empty).
pub(crate) fn encode_opt<M: prost::Message>(tag: u32, m: &Option<M>, buf: &mut impl BufMut) {
    if let Some(m) = m {
        encoding::message::encode(tag, m, buf);
    }
}

/// The encoded length of [`encode_opt`]'s output.
pub(crate) fn opt_len<M: prost::Message>(tag: u32, m: &Option<M>) -> usize {
    m.as_ref().map_or(0, |m| encoding::message::encoded_len(tag, m))
}

/// Reads a singular sub-message field into `Option<M>` (merging repeated occurrences).
pub(crate) fn merge_opt<M: prost::Message + Default>(
    wire_type: WireType,
    m: &mut Option<M>,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), DecodeError> {
    encoding::message::merge(wire_type, m.get_or_insert_with(M::default), buf, ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_keys_come_after_longer_keys() {
        let mut keys = vec!["T", "_class", "Tshape", "_has_manual_control_dependencies", "dtype", "Ta"];
        keys.sort_by(|a, b| tf_key_order(a, b));
        assert_eq!(keys, ["Ta", "Tshape", "T", "_class", "_has_manual_control_dependencies", "dtype"]);
    }
}
