//! `tensorflow.Example` (`tf.train.Example`, `example.proto` and `feature.proto`): the
//! record format serving signatures feed to `ParseExample`/`ParseExampleV2`. The value
//! lists are the same messages as a collection's ([`BytesList`], [`FloatList`],
//! [`Int64List`]; one `repeated` field numbered 1 each).

use super::meta_graph::{BytesList, FloatList, Int64List};
use std::collections::BTreeMap;

/// `tensorflow.Example`: one record, its named features.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Example {
    /// The features.
    #[prost(message, optional, tag = "1")]
    pub features: Option<Features>,
}

/// `tensorflow.Features`: features by name.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Features {
    /// Each feature under its name.
    #[prost(btree_map = "string, message", tag = "1")]
    pub feature: BTreeMap<String, Feature>,
}

/// `tensorflow.Feature`: a list of bytes, floats or int64s (or nothing).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Feature {
    /// The values; `None` for a feature with no list set.
    #[prost(oneof = "FeatureKind", tags = "1, 2, 3")]
    pub kind: Option<FeatureKind>,
}

/// The `oneof kind` of [`Feature`].
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum FeatureKind {
    /// Byte strings.
    #[prost(message, tag = "1")]
    BytesList(BytesList),
    /// 32-bit floats.
    #[prost(message, tag = "2")]
    FloatList(FloatList),
    /// 64-bit integers.
    #[prost(message, tag = "3")]
    Int64List(Int64List),
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn reads_tensorflow_bytes() {
        // tf.train.Example with age=[25] (int64), w=[1.5, 2.5] (float), name=[b"ann"], as
        // TensorFlow 2.21's SerializeToString writes it
        let hex =
            "0a320a0c0a0361676512051a030a01190a0f0a046e616d6512070a050a03616e6e0a110a0177120c120a0a080000c03f00002040";
        let bytes: Vec<u8> =
            (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
        let e = Example::decode(bytes.as_slice()).unwrap();
        let f = &e.features.as_ref().unwrap().feature;
        assert_eq!(f["age"].kind, Some(FeatureKind::Int64List(Int64List { value: vec![25] })));
        assert_eq!(f["w"].kind, Some(FeatureKind::FloatList(FloatList { value: vec![1.5, 2.5] })));
        assert_eq!(f["name"].kind, Some(FeatureKind::BytesList(BytesList { value: vec![b"ann".to_vec()] })));
        assert_eq!(e.encode_to_vec(), bytes);
    }
}
