//! `Unique` (`tf.unique`), `ListDiff` (`tf.compat.v1.setdiff1d`) and `Where`
//! (`tf.where(condition)`): ops whose output size depends on the values. None has a
//! gradient.

use super::plain;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Storage, Tensor};
use rustc_hash::FxHashMap as HashMap;

/// What `Unique` compares: equal values have equal keys (0.0 and -0.0 too); every NaN
/// is its own key, as NaN equals nothing.
#[derive(Hash, PartialEq, Eq)]
enum Key<'a> {
    Bits(u64, u64),
    Bytes(&'a [u8]),
    Alone(usize),
}

/// A float's key: its bits, 0 for both zeros, a key of its own for NaN at `i`.
fn float_key(x: f64, i: usize) -> Key<'static> {
    if x.is_nan() {
        Key::Alone(i)
    } else if x == 0.0 {
        Key::Bits(0, 0)
    } else {
        Key::Bits(x.to_bits(), 0)
    }
}

/// The keys of a complex number (real, imaginary) at `i`.
fn complex_key(re: f64, im: f64, i: usize) -> Key<'static> {
    match (float_key(re, i), float_key(im, i)) {
        (Key::Bits(a, _), Key::Bits(b, _)) => Key::Bits(a, b),
        _ => Key::Alone(i),
    }
}

fn keys(s: &Storage) -> Vec<Key<'_>> {
    macro_rules! int {
        ($v:expr) => {
            $v.iter().map(|&x| Key::Bits(x as i64 as u64, 0)).collect()
        };
    }
    match s {
        Storage::F32(v) => v.iter().enumerate().map(|(i, &x)| float_key(x as f64, i)).collect(),
        Storage::F64(v) => v.iter().enumerate().map(|(i, &x)| float_key(x, i)).collect(),
        Storage::F16(v) => v.iter().enumerate().map(|(i, x)| float_key(x.to_f64(), i)).collect(),
        Storage::BF16(v) => v.iter().enumerate().map(|(i, x)| float_key(x.to_f64(), i)).collect(),
        Storage::C64(v) => v.iter().enumerate().map(|(i, c)| complex_key(c[0] as f64, c[1] as f64, i)).collect(),
        Storage::C128(v) => v.iter().enumerate().map(|(i, c)| complex_key(c[0], c[1], i)).collect(),
        Storage::Str(v) => v.iter().map(|b| Key::Bytes(b)).collect(),
        Storage::Bool(v) => v.iter().map(|&x| Key::Bits(x as u64, 0)).collect(),
        Storage::I32(v) => int!(v),
        Storage::I64(v) => int!(v),
        Storage::I8(v) => int!(v),
        Storage::I16(v) => int!(v),
        Storage::U8(v) => int!(v),
        Storage::U16(v) => int!(v),
        Storage::U32(v) => int!(v),
        Storage::U64(v) => v.iter().map(|&x| Key::Bits(x, 0)).collect(),
        Storage::QI8(v) => v.iter().map(|&x| Key::Bits(x.0 as i64 as u64, 0)).collect(),
        Storage::QU8(v) => v.iter().map(|&x| Key::Bits(x.0 as u64, 0)).collect(),
        Storage::QI16(v) => v.iter().map(|&x| Key::Bits(x.0 as i64 as u64, 0)).collect(),
        Storage::QU16(v) => v.iter().map(|&x| Key::Bits(x.0 as u64, 0)).collect(),
        Storage::QI32(v) => v.iter().map(|&x| Key::Bits(x.0 as i64 as u64, 0)).collect(),
        // refused when the kernel is prepared (Unique's `T` never allows variant)
        Storage::Variant(v) => (0..v.len()).map(|i| Key::Bits(i as u64, 1)).collect(),
    }
}

/// `Unique(x)` (attrs `T`, `out_idx` int32/int64 = int32): `y`, the distinct values of
/// the 1-d `x` in order of first appearance, and `idx`, for every element of `x` its
/// position in `y` (`x == y[idx]`). Any dtype; 0.0 and -0.0 are one value, every NaN its
/// own. Errors: `InvalidArgument` for an `x` not 1-d (`Shape must be rank 1 but is rank
/// 2`). No gradient.
pub struct Unique;
impl RegisteredOp for Unique {
    fn op_type(&self) -> &'static str {
        "Unique"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        if let Some(r) = ctx.shape(0).rank().filter(|&r| r != 1) {
            return Err(Error::invalid_argument(format!("Shape must be rank 1 but is rank {r} (Unique's x)")));
        }
        let out_idx = ctx.node.attr_type("out_idx").unwrap_or(DType::Int32);
        Ok(vec![(ctx.dtype(0), Shape::partial(&[None])), (out_idx, Shape::partial(&[ctx.shape(0).dim(0)]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let out_idx = if node.attrs.contains_key("out_idx") { node.attr_type("out_idx")? } else { DType::Int32 };
        if !super::INTS.contains(&out_idx) {
            return Err(Error::invalid_argument(format!("attr out_idx of '{}' must be int32 or int64", node.name)));
        }
        Ok(Box::new(UniqueKernel { out_idx }))
    }
}

/// A prepared `Unique`: the dtype of `idx`.
struct UniqueKernel {
    out_idx: DType,
}

impl Kernel for UniqueKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        if x.rank() != 1 {
            return Err(Error::invalid_argument(format!("unique expects a 1D vector, got {}", fmt_dims(x.shape()))));
        }
        let mut seen: HashMap<Key, usize> = HashMap::default();
        let mut first = Vec::new();
        let mut idx = Vec::with_capacity(x.num_elements());
        for (i, k) in keys(x.storage()).into_iter().enumerate() {
            let n = seen.len();
            let j = *seen.entry(k).or_insert_with(|| {
                first.push(i);
                n
            });
            idx.push(j as f64);
        }
        let y = Tensor::from_storage(&[first.len()], x.storage().gather(&first))?;
        Ok(vec![y, Tensor::from_f64(self.out_idx, &[idx.len()], &idx)?])
    }
}

/// `tf.unique(x, out_idx)`: op `Unique`, default name `Unique`; returns `(y, idx)`.
/// Errors: `InvalidArgument` as [`Unique`].
pub fn unique(s: &Scope, x: &Output, out_idx: DType) -> Result<(Output, Output)> {
    let op = s.op("Unique", "Unique").input(x).attr("T", x.dtype()).attr("out_idx", out_idx).build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `ListDiff(x, y)` (attrs `T`, `out_idx` int32/int64 = int32; TensorFlow's
/// `tf.compat.v1.setdiff1d`): `out`, the values of the 1-d `x` that are not in the 1-d
/// `y`, in `x`'s order (repeats kept), and `idx`, their positions in `x`. Any dtype; NaN
/// is in no `y`. Errors: `InvalidArgument` for an `x` or `y` not 1-d (TensorFlow's `x
/// should be a 1D vector.`). No gradient (TensorFlow's `NotDifferentiable`).
pub struct ListDiff;
impl RegisteredOp for ListDiff {
    fn op_type(&self) -> &'static str {
        "ListDiff"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        for (i, what) in [(0, "x"), (1, "y")] {
            if let Some(r) = ctx.shape(i).rank().filter(|&r| r != 1) {
                return Err(Error::invalid_argument(format!(
                    "Shape must be rank 1 but is rank {r} (ListDiff's {what})"
                )));
            }
        }
        if ctx.dtype(0) != ctx.dtype(1) {
            return Err(Error::invalid_argument(format!(
                "ListDiff: x is {} but y is {}; both must have attr T's dtype",
                ctx.dtype(0),
                ctx.dtype(1)
            )));
        }
        let out_idx = ctx.node.attr_type("out_idx").unwrap_or(DType::Int32);
        Ok(vec![(ctx.dtype(0), Shape::partial(&[None])), (out_idx, Shape::partial(&[None]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let out_idx = if node.attrs.contains_key("out_idx") { node.attr_type("out_idx")? } else { DType::Int32 };
        if !super::INTS.contains(&out_idx) {
            return Err(Error::invalid_argument(format!("attr out_idx of '{}' must be int32 or int64", node.name)));
        }
        Ok(Box::new(ListDiffKernel { out_idx }))
    }
}

/// A prepared `ListDiff`: the dtype of `idx`.
struct ListDiffKernel {
    out_idx: DType,
}

impl Kernel for ListDiffKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, y) = (ctx.input(0), ctx.input(1));
        if x.rank() != 1 {
            return Err(Error::invalid_argument("x should be a 1D vector."));
        }
        if y.rank() != 1 {
            return Err(Error::invalid_argument("y should be a 1D vector."));
        }
        // NaN's key is its own (`Alone`), so it is never in y
        let in_y: std::collections::HashSet<Key> =
            keys(y.storage()).into_iter().filter(|k| !matches!(k, Key::Alone(_))).collect();
        let kept: Vec<usize> = keys(x.storage())
            .into_iter()
            .enumerate()
            .filter(|(_, k)| matches!(k, Key::Alone(_)) || !in_y.contains(k))
            .map(|(i, _)| i)
            .collect();
        let out = Tensor::from_storage(&[kept.len()], x.storage().gather(&kept))?;
        let idx: Vec<f64> = kept.iter().map(|&i| i as f64).collect();
        Ok(vec![out, Tensor::from_f64(self.out_idx, &[idx.len()], &idx)?])
    }
}

/// `tf.compat.v1.setdiff1d(x, y, index_dtype)`: op `ListDiff`, default name `ListDiff`;
/// returns `(out, idx)`. Errors: `InvalidArgument` as [`ListDiff`].
pub fn list_diff(s: &Scope, x: &Output, y: &Output, out_idx: DType) -> Result<(Output, Output)> {
    let op = s.op("ListDiff", "ListDiff").input(x).input(y).attr("T", x.dtype()).attr("out_idx", out_idx).build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `Where(input)` (attr `T` = bool): the coordinates of the true (nonzero) elements of
/// `input`, row-major, as an int64 `[num_true, rank]` matrix. bool and numeric dtypes
/// (complex: nonzero either part). Errors: `InvalidArgument` for strings. No gradient.
pub struct Where;
impl RegisteredOp for Where {
    fn op_type(&self) -> &'static str {
        "Where"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        if ctx.dtype(0) == DType::String {
            return Err(Error::invalid_argument("Where takes bool or numeric input, not string"));
        }
        Ok(vec![(DType::Int64, Shape::partial(&[None, ctx.shape(0).rank()]))])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(where_kernel)
    }
}

fn where_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let x = ctx.input(0);
    let truth: Vec<bool> = match x.storage() {
        Storage::C64(v) => v.iter().map(|c| c[0] != 0.0 || c[1] != 0.0).collect(),
        Storage::C128(v) => v.iter().map(|c| c[0] != 0.0 || c[1] != 0.0).collect(),
        _ => x.to_f64_vec()?.iter().map(|&v| v != 0.0).collect(),
    };
    let sh = x.shape();
    let mut out = Vec::new();
    let mut pos = vec![0i64; sh.len()];
    for &t in &truth {
        if t {
            out.extend_from_slice(&pos);
        }
        for d in (0..sh.len()).rev() {
            pos[d] += 1;
            if (pos[d] as usize) < sh[d] {
                break;
            }
            pos[d] = 0;
        }
    }
    let rank = sh.len();
    let n = out.len().checked_div(rank).unwrap_or_else(|| truth.iter().filter(|&&t| t).count());
    Ok(vec![Tensor::new(&[n, rank], out)?])
}

/// `tf.where(condition)` with one argument: op `Where`, default name `Where`; the int64
/// coordinates of `condition`'s true elements. As [`Where`].
pub fn where_(s: &Scope, condition: &Output) -> Result<Output> {
    s.op("Where", "Where").input(condition).attr("T", condition.dtype()).build_output()
}
