//! `TopKV2` (`tf.nn.top_k`): the `k` largest entries along the last dimension and their
//! indices, with TensorFlow's gradient (scattering the gradient back to those indices).

use super::arithmetic::{add, mul, sub};
use super::reduce_builders::reduce_prod;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::array::{
    cast, constant, expand_dims, gather, range_dyn, reshape, reshape_to, shape, size, stack, strided_slice_indexing,
    unsorted_segment_sum, SliceMasks,
};
use crate::ops::kernels::Num;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&TopKV2];

const NUMBERS: &[DType] = crate::ops::kernels::NUMBERS_AND_SMALL_INTS;
const INDEX: &[DType] = &[DType::Int16, DType::Int32, DType::Int64];

/// The `index_type` attr (int32 when absent).
fn index_type(node: &Node) -> Result<DType> {
    match node.attrs.get("index_type") {
        None => Ok(DType::Int32),
        Some(AttrValue::Type(t)) if INDEX.contains(t) => Ok(*t),
        Some(v) => Err(Error::invalid_argument(format!(
            "attr index_type of '{}' (TopKV2) must be int16, int32 or int64, got {v:?}",
            node.name
        ))),
    }
}

/// `TopKV2(input, k)` (attrs `sorted` = true, `T`, `Tk`, `index_type` = int32): along the
/// last dimension of `input` (rank ≥ 1), the `k` largest values (`values`, in descending
/// order; equal values by ascending index; NaN counts as the largest) and their positions
/// (`indices`). float32, float64, int8, int16, int32, int64, uint8, uint16; `k` a 0-d int32/int64. Errors:
/// `InvalidArgument` with TensorFlow's messages (`input must have last dimension >= k =
/// 4 but is 3` at build time, `input must have at least k columns. Had 3, needed 4` and
/// `Need k >= 0, got -1` when run). Gradient (TensorFlow's `_TopKGrad`): the gradient of
/// `values` scattered to the indices (here with `UnsortedSegmentSum`, which TensorFlow's
/// `ScatterNd` equals for distinct indices), zeros elsewhere.
pub struct TopKV2;
impl RegisteredOp for TopKV2 {
    fn op_type(&self) -> &'static str {
        "TopKV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.check_dtype(0, NUMBERS)?;
        ctx.check_dtype(1, &[DType::Int16, DType::Int32, DType::Int64])?;
        let it = index_type(ctx.node)?;
        let k = ctx.const_input(1).map(|k| k.to_f64_vec()).transpose()?.and_then(|v| v.first().map(|&k| k as i64));
        if let Some(k) = k.filter(|&k| k < 0) {
            return Err(Error::invalid_argument(format!("Need k >= 0, got {k}")));
        }
        let Some(dims) = ctx.shape(0).dims() else {
            return Ok(vec![(t, Shape::unknown()), (it, Shape::unknown())]);
        };
        if dims.is_empty() {
            return Err(Error::invalid_argument("Shape must be at least rank 1 but is rank 0 (TopKV2's input)"));
        }
        if let (Some(n), Some(k)) = (dims[dims.len() - 1], k) {
            if (n as i64) < k {
                return Err(Error::invalid_argument(format!("input must have last dimension >= k = {k} but is {n}")));
            }
        }
        let mut out = dims.to_vec();
        *out.last_mut().unwrap_or(&mut None) = k.map(|k| k as usize);
        Ok(vec![(t, Shape::partial(&out)), (it, Shape::partial(&out))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        let f = crate::dispatch_numeric!(t, "TopKV2", small_ints, T => top_k_rows::<T> as TopKFn);
        Ok(Box::new(TopKKernel { f, index: index_type(node)? }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (x, indices) = (&ctx.inputs[0], &ctx.outputs[1]);
        let indices = if indices.dtype() == DType::Int32 { indices.clone() } else { cast(s, indices, DType::Int32)? };
        let g = ctx.grad(0)?;
        let last = |sh: &Output, name: &str| -> Result<Output> {
            let one = constant(&s.named(&format!("{name}/y")), Tensor::scalar(1i32))?;
            gather(s, sh, &sub(&s.named(name), &size(s, sh)?, &one)?, 0)
        };
        let in_shape = shape(s, x)?;
        let ind_shape = shape(&s.named("Shape_1"), &indices)?;
        let ind_lastdim = last(&ind_shape, "sub")?;
        let minus_one = constant(&s.named("stack/0"), Tensor::scalar(-1i32))?;
        let ind_2d = reshape(s, &indices, &stack(s, &[minus_one, ind_lastdim], 0)?)?;
        let in_lastdim = last(&in_shape, "sub_1")?;
        let first = SliceMasks { shrink_axis: 1, ..Default::default() };
        let outerdim = strided_slice_indexing(s, &shape(&s.named("Shape_2"), &ind_2d)?, &[0], &[1], &[1], first)?;
        let zero = constant(&s.named("range/start"), Tensor::scalar(0i32))?;
        let offsets = range_dyn(s, &zero, &mul(s, &outerdim, &in_lastdim)?, &in_lastdim)?;
        let ind = reshape_to(s, &add(s, &ind_2d, &expand_dims(s, &offsets, -1)?)?, &[-1])?;
        let flat = reshape_to(s, &g, &[-1])?;
        let total = reduce_prod(s, &in_shape, Some(&[0]), false)?;
        let scattered = unsorted_segment_sum(s, &flat, &ind, &total)?;
        Ok(vec![Some(reshape(s, &scattered, &in_shape)?), None])
    }
}

type TopKFn = fn(&Tensor, usize) -> Result<(Tensor, Vec<f64>)>;

/// A prepared `TopKV2`: its typed kernel and index dtype.
struct TopKKernel {
    f: TopKFn,
    index: DType,
}

impl Kernel for TopKKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let kt = ctx.input(1);
        if kt.rank() != 0 {
            return Err(Error::invalid_argument(format!("k must be 0-D, got shape {}", fmt_dims(kt.shape()))));
        }
        let k = kt.to_f64_vec()?[0] as i64;
        if k < 0 {
            return Err(Error::invalid_argument(format!("Need k >= 0, got {k}")));
        }
        if x.rank() < 1 {
            return Err(Error::invalid_argument("input must be >= 1-D, got shape []"));
        }
        let n = x.shape()[x.rank() - 1];
        if (n as i64) < k {
            return Err(Error::invalid_argument(format!("input must have at least k columns. Had {n}, needed {k}")));
        }
        let (values, idx) = (self.f)(x, k as usize)?;
        let shape = values.shape().to_vec();
        Ok(vec![values, Tensor::from_f64(self.index, &shape, &idx)?])
    }
}

/// The `k` largest of every row (last dimension) of `x`, and their positions.
fn top_k_rows<T: Num>(x: &Tensor, k: usize) -> Result<(Tensor, Vec<f64>)> {
    let v = x.as_slice::<T>()?;
    let n = x.shape()[x.rank() - 1];
    let rows: usize = x.shape()[..x.rank() - 1].iter().product();
    let (mut vals, mut idx) = (Vec::with_capacity(rows * k), Vec::with_capacity(rows * k));
    // larger first; NaN above everything; ties by position
    let before = |a: T, b: T| -> bool { (a.partial_cmp(&a).is_none() && b.partial_cmp(&b).is_some()) || a > b };
    for r in 0..rows {
        let row = &v[r * n..(r + 1) * n];
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| {
            if before(row[i], row[j]) {
                std::cmp::Ordering::Less
            } else if before(row[j], row[i]) {
                std::cmp::Ordering::Greater
            } else {
                i.cmp(&j)
            }
        });
        for &i in &order[..k] {
            vals.push(row[i]);
            idx.push(i as f64);
        }
    }
    let mut shape = x.shape().to_vec();
    *shape.last_mut().unwrap_or(&mut 0) = k;
    Ok((Tensor::new(&shape, vals)?, idx))
}

/// `tf.nn.top_k(input, k, sorted)`: op `TopKV2` (attrs `sorted`, `T`, `Tk = int32`,
/// `index_type = int32`), default name `TopKV2`, `k` const `TopKV2/k`; returns
/// `(values, indices)`. Errors: `InvalidArgument` as [`TopKV2`].
pub fn top_k(s: &Scope, input: &Output, k: i32, sorted: bool) -> Result<(Output, Output)> {
    let (op, inner) = s.op_scope("TopKV2");
    let kt = constant(&inner.named("k"), Tensor::scalar(k))?;
    let o = op
        .op("TopKV2", "TopKV2")
        .input(input)
        .input(&kt)
        .attr("sorted", sorted)
        .attr("T", input.dtype())
        .attr("Tk", DType::Int32)
        .attr("index_type", DType::Int32)
        .build()?;
    Ok((o.output(0)?, o.output(1)?))
}
