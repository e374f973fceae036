//! TensorBoard's event-file messages (`event.proto`, `summary.proto`, `histogram.proto`;
//! formats.md §4): [`Event`] (one record of an event file), [`Summary`] and its values
//! (scalars, histograms, images, audio, tensors with plugin metadata), [`HistogramProto`],
//! [`SessionLog`]. A `RunMetadata` is kept as its serialized bytes
//! ([`TaggedRunMetadata::run_metadata`]), as are the graphs an event carries.

use super::tensor::TensorProto;

/// The `file_version` of an event file's first record (`brain.Event:2`).
pub const EVENT_FILE_VERSION: &str = "brain.Event:2";

/// `tensorflow.Event`: one record of an event file: a time, a step, and what happened.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Event {
    /// Seconds since the epoch (field 1).
    #[prost(double, tag = "1")]
    pub wall_time: f64,
    /// The global step (field 2).
    #[prost(int64, tag = "2")]
    pub step: i64,
    /// What the event holds (fields 3–9).
    #[prost(oneof = "EventKind", tags = "3, 4, 5, 6, 7, 8, 9")]
    pub what: Option<EventKind>,
    /// Which program wrote the file (field 10; set on the first record).
    #[prost(message, optional, tag = "10")]
    pub source_metadata: Option<SourceMetadata>,
}

/// The `oneof what` of [`Event`].
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum EventKind {
    /// The file's version, [`EVENT_FILE_VERSION`] (first record).
    #[prost(string, tag = "3")]
    FileVersion(String),
    /// A serialized `GraphDef`.
    #[prost(bytes, tag = "4")]
    GraphDef(Vec<u8>),
    /// Summary values.
    #[prost(message, tag = "5")]
    Summary(Summary),
    /// A log line (deprecated in TensorFlow; read, never written here).
    #[prost(message, tag = "6")]
    LogMessage(LogMessage),
    /// A session's start, stop or checkpoint.
    #[prost(message, tag = "7")]
    SessionLog(SessionLog),
    /// A session run's `RunMetadata` under a tag.
    #[prost(message, tag = "8")]
    TaggedRunMetadata(TaggedRunMetadata),
    /// A serialized `MetaGraphDef`.
    #[prost(bytes, tag = "9")]
    MetaGraphDef(Vec<u8>),
}

/// `tensorflow.SourceMetadata`: the writer of an event file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SourceMetadata {
    /// The writing program (TensorFlow writes `tensorflow.core.util.events_writer`).
    #[prost(string, tag = "1")]
    pub writer: String,
}

/// `tensorflow.LogMessage`: a deprecated log line event.
#[derive(Clone, PartialEq, prost::Message)]
pub struct LogMessage {
    /// The level (`UNKNOWN` 0, `DEBUGGING` 10, `INFO` 20, `WARN` 30, `ERROR` 40, `FATAL` 50).
    #[prost(int32, tag = "1")]
    pub level: i32,
    /// The text.
    #[prost(string, tag = "2")]
    pub message: String,
}

/// `tensorflow.SessionLog`: the status of a training session.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SessionLog {
    /// [`SessionLog::START`], [`SessionLog::STOP`], [`SessionLog::CHECKPOINT`] (0: unspecified).
    #[prost(int32, tag = "1")]
    pub status: i32,
    /// The checkpoint's path (for `CHECKPOINT`).
    #[prost(string, tag = "2")]
    pub checkpoint_path: String,
    /// A free-text message.
    #[prost(string, tag = "3")]
    pub msg: String,
}

impl SessionLog {
    /// `SessionLog.START`: a session (re)started; TensorBoard drops the events of a later step.
    pub const START: i32 = 1;
    /// `SessionLog.STOP`.
    pub const STOP: i32 = 2;
    /// `SessionLog.CHECKPOINT`.
    pub const CHECKPOINT: i32 = 3;
}

/// `tensorflow.TaggedRunMetadata`: a session run's metadata under a tag.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TaggedRunMetadata {
    /// The tag (TensorBoard's run name in the graph view).
    #[prost(string, tag = "1")]
    pub tag: String,
    /// A serialized `RunMetadata` (step stats, cost graph).
    #[prost(bytes = "vec", tag = "2")]
    pub run_metadata: Vec<u8>,
}

/// `tensorflow.Summary`: the values one summary op (or `MergeSummary`) produced.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Summary {
    /// The values (field 1).
    #[prost(message, repeated, tag = "1")]
    pub value: Vec<SummaryValue>,
}

/// `tensorflow.Summary.Value`: one tagged value.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SummaryValue {
    /// The tag TensorBoard groups values by (field 1).
    #[prost(string, tag = "1")]
    pub tag: String,
    /// The value (fields 2–6 and 8).
    #[prost(oneof = "SummaryKind", tags = "2, 3, 4, 5, 6, 8")]
    pub value: Option<SummaryKind>,
    /// The node that wrote it (field 7; unused by TensorFlow 1.x's ops).
    #[prost(string, tag = "7")]
    pub node_name: String,
    /// Which plugin reads it (field 9; set for tensor summaries).
    #[prost(message, optional, tag = "9")]
    pub metadata: Option<SummaryMetadata>,
}

/// The `oneof value` of [`SummaryValue`] (the tensor boxed, keeping the enum small).
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum SummaryKind {
    /// A scalar (`ScalarSummary`, `tf.summary.scalar`).
    #[prost(float, tag = "2")]
    SimpleValue(f32),
    /// An old-style histogram's bytes (read, never written).
    #[prost(bytes, tag = "3")]
    ObsoleteOldStyleHistogram(Vec<u8>),
    /// An encoded image (`ImageSummary`).
    #[prost(message, tag = "4")]
    Image(Image),
    /// A histogram (`HistogramSummary`).
    #[prost(message, tag = "5")]
    Histo(HistogramProto),
    /// Encoded audio (`AudioSummaryV2`; read, never written here).
    #[prost(message, tag = "6")]
    Audio(Audio),
    /// A tensor (`TensorSummaryV2`: text, and TensorFlow 2's scalars).
    #[prost(message, boxed, tag = "8")]
    Tensor(Box<TensorProto>),
}

/// `tensorflow.Summary.Image`: an encoded image.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Image {
    /// Height in pixels.
    #[prost(int32, tag = "1")]
    pub height: i32,
    /// Width in pixels.
    #[prost(int32, tag = "2")]
    pub width: i32,
    /// Channels: 1 grey, 2 grey and alpha, 3 RGB, 4 RGBA.
    #[prost(int32, tag = "3")]
    pub colorspace: i32,
    /// The PNG bytes.
    #[prost(bytes = "vec", tag = "4")]
    pub encoded_image_string: Vec<u8>,
}

/// `tensorflow.Summary.Audio`: encoded audio.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Audio {
    /// Samples per second.
    #[prost(float, tag = "1")]
    pub sample_rate: f32,
    /// Channels.
    #[prost(int64, tag = "2")]
    pub num_channels: i64,
    /// Frames.
    #[prost(int64, tag = "3")]
    pub length_frames: i64,
    /// The encoded bytes (WAV).
    #[prost(bytes = "vec", tag = "4")]
    pub encoded_audio_string: Vec<u8>,
    /// Their MIME type.
    #[prost(string, tag = "5")]
    pub content_type: String,
}

/// `tensorflow.SummaryMetadata`: which TensorBoard plugin reads a value.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SummaryMetadata {
    /// The plugin and its data (field 1).
    #[prost(message, optional, tag = "1")]
    pub plugin_data: Option<PluginData>,
    /// A display name (field 2).
    #[prost(string, tag = "2")]
    pub display_name: String,
    /// A description (field 3).
    #[prost(string, tag = "3")]
    pub summary_description: String,
    /// `DataClass`: 0 unknown, 1 scalar, 2 tensor, 3 blob sequence (field 4).
    #[prost(int32, tag = "4")]
    pub data_class: i32,
}

/// `tensorflow.SummaryMetadata.PluginData`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PluginData {
    /// The plugin's name (`text`, `scalars`, ...).
    #[prost(string, tag = "1")]
    pub plugin_name: String,
    /// The plugin's own serialized data.
    #[prost(bytes = "vec", tag = "2")]
    pub content: Vec<u8>,
}

/// `tensorflow.HistogramProto`: bucket counts and moments of a set of values.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HistogramProto {
    /// The smallest value.
    #[prost(double, tag = "1")]
    pub min: f64,
    /// The largest value.
    #[prost(double, tag = "2")]
    pub max: f64,
    /// How many values.
    #[prost(double, tag = "3")]
    pub num: f64,
    /// Their sum.
    #[prost(double, tag = "4")]
    pub sum: f64,
    /// The sum of their squares.
    #[prost(double, tag = "5")]
    pub sum_squares: f64,
    /// Each bucket's upper limit (exclusive); the first bucket is open below.
    #[prost(double, repeated, tag = "6")]
    pub bucket_limit: Vec<f64>,
    /// Each bucket's count.
    #[prost(double, repeated, tag = "7")]
    pub bucket: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn first_record_matches_tensorflow_bytes() {
        // the payload of the seed event file's first record (formats.md §4.3)
        let e = Event {
            wall_time: 1796005767.0,
            step: 0,
            what: Some(EventKind::FileVersion(EVENT_FILE_VERSION.into())),
            source_metadata: Some(SourceMetadata { writer: "tensorflow.core.util.events_writer".into() }),
        };
        let mut hex = String::new();
        for b in e.encode_to_vec() {
            hex.push_str(&format!("{b:02x}"));
        }
        assert_eq!(
            hex,
            "090000c0e137c3da411a0d627261696e2e4576656e743a3252240a2274656e736f72666c6f772e636f72652e7574696c2e6576656e74735f777269746572"
        );
        // a zero scalar is still written (a oneof member): 0a 01 7a 15 00000000
        let v = SummaryValue { tag: "z".into(), value: Some(SummaryKind::SimpleValue(0.0)), ..Default::default() };
        assert_eq!(v.encode_to_vec(), [0x0a, 0x01, 0x7a, 0x15, 0, 0, 0, 0]);
    }
}
