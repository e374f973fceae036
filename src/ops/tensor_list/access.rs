//! The ops that read or change one element or the length: `TensorListLength`,
//! `TensorListElementShape`, `TensorListGetItem`, `TensorListSetItem`,
//! `TensorListPushBack`, `TensorListPopBack`, `TensorListResize`.

use super::build::{
    empty_tensor_list, tensor_list_element_shape, tensor_list_get_item, tensor_list_length, tensor_list_pop_back,
    tensor_list_push_back, tensor_list_reserve, tensor_list_resize, tensor_list_set_item,
};
use super::{
    check_element_dtype, check_list_input, dtype_string, element_or_zeros, element_shape_input, list_output,
    merge_with_elements, scalar_int, static_element_shape, take_list, tf_dims, tf_shape,
};
use crate::error::{Error, Result};
use crate::graph::{Node, Output};
use crate::ops::{FnKernel, GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

/// `TensorListLength(input_handle)`: the number of elements, an int32 scalar.
pub struct TensorListLength;
impl RegisteredOp for TensorListLength {
    fn op_type(&self) -> &'static str {
        "TensorListLength"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        check_list_input(ctx, 0)?;
        Ok(vec![(DType::Int32, Shape::scalar())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(|ctx| {
            let n = ctx.input(0).tensor_list()?.tensors.len();
            Ok(vec![Tensor::scalar(n as i32)])
        })))
    }
}

/// `TensorListElementShape(input_handle)` (attr `shape_type`, int32 or int64): the list's
/// element shape, -1 for an unknown dimension, the scalar -1 for an unknown rank.
pub struct TensorListElementShape;
impl RegisteredOp for TensorListElementShape {
    fn op_type(&self) -> &'static str {
        "TensorListElementShape"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        check_list_input(ctx, 0)?;
        Ok(vec![(ctx.node.attr_type("shape_type")?, Shape::unknown())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(ElementShapeKernel(node.attr_type("shape_type")?)))
    }
}

struct ElementShapeKernel(DType);
impl Kernel for ElementShapeKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let shape = &ctx.input(0).tensor_list()?.element_shape;
        let t = match shape.dims() {
            None => Tensor::from_f64(self.0, &[], &[-1.0])?,
            Some(d) => {
                let v: Vec<f64> = d.iter().map(|x| x.map_or(-1.0, |v| v as f64)).collect();
                Tensor::from_f64(self.0, &[v.len()], &v)?
            }
        };
        Ok(vec![t])
    }
}

/// The `element_dtype` attr of a node.
struct ElementDType(DType);

/// `TensorListGetItem(input_handle, index, element_shape)` (attr `element_dtype`): element
/// `index` (int32), or zeros of the element shape (`element_shape` merged with the list's
/// and its set elements') for an element not set. Errors: `InvalidArgument` as
/// TensorFlow's: "Trying to access element 7 in a list with 4 elements.", another element
/// dtype, an unset element of a shape not fully known. Gradient: a list of the input's
/// length with the incoming gradient at `index` (TensorFlow's `_TensorListGetItemGrad`).
pub struct TensorListGetItem;
impl RegisteredOp for TensorListGetItem {
    fn op_type(&self) -> &'static str {
        "TensorListGetItem"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        check_list_input(ctx, 0)?;
        Ok(vec![(ctx.node.attr_type("element_dtype")?, static_element_shape(ctx, 2))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(ElementDType(node.attr_type("element_dtype")?)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (list, index) = (&ctx.inputs[0], &ctx.inputs[1]);
        let ditem = ctx.grad(0)?;
        let size = tensor_list_length(s, list)?;
        let shape = tensor_list_element_shape(s, list, DType::Int32)?;
        let reserved = tensor_list_reserve(s, &shape, &size, ditem.dtype())?;
        Ok(vec![Some(tensor_list_set_item(s, &reserved, index, &ditem)?), None, None])
    }
}

impl Kernel for ElementDType {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let l = ctx.input(0).tensor_list()?;
        check_element_dtype(self.0, l)?;
        let index = scalar_int(ctx.input(1), "index")?;
        if index < 0 || index as usize >= l.tensors.len() {
            return Err(Error::invalid_argument(format!(
                "Trying to access element {index} in a list with {} elements.",
                l.tensors.len()
            )));
        }
        let i = index as usize;
        if let Some(t) = &l.tensors[i] {
            return Ok(vec![t.clone()]);
        }
        let shape = merge_with_elements(l, 0..l.tensors.len(), element_shape_input(ctx, l, 2)?)?;
        let msg = format!(
            "Trying to read an uninitialized tensor but element_shape is not fully defined: {} and no list element is set.",
            tf_shape(&shape)
        );
        Ok(vec![element_or_zeros(l, i, &shape, &msg)?])
    }
}

/// `TensorListSetItem(input_handle, index, item)` (attrs `element_dtype`,
/// `resize_if_index_out_of_bounds` = false): the list with element `index` (int32) set to
/// `item`; with the attr set, an index past the end grows the list first. Errors:
/// `InvalidArgument` as TensorFlow's: "Trying to modify element 7 in a list with 4
/// elements.", another dtype, an item shape incompatible with the list's. Gradient:
/// (the incoming list with zeros at `index`, none, its element `index`), TensorFlow's
/// `_TensorListSetItemGrad`; `Unimplemented` with `resize_if_index_out_of_bounds`, as
/// TensorFlow.
pub struct TensorListSetItem;
impl RegisteredOp for TensorListSetItem {
    fn op_type(&self) -> &'static str {
        "TensorListSetItem"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        check_list_input(ctx, 0)?;
        ctx.check_type_attr("element_dtype", 2)?;
        Ok(vec![list_output()])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(SetItemKernel {
            dtype: node.attr_type("element_dtype")?,
            resize: node.attr_bool_or("resize_if_index_out_of_bounds", false)?,
        }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        if ctx.node.attr_bool_or("resize_if_index_out_of_bounds", false)? {
            return Err(Error::unimplemented(format!(
                "the gradient of TensorListSetItem '{}' with resize_if_index_out_of_bounds is not implemented (as in TensorFlow)",
                ctx.node.name
            )));
        }
        let s = ctx.scope;
        let (index, item) = (&ctx.inputs[1], &ctx.inputs[2]);
        let dlist = ctx.grad(0)?;
        let zeros = crate::ops::zeros_like(s, item)?;
        let list_grad = tensor_list_set_item(s, &dlist, index, &zeros)?;
        let shape = crate::ops::shape(s, item)?;
        let element_grad = tensor_list_get_item(s, &dlist, index, &shape, item.dtype())?;
        Ok(vec![Some(list_grad), None, Some(element_grad)])
    }
}

struct SetItemKernel {
    dtype: DType,
    resize: bool,
}

impl Kernel for SetItemKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let index = scalar_int(ctx.input(1), "index")?;
        let item = ctx.input(2).clone();
        let mut out = take_list(ctx, 0)?;
        let l = out.tensor_list()?;
        check_element_dtype(self.dtype, l)?;
        let len = l.tensors.len();
        if index < 0 || (index as usize >= len && !self.resize) {
            return Err(Error::invalid_argument(format!(
                "Trying to modify element {index} in a list with {len} elements."
            )));
        }
        if !l.element_shape.is_compatible_with(item.shape()) {
            return Err(Error::invalid_argument(format!(
                "Tried to set a tensor with incompatible shape at a list index. Item element shape: {} list shape: {}",
                tf_dims(item.shape()),
                tf_shape(&l.element_shape)
            )));
        }
        let l = out.tensor_list_mut()?;
        if index as usize >= len {
            l.tensors.resize(index as usize + 1, None);
        }
        l.tensors[index as usize] = Some(item);
        Ok(vec![out])
    }
}

/// `TensorListPushBack(input_handle, tensor)` (attr `element_dtype`): the list with
/// `tensor` appended. Errors: `InvalidArgument` as TensorFlow's for another dtype, an
/// incompatible shape, a list at its `max_num_elements`. Gradient: `TensorListPopBack` of
/// the incoming list gradient (TensorFlow's `_TensorListPushBackGrad`).
pub struct TensorListPushBack;
impl RegisteredOp for TensorListPushBack {
    fn op_type(&self) -> &'static str {
        "TensorListPushBack"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        check_list_input(ctx, 0)?;
        ctx.check_type_attr("element_dtype", 1)?;
        Ok(vec![list_output()])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(PushBackKernel(node.attr_type("element_dtype")?)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let Some(dresult) = &ctx.grads[0] else { return Ok(vec![None, None]) };
        let s = ctx.scope;
        let shape = tensor_list_element_shape(s, &ctx.outputs[0], DType::Int32)?;
        let dtype = ctx.node.attr_type("element_dtype")?;
        let (dlist, delement) = tensor_list_pop_back(s, dresult, &shape, dtype)?;
        Ok(vec![Some(dlist), Some(delement)])
    }
}

struct PushBackKernel(DType);
impl Kernel for PushBackKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let item = ctx.input(1).clone();
        let mut out = take_list(ctx, 0)?;
        let l = out.tensor_list()?;
        if self.0 != l.element_dtype {
            return Err(Error::invalid_argument(format!(
                "Invalid data types; list elements {} but tried to append {}",
                dtype_string(l.element_dtype),
                dtype_string(self.0)
            )));
        }
        if !l.element_shape.is_compatible_with(item.shape()) {
            return Err(Error::invalid_argument(format!(
                "Tried to append a tensor with incompatible shape to a list. Op element shape: {} list shape: {}",
                tf_dims(item.shape()),
                tf_shape(&l.element_shape)
            )));
        }
        if l.max_num_elements != -1 && l.tensors.len() as i64 >= l.max_num_elements {
            return Err(Error::invalid_argument(format!(
                "Tried to push item into a full list list size: {} max_num_elements: {}",
                l.tensors.len(),
                l.max_num_elements
            )));
        }
        out.tensor_list_mut()?.tensors.push(Some(item));
        Ok(vec![out])
    }
}

/// `TensorListPopBack(input_handle, element_shape)` (attr `element_dtype`): the list
/// without its last element, and that element (zeros of the element shape when it was
/// not set). Errors: `InvalidArgument` "Trying to pop from an empty list." and for another
/// dtype. Gradient: `TensorListPushBack` of the element's gradient onto the list's
/// (TensorFlow's `_TensorListPopBackGrad`).
pub struct TensorListPopBack;
impl RegisteredOp for TensorListPopBack {
    fn op_type(&self) -> &'static str {
        "TensorListPopBack"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        check_list_input(ctx, 0)?;
        Ok(vec![list_output(), (ctx.node.attr_type("element_dtype")?, static_element_shape(ctx, 1))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(PopBackKernel(node.attr_type("element_dtype")?)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let dlist = match &ctx.grads[0] {
            Some(g) => g.clone(),
            None => {
                let dtype = ctx.outputs[1].dtype();
                let shape = tensor_list_element_shape(s, &ctx.outputs[0], DType::Int32)?;
                let max = crate::ops::constant(s, Tensor::scalar(-1i32))?;
                empty_tensor_list(s, &shape, &max, dtype)?
            }
        };
        let delement = ctx.grad(1)?;
        Ok(vec![Some(tensor_list_push_back(s, &dlist, &delement)?), None])
    }
}

struct PopBackKernel(DType);
impl Kernel for PopBackKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let mut out = take_list(ctx, 0)?;
        let l = out.tensor_list()?;
        check_element_dtype(self.0, l)?;
        if l.tensors.is_empty() {
            return Err(Error::invalid_argument("Trying to pop from an empty list."));
        }
        let last = l.tensors.len() - 1;
        let value = match &l.tensors[last] {
            Some(t) => t.clone(),
            None => {
                let shape = element_shape_input(ctx, l, 1)?;
                let msg = format!(
                    "Trying to read an uninitialized tensor but element_shape is not fully defined.{}",
                    tf_shape(&shape)
                );
                element_or_zeros(l, last, &shape, &msg)?
            }
        };
        out.tensor_list_mut()?.tensors.pop();
        Ok(vec![out, value])
    }
}

/// `TensorListResize(input_handle, size)`: the list cut or grown (with elements not set)
/// to `size` (int32) elements. Errors: `InvalidArgument` for a negative size, as
/// TensorFlow's. Gradient: the incoming list gradient resized to the input's length.
pub struct TensorListResize;
impl RegisteredOp for TensorListResize {
    fn op_type(&self) -> &'static str {
        "TensorListResize"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        check_list_input(ctx, 0)?;
        Ok(vec![list_output()])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(resize)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let size = tensor_list_length(s, &ctx.inputs[0])?;
        Ok(vec![Some(tensor_list_resize(s, &ctx.grad(0)?, &size)?), None])
    }
}

fn resize(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let size = ctx.input(1);
    if size.num_elements() != 1 {
        return Err(Error::invalid_argument(format!(
            "size must be a scalar, but had shape: {}",
            tf_dims(size.shape())
        )));
    }
    let size = size.to_f64_vec()?[0] as i64;
    if size < 0 {
        return Err(Error::invalid_argument(format!("TensorListSlice expects size to be non-negative. Got: {size}")));
    }
    let mut out = take_list(ctx, 0)?;
    out.tensor_list_mut()?.tensors.resize(size as usize, None);
    Ok(vec![out])
}
