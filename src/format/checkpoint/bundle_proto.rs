//! The protobuf messages of a tensor bundle's `.index` file, as hand-written `prost` structs
//! (field numbers from TensorFlow's `tensor_bundle.proto`, `tensor_shape.proto`,
//! `tensor_slice.proto` and `versions.proto`; formats.md §1.4, §1.5, §1.8, §3.2).
//!
//! Encoding with `prost` gives exactly TensorFlow's bytes: fields in number order, proto3
//! defaults omitted, sub-messages written when set (even empty), repeated int32 packed.

pub use crate::format::proto::{Dim, TensorShapeProto, VersionDef};

/// `tensorflow.BundleHeaderProto`: the value stored under the empty key `""` of a `.index` file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BundleHeaderProto {
    /// Number of `.data-NNNNN-of-MMMMM` shard files.
    #[prost(int32, tag = "1")]
    pub num_shards: i32,
    /// Byte order of the data files: 0 = little-endian, 1 = big-endian.
    #[prost(int32, tag = "2")]
    pub endianness: i32,
    /// Versioning; TF writes `{producer: 1}`.
    #[prost(message, optional, tag = "3")]
    pub version: Option<VersionDef>,
}

/// `BundleHeaderProto.Endianness.BIG`.
pub const ENDIANNESS_BIG: i32 = 1;

/// The `oneof has_length` of [`Extent`].
#[derive(Clone, Copy, PartialEq, Eq, prost::Oneof)]
pub enum HasLength {
    /// Number of elements of the slice in this dimension (written even when 0).
    #[prost(int64, tag = "2")]
    Length(i64),
}

/// `tensorflow.TensorSliceProto.Extent`: one dimension of a slice.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Extent {
    /// First index of the slice in this dimension.
    #[prost(int64, tag = "1")]
    pub start: i64,
    /// Length of the slice; `None` means "the whole dimension".
    #[prost(oneof = "HasLength", tags = "2")]
    pub has_length: Option<HasLength>,
}

/// `tensorflow.TensorSliceProto`: a hyper-rectangle of a tensor, one extent per dimension.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorSliceProto {
    /// One extent per dimension.
    #[prost(message, repeated, tag = "1")]
    pub extent: Vec<Extent>,
}

/// `tensorflow.BundleEntryProto`: where and how one tensor (or slice) is stored.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BundleEntryProto {
    /// `DataType` enum number.
    #[prost(int32, tag = "1")]
    pub dtype: i32,
    /// Full shape (always written by TensorFlow, `12 00` for a scalar).
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
    /// Which `.data-SSSSS-of-NNNNN` file holds the bytes.
    #[prost(int32, tag = "3")]
    pub shard_id: i32,
    /// Byte offset in that file.
    #[prost(int64, tag = "4")]
    pub offset: i64,
    /// Number of bytes stored.
    #[prost(int64, tag = "5")]
    pub size: i64,
    /// Masked CRC-32C of the stored bytes.
    #[prost(fixed32, tag = "6")]
    pub crc32c: u32,
    /// For the full-tensor entry of a partitioned tensor: the stored slices.
    #[prost(message, repeated, tag = "7")]
    pub slices: Vec<TensorSliceProto>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn bytes_match_tf() {
        let h = BundleHeaderProto {
            num_shards: 1,
            endianness: 0,
            version: Some(VersionDef { producer: 1, ..Default::default() }),
        };
        assert_eq!(h.encode_to_vec(), [0x08, 0x01, 0x1a, 0x02, 0x08, 0x01]);
        let e = BundleEntryProto {
            dtype: 1,
            shape: Some(TensorShapeProto::from_dims(&[1])),
            offset: 4,
            size: 4,
            crc32c: 0x4f78_fd10,
            ..Default::default()
        };
        assert_eq!(
            e.encode_to_vec(),
            [0x08, 0x01, 0x12, 0x04, 0x12, 0x02, 0x08, 0x01, 0x20, 0x04, 0x28, 0x04, 0x35, 0x10, 0xfd, 0x78, 0x4f]
        );
        let scalar = BundleEntryProto { shape: Some(TensorShapeProto::from_dims(&[])), ..Default::default() };
        assert_eq!(scalar.encode_to_vec(), [0x12, 0x00]);
        let x = Extent { start: 0, has_length: Some(HasLength::Length(0)) };
        assert_eq!(x.encode_to_vec(), [0x10, 0x00]);
    }
}
