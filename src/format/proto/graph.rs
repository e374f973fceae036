//! `NodeDef`, `GraphDef`, `VersionDef` and `FunctionDefLibrary` (formats.md §3.5, §3.6).

use super::attr_value::AttrValue;
use super::map_fields::{self, AttrMap};
use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};
use prost::DecodeError;

/// `NodeDef.ExperimentalDebugInfo`: where a node came from (passed through).
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct ExperimentalDebugInfo {
    /// Names of the nodes this one was made from.
    #[prost(string, repeated, tag = "1")]
    pub original_node_names: Vec<String>,
    /// Names of the functions those nodes lived in.
    #[prost(string, repeated, tag = "2")]
    pub original_func_names: Vec<String>,
}

/// `tensorflow.NodeDef`: one operation of a [`GraphDef`].
#[derive(Clone, PartialEq, Default, Debug)]
pub struct NodeDef {
    /// The unique node name (`layer1/MatMul`).
    pub name: String,
    /// The op type (`MatMul`).
    pub op: String,
    /// Inputs: `node` (output 0), `node:k`, then control inputs `^node`.
    pub input: Vec<String>,
    /// Requested device (`/device:CPU:0`), empty when unplaced.
    pub device: String,
    /// Attrs; written in TensorFlow's key order (formats.md §0.4).
    pub attr: AttrMap<AttrValue>,
    /// Field 6, passed through.
    pub experimental_debug_info: Option<ExperimentalDebugInfo>,
    /// Field 7, a serialized `FullTypeDef`, passed through as bytes.
    pub experimental_type: Option<Vec<u8>>,
}

impl prost::Message for NodeDef {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        if !self.name.is_empty() {
            encoding::string::encode(1, &self.name, buf);
        }
        if !self.op.is_empty() {
            encoding::string::encode(2, &self.op, buf);
        }
        encoding::string::encode_repeated(3, &self.input, buf);
        if !self.device.is_empty() {
            encoding::string::encode(4, &self.device, buf);
        }
        map_fields::encode_message_map(5, &self.attr, buf);
        map_fields::encode_opt(6, &self.experimental_debug_info, buf);
        if let Some(t) = &self.experimental_type {
            encoding::bytes::encode(7, t, buf);
        }
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
            2 => encoding::string::merge(wire_type, &mut self.op, buf, ctx),
            3 => encoding::string::merge_repeated(wire_type, &mut self.input, buf, ctx),
            4 => encoding::string::merge(wire_type, &mut self.device, buf, ctx),
            5 => map_fields::merge_attr_map(wire_type, &mut self.attr, buf, ctx),
            6 => map_fields::merge_opt(wire_type, &mut self.experimental_debug_info, buf, ctx),
            7 => encoding::bytes::merge(wire_type, self.experimental_type.get_or_insert_with(Vec::new), buf, ctx),
            _ => encoding::skip_field(wire_type, tag, buf, ctx),
        }
    }
    fn encoded_len(&self) -> usize {
        let s = |tag, v: &String| if v.is_empty() { 0 } else { encoding::string::encoded_len(tag, v) };
        s(1, &self.name)
            + s(2, &self.op)
            + encoding::string::encoded_len_repeated(3, &self.input)
            + s(4, &self.device)
            + map_fields::message_map_len(5, &self.attr)
            + map_fields::opt_len(6, &self.experimental_debug_info)
            + self.experimental_type.as_ref().map_or(0, |t| encoding::bytes::encoded_len(7, t))
    }
    fn clear(&mut self) {
        *self = Self::default();
    }
}

/// `tensorflow.VersionDef`: producer and consumer versions of a graph.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct VersionDef {
    /// Version of the code that wrote the graph (TF 2.21: 2474).
    #[prost(int32, tag = "1")]
    pub producer: i32,
    /// Oldest consumer version that can read the graph.
    #[prost(int32, tag = "2")]
    pub min_consumer: i32,
    /// Consumer versions that must refuse the graph.
    #[prost(int32, repeated, tag = "3")]
    pub bad_consumers: Vec<i32>,
}

/// `tensorflow.FunctionDefLibrary`, kept as serialized messages so that it round-trips
/// unchanged (tensorgraph does not run functions).
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct FunctionDefLibrary {
    /// Serialized `FunctionDef`s.
    #[prost(bytes = "vec", repeated, tag = "1")]
    pub function: Vec<Vec<u8>>,
    /// Serialized `GradientDef`s.
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub gradient: Vec<Vec<u8>>,
    /// Serialized `RegisteredGradient`s.
    #[prost(bytes = "vec", repeated, tag = "3")]
    pub registered_gradients: Vec<Vec<u8>>,
}

/// `tensorflow.GraphDef`: a whole graph (a frozen `.pb`, `MetaGraphDef.graph_def`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct GraphDef {
    /// The nodes, in any order.
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeDef>,
    /// Functions (present only when the graph uses `tf.function`/`Defun`).
    #[prost(message, optional, tag = "2")]
    pub library: Option<FunctionDefLibrary>,
    /// Deprecated single version number (unused).
    #[prost(int32, tag = "3")]
    pub version: i32,
    /// Producer/consumer versions.
    #[prost(message, optional, tag = "4")]
    pub versions: Option<VersionDef>,
    /// Field 5, a serialized `GraphDebugInfo`, passed through.
    #[prost(bytes = "vec", optional, tag = "5")]
    pub debug_info: Option<Vec<u8>>,
}

impl GraphDef {
    /// Decodes a binary `GraphDef` (a `.pb` file's bytes).
    /// Errors: `DataLoss` when the bytes are not a valid `GraphDef`.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<GraphDef> {
        <GraphDef as prost::Message>::decode(bytes)
            .map_err(|e| crate::Error::data_loss(format!("cannot parse a GraphDef: {e}")))
    }

    /// [`GraphDef::from_bytes`] on a shared buffer (a file's bytes): each constant's
    /// `tensor_content` is a view of `bytes`, not a copy (a ResNet50 `.pb` is 100 MB of
    /// them). Errors: `DataLoss` when the bytes are not a valid `GraphDef`.
    pub fn from_shared(bytes: prost::bytes::Bytes) -> crate::Result<GraphDef> {
        <GraphDef as prost::Message>::decode(bytes)
            .map_err(|e| crate::Error::data_loss(format!("cannot parse a GraphDef: {e}")))
    }

    /// The binary encoding (what `graph_def.SerializeToString()` gives, map entries in
    /// TensorFlow's deterministic order).
    pub fn to_bytes(&self) -> Vec<u8> {
        prost::Message::encode_to_vec(self)
    }

    /// The node named `name`, if any.
    pub fn node_named(&self, name: &str) -> Option<&NodeDef> {
        self.node.iter().find(|n| n.name == name)
    }
}

/// The GraphDef producer version written (TensorFlow 2.21's `TF_GRAPH_DEF_VERSION`).
pub const GRAPH_DEF_VERSION: i32 = 2474;
/// The oldest GraphDef consumer version written (`TF_GRAPH_DEF_VERSION_MIN_CONSUMER`, 0:
/// TensorFlow 2.21 omits the field).
pub const GRAPH_DEF_VERSION_MIN_CONSUMER: i32 = 0;
/// The oldest GraphDef producer version accepted on import
/// (`TF_GRAPH_DEF_VERSION_MIN_PRODUCER`).
pub const GRAPH_DEF_VERSION_MIN_PRODUCER: i32 = 0;
