//! Array ops (TensorFlow's `array_ops`). This file: Const, Placeholder,
//! PlaceholderV2, PlaceholderWithDefault, Identity, Snapshot, NoOp, Reshape, Shape, ShapeN, Size, Rank, Fill, ZerosLike, OnesLike,
//! Cast and ExpandDims. One file per family under `array/`: ConcatV2/Concat/ConcatOffset
//! (`concat`), Split/SplitV (`split`), DynamicStitch (`stitch`), Pack/Unpack (`stack`), Slice (`slice`), StridedSlice/StridedSliceGrad
//! (`strided_slice`), Tile (`tile`), GatherV2/Gather (`gather`), GatherNd/ScatterNd (`gather_nd`), UnsortedSegmentSum (`segment`), MatrixBandPart (`band_part`), TensorScatterUpdate/Add/Sub/Max/Min (`tensor_scatter`), Bitcast (`bitcast`), SpaceToBatchND/BatchToSpaceND (`space_batch`), SpaceToDepth/DepthToSpace (`depth_space`), Roll (`roll`),
//! Transpose/InvertPermutation (`transpose`), Squeeze (`squeeze`), Range (`range`),
//! ReverseV2/ReverseSequence (`reverse`), BroadcastTo (`broadcast_to`), OneHot
//! (`one_hot`), Unique/ListDiff/Where (`unique`), MirrorPad/MirrorPadGrad (`mirror_pad`) and
//! StopGradient/PreventGradient (`stop_gradient`); `layout` holds the flat-index helpers
//! their kernels share.
//!
//! The data-movement kernels (concat, pack, slice, strided slice, tile, gather,
//! transpose, reverse, broadcast, mirror pad) work for every dtype (bool and string
//! included) by gathering flat element indices.

mod band_part;
pub mod bitcast;
mod broadcast_to;
pub(crate) mod checks;
mod concat;
pub(crate) mod depth_space;
mod gather;
pub(crate) mod gather_nd;
mod identity_n;
mod layout;
pub(crate) mod matrix_diag;
mod mirror_pad;
mod one_hot;
pub(crate) mod pad;
mod pad_slice_grad;
mod range;
mod reverse;
pub(crate) mod roll;
mod segment;
pub mod set_ops;
mod slice;
pub(crate) mod space_batch;
pub mod sparse_to_dense;
mod split;
mod squeeze;
mod stack;
mod stitch;
mod stop_gradient;
mod strided_slice;
pub mod tensor_scatter;
mod tile;
mod transpose;
mod unique;

pub use band_part::{matrix_band_part, MatrixBandPart};
pub use bitcast::bitcast;
pub use broadcast_to::{broadcast_to, broadcast_to_shape, BroadcastTo};
pub use checks::{check_numerics, check_numerics_v2, ensure_shape, CheckNumerics, EnsureShape};
pub use concat::{concat, concat_dyn, concat_v1, Concat, ConcatOffset, ConcatV2};
pub use depth_space::{depth_to_space, space_to_depth, DepthSpace};
pub use gather::{gather, gather_dyn, gather_v1, Gather, GatherV2};
pub use gather_nd::{gather_nd, scatter_nd, GatherNd, ScatterNd};
pub use identity_n::{identity_n, IdentityN};
pub use matrix_diag::{
    matrix_diag, matrix_diag_part, matrix_diag_part_v3, matrix_diag_v3, matrix_set_diag, matrix_set_diag_v3,
    MatrixDiag, MatrixDiagPart, MatrixSetDiag,
};
pub use mirror_pad::{mirror_pad, mirror_pad_dyn, mirror_pad_grad_op, MirrorPad, MirrorPadGrad};
pub use one_hot::{one_hot, OneHot};
pub use pad::{pad, pad_dyn, pad_v2, pad_v2_dyn, Pad, PadV2};
pub(crate) use range::range_from_zero;
pub use range::{range, range_dyn, Range};
pub use reverse::{reverse, reverse_dyn, reverse_sequence, ReverseSequence, ReverseV2};
pub use roll::{roll, Roll};
pub use segment::{unsorted_segment_sum, UnsortedSegmentSum};
pub use set_ops::{dense_to_dense_set_operation, dense_to_sparse_set_operation, set_size};
pub use slice::{slice, slice_dyn, Slice};
pub use space_batch::{batch_to_space_nd, space_to_batch_nd, BatchToSpaceND, SpaceToBatchND};
pub use split::{split, split_v, Split, SplitV};
pub use squeeze::{squeeze, Squeeze};
pub use stack::{stack, unstack, Pack, Unpack};
pub use stitch::{dynamic_stitch, DynamicStitch};
pub use stop_gradient::{prevent_gradient, stop_gradient, PreventGradient, StopGradient};
pub use strided_slice::{
    strided_slice, strided_slice_dyn, strided_slice_grad, strided_slice_indexing, SliceMasks, StridedSlice,
    StridedSliceGrad,
};
pub use tensor_scatter::{tensor_scatter, TensorScatter};
pub use tile::{tile, tile_dyn, Tile};
pub use transpose::{transpose, transpose_dyn, InvertPermutation, Transpose};
pub use unique::{list_diff, unique, where_, ListDiff, Unique, Where};

use super::{FnKernel, GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::tensor::{checked_num_elements, DType, Shape, Storage, Tensor};

/// The int32/int64 dtypes of index, shape and axis arguments.
const INTS: &[DType] = &[DType::Int32, DType::Int64];
/// The dtypes of the numeric kernels.
const NUMBERS: &[DType] = &[DType::Float, DType::Double, DType::Int32, DType::Int64];

pub(super) static DEFS: &[&dyn RegisteredOp] = &[
    &Const,
    &Placeholder,
    &PlaceholderV2,
    &PlaceholderWithDefault,
    &Identity,
    &Snapshot,
    &MatrixBandPart,
    &TensorScatter(tensor_scatter::Kind::Update),
    &TensorScatter(tensor_scatter::Kind::Add),
    &TensorScatter(tensor_scatter::Kind::Sub),
    &TensorScatter(tensor_scatter::Kind::Max),
    &TensorScatter(tensor_scatter::Kind::Min),
    &NoOp,
    &Reshape,
    &ShapeOp,
    &ShapeN,
    &Size,
    &Rank,
    &Fill,
    &ZerosLike,
    &OnesLike,
    &Cast,
    &ExpandDims,
    &ConcatV2,
    &Concat,
    &ConcatOffset,
    &Pack,
    &Unpack,
    &Slice,
    &Tile,
    &GatherV2,
    &Gather,
    &UnsortedSegmentSum,
    &Transpose,
    &InvertPermutation,
    &Squeeze,
    &Range,
    &StridedSlice,
    &StridedSliceGrad,
    &StopGradient,
    &PreventGradient,
    &ReverseV2,
    &ReverseSequence,
    &BroadcastTo,
    &OneHot,
    &Unique,
    &ListDiff,
    &Where,
    &MirrorPad,
    &MirrorPadGrad,
    &Split,
    &SplitV,
    &DynamicStitch,
    &IdentityN,
];

/// The prepared-kernel result of [`RegisteredOp::prepare`] for `kernel`.
fn prepared(kernel: impl Kernel + 'static) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(kernel))
}

/// The prepared kernel of an op with nothing to prepare: the function `f`.
fn plain(f: fn(&mut KernelCtx) -> Result<Vec<Tensor>>) -> Result<Box<dyn Kernel>> {
    prepared(FnKernel(f))
}

/// The kernel that passes input 0 through (Identity, PlaceholderWithDefault,
/// StopGradient, PreventGradient); the executor forwards the value without calling it.
struct PassThrough;

impl Kernel for PassThrough {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        Ok(vec![ctx.input(0).clone()])
    }
    fn forwards_input(&self) -> bool {
        true
    }
}

/// The prepared [`PassThrough`] kernel.
fn pass_through() -> Result<Box<dyn Kernel>> {
    prepared(PassThrough)
}

fn one(dtype: DType, shape: Shape) -> Result<Vec<(DType, Shape)>> {
    Ok(vec![(dtype, shape)])
}

/// Integer values of a shape/axes tensor (int32 or int64).
pub(crate) fn int_values(t: &Tensor) -> Result<Vec<i64>> {
    match t.dtype() {
        DType::Int32 => Ok(t.as_slice::<i32>()?.iter().map(|&v| v as i64).collect()),
        DType::Int64 => Ok(t.to_vec::<i64>()?),
        d => Err(Error::invalid_argument(format!("expected an int32 or int64 tensor, got {d}"))),
    }
}

/// An index tensor of `shape` holding `v`, of `dtype` (int64, else int32).
pub(crate) fn index_tensor(shape: &[usize], v: &[i64], dtype: DType) -> Result<Tensor> {
    if dtype == DType::Int64 {
        Tensor::new(shape, v.to_vec())
    } else {
        Tensor::new(shape, v.iter().map(|&x| x as i32).collect::<Vec<_>>())
    }
}

/// The dtype Python TensorFlow gives a constant of the ints `v`: int32, or int64 when a
/// value does not fit in int32.
pub(crate) fn index_dtype<'a>(v: impl IntoIterator<Item = &'a i64>) -> DType {
    if v.into_iter().any(|&x| i32::try_from(x).is_err()) {
        DType::Int64
    } else {
        DType::Int32
    }
}

/// `Const`: a constant tensor (attrs `value`, `dtype`; both required, of one dtype:
/// `InvalidArgument` otherwise, as TensorFlow).
pub struct Const;
impl RegisteredOp for Const {
    fn op_type(&self) -> &'static str {
        "Const"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let t = ctx.node.attr_tensor("value")?;
        let dtype = ctx.node.attr_type("dtype")?;
        t.dtype().check_storage(&format!("the value of Const '{}'", ctx.node.name))?;
        if dtype != t.dtype() {
            return Err(Error::invalid_argument(format!(
                "Type mismatch between value ({}) and dtype ({dtype}) of Const '{}'",
                t.dtype(),
                ctx.node.name
            )));
        }
        one(t.dtype(), Shape::known(t.shape()))
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        prepared(ConstKernel(node.attr_tensor("value")?.clone()))
    }
}

/// The kernel of a `Const`: its value, taken from the attr once.
struct ConstKernel(Tensor);
impl Kernel for ConstKernel {
    fn compute(&self, _: &mut KernelCtx) -> Result<Vec<Tensor>> {
        Ok(vec![self.0.clone()])
    }
}

/// `tf.constant(value)`: a `Const` op (default name `Const`). Output: `value`'s dtype and shape.
pub fn constant(s: &Scope, value: Tensor) -> Result<Output> {
    let dtype = value.dtype();
    s.op("Const", "Const").attr("value", value).attr("dtype", dtype).build_output()
}

/// A 0-d float32 or float64 constant holding `v` (dtype `dtype`). Errors for other dtypes.
pub fn scalar_like(s: &Scope, v: f64, dtype: DType) -> Result<Output> {
    constant(s, Tensor::from_f64(dtype, &[], &[v])?)
}

/// `Placeholder`: a value that must be fed (attrs `dtype`, `shape`). Running it unfed is
/// `InvalidArgument` naming it.
pub struct Placeholder;
impl RegisteredOp for Placeholder {
    fn op_type(&self) -> &'static str {
        "Placeholder"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let shape = ctx.node.attr_shape_or("shape", Shape::unknown())?;
        one(ctx.node.attr_type("dtype")?, shape)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        prepared(PlaceholderKernel(node.attr_type("dtype")?))
    }
}

/// The last GraphDef version (`versions.producer`) in which a `Placeholder`'s `shape` attr
/// of rank 0 (`shape {}`, what TensorFlow then wrote for a placeholder made without a
/// shape) means any shape; from version 22 on it is a scalar.
pub const PLACEHOLDER_SCALAR_MEANS_ANY_UNTIL: i32 = 21;

/// True when `node`, a `Placeholder` of a graph of GraphDef version `graph_def_version`,
/// has an unknown shape although its `shape` attr has a rank (TensorFlow's Placeholder
/// shape function: `graph_def_version <= 21 && shape.dims() <= 0` gives an unknown shape).
/// Only `Placeholder`: `PlaceholderV2` and `PlaceholderWithDefault` take the attr as written.
pub(crate) fn placeholder_shape_is_any(node: &Node, graph_def_version: i32) -> bool {
    node.op_type == "Placeholder"
        && graph_def_version <= PLACEHOLDER_SCALAR_MEANS_ANY_UNTIL
        && node.attr_shape_or("shape", Shape::unknown()).is_ok_and(|s| s.rank().unwrap_or(0) == 0)
}

/// The kernel of an unfed `Placeholder` (a fed one does not run): the error naming it and
/// its dtype.
struct PlaceholderKernel(DType);
impl Kernel for PlaceholderKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        Err(Error::invalid_argument(format!(
            "You must feed a value for placeholder tensor '{}' with dtype {}",
            ctx.node_name(),
            self.0
        )))
    }
}

/// `PlaceholderV2`: TensorFlow 1.0's placeholder (attrs `dtype`, `shape`), which
/// `Placeholder` replaced; the same kernel. Its `OpDef` is deprecated at GraphDef version 23,
/// so only GraphDefs of an older producer may hold one (see
/// [`schema::check_op_deprecation`](crate::ops::schema::check_op_deprecation)); building one
/// here is that `Unimplemented` error.
pub struct PlaceholderV2;
impl RegisteredOp for PlaceholderV2 {
    fn op_type(&self) -> &'static str {
        "PlaceholderV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        Placeholder.infer(ctx)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Placeholder.prepare(node)
    }
}

/// `tf.placeholder(dtype, shape)`: default name `Placeholder`; `shape` may hold unknown
/// dimensions (`[None, Some(4)]`).
pub fn placeholder(s: &Scope, dtype: DType, shape: impl Into<Shape>) -> Result<Output> {
    s.op("Placeholder", "Placeholder").attr("dtype", dtype).attr("shape", shape.into()).build_output()
}

/// `PlaceholderWithDefault`: its input unless fed.
pub struct PlaceholderWithDefault;
impl RegisteredOp for PlaceholderWithDefault {
    fn op_type(&self) -> &'static str {
        "PlaceholderWithDefault"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let shape = ctx.node.attr_shape_or("shape", ctx.shape(0).clone())?;
        one(ctx.dtype(0), shape)
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        pass_through()
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Ok(vec![ctx.grads[0].clone()])
    }
}

/// `tf.placeholder_with_default(input, shape)`.
pub fn placeholder_with_default(s: &Scope, input: &Output, shape: impl Into<Shape>) -> Result<Output> {
    s.op("PlaceholderWithDefault", "PlaceholderWithDefault")
        .input(input)
        .attr("dtype", input.dtype())
        .attr("shape", shape.into())
        .build_output()
}

/// `Identity`: its input.
pub struct Identity;
impl RegisteredOp for Identity {
    fn op_type(&self) -> &'static str {
        "Identity"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_type_attr("T", 0)?;
        one(ctx.dtype(0), ctx.shape(0).clone())
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        pass_through()
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Ok(vec![ctx.grads[0].clone()])
    }
}

/// `Snapshot`: a copy of its input (every dtype; tensors here are immutable, so the input
/// itself). No gradient: TensorFlow registers none.
pub struct Snapshot;
impl RegisteredOp for Snapshot {
    fn op_type(&self) -> &'static str {
        "Snapshot"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_type_attr("T", 0)?;
        one(ctx.dtype(0), ctx.shape(0).clone())
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        pass_through()
    }
}

/// `tf.raw_ops.Snapshot(input)`: op `Snapshot`, default name `Snapshot`; `x` itself.
pub fn snapshot(s: &Scope, x: &Output) -> Result<Output> {
    s.op("Snapshot", "Snapshot").input(x).attr("T", x.dtype()).build_output()
}

/// `tf.identity(x)`.
pub fn identity(s: &Scope, x: &Output) -> Result<Output> {
    s.op("Identity", "Identity").input(x).attr("T", x.dtype()).build_output()
}

/// `NoOp`: does nothing; used to group control dependencies (`init`, `train`).
pub struct NoOp;
impl RegisteredOp for NoOp {
    fn op_type(&self) -> &'static str {
        "NoOp"
    }
    fn infer(&self, _: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        Ok(vec![])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(|_| Ok(vec![]))
    }
}

/// `tf.group(*ops)`: a `NoOp` (default name `NoOp`) with control inputs on `ops`.
pub fn group(s: &Scope, ops: &[&crate::graph::Operation]) -> Result<crate::graph::Operation> {
    s.with_control_dependencies(ops).op("NoOp", "NoOp").build()
}

/// Resolves a requested shape (one entry may be -1) against an element count.
fn resolve_shape(req: &[i64], n: Option<usize>) -> Result<Vec<Option<usize>>> {
    let mut unknown = None;
    let mut known = 1usize;
    let mut out = Vec::with_capacity(req.len());
    for (i, &d) in req.iter().enumerate() {
        if d == -1 {
            if unknown.is_some() {
                return Err(Error::invalid_argument("only one input size may be -1, not both"));
            }
            unknown = Some(i);
            out.push(None);
        } else if d < 0 {
            return Err(Error::invalid_argument(format!("size {i} must be non-negative, not {d}")));
        } else {
            known = known.saturating_mul(d as usize);
            out.push(Some(d as usize));
        }
    }
    match (unknown, n) {
        (Some(i), Some(n)) => {
            if known == 0 || n % known != 0 {
                return Err(Error::invalid_argument(format!(
                    "Input to reshape is a tensor with {n} values, but the requested shape {req:?} cannot hold them"
                )));
            }
            out[i] = Some(n / known);
        }
        (None, Some(n)) if n != known => {
            return Err(Error::invalid_argument(format!(
                "Input to reshape is a tensor with {n} values, but the requested shape {req:?} has {known}"
            )))
        }
        _ => {}
    }
    Ok(out)
}

/// `Reshape`: same values, new shape (input 1: int32 shape; one entry may be -1).
pub struct Reshape;
impl RegisteredOp for Reshape {
    fn op_type(&self) -> &'static str {
        "Reshape"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let n = ctx.shape(0).to_vec().and_then(|d| checked_num_elements(&d).ok());
        let shape = match ctx.const_input(1) {
            Some(t) => Shape::partial(&resolve_shape(&int_values(&t)?, n)?),
            None => Shape::unknown(),
        };
        one(ctx.dtype(0), shape)
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(|ctx| {
            let x = ctx.input(0);
            let dims = resolve_shape(&int_values(ctx.input(1))?, Some(x.num_elements()))?;
            let dims: Vec<usize> = dims.into_iter().map(|d| d.unwrap_or(0)).collect();
            Ok(vec![x.reshape(&dims)?])
        })
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let shape = shape(s, &ctx.inputs[0])?;
        Ok(vec![Some(reshape(s, &ctx.grad(0)?, &shape)?), None])
    }
}

/// `tf.reshape(x, shape)` with `shape` an int32 tensor.
pub fn reshape(s: &Scope, x: &Output, shape: &Output) -> Result<Output> {
    s.op("Reshape", "Reshape").input(x).input(shape).attr("T", x.dtype()).attr("Tshape", shape.dtype()).build_output()
}

/// `tf.reshape(x, dims)` with a constant shape (`-1` for one inferred dimension; int32, or
/// int64 when a dimension does not fit in int32).
pub fn reshape_to(s: &Scope, x: &Output, dims: &[i64]) -> Result<Output> {
    let (op, inner) = s.op_scope("Reshape");
    let shape = constant(&inner.named("shape"), index_tensor(&[dims.len()], dims, index_dtype(dims))?)?;
    reshape(&op, x, &shape)
}

/// `Shape`: the dynamic shape of its input as a 1-d int32 (attr `out_type`).
pub struct ShapeOp;
impl RegisteredOp for ShapeOp {
    fn op_type(&self) -> &'static str {
        "Shape"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let out = ctx.node.attr_type("out_type").unwrap_or(DType::Int32);
        one(out, Shape::partial(&[ctx.shape(0).rank()]))
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        prepared(ShapeKernel { out_type: out_type(node)?, size: false })
    }
}

/// `tf.shape(x)` (int32).
pub fn shape(s: &Scope, x: &Output) -> Result<Output> {
    s.op("Shape", "Shape").input(x).attr("T", x.dtype()).attr("out_type", DType::Int32).build_output()
}

/// `Size`: the number of elements of its input, a 0-d int32.
pub struct Size;
impl RegisteredOp for Size {
    fn op_type(&self) -> &'static str {
        "Size"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        one(ctx.node.attr_type("out_type").unwrap_or(DType::Int32), Shape::scalar())
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        prepared(ShapeKernel { out_type: out_type(node)?, size: true })
    }
}

/// The `out_type` attr of `Shape`/`Size`: int32 (the default) or int64.
/// Errors: `InvalidArgument` naming the node for another dtype.
fn out_type(node: &Node) -> Result<DType> {
    let t = if node.attrs.contains_key("out_type") { node.attr_type("out_type")? } else { DType::Int32 };
    if !INTS.contains(&t) {
        return Err(Error::invalid_argument(format!(
            "attr 'out_type' of op '{}' ({}) must be int32 or int64, got {t}",
            node.name, node.op_type
        )));
    }
    Ok(t)
}

/// The kernel of `Shape` (the input's dimensions) and `Size` (its element count), of
/// dtype `out_type`.
struct ShapeKernel {
    out_type: DType,
    size: bool,
}
impl Kernel for ShapeKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let v: Vec<i64> =
            if self.size { vec![x.num_elements() as i64] } else { x.shape().iter().map(|&d| d as i64).collect() };
        let shape: &[usize] = if self.size { &[] } else { &[v.len()] };
        Ok(vec![index_tensor(shape, &v, self.out_type)?])
    }
}

/// `ShapeN`: the dynamic shapes of its `N` inputs (attr `T`), each a 1-d tensor of dtype
/// `out_type` (int32 or int64), as TensorFlow's `tf.shape_n` and the gradient of `Conv2D`
/// write. No gradient (TensorFlow's is `NotDifferentiable`). Errors: `InvalidArgument` for
/// an `out_type` other than int32/int64 or no inputs.
pub struct ShapeN;
impl RegisteredOp for ShapeN {
    fn op_type(&self) -> &'static str {
        "ShapeN"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.is_empty() {
            return Err(Error::invalid_argument("ShapeN needs at least one input (attr N >= 1)"));
        }
        let out = ctx.node.attr_type("out_type").unwrap_or(DType::Int32);
        Ok(ctx.inputs.iter().map(|(_, s)| (out, Shape::partial(&[s.rank()]))).collect())
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        prepared(ShapeNKernel { out_type: out_type(node)? })
    }
}

/// The kernel of `ShapeN`: each input's dimensions, of dtype `out_type`.
struct ShapeNKernel {
    out_type: DType,
}
impl Kernel for ShapeNKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        ctx.inputs
            .iter()
            .map(|x| {
                let v: Vec<i64> = x.shape().iter().map(|&d| d as i64).collect();
                index_tensor(&[v.len()], &v, self.out_type)
            })
            .collect()
    }
}

/// `tf.shape_n(xs)` (int32): op `ShapeN`, default name `ShapeN`; output `i` is the shape of
/// `xs[i]`. Errors: as [`ShapeN`]'s.
pub fn shape_n(s: &Scope, xs: &[Output]) -> Result<Vec<Output>> {
    let t = xs.first().map(|x| x.dtype()).unwrap_or(DType::Float);
    let mut b = s.op("ShapeN", "ShapeN").attr("N", xs.len() as i64).attr("T", t).attr("out_type", DType::Int32);
    for x in xs {
        b = b.input(x);
    }
    let op = b.build()?;
    (0..xs.len()).map(|i| op.output(i)).collect()
}

/// `tf.size(x)` (int32).
pub fn size(s: &Scope, x: &Output) -> Result<Output> {
    s.op("Size", "Size").input(x).attr("T", x.dtype()).attr("out_type", DType::Int32).build_output()
}

/// `Rank`: the number of dimensions of its input (any dtype), a 0-d int32 (`tf.rank`).
/// TensorFlow 1.x's gradients of `reduce_sum`/`reduce_mean` build it.
pub struct Rank;
impl RegisteredOp for Rank {
    fn op_type(&self) -> &'static str {
        "Rank"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        one(DType::Int32, Shape::scalar())
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(|ctx| Ok(vec![Tensor::scalar(ctx.input(0).rank() as i32)]))
    }
}

/// `tf.rank(x)`: op `Rank`, default name `Rank`; `x`'s number of dimensions as an int32
/// scalar, computed when run (TensorFlow's Python folds a known rank into a constant; this
/// builder always makes the op).
pub fn rank(s: &Scope, x: &Output) -> Result<Output> {
    s.op("Rank", "Rank").input(x).attr("T", x.dtype()).build_output()
}

/// `Fill`: a tensor of shape `dims` (input 0, int32) filled with the scalar `value` (input 1).
pub struct Fill;
impl RegisteredOp for Fill {
    fn op_type(&self) -> &'static str {
        "Fill"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let shape = match ctx.const_input(0) {
            Some(t) => Shape::partial(&resolve_shape(&int_values(&t)?, None)?),
            None => Shape::unknown(),
        };
        one(ctx.dtype(1), shape)
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(|ctx| {
            let dims = int_values(ctx.input(0))?;
            if dims.iter().any(|&d| d < 0) {
                return Err(Error::invalid_argument(format!("Fill dims must be non-negative, got {dims:?}")));
            }
            let dims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
            let v = ctx.input(1);
            if v.num_elements() != 1 {
                return Err(Error::invalid_argument("Fill value must be a scalar"));
            }
            Ok(vec![Tensor::filled(v, &dims)?])
        })
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        // sum every element, whatever the rank: reshape to [-1], sum axis 0
        let flat = reshape_to(ctx.scope, &ctx.grad(0)?, &[-1])?;
        // Sum built here, not through math::reduce_sum: the array family does not import math
        // (the same ops and names as reduce_sum: Sum, Sum/reduction_indices)
        let (op, inner) = ctx.scope.op_scope("Sum");
        let axis = constant(&inner.named("reduction_indices"), Tensor::vector(vec![0i32]))?;
        let sum = op.op("Sum", "Sum").input(&flat).input(&axis).attr("T", flat.dtype()).attr("Tidx", DType::Int32);
        Ok(vec![None, Some(sum.attr("keep_dims", false).build_output()?)])
    }
}

/// `tf.fill(dims, value)`.
pub fn fill(s: &Scope, dims: &Output, value: &Output) -> Result<Output> {
    s.op("Fill", "Fill")
        .input(dims)
        .input(value)
        .attr("T", value.dtype())
        .attr("index_type", dims.dtype())
        .build_output()
}

macro_rules! like_op {
    ($name:ident, $ty:expr, $val:expr, $doc:expr) => {
        #[doc = $doc]
        pub struct $name;
        impl RegisteredOp for $name {
            fn op_type(&self) -> &'static str {
                $ty
            }
            fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
                ctx.expect_inputs(1)?;
                one(ctx.dtype(0), ctx.shape(0).clone())
            }
            fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
                plain(|ctx| {
                    let x = ctx.input(0);
                    if $val == 0.0 {
                        // every dtype has a zero (false, the empty string; a TensorList of
                        // zeros for a variant), as TensorFlow's ZerosLike
                        return Ok(vec![x.zeros_like()?]);
                    }
                    Ok(vec![Tensor::filled(&Tensor::from_f64(x.dtype(), &[], &[$val])?, x.shape())?])
                })
            }
        }
    };
}
like_op!(
    ZerosLike,
    "ZerosLike",
    0.0,
    "`ZerosLike`: zeros of the input's dtype and shape (of a TensorList: the list with each set element zeroed)."
);
like_op!(OnesLike, "OnesLike", 1.0, "`OnesLike`: ones of the input's dtype and shape.");

/// `tf.zeros_like(x)`.
pub fn zeros_like(s: &Scope, x: &Output) -> Result<Output> {
    s.op("ZerosLike", "zeros_like").input(x).attr("T", x.dtype()).build_output()
}

/// `tf.ones_like(x)`.
pub fn ones_like(s: &Scope, x: &Output) -> Result<Output> {
    s.op("OnesLike", "ones_like").input(x).attr("T", x.dtype()).build_output()
}

/// `Cast`: converts elements to `DstT` (numeric, bool and complex dtypes). To complex64 or
/// complex128 a real value gets imaginary part 0; from complex to a real dtype only the
/// real part is kept, as TensorFlow's kernel (`Cast` of `1+2j` to float32 is 1, to bool
/// `re != 0`). Gradient (TensorFlow's `_CastGrad`): the gradient cast back to `SrcT` when
/// both dtypes are floating or complex; none otherwise.
pub struct Cast;
impl RegisteredOp for Cast {
    fn op_type(&self) -> &'static str {
        "Cast"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        one(ctx.node.attr_type("DstT")?, ctx.shape(0).clone())
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        prepared(CastKernel { dst: node.attr_type("DstT")? })
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let src = ctx.inputs[0].dtype();
        let differentiable = |t: DType| t.is_floating() || t.is_complex();
        if !differentiable(src) || !differentiable(ctx.outputs[0].dtype()) {
            return Ok(vec![None]);
        }
        Ok(vec![Some(cast(ctx.scope, &ctx.grad(0)?, src)?)])
    }
}

/// The kernel of `Cast` to `dst` (the `DstT` attr, read once).
struct CastKernel {
    dst: DType,
}
impl Kernel for CastKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        if x.dtype() == self.dst {
            return Ok(vec![x.clone()]);
        }
        if let Some(t) = cast_complex(x, self.dst) {
            return Ok(vec![t?]);
        }
        let v = x.to_f64_vec()?;
        Ok(vec![Tensor::from_f64(self.dst, x.shape(), &v)?])
    }
}

/// `Cast` from a complex tensor (`None` for another dtype): to complex64 or complex128 the
/// parts rounded or widened, to a real dtype the real parts cast.
fn cast_complex(x: &Tensor, dst: DType) -> Option<Result<Tensor>> {
    let (re, im): (Vec<f64>, Vec<f64>) = match x.storage() {
        Storage::C64(v) => v.iter().map(|z| (f64::from(z[0]), f64::from(z[1]))).unzip(),
        Storage::C128(v) => v.iter().map(|z| (z[0], z[1])).unzip(),
        _ => return None,
    };
    let parts = re.iter().zip(&im);
    Some(match dst {
        DType::Complex64 => Tensor::new(x.shape(), parts.map(|(&a, &b)| [a as f32, b as f32]).collect()),
        DType::Complex128 => Tensor::new(x.shape(), parts.map(|(&a, &b)| [a, b]).collect()),
        _ => Tensor::from_f64(dst, x.shape(), &re),
    })
}

/// `tf.cast(x, dtype)`.
pub fn cast(s: &Scope, x: &Output, dtype: DType) -> Result<Output> {
    s.op("Cast", "Cast").input(x).attr("SrcT", x.dtype()).attr("DstT", dtype).attr("Truncate", false).build_output()
}

/// `ExpandDims`: inserts a dimension of 1 at `axis` (input 1, int32 scalar; negative counts from the end).
pub struct ExpandDims;
impl ExpandDims {
    /// The one value of the `dim` input (a scalar or a one-element vector, as TensorFlow
    /// accepts). Errors: `InvalidArgument` in TensorFlow's words for another element count.
    fn single_dim(dim: &Tensor) -> Result<i64> {
        match int_values(dim)?[..] {
            [d] => Ok(d),
            _ => Err(Error::invalid_argument(format!(
                "'dim' input must be a tensor with a single value, got shape {}",
                crate::tensor::fmt_dims(dim.shape())
            ))),
        }
    }
    fn axis(axis: i64, rank: usize) -> Result<usize> {
        let r = rank as i64 + 1;
        if axis < -r || axis >= r {
            return Err(Error::invalid_argument(format!("ExpandDims axis {axis} out of range for rank {rank}")));
        }
        Ok(if axis < 0 { (axis + r) as usize } else { axis as usize })
    }
}
impl RegisteredOp for ExpandDims {
    fn op_type(&self) -> &'static str {
        "ExpandDims"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let dim = ctx.const_input(1).map(|a| Self::single_dim(&a)).transpose()?;
        let shape = match (dim, ctx.shape(0).dims()) {
            (Some(a), Some(dims)) => {
                let ax = Self::axis(a, dims.len())?;
                let mut d = dims.to_vec();
                d.insert(ax, Some(1));
                Shape::partial(&d)
            }
            _ => Shape::unknown(),
        };
        one(ctx.dtype(0), shape)
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(|ctx| {
            let x = ctx.input(0);
            let ax = Self::axis(Self::single_dim(ctx.input(1))?, x.rank())?;
            let mut d = x.shape().to_vec();
            d.insert(ax, 1);
            Ok(vec![x.reshape(&d)?])
        })
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let shape = shape(s, &ctx.inputs[0])?;
        Ok(vec![Some(reshape(s, &ctx.grad(0)?, &shape)?), None])
    }
}

/// `tf.expand_dims(x, axis)`.
pub fn expand_dims(s: &Scope, x: &Output, axis: i32) -> Result<Output> {
    let (op, inner) = s.op_scope("ExpandDims");
    let dim = constant(&inner.named("dim"), Tensor::scalar(axis))?;
    op.op("ExpandDims", "ExpandDims")
        .input(x)
        .input(&dim)
        .attr("T", x.dtype())
        .attr("Tdim", DType::Int32)
        .build_output()
}

/// `tf.shape(x, out_type=dtype)`: op `Shape` with `out_type` int32 or int64, default name
/// `Shape`; a 1-d tensor of `x`'s rank.
pub fn shape_as(s: &Scope, x: &Output, dtype: DType) -> Result<Output> {
    s.op("Shape", "Shape").input(x).attr("T", x.dtype()).attr("out_type", dtype).build_output()
}

/// A constant `Const` named `<base>/<suffix>` for an op about to be named `base`.
fn const_under(s: &Scope, base: &str, suffix: &str, value: Tensor) -> Result<Output> {
    constant(&s.named(&format!("{base}/{suffix}/")), value)
}

/// The constant value of an op output at gradient-building time (a `Const` node).
fn const_value(o: &Output) -> Option<Tensor> {
    let n = o.graph().node(o.op().id());
    (n.op_type == "Const").then(|| n.attr_tensor("value").ok().cloned()).flatten()
}
