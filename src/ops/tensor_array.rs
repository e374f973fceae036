//! TensorArray ops (TensorFlow's `TensorArrayV3` family): a list of tensors that lives
//! for one run, written and read by index, gathered and scattered, concatenated and
//! split, used by `dynamic_rnn` and `tf.while_loop` to collect per-step values.
//!
//! A `TensorArrayV3` op creates the array in the run's [`StepResources`](crate::ops::StepResources) and outputs its
//! handle (dtype `resource`; at run time the string vector `["_tensor_arrays", name]`, as
//! TensorFlow) and a float `flow` scalar. Every op changing the array takes a flow and
//! outputs the next one, so a graph orders reads after writes through data edges, also
//! across the iterations of a while loop (TensorFlow creates the array outside the loop and
//! passes its handle in through an `Enter`). Gradients: see `tensor_array/grad.rs`.

mod array;
mod build;
mod grad;

use array::{TensorArray, TensorArrayConfig};
pub use build::*;

use crate::error::{Error, Result};
use crate::graph::{Node, Output};
use crate::ops::step_resources::{handle_tensor, parse_handle, tf_dims, tf_dtype, tf_shape, StepResource};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Storage, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[
    &TensorArrayV3,
    &TensorArrayGradV3,
    &TensorArrayGradWithShape,
    &TensorArrayWriteV3,
    &TensorArrayReadV3,
    &TensorArrayGatherV3,
    &TensorArrayScatterV3,
    &TensorArrayConcatV3,
    &TensorArraySplitV3,
    &TensorArraySizeV3,
    &TensorArrayCloseV3,
];

/// The container of forward arrays' handles.
const ARRAYS: &str = "_tensor_arrays";
/// The container of gradient arrays' handles.
const GRADS: &str = "_tensor_array_grads";

/// The handle's (dtype, shape): a resource, a 2-vector as TensorFlow's shape function says.
fn handle_out() -> (DType, Shape) {
    (DType::Resource, Shape::known(&[2]))
}

/// The flow's (dtype, shape): a float scalar.
fn flow_out() -> (DType, Shape) {
    (DType::Float, Shape::scalar())
}

/// Errors unless input `i` is a handle (a resource, or a 2-vector of strings).
fn check_handle(ctx: &InferCtx, i: usize) -> Result<()> {
    match ctx.dtype(i) {
        DType::Resource | DType::String => Ok(()),
        d => Err(Error::invalid_argument(format!("input {i} (handle) must be a resource, got {d}"))),
    }
}

/// Errors unless input `i` is a float scalar flow.
fn check_flow(ctx: &InferCtx, i: usize) -> Result<()> {
    ctx.check_dtype(i, &[DType::Float])?;
    scalar_shape(ctx, i, "flow_in")
}

/// Errors unless input `i` may be a scalar (TensorFlow's shape functions: "Shape must be rank 0").
fn scalar_shape(ctx: &InferCtx, i: usize, what: &str) -> Result<()> {
    match ctx.shape(i).rank() {
        Some(r) if r != 0 => Err(Error::invalid_argument(format!(
            "Shape must be rank 0 but is rank {r} for {what} (input {i}) of '{}'",
            ctx.node.name
        ))),
        _ => Ok(()),
    }
}

/// The TensorArray behind handle input `i`.
/// Errors: `InvalidArgument` for a malformed handle, `NotFound` when no array of that
/// name was created in this run.
fn lookup(ctx: &KernelCtx, i: usize) -> Result<StepResource<TensorArray>> {
    let (container, name) = parse_handle(ctx.input(i), "Tensor array")?;
    ctx.step.get::<TensorArray>(&container, &name)?.ok_or_else(|| {
        Error::not_found(format!(
            "Resource {container}/{name} does not exist: TensorArray {name} was not created in this run (its TensorArrayV3 op runs in the same Session::run as the ops using its handle)"
        ))
    })
}

/// Locks `ta` (a poisoned lock is taken over: the array's state is still consistent).
fn lock(ta: &StepResource<TensorArray>) -> std::sync::MutexGuard<'_, TensorArray> {
    ta.lock().unwrap_or_else(|e| e.into_inner())
}

/// An int32 scalar input (an index or size). Errors: `InvalidArgument` in TensorFlow's words.
fn scalar_index(t: &Tensor, what: &str) -> Result<i64> {
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "TensorArray {what} must be scalar, but had shape: {}",
            tf_dims(t.shape())
        )));
    }
    Ok(t.to_f64_vec()?[0] as i64)
}

/// The int32 vector input `t` (indices). Errors: `InvalidArgument` unless it is a vector.
fn index_vector(t: &Tensor, what: &str) -> Result<Vec<i64>> {
    if t.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "Expected {what} to be a vector, but received shape: {}",
            tf_dims(t.shape())
        )));
    }
    Ok(t.to_f64_vec()?.into_iter().map(|v| v as i64).collect())
}

/// Errors unless `ta`'s dtype is the op's `dtype` attr.
fn check_dtype(ta: &TensorArray, want: DType) -> Result<()> {
    if ta.dtype() != want {
        return Err(Error::invalid_argument(format!(
            "TensorArray dtype is {} but Op requested dtype {}.",
            tf_dtype(ta.dtype()),
            tf_dtype(want)
        )));
    }
    Ok(())
}

/// The elements `values` (one dtype) one after the other, shaped `shape`.
fn join(values: &[Tensor], shape: &[usize], dtype: DType) -> Result<Tensor> {
    let Some(first) = values.first() else { return Tensor::try_zeros(dtype, shape) };
    macro_rules! cat {
        ($($v:ident),*) => {
            match first.storage() {
                $(Storage::$v(_) => {
                    let mut out = Vec::new();
                    for v in values {
                        match v.storage() {
                            Storage::$v(x) => out.extend(x.iter().cloned()),
                            other => return Err(Error::internal(format!("TensorArray elements of dtypes {} and {}", dtype, other.dtype()))),
                        }
                    }
                    Storage::$v(out)
                })*
            }
        };
    }
    let storage = cat!(
        F32, F64, I32, I64, Bool, I8, I16, U8, U16, U32, U64, F16, BF16, C64, C128, Str, QI8, QU8, QI16, QU16, QI32,
        Variant
    );
    Tensor::from_storage(shape, storage)
}

/// Rows `start..start + len` of `x` along dimension 0.
fn rows(x: &Tensor, start: usize, len: usize) -> Result<Tensor> {
    let inner: usize = x.shape()[1..].iter().product();
    let mut shape = x.shape().to_vec();
    shape[0] = len;
    let idx: Vec<usize> = (start * inner..(start + len) * inner).collect();
    Tensor::from_storage(&shape, x.storage().try_gather(&idx)?)
}

/// `TensorArrayV3(size)`: creates a TensorArray of `size` (int32 scalar, at least 0)
/// elements of `dtype`; outputs its handle and flow. Attrs as [`TensorArrayOptions`].
/// The array's name in messages is `tensor_array_name` (or the op's name) + `_N`, N
/// counting the arrays made in the run. Errors: `InvalidArgument` "Size should be >= 0.".
/// Not differentiable.
pub struct TensorArrayV3;
impl RegisteredOp for TensorArrayV3 {
    fn op_type(&self) -> &'static str {
        "TensorArrayV3"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_dtype(0, &[DType::Int32])?;
        scalar_shape(ctx, 0, "size")?;
        Ok(vec![handle_out(), flow_out()])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let name = match node.attrs.get("tensor_array_name") {
            Some(crate::graph::AttrValue::String(s)) if !s.is_empty() => String::from_utf8_lossy(s).into_owned(),
            _ => node.name.clone(),
        };
        Ok(Box::new(CreateKernel {
            name,
            cfg: TensorArrayConfig {
                dtype: node.attr_type("dtype")?,
                element_shape: node.attr_shape_or("element_shape", Shape::unknown())?,
                identical_element_shapes: node.attr_bool_or("identical_element_shapes", false)?,
                dynamic_size: node.attr_bool_or("dynamic_size", false)?,
                clear_after_read: node.attr_bool_or("clear_after_read", true)?,
                is_grad: false,
            },
        }))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

struct CreateKernel {
    name: String,
    cfg: TensorArrayConfig,
}

impl Kernel for CreateKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let size = scalar_index(ctx.input(0), "size")?;
        if size < 0 {
            return Err(Error::invalid_argument("Size should be >= 0."));
        }
        let name = format!("{}_{}", self.name, ctx.step.next_id());
        ctx.step.create(ARRAYS, &name, TensorArray::new(name.clone(), size as usize, self.cfg.clone()))?;
        Ok(vec![handle_tensor(ARRAYS, &name), Tensor::scalar(0f32)])
    }
}

/// `TensorArrayGradV3(handle, flow_in)`: the gradient array of `handle` for the gradient
/// computation named by the `source` attr: made on first use (the forward array's size,
/// dtype and element shape, and the shapes of its written elements, so that unwritten
/// gradients read as zeros; writes to one index add up) and the same array afterwards.
/// Fixes the forward array's size. Outputs the grad handle and `flow_in`. Not differentiable.
pub struct TensorArrayGradV3;
impl RegisteredOp for TensorArrayGradV3 {
    fn op_type(&self) -> &'static str {
        "TensorArrayGradV3"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        check_handle(ctx, 0)?;
        check_flow(ctx, 1)?;
        Ok(vec![handle_out(), flow_out()])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(GradKernel { source: grad_source_attr(node)?, with_shape: false }))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// `TensorArrayGradWithShape(handle, flow_in, shape_to_prepend)`: as
/// [`TensorArrayGradV3`], each gradient element shaped `shape_to_prepend` (int32 vector)
/// followed by the forward element's shape. Not differentiable.
pub struct TensorArrayGradWithShape;
impl RegisteredOp for TensorArrayGradWithShape {
    fn op_type(&self) -> &'static str {
        "TensorArrayGradWithShape"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        check_handle(ctx, 0)?;
        check_flow(ctx, 1)?;
        ctx.check_dtype(2, &[DType::Int32])?;
        Ok(vec![handle_out(), flow_out()])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(GradKernel { source: grad_source_attr(node)?, with_shape: true }))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// The `source` attr of a gradient-array op.
fn grad_source_attr(node: &Node) -> Result<String> {
    match node.attr("source")? {
        crate::graph::AttrValue::String(s) => Ok(String::from_utf8_lossy(s).into_owned()),
        v => Err(Error::invalid_argument(format!("attr 'source' of op '{}' should be a string, got {v:?}", node.name))),
    }
}

struct GradKernel {
    source: String,
    with_shape: bool,
}

impl Kernel for GradKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (container, _) = parse_handle(ctx.input(0), "Tensor array")?;
        if container != ARRAYS {
            return Err(Error::invalid_argument(format!(
                "Input container should be '{ARRAYS}',  but received '{container}'"
            )));
        }
        let prepend: Vec<usize> = if self.with_shape {
            let v = ctx.input(2).to_f64_vec()?;
            if v.iter().any(|&d| d < 0.0) {
                return Err(Error::invalid_argument(format!("shape_to_prepend must be non-negative, got {v:?}")));
            }
            v.into_iter().map(|d| d as usize).collect()
        } else {
            Vec::new()
        };
        let forward = lookup(ctx, 0)?;
        let mut fwd = lock(&forward);
        let name = format!("{}@{}", fwd.name, self.source);
        let cfg = fwd.grad_config(&prepend);
        let size = fwd.size();
        let made = ctx.step.get_or_create(GRADS, &name, || Ok(TensorArray::new(name.clone(), size, cfg)))?;
        fwd.copy_shapes_to(&mut lock(&made), &prepend);
        Ok(vec![handle_tensor(GRADS, &name), ctx.input(1).clone()])
    }
}

/// `TensorArrayWriteV3(handle, index, value, flow_in)` (attr `T`): writes `value` at
/// `index`; outputs `flow_in`. Errors (`InvalidArgument`, TensorFlow's words, naming the
/// array): an index out of range of a fixed-size array, a second write to one index (not
/// a gradient array), a write after a read, a value shape incompatible with the element
/// shape, a dtype other than the array's, a closed array. Gradient (TensorFlow's
/// `_TensorArrayWriteGrad`): a read from the gradient array.
pub struct TensorArrayWriteV3;
impl RegisteredOp for TensorArrayWriteV3 {
    fn op_type(&self) -> &'static str {
        "TensorArrayWriteV3"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(4)?;
        check_handle(ctx, 0)?;
        ctx.check_dtype(1, &[DType::Int32])?;
        scalar_shape(ctx, 1, "index")?;
        ctx.check_type_attr("T", 2)?;
        check_flow(ctx, 3)?;
        Ok(vec![flow_out()])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(crate::ops::FnKernel(write_kernel)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        grad::write_grad(ctx)
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

fn write_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let index = scalar_index(ctx.input(1), "index")?;
    let ta = lookup(ctx, 0)?;
    let mut ta = lock(&ta);
    let value = ctx.inputs[2].clone();
    if value.dtype() != ta.dtype() {
        return Err(Error::invalid_argument(format!(
            "TensorArray dtype is {} but Op is trying to write dtype {}.",
            tf_dtype(ta.dtype()),
            tf_dtype(value.dtype())
        )));
    }
    ta.write(index, value)?;
    Ok(vec![ctx.input(3).clone()])
}

/// `TensorArrayReadV3(handle, index, flow_in)` (attr `dtype`): element `index`. An
/// unwritten element reads as zeros when the element shape is fully defined (always for a
/// gradient array whose forward element was written). Errors (`InvalidArgument`,
/// TensorFlow's words): an index past the size, an unwritten element of unknown shape, a
/// second read of an element cleared by the first (`clear_after_read`), a closed array.
/// Gradient (TensorFlow's `_TensorArrayReadGrad`): a write into the gradient array.
pub struct TensorArrayReadV3;
impl RegisteredOp for TensorArrayReadV3 {
    fn op_type(&self) -> &'static str {
        "TensorArrayReadV3"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        check_handle(ctx, 0)?;
        ctx.check_dtype(1, &[DType::Int32])?;
        scalar_shape(ctx, 1, "index")?;
        check_flow(ctx, 2)?;
        Ok(vec![(ctx.node.attr_type("dtype")?, Shape::unknown())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(ReadKernel { dtype: node.attr_type("dtype")? }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        grad::read_grad(ctx)
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

struct ReadKernel {
    dtype: DType,
}

impl Kernel for ReadKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let index = scalar_index(ctx.input(1), "index")?;
        let ta = lookup(ctx, 0)?;
        let mut ta = lock(&ta);
        check_dtype(&ta, self.dtype)?;
        Ok(vec![ta.read(index)?])
    }
}

/// `TensorArrayGatherV3(handle, indices, flow_in)` (attrs `dtype`, `element_shape`): the
/// elements at `indices` (int32 vector) stacked into `[len(indices)] + element shape`.
/// Errors (`InvalidArgument`, TensorFlow's words): those of reading each element; elements
/// of different shapes; no indices and an element shape not fully defined. Gradient
/// (TensorFlow's `_TensorArrayGatherGrad`): a scatter into the gradient array.
pub struct TensorArrayGatherV3;
impl RegisteredOp for TensorArrayGatherV3 {
    fn op_type(&self) -> &'static str {
        "TensorArrayGatherV3"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        check_handle(ctx, 0)?;
        ctx.check_dtype(1, &[DType::Int32])?;
        check_flow(ctx, 2)?;
        let n = ctx.shape(1).dim(0);
        let elem = ctx.node.attr_shape_or("element_shape", Shape::unknown())?;
        let shape = match elem.dims() {
            Some(d) => {
                let mut v = vec![n];
                v.extend_from_slice(d);
                Shape::partial(&v)
            }
            None => Shape::unknown(),
        };
        Ok(vec![(ctx.node.attr_type("dtype")?, shape)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(GatherKernel {
            dtype: node.attr_type("dtype")?,
            element_shape: node.attr_shape_or("element_shape", Shape::unknown())?,
        }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        grad::gather_grad(ctx)
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

struct GatherKernel {
    dtype: DType,
    element_shape: Shape,
}

impl Kernel for GatherKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let indices = index_vector(ctx.input(1), "indices")?;
        let ta = lookup(ctx, 0)?;
        let mut ta = lock(&ta);
        check_dtype(&ta, self.dtype)?;
        if indices.is_empty() {
            let elem = self.element_shape.merge(ta.element_shape()).unwrap_or_else(|| self.element_shape.clone());
            let dims = elem.to_vec().ok_or_else(|| {
                Error::invalid_argument(format!(
                    "TensorArray has size zero, but element shape {} is not fully defined. Currently only static shapes are supported when packing zero-size TensorArrays.",
                    tf_shape(&elem)
                ))
            })?;
            let mut shape = vec![0];
            shape.extend(dims);
            return Ok(vec![Tensor::try_zeros(self.dtype, &shape)?]);
        }
        let values = indices.iter().map(|&i| ta.read(i)).collect::<Result<Vec<_>>>()?;
        let first = values[0].shape().to_vec();
        for (i, v) in values.iter().enumerate().skip(1) {
            if v.shape() != first.as_slice() {
                return Err(Error::invalid_argument(format!(
                    "TensorArray has inconsistent shapes.  Index 0 has shape: {} but index {i} has shape: {}",
                    tf_dims(&first),
                    tf_dims(v.shape())
                )));
            }
        }
        let mut shape = vec![values.len()];
        shape.extend_from_slice(&first);
        Ok(vec![join(&values, &shape, self.dtype)?])
    }
}

/// `TensorArrayScatterV3(handle, indices, value, flow_in)` (attr `T`): writes `value[i]`
/// at `indices[i]`; outputs `flow_in`. Errors (`InvalidArgument`, TensorFlow's words): as
/// many indices as rows of `value` (at build time when known), an index past the size of a
/// fixed-size array ("Max scatter index must be < array size"), and those of each write.
/// Gradient (TensorFlow's `_TensorArrayScatterGrad`): a gather from the gradient array.
pub struct TensorArrayScatterV3;
impl RegisteredOp for TensorArrayScatterV3 {
    fn op_type(&self) -> &'static str {
        "TensorArrayScatterV3"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(4)?;
        check_handle(ctx, 0)?;
        ctx.check_dtype(1, &[DType::Int32])?;
        ctx.check_type_attr("T", 2)?;
        check_flow(ctx, 3)?;
        if let (Some(a), Some(b)) = (ctx.shape(1).dim(0), ctx.shape(2).dim(0)) {
            if a != b {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {a} and {b} for '{}' (TensorArrayScatterV3) with input shapes: {}, {}",
                    ctx.node.name,
                    tf_shape(ctx.shape(1)),
                    tf_shape(ctx.shape(2))
                )));
            }
        }
        Ok(vec![flow_out()])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(crate::ops::FnKernel(scatter_kernel)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        grad::scatter_grad(ctx)
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

fn scatter_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let indices = index_vector(ctx.input(1), "indices")?;
    let value = ctx.input(2);
    if value.rank() == 0 {
        return Err(Error::invalid_argument(format!(
            "Input value for unpack must be at least a vector but received shape: {}",
            tf_dims(value.shape())
        )));
    }
    if indices.len() != value.shape()[0] {
        return Err(Error::invalid_argument(format!(
            "Expected len(indices) == values.shape[0], but saw: {} vs. {}",
            indices.len(),
            value.shape()[0]
        )));
    }
    let ta = lookup(ctx, 0)?;
    let mut ta = lock(&ta);
    if value.dtype() != ta.dtype() {
        return Err(Error::invalid_argument(format!(
            "TensorArray dtype is {} but Op is trying to write dtype {}.",
            tf_dtype(ta.dtype()),
            tf_dtype(value.dtype())
        )));
    }
    if let Some(&max) = indices.iter().max() {
        if !ta.dynamic_size() && max >= ta.size() as i64 {
            return Err(Error::invalid_argument(format!(
                "Max scatter index must be < array size ({max} vs. {})",
                ta.size()
            )));
        }
    }
    for (row, &i) in indices.iter().enumerate() {
        ta.write(i, rows(value, row, 1)?.reshape(&value.shape()[1..])?)?;
    }
    Ok(vec![ctx.input(3).clone()])
}

/// `TensorArrayConcatV3(handle, flow_in)` (attrs `dtype`, `element_shape_except0`): all
/// elements concatenated along dimension 0, and each one's length (int64 vector). Errors
/// (`InvalidArgument`, TensorFlow's words): a scalar element, elements whose shapes differ
/// past dimension 0, those of reading each element, an empty array whose
/// `element_shape_except0` is not fully defined. Gradient (TensorFlow's
/// `_TensorArrayConcatGrad`): a split of the gradient into the gradient array.
pub struct TensorArrayConcatV3;
impl RegisteredOp for TensorArrayConcatV3 {
    fn op_type(&self) -> &'static str {
        "TensorArrayConcatV3"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        check_handle(ctx, 0)?;
        check_flow(ctx, 1)?;
        let except0 = ctx.node.attr_shape_or("element_shape_except0", Shape::unknown())?;
        let shape = match except0.dims() {
            Some(d) => {
                let mut v = vec![None];
                v.extend_from_slice(d);
                Shape::partial(&v)
            }
            None => Shape::unknown(),
        };
        Ok(vec![(ctx.node.attr_type("dtype")?, shape), (DType::Int64, Shape::partial(&[None]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(ConcatKernel {
            dtype: node.attr_type("dtype")?,
            except0: node.attr_shape_or("element_shape_except0", Shape::unknown())?,
        }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        grad::concat_grad(ctx)
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

struct ConcatKernel {
    dtype: DType,
    except0: Shape,
}

impl Kernel for ConcatKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let ta = lookup(ctx, 0)?;
        let mut ta = lock(&ta);
        check_dtype(&ta, self.dtype)?;
        let n = ta.size();
        if n == 0 {
            let dims = self.except0.to_vec().ok_or_else(|| {
                Error::invalid_argument(format!(
                    "TensorArray has size zero, but element_shape_except0 {} is not fully defined. Currently only static shapes are supported when concatenating zero-size TensorArrays.",
                    tf_shape(&self.except0)
                ))
            })?;
            let mut shape = vec![0];
            shape.extend(dims);
            return Ok(vec![Tensor::try_zeros(self.dtype, &shape)?, Tensor::new(&[0], Vec::<i64>::new())?]);
        }
        let values = (0..n as i64).map(|i| ta.read(i)).collect::<Result<Vec<_>>>()?;
        let mut lengths = Vec::with_capacity(n);
        for (i, v) in values.iter().enumerate() {
            if v.rank() == 0 {
                return Err(Error::invalid_argument(format!(
                    "Concat saw a scalar shape at index {i} but requires at least vectors.  Did you mean to call pack?"
                )));
            }
            if v.shape()[1..] != values[0].shape()[1..] {
                return Err(Error::invalid_argument(format!(
                    "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) shape: {} but index {i} has (excepting dimension 0) shape: {}",
                    tf_dims(&values[0].shape()[1..]),
                    tf_dims(&v.shape()[1..])
                )));
            }
            lengths.push(v.shape()[0] as i64);
        }
        let mut shape = values[0].shape().to_vec();
        shape[0] = lengths.iter().sum::<i64>() as usize;
        Ok(vec![join(&values, &shape, self.dtype)?, Tensor::new(&[n], lengths)?])
    }
}

/// `TensorArraySplitV3(handle, value, lengths, flow_in)` (attr `T`): `value` cut along
/// dimension 0 into pieces of `lengths` (int64 vector), written at 0, 1, ...; outputs
/// `flow_in`. Errors (`InvalidArgument`, TensorFlow's words): lengths that do not add up to
/// `value`'s first dimension, as many lengths as elements unless the array is dynamically
/// sized, a scalar `value`, and those of each write. Gradient (TensorFlow's
/// `_TensorArraySplitGrad`): the gradient array concatenated.
pub struct TensorArraySplitV3;
impl RegisteredOp for TensorArraySplitV3 {
    fn op_type(&self) -> &'static str {
        "TensorArraySplitV3"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(4)?;
        check_handle(ctx, 0)?;
        ctx.check_type_attr("T", 1)?;
        ctx.check_dtype(2, &[DType::Int64])?;
        check_flow(ctx, 3)?;
        Ok(vec![flow_out()])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(crate::ops::FnKernel(split_kernel)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        grad::split_grad(ctx)
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

fn split_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let value = ctx.input(1);
    let lengths_t = ctx.input(2);
    if lengths_t.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "Expected lengths to be a vector, received shape: {}",
            tf_dims(lengths_t.shape())
        )));
    }
    let lengths: Vec<i64> = lengths_t.as_slice::<i64>()?.to_vec();
    if value.rank() == 0 {
        return Err(Error::invalid_argument(format!(
            "Expected value to be at least a vector, but received shape: {}",
            tf_dims(value.shape())
        )));
    }
    let total: i64 = lengths.iter().sum();
    if lengths.iter().any(|&l| l < 0) || total != value.shape()[0] as i64 {
        return Err(Error::invalid_argument(format!(
            "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is {total} and value's shape is: {}",
            tf_dims(value.shape())
        )));
    }
    let ta = lookup(ctx, 0)?;
    let mut ta = lock(&ta);
    if value.dtype() != ta.dtype() {
        return Err(Error::invalid_argument(format!(
            "TensorArray dtype is {} but Op is trying to write dtype {}.",
            tf_dtype(ta.dtype()),
            tf_dtype(value.dtype())
        )));
    }
    if !ta.dynamic_size() && ta.size() != lengths.len() {
        return Err(Error::invalid_argument(format!(
            "TensorArray's size is not equal to the size of lengths ({} vs. {}), and the TensorArray is not marked as dynamically resizeable",
            ta.size(),
            lengths.len()
        )));
    }
    let mut start = 0;
    for (i, &len) in lengths.iter().enumerate() {
        ta.write(i as i64, rows(value, start, len as usize)?)?;
        start += len as usize;
    }
    Ok(vec![ctx.input(3).clone()])
}

/// `TensorArraySizeV3(handle, flow_in)`: the number of elements (int32 scalar). Not
/// differentiable.
pub struct TensorArraySizeV3;
impl RegisteredOp for TensorArraySizeV3 {
    fn op_type(&self) -> &'static str {
        "TensorArraySizeV3"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        check_handle(ctx, 0)?;
        check_flow(ctx, 1)?;
        Ok(vec![(DType::Int32, Shape::scalar())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(crate::ops::FnKernel(|ctx| {
            let ta = lookup(ctx, 0)?;
            let size = lock(&ta).size();
            Ok(vec![Tensor::scalar(size as i32)])
        })))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// `TensorArrayCloseV3(handle)`: frees the elements; later reads and writes are
/// `InvalidArgument` "TensorArray NAME has already been closed.". No outputs; not
/// differentiable.
pub struct TensorArrayCloseV3;
impl RegisteredOp for TensorArrayCloseV3 {
    fn op_type(&self) -> &'static str {
        "TensorArrayCloseV3"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        check_handle(ctx, 0)?;
        Ok(vec![])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(crate::ops::FnKernel(|ctx| {
            let ta = lookup(ctx, 0)?;
            lock(&ta).close();
            Ok(vec![])
        })))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}
