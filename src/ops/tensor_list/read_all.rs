//! The ops that read many elements into one tensor or write many from one:
//! `TensorListStack`, `TensorListGather`, `TensorListConcatV2`,
//! `TensorListScatterIntoExistingList`.

use super::build::{
    tensor_list_element_shape, tensor_list_from_tensor, tensor_list_gather, tensor_list_length, tensor_list_reserve,
    tensor_list_scatter_into_existing_list, tensor_list_split,
};
use super::create::scatter_rows;
use super::{
    check_element_dtype, check_list_input, element_or_zeros, element_shape_input, join, list_output,
    merge_with_elements, static_element_shape, take_list, tf_dims, tf_shape,
};
use crate::error::{Error, Result};
use crate::graph::{Node, Output};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor, TensorList};

/// `[n] + element`: the shape of `n` stacked elements.
fn stacked(n: Option<usize>, element: &Shape) -> Shape {
    match element.dims() {
        Some(d) => std::iter::once(n).chain(d.iter().copied()).collect(),
        None => Shape::unknown(),
    }
}

/// The constant int32 element shape of a statically shaped tensor's rows (TensorFlow's
/// `_build_element_shape`: -1 for an unknown rank or dimension).
fn static_row_shape(s: &crate::graph::Scope, shape: &Shape) -> Result<Output> {
    let t = match shape.dims() {
        None => Tensor::scalar(-1i32),
        Some(d) => Tensor::vector(d.iter().skip(1).map(|x| x.map_or(-1, |v| v as i32)).collect::<Vec<i32>>()),
    };
    crate::ops::constant(s, t)
}

/// Elements `indices` of `l`, unset ones as zeros of the element shape, joined into one
/// tensor of shape `[indices.len()] + element shape`. `empty_msg` / `uninit_msg`: TensorFlow's
/// texts for an empty read of a shape not fully known and for unset elements of one.
fn read_elements(ctx: &KernelCtx, l: &TensorList, indices: &[usize], es: usize, what: [&str; 2]) -> Result<Tensor> {
    let shape = element_shape_input(ctx, l, es)?;
    if !shape.is_fully_defined() && indices.is_empty() {
        return Err(Error::invalid_argument(format!("{}{}", what[0], tf_shape(&shape))));
    }
    let shape = merge_with_elements(l, indices.iter().copied(), shape)?;
    let msg = format!("{}{}", what[1], tf_shape(&shape));
    let dims = shape.to_vec().ok_or_else(|| Error::invalid_argument(msg.clone()))?;
    let parts = indices.iter().map(|&i| element_or_zeros(l, i, &shape, &msg)).collect::<Result<Vec<_>>>()?;
    for p in &parts {
        if p.shape() != dims.as_slice() {
            return Err(Error::invalid_argument(format!(
                "Incompatible shapes during merge: {} vs. {}",
                tf_shape(&shape),
                tf_dims(p.shape())
            )));
        }
    }
    let mut out_shape = vec![indices.len()];
    out_shape.extend_from_slice(&dims);
    join(&parts, &out_shape, l.element_dtype)
}

/// `TensorListStack(input_handle, element_shape)` (attrs `element_dtype`, `num_elements` =
/// -1): the elements stacked into one tensor `[length] + element shape`, unset elements
/// as zeros. Errors: `InvalidArgument` as TensorFlow's (another dtype, a length other than
/// `num_elements`, an element shape not fully known with no element set: "Tried to stack
/// list which only contains uninitialized tensors and has a non-fully-defined
/// element_shape: <unknown>"). Gradient: `TensorListFromTensor` of the incoming gradient.
pub struct TensorListStack;
impl RegisteredOp for TensorListStack {
    fn op_type(&self) -> &'static str {
        "TensorListStack"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        check_list_input(ctx, 0)?;
        let n = ctx.node.attr_int_or("num_elements", -1)?;
        let n = usize::try_from(n).ok();
        Ok(vec![(ctx.node.attr_type("element_dtype")?, stacked(n, &static_element_shape(ctx, 1)))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(StackKernel {
            dtype: node.attr_type("element_dtype")?,
            num_elements: node.attr_int_or("num_elements", -1)?,
        }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let d = ctx.grad(0)?;
        let element_shape = static_row_shape(s, &d.shape())?;
        Ok(vec![Some(tensor_list_from_tensor(s, &d, &element_shape)?), None])
    }
}

struct StackKernel {
    dtype: DType,
    num_elements: i64,
}

impl Kernel for StackKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let l = ctx.input(0).tensor_list()?;
        check_element_dtype(self.dtype, l)?;
        if self.num_elements != -1 && l.tensors.len() as i64 != self.num_elements {
            return Err(Error::invalid_argument(format!(
                "Operation expected a list with {} elements but got a list with {} elements.",
                self.num_elements,
                l.tensors.len()
            )));
        }
        let idx: Vec<usize> = (0..l.tensors.len()).collect();
        let what = [
            "Tried to stack elements of an empty list with non-fully-defined element_shape: ",
            "Tried to stack list which only contains uninitialized tensors and has a non-fully-defined element_shape: ",
        ];
        Ok(vec![read_elements(ctx, l, &idx, 1, what)?])
    }
}

/// `TensorListGather(input_handle, indices, element_shape)` (attr `element_dtype`): the
/// elements at `indices` (int32) stacked. Errors: `InvalidArgument` as TensorFlow's for an
/// index past the end, another dtype, unset elements of a shape not fully known.
/// Gradient: the incoming gradient scattered into a list of the input's length
/// (TensorFlow's `_TensorListGatherGrad`).
pub struct TensorListGather;
impl RegisteredOp for TensorListGather {
    fn op_type(&self) -> &'static str {
        "TensorListGather"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        check_list_input(ctx, 0)?;
        let n = ctx.shape(1).dim(0);
        Ok(vec![(ctx.node.attr_type("element_dtype")?, stacked(n, &static_element_shape(ctx, 2)))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(GatherKernel(node.attr_type("element_dtype")?)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (list, indices) = (&ctx.inputs[0], &ctx.inputs[1]);
        let d = ctx.grad(0)?;
        let shape = tensor_list_element_shape(s, list, DType::Int32)?;
        let n = tensor_list_length(s, list)?;
        let reserved = tensor_list_reserve(s, &shape, &n, d.dtype())?;
        Ok(vec![Some(tensor_list_scatter_into_existing_list(s, &reserved, &d, indices)?), None, None])
    }
}

struct GatherKernel(DType);
impl Kernel for GatherKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let l = ctx.input(0).tensor_list()?;
        check_element_dtype(self.0, l)?;
        let mut idx = Vec::new();
        for i in ctx.input(1).to_f64_vec()? {
            let i = i as i64;
            if i < 0 || i as usize >= l.tensors.len() {
                return Err(Error::invalid_argument(format!(
                    "Index {i} out o range; list only has {} elements.",
                    l.tensors.len()
                )));
            }
            idx.push(i as usize);
        }
        let what = [
            "Tried to gather 0-elements from a list with non-fully-defined shape: ",
            "Tried to gather uninitialized tensors from a list with non-fully-defined element_shape: ",
        ];
        Ok(vec![read_elements(ctx, l, &idx, 2, what)?])
    }
}

/// `TensorListConcatV2(input_handle, element_shape, leading_dims)` (attrs
/// `element_dtype`, `shape_type`): the elements (each at least a vector) concatenated
/// along dimension 0, and each one's length (int64); an unset element `i` is zeros
/// `leading_dims[i]` (int64) rows long, or as long as the set elements when they agree.
/// Errors: `InvalidArgument` as TensorFlow's (scalar elements, shapes that differ past
/// dimension 0, unset elements of unknown shape). Gradient: `TensorListSplit` of the
/// incoming gradient by the lengths (TensorFlow's `_TensorListConcatGrad`).
pub struct TensorListConcatV2;
impl RegisteredOp for TensorListConcatV2 {
    fn op_type(&self) -> &'static str {
        "TensorListConcatV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        check_list_input(ctx, 0)?;
        let es = static_element_shape(ctx, 1);
        let shape = match es.dims() {
            Some(d) if !d.is_empty() => std::iter::once(None).chain(d[1..].iter().copied()).collect(),
            _ => Shape::unknown(),
        };
        Ok(vec![(ctx.node.attr_type("element_dtype")?, shape), (DType::Int64, Shape::partial(&[None]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(ConcatKernel(node.attr_type("element_dtype")?)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let shape = tensor_list_element_shape(s, &ctx.inputs[0], DType::Int64)?;
        let dlist = tensor_list_split(s, &ctx.grad(0)?, &shape, &ctx.outputs[1])?;
        Ok(vec![Some(dlist), None, None])
    }
}

struct ConcatKernel(DType);
impl Kernel for ConcatKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let l = ctx.input(0).tensor_list()?;
        check_element_dtype(self.0, l)?;
        let es = element_shape_input(ctx, l, 1)?;
        if es.rank() == Some(0) {
            return Err(Error::invalid_argument(
                "Concat requires elements to be at least vectors, found scalars instead.",
            ));
        }
        let mut first_dim = es.dims().and_then(|d| d[0]).map(|d| d as i64).unwrap_or(-1);
        let mut rest = match es.dims() {
            Some(d) => Shape::partial(&d[1..]),
            None => Shape::unknown(),
        };
        if l.tensors.is_empty() && !rest.is_fully_defined() {
            return Err(Error::invalid_argument(format!(
                "All except the first dimension must be fully defined when concating an empty tensor list. element_shape: {}",
                tf_shape(&rest)
            )));
        }
        if !l.element_shape.is_fully_defined() {
            let (mut check, mut inferred) = (first_dim == -1, first_dim);
            for (i, t) in l.tensors.iter().enumerate() {
                let Some(t) = t else { continue };
                if t.rank() == 0 {
                    return Err(Error::invalid_argument(format!(
                        "Concat saw a scalar shape at index {i} but requires at least vectors."
                    )));
                }
                rest = super::merge_shapes(&rest, &Shape::known(&t.shape()[1..]))?;
                let d0 = t.shape()[0] as i64;
                if first_dim != -1 && first_dim != d0 {
                    return Err(Error::invalid_argument(format!(
                        "First entry of element_shape input does not match the first dim of list element at index: {i} Expected: {first_dim} Actual: {d0}"
                    )));
                }
                if check {
                    if inferred == -1 {
                        inferred = d0;
                    } else if inferred != d0 {
                        inferred = -1;
                        check = false;
                    }
                }
            }
            first_dim = inferred;
        }
        let rest_dims = rest.to_vec().ok_or_else(|| {
            Error::invalid_argument(format!(
                "Trying to concat list with only uninitialized tensors but element_shape_except_first_dim_ is not fully defined: {}",
                tf_shape(&rest)
            ))
        })?;
        let leading = ctx.input(2).to_f64_vec()?;
        let mut lengths = Vec::with_capacity(l.tensors.len());
        let mut parts = Vec::with_capacity(l.tensors.len());
        for (i, t) in l.tensors.iter().enumerate() {
            let part = match t {
                Some(t) => {
                    if t.rank() == 0 || t.shape()[1..] != rest_dims[..] {
                        return Err(Error::invalid_argument(format!(
                            "Incompatible shapes during merge: {} vs. {}",
                            tf_dims(&rest_dims),
                            tf_dims(&t.shape()[t.rank().min(1)..])
                        )));
                    }
                    t.clone()
                }
                None => {
                    let d = if i >= leading.len() && first_dim != -1 {
                        first_dim
                    } else if i < leading.len() {
                        leading[i] as i64
                    } else {
                        return Err(Error::invalid_argument(format!(
                            "List contains uninitialized tensor at index {i} but leading_dims has only {} elements.",
                            leading.len()
                        )));
                    };
                    let mut dims = vec![d.max(0) as usize];
                    dims.extend_from_slice(&rest_dims);
                    Tensor::try_zeros(l.element_dtype, &dims)?
                }
            };
            lengths.push(part.shape()[0] as i64);
            parts.push(part);
        }
        let mut shape = vec![lengths.iter().sum::<i64>() as usize];
        shape.extend_from_slice(&rest_dims);
        let n = lengths.len();
        Ok(vec![join(&parts, &shape, l.element_dtype)?, Tensor::new(&[n], lengths)?])
    }
}

/// `TensorListScatterIntoExistingList(input_handle, tensor, indices)` (attr
/// `element_dtype`): the list with element `indices[i]` (int32) set to row `i` of `tensor`,
/// grown when an index is past the end. Errors: `InvalidArgument` as TensorFlow's.
/// Gradient: (the incoming list with zeros at `indices`, its elements at `indices`
/// gathered, none), TensorFlow's `_TensorListScatterIntoExistingListGrad`.
pub struct TensorListScatterIntoExistingList;
impl RegisteredOp for TensorListScatterIntoExistingList {
    fn op_type(&self) -> &'static str {
        "TensorListScatterIntoExistingList"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        check_list_input(ctx, 0)?;
        ctx.check_type_attr("element_dtype", 1)?;
        Ok(vec![list_output()])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(ScatterExistingKernel(node.attr_type("element_dtype")?)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (tensor, indices) = (&ctx.inputs[1], &ctx.inputs[2]);
        let dlist = ctx.grad(0)?;
        let shape = crate::ops::shape(s, tensor)?;
        let element_shape = crate::ops::slice(s, &shape, &[1], &[-1])?;
        let dtensor = tensor_list_gather(s, &dlist, indices, &element_shape, tensor.dtype())?;
        let zeros = crate::ops::zeros_like(s, tensor)?;
        let dlist = tensor_list_scatter_into_existing_list(s, &dlist, &zeros, indices)?;
        Ok(vec![Some(dlist), Some(dtensor), None])
    }
}

struct ScatterExistingKernel(DType);
impl Kernel for ScatterExistingKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let t = ctx.input(1).clone();
        let indices = ctx.input(2).clone();
        let mut out = take_list(ctx, 0)?;
        let l = out.tensor_list()?;
        check_element_dtype(self.0, l)?;
        if t.dtype() != l.element_dtype {
            return Err(Error::invalid_argument(format!(
                "Invalid data types; op elements {} but list elements {}",
                super::dtype_string(t.dtype()),
                super::dtype_string(l.element_dtype)
            )));
        }
        if t.rank() == 0 {
            return Err(Error::invalid_argument(format!(
                "Tensor must be at least a vector, but saw shape: {}",
                tf_dims(t.shape())
            )));
        }
        if !l.element_shape.is_compatible_with(&t.shape()[1..]) {
            return Err(Error::invalid_argument(format!(
                "Specified a list with shape {} from a tensor with shape {}",
                tf_shape(&l.element_shape),
                tf_dims(&t.shape()[1..])
            )));
        }
        scatter_rows(out.tensor_list_mut()?, &t, &indices, -1)?;
        Ok(vec![out])
    }
}
