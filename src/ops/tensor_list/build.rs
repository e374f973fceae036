//! Builder functions of the TensorList ops (TensorFlow's `gen_list_ops`), each named after
//! its op type and placing a node of that default name. A list is a scalar `variant`
//! tensor; element shapes are int32 or int64 tensors (-1: unknown dimension, the scalar
//! -1: unknown rank). Errors: those of [`crate::graph::OpBuilder::build`] (inputs of the
//! wrong dtype).

use crate::error::Result;
use crate::graph::{Output, Scope};
use crate::tensor::DType;

/// `TensorListReserve`: a list of `num_elements` (int32 scalar) unset elements of
/// `element_dtype` and `element_shape`.
pub fn tensor_list_reserve(
    s: &Scope,
    element_shape: &Output,
    num_elements: &Output,
    element_dtype: DType,
) -> Result<Output> {
    s.op("TensorListReserve", "TensorListReserve")
        .input(element_shape)
        .input(num_elements)
        .attr("element_dtype", element_dtype)
        .attr("shape_type", element_shape.dtype())
        .build_output()
}

/// `EmptyTensorList`: an empty list of at most `max_num_elements` (int32 scalar, -1:
/// unbounded) elements.
pub fn empty_tensor_list(
    s: &Scope,
    element_shape: &Output,
    max_num_elements: &Output,
    element_dtype: DType,
) -> Result<Output> {
    s.op("EmptyTensorList", "EmptyTensorList")
        .input(element_shape)
        .input(max_num_elements)
        .attr("element_dtype", element_dtype)
        .attr("shape_type", element_shape.dtype())
        .build_output()
}

/// `TensorListFromTensor`: the list of `tensor`'s rows.
pub fn tensor_list_from_tensor(s: &Scope, tensor: &Output, element_shape: &Output) -> Result<Output> {
    s.op("TensorListFromTensor", "TensorListFromTensor")
        .input(tensor)
        .input(element_shape)
        .attr("element_dtype", tensor.dtype())
        .attr("shape_type", element_shape.dtype())
        .build_output()
}

/// `TensorListStack`: the elements stacked (`num_elements` -1: any length).
pub fn tensor_list_stack(
    s: &Scope,
    list: &Output,
    element_shape: &Output,
    element_dtype: DType,
    num_elements: i64,
) -> Result<Output> {
    s.op("TensorListStack", "TensorListStack")
        .input(list)
        .input(element_shape)
        .attr("element_dtype", element_dtype)
        .attr("num_elements", num_elements)
        .build_output()
}

/// `TensorListGetItem`: element `index` (int32 scalar).
pub fn tensor_list_get_item(
    s: &Scope,
    list: &Output,
    index: &Output,
    element_shape: &Output,
    element_dtype: DType,
) -> Result<Output> {
    s.op("TensorListGetItem", "TensorListGetItem")
        .input(list)
        .input(index)
        .input(element_shape)
        .attr("element_dtype", element_dtype)
        .build_output()
}

/// `TensorListSetItem`: the list with element `index` (int32 scalar) set to `item`.
pub fn tensor_list_set_item(s: &Scope, list: &Output, index: &Output, item: &Output) -> Result<Output> {
    s.op("TensorListSetItem", "TensorListSetItem")
        .input(list)
        .input(index)
        .input(item)
        .attr("element_dtype", item.dtype())
        .build_output()
}

/// `TensorListLength`: the number of elements (int32 scalar).
pub fn tensor_list_length(s: &Scope, list: &Output) -> Result<Output> {
    s.op("TensorListLength", "TensorListLength").input(list).build_output()
}

/// `TensorListElementShape`: the list's element shape as a `shape_type` (int32/int64) tensor.
pub fn tensor_list_element_shape(s: &Scope, list: &Output, shape_type: DType) -> Result<Output> {
    s.op("TensorListElementShape", "TensorListElementShape").input(list).attr("shape_type", shape_type).build_output()
}

/// `TensorListPushBack`: the list with `tensor` appended.
pub fn tensor_list_push_back(s: &Scope, list: &Output, tensor: &Output) -> Result<Output> {
    s.op("TensorListPushBack", "TensorListPushBack")
        .input(list)
        .input(tensor)
        .attr("element_dtype", tensor.dtype())
        .build_output()
}

/// `TensorListPopBack`: (the list without its last element, that element).
pub fn tensor_list_pop_back(
    s: &Scope,
    list: &Output,
    element_shape: &Output,
    element_dtype: DType,
) -> Result<(Output, Output)> {
    let op = s
        .op("TensorListPopBack", "TensorListPopBack")
        .input(list)
        .input(element_shape)
        .attr("element_dtype", element_dtype)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `TensorListConcatV2`: (the elements concatenated along dimension 0, their lengths as
/// int64); `leading_dims` (int64) gives unset elements' lengths.
pub fn tensor_list_concat_v2(
    s: &Scope,
    list: &Output,
    element_shape: &Output,
    leading_dims: &Output,
    element_dtype: DType,
) -> Result<(Output, Output)> {
    let op = s
        .op("TensorListConcatV2", "TensorListConcatV2")
        .input(list)
        .input(element_shape)
        .input(leading_dims)
        .attr("element_dtype", element_dtype)
        .attr("shape_type", element_shape.dtype())
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `TensorListSplit`: the list of `tensor`'s pieces `lengths` (int64) rows long.
pub fn tensor_list_split(s: &Scope, tensor: &Output, element_shape: &Output, lengths: &Output) -> Result<Output> {
    s.op("TensorListSplit", "TensorListSplit")
        .input(tensor)
        .input(element_shape)
        .input(lengths)
        .attr("element_dtype", tensor.dtype())
        .attr("shape_type", element_shape.dtype())
        .build_output()
}

/// `TensorListGather`: the elements at `indices` (int32) stacked.
pub fn tensor_list_gather(
    s: &Scope,
    list: &Output,
    indices: &Output,
    element_shape: &Output,
    element_dtype: DType,
) -> Result<Output> {
    s.op("TensorListGather", "TensorListGather")
        .input(list)
        .input(indices)
        .input(element_shape)
        .attr("element_dtype", element_dtype)
        .build_output()
}

/// `TensorListScatterIntoExistingList`: the list with element `indices[i]` set to row `i`
/// of `tensor`.
pub fn tensor_list_scatter_into_existing_list(
    s: &Scope,
    list: &Output,
    tensor: &Output,
    indices: &Output,
) -> Result<Output> {
    s.op("TensorListScatterIntoExistingList", "TensorListScatterIntoExistingList")
        .input(list)
        .input(tensor)
        .input(indices)
        .attr("element_dtype", tensor.dtype())
        .build_output()
}

/// `TensorListScatterV2`: a new list of `num_elements` (int32; -1: one past the largest
/// index) with element `indices[i]` set to row `i` of `tensor`.
pub fn tensor_list_scatter_v2(
    s: &Scope,
    tensor: &Output,
    indices: &Output,
    element_shape: &Output,
    num_elements: &Output,
) -> Result<Output> {
    s.op("TensorListScatterV2", "TensorListScatterV2")
        .input(tensor)
        .input(indices)
        .input(element_shape)
        .input(num_elements)
        .attr("element_dtype", tensor.dtype())
        .attr("shape_type", element_shape.dtype())
        .build_output()
}

/// `TensorListResize`: the list cut or grown to `size` (int32 scalar) elements.
pub fn tensor_list_resize(s: &Scope, list: &Output, size: &Output) -> Result<Output> {
    s.op("TensorListResize", "TensorListResize").input(list).input(size).build_output()
}
