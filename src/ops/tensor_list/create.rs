//! The ops that make a new list: `EmptyTensorList`, `TensorListReserve`,
//! `TensorListFromTensor`, `TensorListSplit`, `TensorListScatterV2`.

use super::build::{tensor_list_concat_v2, tensor_list_gather, tensor_list_stack};
use super::{list_output, rows, scalar_int, shape_from_tensor, tf_dims, tf_shape};
use crate::error::{Error, Result};
use crate::graph::{Node, Output};
use crate::ops::{FnKernel, GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor, TensorList};

/// `EmptyTensorList(element_shape, max_num_elements)` (attrs `element_dtype`,
/// `shape_type`): an empty list of `element_dtype` elements compatible with
/// `element_shape` (int32/int64; -1 = unknown), holding at most `max_num_elements` (int32
/// scalar, -1 = unbounded). Errors: `InvalidArgument` as TensorFlow's for a non-scalar
/// bound, a malformed shape.
pub struct EmptyTensorList;
impl RegisteredOp for EmptyTensorList {
    fn op_type(&self) -> &'static str {
        "EmptyTensorList"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        Ok(vec![list_output()])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(NewList { dtype: node.attr_type("element_dtype")?, reserve: false }))
    }
}

/// `TensorListReserve(element_shape, num_elements)` (attrs `element_dtype`, `shape_type`):
/// a list of `num_elements` (int32 scalar) elements not yet set, which read as zeros of
/// the element shape. Errors: `InvalidArgument` as TensorFlow's ("The num_elements to
/// reserve must be a non negative number, but got -1").
pub struct TensorListReserve;
impl RegisteredOp for TensorListReserve {
    fn op_type(&self) -> &'static str {
        "TensorListReserve"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        Ok(vec![list_output()])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(NewList { dtype: node.attr_type("element_dtype")?, reserve: true }))
    }
}

struct NewList {
    dtype: DType,
    reserve: bool,
}

impl Kernel for NewList {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let shape = shape_from_tensor(ctx.input(0))?;
        let mut list = TensorList::new(self.dtype, shape);
        let n = ctx.input(1);
        if self.reserve {
            if n.num_elements() != 1 {
                return Err(Error::invalid_argument(format!(
                    "The num_elements to reserve must be a tensor size 1, but got {}",
                    tf_dims(n.shape())
                )));
            }
            let n = n.to_f64_vec()?[0] as i64;
            if n < 0 {
                return Err(Error::invalid_argument(format!(
                    "The num_elements to reserve must be a non negative number, but got {n}"
                )));
            }
            list.tensors = vec![None; n as usize];
        } else {
            if n.rank() != 0 {
                return Err(Error::invalid_argument(format!(
                    "max_num_elements expected to be a scalar but got shape: {}",
                    tf_dims(n.shape())
                )));
            }
            // any value is taken, as TensorFlow's kernel does (a bound below -1 lets no
            // push through)
            list.max_num_elements = n.to_f64_vec()?[0] as i64;
        }
        Ok(vec![Tensor::from_tensor_list(list)])
    }
}

/// `TensorListFromTensor(tensor, element_shape)` (attrs `element_dtype`, `shape_type`): the
/// list of `tensor`'s rows along dimension 0. Errors: `InvalidArgument` for a scalar
/// tensor, rows incompatible with `element_shape`. Gradient: `TensorListStack` of the
/// incoming list gradient (TensorFlow's `_TensorListFromTensorGrad`).
pub struct TensorListFromTensor;
impl RegisteredOp for TensorListFromTensor {
    fn op_type(&self) -> &'static str {
        "TensorListFromTensor"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_type_attr("element_dtype", 0)?;
        Ok(vec![list_output()])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(from_tensor)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let t = &ctx.inputs[0];
        let s = ctx.scope;
        let dlist = ctx.grad(0)?;
        let num = t.shape().dim(0).map_or(-1, |d| d as i64);
        let shape = crate::ops::shape(s, t)?;
        let element_shape = crate::ops::slice(s, &shape, &[1], &[-1])?;
        Ok(vec![Some(tensor_list_stack(s, &dlist, &element_shape, t.dtype(), num)?), None])
    }
}

/// Checks that `t` is at least a vector whose rows fit `element_shape`.
fn check_rows(t: &Tensor, element_shape: &Shape) -> Result<()> {
    if t.rank() == 0 {
        return Err(Error::invalid_argument(format!(
            "Tensor must be at least a vector, but saw shape: {}",
            tf_dims(t.shape())
        )));
    }
    if !element_shape.is_compatible_with(&t.shape()[1..]) {
        return Err(Error::invalid_argument(format!(
            "Specified a list with shape {} from a tensor with shape {}",
            tf_shape(element_shape),
            tf_dims(&t.shape()[1..])
        )));
    }
    Ok(())
}

fn from_tensor(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let shape = shape_from_tensor(ctx.input(1))?;
    let t = ctx.input(0);
    check_rows(t, &shape)?;
    let mut list = TensorList::new(t.dtype(), shape);
    list.tensors = (0..t.shape()[0]).map(|i| rows(t, i, i + 1, true).map(Some)).collect::<Result<_>>()?;
    Ok(vec![Tensor::from_tensor_list(list)])
}

/// `TensorListSplit(tensor, element_shape, lengths)` (attrs `element_dtype`,
/// `shape_type`): the list of consecutive pieces of `tensor` along dimension 0, piece `i`
/// `lengths[i]` (int64) rows long. Errors: `InvalidArgument` as TensorFlow's (a scalar
/// tensor, an element shape of rank 0, negative lengths, lengths that pass the end or
/// leave rows unused: "Unused values in tensor. Length of tensor: 4 Values used: 2").
/// Gradient: `TensorListConcatV2` of the incoming list gradient.
pub struct TensorListSplit;
impl RegisteredOp for TensorListSplit {
    fn op_type(&self) -> &'static str {
        "TensorListSplit"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_type_attr("element_dtype", 0)?;
        Ok(vec![list_output()])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(split)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let (t, lengths) = (&ctx.inputs[0], &ctx.inputs[2]);
        let s = ctx.scope;
        let shape = crate::ops::shape(s, t)?;
        let inner = crate::ops::slice(s, &shape, &[1], &[-1])?;
        let minus_one = crate::ops::constant(s, Tensor::vector(vec![-1i32]))?;
        let element_shape = crate::ops::concat(s, &[minus_one, inner], 0)?;
        let (grad, _) = tensor_list_concat_v2(s, &ctx.grad(0)?, &element_shape, lengths, t.dtype())?;
        Ok(vec![Some(grad), None, None])
    }
}

fn split(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let shape = shape_from_tensor(ctx.input(1))?;
    if shape.rank() == Some(0) {
        return Err(Error::invalid_argument(format!(
            "TensorListSplit requires element_shape to be at least of rank 1, but saw: {}",
            tf_shape(&shape)
        )));
    }
    let t = ctx.input(0);
    if t.rank() == 0 {
        return Err(Error::invalid_argument(format!(
            "Tensor must be at least a vector, but saw shape: {}",
            tf_dims(t.shape())
        )));
    }
    let inner = match shape.dims() {
        Some(d) => Shape::partial(&d[1..]),
        None => Shape::unknown(),
    };
    if !inner.is_compatible_with(&t.shape()[1..]) {
        return Err(Error::invalid_argument(format!(
            "tensor shape {} is not compatible with element_shape {}",
            tf_dims(t.shape()),
            tf_shape(&shape)
        )));
    }
    let lengths = ctx.input(2);
    if lengths.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "Expected lengths to be a vector, received shape: {}",
            tf_dims(lengths.shape())
        )));
    }
    let rows_total = t.shape()[0] as i64;
    let mut list = TensorList::new(t.dtype(), shape);
    let (mut start, mut end) = (0i64, 0i64);
    for len in lengths.to_f64_vec()? {
        let len = len as i64;
        if len < 0 {
            return Err(Error::invalid_argument(format!("Invalid value in lengths: {len}")));
        }
        end = start + len;
        if end > rows_total {
            return Err(Error::invalid_argument(format!(
                "Attempting to slice [{start}, {end}] from tensor with length {rows_total}"
            )));
        }
        list.tensors.push(Some(rows(t, start as usize, end as usize, false)?));
        start = end;
    }
    if end != rows_total {
        return Err(Error::invalid_argument(format!(
            "Unused values in tensor. Length of tensor: {rows_total} Values used: {end}"
        )));
    }
    Ok(vec![Tensor::from_tensor_list(list)])
}

/// `TensorListScatterV2(tensor, indices, element_shape, num_elements)` (attrs
/// `element_dtype`, `shape_type`): a new list whose element `indices[i]` (int32) is row `i`
/// of `tensor`, of length `num_elements` (int32; -1: one past the largest index), other
/// elements not set. Errors: `InvalidArgument` as TensorFlow's for negative indices, an
/// index past `num_elements`, an index count other than the row count. Gradient:
/// `TensorListGather` of the incoming list gradient at `indices`.
pub struct TensorListScatterV2;
impl RegisteredOp for TensorListScatterV2 {
    fn op_type(&self) -> &'static str {
        "TensorListScatterV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(4)?;
        ctx.check_type_attr("element_dtype", 0)?;
        Ok(vec![list_output()])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(scatter_v2)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let (t, indices) = (&ctx.inputs[0], &ctx.inputs[1]);
        let s = ctx.scope;
        let shape = crate::ops::shape(s, t)?;
        let element_shape = crate::ops::slice(s, &shape, &[1], &[-1])?;
        let g = tensor_list_gather(s, &ctx.grad(0)?, indices, &element_shape, t.dtype())?;
        Ok(vec![Some(g), None, None, None])
    }
}

/// `TensorListScatter(tensor, indices, element_shape)`: TensorFlow's first form of
/// [`TensorListScatterV2`], without `num_elements` (the list is one past the largest index
/// long). Errors and gradient as V2's.
pub struct TensorListScatter;
impl RegisteredOp for TensorListScatter {
    fn op_type(&self) -> &'static str {
        "TensorListScatter"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_type_attr("element_dtype", 0)?;
        Ok(vec![list_output()])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(scatter_v2)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Ok(TensorListScatterV2.gradient(ctx)?.into_iter().take(3).collect())
    }
}

/// The kernel of both scatters: `num_elements` is input 3 when there is one, else -1.
fn scatter_v2(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let shape = shape_from_tensor(ctx.input(2))?;
    let num = if ctx.inputs.len() > 3 { scalar_int(ctx.input(3), "num_elements")? } else { -1 };
    let t = ctx.input(0).clone();
    check_rows(&t, &shape)?;
    let mut list = TensorList::new(t.dtype(), shape);
    scatter_rows(&mut list, &t, ctx.input(1), num)?;
    Ok(vec![Tensor::from_tensor_list(list)])
}

/// Writes row `i` of `t` to element `indices[i]` of `list`, growing it to `num_elements`
/// (or one past the largest index): TensorFlow's `Scatter` with its checks.
pub(super) fn scatter_rows(list: &mut TensorList, t: &Tensor, indices: &Tensor, num_elements: i64) -> Result<()> {
    let idx = indices.to_f64_vec()?;
    if idx.len() != t.shape()[0] {
        return Err(Error::invalid_argument(format!(
            "Expected len(indices) == tensor.shape[0], but saw: {} vs. {}",
            idx.len(),
            t.shape()[0]
        )));
    }
    let mut highest = -1i64;
    for &i in &idx {
        let i = i as i64;
        if i < 0 {
            return Err(Error::invalid_argument("Indices in TensorListScatter must all be non-negative."));
        }
        if num_elements != -1 && i >= num_elements {
            return Err(Error::invalid_argument(format!(
                "TensorListScatter: Trying to scatter at index {i} in list with size {num_elements}"
            )));
        }
        highest = highest.max(i);
    }
    let len = ((highest + 1).max(num_elements).max(0) as usize).max(list.tensors.len());
    list.tensors.resize(len, None);
    for (row, &i) in idx.iter().enumerate() {
        list.tensors[i as usize] = Some(rows(t, row, row + 1, true)?);
    }
    Ok(())
}
