//! Reading and writing TensorFlow's file formats.

pub mod checkpoint;
