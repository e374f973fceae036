//! Builder functions of the TensorArray ops (TensorFlow's `gen_data_flow_ops.tensor_array_*_v3`).
//! Each op's default name is its type. A TensorArray is a resource handle (output 0 of
//! `TensorArrayV3`, dtype `resource`) and a float scalar `flow` that orders the ops using it:
//! every op that changes the array takes the current flow and outputs the next one.

use crate::error::Result;
use crate::graph::{Operation, Output, Scope};
use crate::tensor::{DType, Shape};

/// The attrs of `TensorArrayV3` besides `dtype` (TensorFlow's defaults by
/// [`Default`]: unknown element shape, fixed size, `clear_after_read`, no identical
/// element shapes, generated name).
#[derive(Clone, Debug)]
pub struct TensorArrayOptions {
    /// `element_shape`: the shape every element must be compatible with.
    pub element_shape: Shape,
    /// `dynamic_size`: writes past the end grow the array.
    pub dynamic_size: bool,
    /// `clear_after_read`: a read frees the element; a second read is an error.
    pub clear_after_read: bool,
    /// `identical_element_shapes`: the first write fixes the element shape.
    pub identical_element_shapes: bool,
    /// `tensor_array_name`: the name in messages (empty: the op's name), suffixed `_N`.
    pub tensor_array_name: String,
}

impl Default for TensorArrayOptions {
    fn default() -> Self {
        TensorArrayOptions {
            element_shape: Shape::unknown(),
            dynamic_size: false,
            clear_after_read: true,
            identical_element_shapes: false,
            tensor_array_name: String::new(),
        }
    }
}

/// `TensorArrayV3(size)`: a new TensorArray of `size` (int32 scalar) elements of `dtype`.
/// Returns (handle, flow). Errors: `InvalidArgument` for a non-scalar or non-int32 size.
pub fn tensor_array_v3(s: &Scope, size: &Output, dtype: DType, opts: &TensorArrayOptions) -> Result<(Output, Output)> {
    let op = s
        .op("TensorArrayV3", "TensorArrayV3")
        .input(size)
        .attr("dtype", dtype)
        .attr("element_shape", opts.element_shape.clone())
        .attr("dynamic_size", opts.dynamic_size)
        .attr("clear_after_read", opts.clear_after_read)
        .attr("identical_element_shapes", opts.identical_element_shapes)
        .attr("tensor_array_name", opts.tensor_array_name.as_str())
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `TensorArrayWriteV3(handle, index, value, flow_in)`: writes `value` at `index` (int32
/// scalar); returns the new flow.
pub fn tensor_array_write_v3(
    s: &Scope,
    handle: &Output,
    index: &Output,
    value: &Output,
    flow_in: &Output,
) -> Result<Output> {
    s.op("TensorArrayWriteV3", "TensorArrayWriteV3")
        .input(handle)
        .input(index)
        .input(value)
        .input(flow_in)
        .attr("T", value.dtype())
        .build_output()
}

/// `TensorArrayReadV3(handle, index, flow_in)`: element `index` (int32 scalar), of `dtype`.
pub fn tensor_array_read_v3(
    s: &Scope,
    handle: &Output,
    index: &Output,
    flow_in: &Output,
    dtype: DType,
) -> Result<Output> {
    s.op("TensorArrayReadV3", "TensorArrayReadV3")
        .input(handle)
        .input(index)
        .input(flow_in)
        .attr("dtype", dtype)
        .build_output()
}

/// `TensorArrayGatherV3(handle, indices, flow_in)`: the elements at `indices` (int32
/// vector) stacked, of `dtype`; `element_shape` is needed when `indices` is empty.
pub fn tensor_array_gather_v3(
    s: &Scope,
    handle: &Output,
    indices: &Output,
    flow_in: &Output,
    dtype: DType,
    element_shape: &Shape,
) -> Result<Output> {
    s.op("TensorArrayGatherV3", "TensorArrayGatherV3")
        .input(handle)
        .input(indices)
        .input(flow_in)
        .attr("dtype", dtype)
        .attr("element_shape", element_shape.clone())
        .build_output()
}

/// `TensorArrayScatterV3(handle, indices, value, flow_in)`: writes `value[i]` at
/// `indices[i]` (int32 vector as long as `value`'s first dimension); returns the new flow.
pub fn tensor_array_scatter_v3(
    s: &Scope,
    handle: &Output,
    indices: &Output,
    value: &Output,
    flow_in: &Output,
) -> Result<Output> {
    s.op("TensorArrayScatterV3", "TensorArrayScatterV3")
        .input(handle)
        .input(indices)
        .input(value)
        .input(flow_in)
        .attr("T", value.dtype())
        .build_output()
}

/// `TensorArrayConcatV3(handle, flow_in)`: all elements concatenated along their first
/// dimension, and their lengths (int64). `element_shape_except0` is needed when the array
/// is empty.
pub fn tensor_array_concat_v3(
    s: &Scope,
    handle: &Output,
    flow_in: &Output,
    dtype: DType,
    element_shape_except0: &Shape,
) -> Result<(Output, Output)> {
    let op = s
        .op("TensorArrayConcatV3", "TensorArrayConcatV3")
        .input(handle)
        .input(flow_in)
        .attr("dtype", dtype)
        .attr("element_shape_except0", element_shape_except0.clone())
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `TensorArraySplitV3(handle, value, lengths, flow_in)`: `value` cut along its first
/// dimension into pieces of `lengths` (int64 vector), written at 0, 1, ...; returns the flow.
pub fn tensor_array_split_v3(
    s: &Scope,
    handle: &Output,
    value: &Output,
    lengths: &Output,
    flow_in: &Output,
) -> Result<Output> {
    s.op("TensorArraySplitV3", "TensorArraySplitV3")
        .input(handle)
        .input(value)
        .input(lengths)
        .input(flow_in)
        .attr("T", value.dtype())
        .build_output()
}

/// `TensorArraySizeV3(handle, flow_in)`: the number of elements (int32 scalar).
pub fn tensor_array_size_v3(s: &Scope, handle: &Output, flow_in: &Output) -> Result<Output> {
    s.op("TensorArraySizeV3", "TensorArraySizeV3").input(handle).input(flow_in).build_output()
}

/// `TensorArrayCloseV3(handle)`: frees the elements; later reads and writes are errors.
pub fn tensor_array_close_v3(s: &Scope, handle: &Output) -> Result<Operation> {
    s.op("TensorArrayCloseV3", "TensorArrayCloseV3").input(handle).build()
}

/// `TensorArrayGradV3(handle, flow_in)`: the gradient array of `handle` for gradient
/// computation `source` (`gradients`, `gradients_1`, ...), made on first use and the same
/// array afterwards. Returns (grad handle, flow).
pub fn tensor_array_grad_v3(s: &Scope, handle: &Output, flow_in: &Output, source: &str) -> Result<(Output, Output)> {
    let op =
        s.op("TensorArrayGradV3", "TensorArrayGradV3").input(handle).input(flow_in).attr("source", source).build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `TensorArrayGradWithShape(handle, flow_in, shape_to_prepend)`: as
/// [`tensor_array_grad_v3`], with elements shaped `shape_to_prepend` (int32 vector) +
/// the forward element shape (gradients of several losses at once).
pub fn tensor_array_grad_with_shape(
    s: &Scope,
    handle: &Output,
    flow_in: &Output,
    shape_to_prepend: &Output,
    source: &str,
) -> Result<(Output, Output)> {
    let op = s
        .op("TensorArrayGradWithShape", "TensorArrayGradWithShape")
        .input(handle)
        .input(flow_in)
        .input(shape_to_prepend)
        .attr("source", source)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}
