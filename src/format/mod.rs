//! The byte formats, at the bottom of the library (above [`crate::tensor`] and
//! [`crate::error`] only): TensorFlow's protobuf messages and their text format
//! ([`proto`]), the checkpoint bundle and its `checkpoint` state file ([`checkpoint`]),
//! numpy's `.npy` files ([`npy`]: `Tensor::read_npy`, `Tensor::write_npy`), TFRecord framing
//! ([`tfrecord`], the container of TensorBoard's event files), and atomic file replacement
//! (`atomic_file`). Nothing here knows graphs or sessions.

pub(crate) mod atomic_file;
pub mod checkpoint;
pub mod npy;
pub mod proto;
pub mod tfrecord;
