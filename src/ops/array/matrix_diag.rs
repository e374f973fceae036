//! `MatrixDiag`, `MatrixDiagPart`, `MatrixSetDiag` and their `V2`/`V3` forms (`tf.linalg.diag`,
//! `tf.linalg.diag_part`, `tf.linalg.set_diag`, `tf.eye`): batched matrices built from, read
//! into, or updated with a band of diagonals, with TensorFlow's alignment of short diagonals.
//!
//! Diagonal `d` of an `M × N` matrix holds the elements `(i, j)` with `j - i = d`; it has
//! `min(M + min(d, 0), N - max(d, 0))` elements. A band `k = [lower, upper]` is stored
//! `[..., upper - lower + 1, max_diag_len]`, the superdiagonal `upper` first (a single
//! diagonal drops that dimension). A diagonal shorter than `max_diag_len` sits at the left
//! or right of its row: the `align` attr (`RIGHT_LEFT`, TensorFlow's default for `V3`:
//! superdiagonals right, subdiagonals left; `V2` is `LEFT_LEFT`).

use super::checks::debug_string;
use super::int_values;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{zeros_like, GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Storage, Tensor};

pub(crate) static DEFS: &[&dyn RegisteredOp] = &[
    &MatrixDiag(Version::V1),
    &MatrixDiag(Version::V2),
    &MatrixDiag(Version::V3),
    &MatrixDiagPart(Version::V1),
    &MatrixDiagPart(Version::V2),
    &MatrixDiagPart(Version::V3),
    &MatrixSetDiag(Version::V1),
    &MatrixSetDiag(Version::V2),
    &MatrixSetDiag(Version::V3),
];

/// Which form of an op: `V1` (main diagonal only), `V2` (a band `k`, `LEFT_LEFT`), `V3` (a
/// band `k` and the `align` attr).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Version {
    /// The TensorFlow 1.x op: the main diagonal.
    V1,
    /// A band of diagonals, short ones left-aligned.
    V2,
    /// A band of diagonals aligned as the `align` attr says.
    V3,
}

/// The alignment of short diagonals: (superdiagonals left, subdiagonals left).
#[derive(Clone, Copy)]
struct Align(bool, bool);

impl Align {
    fn of(node: &Node, v: Version) -> Result<Align> {
        if v != Version::V3 {
            return Ok(Align(true, true));
        }
        let s = match node.attrs.get("align") {
            None => "RIGHT_LEFT".to_string(),
            Some(crate::graph::AttrValue::String(s)) => String::from_utf8_lossy(s).into_owned(),
            Some(other) => {
                return Err(Error::invalid_argument(format!(
                    "attr align of '{}' must be a string, got {other:?}",
                    node.name
                )))
            }
        };
        match s.as_str() {
            "LEFT_RIGHT" => Ok(Align(true, false)),
            "RIGHT_LEFT" => Ok(Align(false, true)),
            "LEFT_LEFT" => Ok(Align(true, true)),
            "RIGHT_RIGHT" => Ok(Align(false, false)),
            _ => Err(Error::invalid_argument(format!(
                "attr align of '{}' must be one of LEFT_RIGHT, RIGHT_LEFT, LEFT_LEFT, RIGHT_RIGHT, got {s:?}",
                node.name
            ))),
        }
    }
    /// (length of diagonal `d`, offset of its first element in its stored row).
    fn len_offset(self, d: i64, max_len: i64, rows: i64, cols: i64) -> (i64, i64) {
        let left = (d >= 0 && self.0) || (d <= 0 && self.1);
        let len = (rows + d.min(0)).min(cols - d.max(0));
        (len, if left { 0 } else { max_len - len })
    }
}

/// `k` as (lower, upper), with TensorFlow's checks of its shape and order.
fn read_k(k: &Tensor) -> Result<(i64, i64)> {
    if k.rank() > 1 {
        return Err(Error::invalid_argument(format!(
            "diag_index must be a scalar or vector, received shape: {}",
            dims_str(k.shape())
        )));
    }
    let v = int_values(k)?;
    if v.is_empty() {
        return Err(Error::invalid_argument("Expected diag_index to have at least 1 element"));
    }
    if v.len() > 2 {
        return Err(Error::invalid_argument(format!(
            "diag_index must have only one or two elements, received {} elements.",
            v.len()
        )));
    }
    Ok((v[0], *v.last().unwrap_or(&v[0])))
}

fn check_order(lo: i64, hi: i64) -> Result<()> {
    if lo > hi {
        return Err(Error::invalid_argument(format!(
            "lower_diag_index must not be larger than upper_diag_index: {lo} > {hi}"
        )));
    }
    Ok(())
}

fn check_bounds(lo: i64, hi: i64, rows: i64, cols: i64) -> Result<()> {
    // TensorFlow's upper-bound message has no full stop after the index.
    for (name, d, stop) in [("lower", lo, "."), ("upper", hi, "")] {
        if !((-rows < d && d < cols) || d == 0) {
            return Err(Error::invalid_argument(format!(
                "{name}_diag_index is out of bound: {d}{stop} It must be between {} and {cols}",
                -rows
            )));
        }
    }
    check_order(lo, hi)
}

fn scalar_int(t: &Tensor, what: &str) -> Result<i64> {
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!("{what} must be a scalar")));
    }
    Ok(int_values(t)?[0])
}

/// `a`'s elements followed by `b`'s (one dtype).
fn join(a: &Storage, b: &Storage) -> Result<Storage> {
    macro_rules! go {
        ($($v:ident),*) => {
            match (a, b) {
                $((Storage::$v(a), Storage::$v(b)) => {
                    let mut out = Vec::with_capacity(a.len() + b.len());
                    out.extend_from_slice(a);
                    out.extend_from_slice(b);
                    Storage::$v(out)
                })*
                _ => {
                    return Err(Error::invalid_argument(format!(
                        "the diagonal and the matrix must have one dtype, got {} and {}",
                        a.dtype(),
                        b.dtype()
                    )))
                }
            }
        };
    }
    Ok(go!(F32, F64, I32, I64, Bool, I8, I16, U8, U16, U32, U64, F16, BF16, C64, C128, Str))
}

/// A concrete shape as TensorFlow's messages write it (`[2,3]`).
fn dims_str(d: &[usize]) -> String {
    debug_string(&Shape::known(d))
}

/// A scalar zero of `dtype` (the V1 ops' padding).
fn zero(dtype: DType) -> Result<Tensor> {
    Tensor::from_storage(&[], Storage::try_zeros(dtype, 1)?)
}

fn rank_at_least(shape: &Shape, r: usize) -> Result<()> {
    match shape.rank() {
        Some(got) if got < r => {
            Err(Error::invalid_argument(format!("Shape must be at least rank {r} but is rank {got}")))
        }
        _ => Ok(()),
    }
}

/// The constant `k` of a node being added, when known.
fn const_k(ctx: &InferCtx, i: usize) -> Result<Option<(i64, i64)>> {
    ctx.const_input(i).map(|k| read_k(&k)).transpose()
}

/// `MatrixDiag(diagonal)`, `MatrixDiagV2(diagonal, k, num_rows, num_cols, padding_value)`,
/// `MatrixDiagV3(...)` (attr `align`): batched matrices `[..., num_rows, num_cols]` with the
/// diagonals `k` (int32 scalar or `[lower, upper]`) taken from `diagonal` and
/// `padding_value` (a scalar of `T`, every dtype) elsewhere. `num_rows`/`num_cols` of `-1`
/// are the smallest that fit (a square matrix when both are -1). Errors (`InvalidArgument`,
/// TensorFlow's messages): a 0-d diagonal, `lower > upper`, a diagonal count that does not
/// match `k`, too few rows or columns. Gradient: `MatrixDiagPartV3` of the incoming gradient.
pub struct MatrixDiag(pub Version);

impl RegisteredOp for MatrixDiag {
    fn op_type(&self) -> &'static str {
        match self.0 {
            Version::V1 => "MatrixDiag",
            Version::V2 => "MatrixDiagV2",
            Version::V3 => "MatrixDiagV3",
        }
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let t = ctx.dtype(0);
        let diag = ctx.shape(0);
        rank_at_least(diag, 1)?;
        if self.0 == Version::V1 {
            ctx.expect_inputs(1)?;
            let out = diag.dims().map(|d| {
                let mut o = d.to_vec();
                o.push(*d.last().unwrap_or(&None));
                Shape::partial(&o)
            });
            return Ok(vec![(t, out.unwrap_or_else(Shape::unknown))]);
        }
        ctx.expect_inputs(5)?;
        let (Some((lo, hi)), Some(r), Some(c), Some(d)) = (
            const_k(ctx, 1)?,
            ctx.const_input(2).map(|t| scalar_int(&t, "num_rows")).transpose()?,
            ctx.const_input(3).map(|t| scalar_int(&t, "num_cols")).transpose()?,
            diag.dims(),
        ) else {
            return Ok(vec![(t, Shape::unknown())]);
        };
        check_order(lo, hi)?;
        let keep = if lo == hi { d.len() - 1 } else { d.len().saturating_sub(2) };
        let mut out = d[..keep].to_vec();
        match d.last().copied().flatten() {
            Some(max_len) => {
                let (r, c) = out_dims(lo, hi, max_len as i64, r, c, "num_rows is too small", "num_cols is too small")?;
                out.extend([Some(r as usize), Some(c as usize)]);
            }
            None => out.extend([None, None]),
        }
        Ok(vec![(t, Shape::partial(&out))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(DiagKernel(Align::of(node, self.0)?, self.0)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let g = ctx.grad(0)?;
        if self.0 == Version::V1 {
            return Ok(vec![Some(matrix_diag_part(s, &g)?)]);
        }
        let pad = crate::ops::constant(s, zero(g.dtype())?)?;
        let part = matrix_diag_part_v3(s, &g, &ctx.inputs[1], &pad, align_name(ctx.node, self.0))?;
        Ok(vec![Some(part), None, None, None, None])
    }
}

/// The `align` attr of a V2/V3 node as a V3 op spells it (V2: `LEFT_LEFT`).
fn align_name(node: &Node, v: Version) -> &str {
    match (v, node.attrs.get("align")) {
        (Version::V3, Some(crate::graph::AttrValue::String(s))) => std::str::from_utf8(s).unwrap_or("RIGHT_LEFT"),
        (Version::V3, _) => "RIGHT_LEFT",
        _ => "LEFT_LEFT",
    }
}

/// The output's (rows, cols) from the requested ones (-1: smallest), TensorFlow's checks.
fn out_dims(lo: i64, hi: i64, max_len: i64, r: i64, c: i64, few_rows: &str, few_cols: &str) -> Result<(i64, i64)> {
    let (min_r, min_c) = (max_len - hi.min(0), max_len + lo.max(0));
    if r != -1 && r < min_r {
        return Err(Error::invalid_argument(few_rows.to_string()));
    }
    if c != -1 && c < min_c {
        return Err(Error::invalid_argument(few_cols.to_string()));
    }
    let (r, c) = match (r, c) {
        (-1, -1) => (min_r.max(min_c), min_r.max(min_c)),
        (-1, c) => (min_r, c),
        (r, -1) => (r, min_c),
        rc => rc,
    };
    if r != min_r && c != min_c {
        return Err(Error::invalid_argument(
            "The number of rows or columns is not consistent with the specified d_lower, d_upper, and diagonal.",
        ));
    }
    Ok((r, c))
}

struct DiagKernel(Align, Version);
impl Kernel for DiagKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let diag = ctx.input(0);
        let (mut lo, mut hi, mut r, mut c) = (0, 0, -1, -1);
        let pad = if self.1 == Version::V1 {
            zero(diag.dtype())?
        } else {
            (lo, hi) = read_k(ctx.input(1))?;
            r = scalar_int(ctx.input(2), "num_rows")?;
            c = scalar_int(ctx.input(3), "num_cols")?;
            let p = ctx.input(4);
            if p.rank() != 0 {
                return Err(Error::invalid_argument(format!(
                    "padding_value must be a scalar, received shape: {}",
                    dims_str(p.shape())
                )));
            }
            p.clone()
        };
        let d = diag.shape();
        if d.is_empty() {
            return Err(Error::invalid_argument(format!(
                "diagonal must be at least 1-dim, received shape: {}",
                dims_str(d)
            )));
        }
        check_order(lo, hi)?;
        let num_diags = hi - lo + 1;
        if lo != hi && (d.len() < 2 || d[d.len() - 2] as i64 != num_diags) {
            return Err(Error::invalid_argument(
                "The number of diagonals provided in the input does not match the lower_diag_index and upper_diag_index range.",
            ));
        }
        let max_len = d[d.len() - 1] as i64;
        let (rows, cols) =
            out_dims(lo, hi, max_len, r, c, "The number of rows is too small.", "The number of columns is too small.")?;
        let keep = if lo == hi { d.len() - 1 } else { d.len() - 2 };
        let batch: usize = d[..keep].iter().product();
        let mut shape = d[..keep].to_vec();
        shape.extend([rows as usize, cols as usize]);
        let pad_at = diag.num_elements();
        let per_batch = (num_diags * max_len) as usize;
        let mut idx = Vec::with_capacity(batch * (rows * cols) as usize);
        for b in 0..batch {
            for i in 0..rows {
                for j in 0..cols {
                    let dd = j - i;
                    if dd < lo || dd > hi {
                        idx.push(pad_at);
                        continue;
                    }
                    let (_, off) = self.0.len_offset(dd, max_len, rows, cols);
                    let n = j - dd.max(0) + off;
                    idx.push(b * per_batch + ((hi - dd) * max_len + n) as usize);
                }
            }
        }
        let src = join(diag.storage(), pad.storage())?;
        Ok(vec![Tensor::from_storage(&shape, src.try_gather(&idx)?)?])
    }
}

/// `MatrixDiagPart(input)`, `MatrixDiagPartV2(input, k, padding_value)`,
/// `MatrixDiagPartV3(...)` (attr `align`): the diagonals `k` of the batched matrices `input`
/// (`[..., M, N]`, every dtype) as `[..., num_diags, max_diag_len]` (`[..., max_diag_len]`
/// for one diagonal), short diagonals padded with `padding_value`. Errors
/// (`InvalidArgument`, TensorFlow's messages): an input of rank < 2, a diagonal index out of
/// `(-M, N)`, `lower > upper`. Gradient: `MatrixSetDiag` of the gradient into zeros.
pub struct MatrixDiagPart(pub Version);

impl RegisteredOp for MatrixDiagPart {
    fn op_type(&self) -> &'static str {
        match self.0 {
            Version::V1 => "MatrixDiagPart",
            Version::V2 => "MatrixDiagPartV2",
            Version::V3 => "MatrixDiagPartV3",
        }
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(if self.0 == Version::V1 { 1 } else { 3 })?;
        let t = ctx.dtype(0);
        rank_at_least(ctx.shape(0), 2)?;
        let k = if self.0 == Version::V1 { Some((0, 0)) } else { const_k(ctx, 1)? };
        let (Some((lo, hi)), Some(d)) = (k, ctx.shape(0).dims()) else {
            return Ok(vec![(t, Shape::unknown())]);
        };
        let n = d.len();
        let mut out = d[..n - 2].to_vec();
        if lo != hi {
            out.push(Some((hi - lo + 1).max(0) as usize));
        }
        out.push(match (d[n - 2], d[n - 1]) {
            (Some(r), Some(c)) => {
                check_bounds(lo, hi, r as i64, c as i64)?;
                Some((r as i64 + hi.min(0)).min(c as i64 - lo.max(0)).max(0) as usize)
            }
            _ => None,
        });
        Ok(vec![(t, Shape::partial(&out))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(PartKernel(Align::of(node, self.0)?, self.0)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let g = ctx.grad(0)?;
        let zeros = zeros_like(s, &ctx.inputs[0])?;
        if self.0 == Version::V1 {
            return Ok(vec![Some(matrix_set_diag(s, &zeros, &g)?)]);
        }
        let set = matrix_set_diag_v3(s, &zeros, &g, &ctx.inputs[1], align_name(ctx.node, self.0))?;
        Ok(vec![Some(set), None, None])
    }
}

struct PartKernel(Align, Version);
impl Kernel for PartKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let (mut lo, mut hi) = (0, 0);
        let pad = if self.1 == Version::V1 {
            zero(x.dtype())?
        } else {
            (lo, hi) = read_k(ctx.input(1))?;
            let p = ctx.input(2);
            if p.rank() != 0 {
                return Err(Error::invalid_argument(format!(
                    "padding_value must be a scalar, received shape: {}",
                    dims_str(p.shape())
                )));
            }
            p.clone()
        };
        let d = x.shape();
        if d.len() < 2 {
            return Err(Error::invalid_argument(format!(
                "input must be at least 2-dim, received shape: {}",
                dims_str(d)
            )));
        }
        let n = d.len();
        let (rows, cols) = (d[n - 2] as i64, d[n - 1] as i64);
        check_bounds(lo, hi, rows, cols)?;
        let num_diags = hi - lo + 1;
        let max_len = (rows + hi.min(0)).min(cols - lo.max(0)).max(0);
        let batch: usize = d[..n - 2].iter().product();
        let mut shape = d[..n - 2].to_vec();
        if lo != hi {
            shape.push(num_diags as usize);
        }
        shape.push(max_len as usize);
        let pad_at = x.num_elements();
        let per_batch = (rows * cols) as usize;
        let mut idx = Vec::with_capacity(batch * (num_diags * max_len) as usize);
        for b in 0..batch {
            for m in 0..num_diags {
                let dd = hi - m;
                let (len, off) = self.0.len_offset(dd, max_len, rows, cols);
                for k in 0..max_len {
                    if k < off || k >= off + len {
                        idx.push(pad_at);
                    } else {
                        let (y, xx) = (k - off + (-dd).max(0), k - off + dd.max(0));
                        idx.push(b * per_batch + (y * cols + xx) as usize);
                    }
                }
            }
        }
        let src = join(x.storage(), pad.storage())?;
        Ok(vec![Tensor::from_storage(&shape, src.try_gather(&idx)?)?])
    }
}

/// `MatrixSetDiag(input, diagonal)`, `MatrixSetDiagV2(input, diagonal, k)`,
/// `MatrixSetDiagV3(...)` (attr `align`): `input` (`[..., M, N]`, every dtype) with its
/// diagonals `k` replaced by `diagonal` (shaped as `MatrixDiagPart`'s output). Errors
/// (`InvalidArgument`, TensorFlow's messages): ranks below 2 and 1, a diagonal index out of
/// bounds, `lower > upper`, a diagonal of the wrong shape. Gradient: the gradient with the
/// diagonals zeroed for `input`, its diagonals for `diagonal`.
pub struct MatrixSetDiag(pub Version);

impl RegisteredOp for MatrixSetDiag {
    fn op_type(&self) -> &'static str {
        match self.0 {
            Version::V1 => "MatrixSetDiag",
            Version::V2 => "MatrixSetDiagV2",
            Version::V3 => "MatrixSetDiagV3",
        }
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(if self.0 == Version::V1 { 2 } else { 3 })?;
        ctx.check_type_attr("T", 0)?;
        let t = ctx.dtype(0);
        if ctx.dtype(1) != t {
            return Err(Error::invalid_argument(format!(
                "diagonal has dtype {}, which does not match input's dtype {t}",
                ctx.dtype(1)
            )));
        }
        rank_at_least(ctx.shape(0), 2)?;
        rank_at_least(ctx.shape(1), 1)?;
        Ok(vec![(t, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(SetKernel(Align::of(node, self.0)?, self.0)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let g = ctx.grad(0)?;
        let zeros = zeros_like(s, &ctx.inputs[1])?;
        if self.0 == Version::V1 {
            return Ok(vec![Some(matrix_set_diag(s, &g, &zeros)?), Some(matrix_diag_part(s, &g)?)]);
        }
        let align = align_name(ctx.node, self.0);
        let k = &ctx.inputs[2];
        let pad = crate::ops::constant(s, zero(g.dtype())?)?;
        Ok(vec![
            Some(matrix_set_diag_v3(s, &g, &zeros, k, align)?),
            Some(matrix_diag_part_v3(s, &g, k, &pad, align)?),
            None,
        ])
    }
}

struct SetKernel(Align, Version);
impl Kernel for SetKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, diag) = (ctx.input(0), ctx.input(1));
        let (lo, hi) = if self.1 == Version::V1 { (0, 0) } else { read_k(ctx.input(2))? };
        let (d, dd) = (x.shape(), diag.shape());
        if d.len() < 2 {
            return Err(Error::invalid_argument(format!(
                "input must be at least 2-dim, received shape: {}",
                dims_str(d)
            )));
        }
        if dd.is_empty() {
            return Err(Error::invalid_argument(format!(
                "diagonal must be at least 1-dim, received shape: {}",
                dims_str(dd)
            )));
        }
        let n = d.len();
        let (rows, cols) = (d[n - 2] as i64, d[n - 1] as i64);
        check_bounds(lo, hi, rows, cols)?;
        let num_diags = hi - lo + 1;
        if lo != hi && (dd.len() < n || dd[n - 2] as i64 != num_diags) {
            return Err(Error::invalid_argument(
                "The number of diagonals provided in `diag` is not consistent with `lower_diag_index` and `upper_diag_index`",
            ));
        }
        let max_len = (rows + hi.min(0)).min(cols - lo.max(0)).max(0);
        let mut want = d[..n - 2].to_vec();
        if lo != hi {
            want.push(num_diags as usize);
        }
        want.push(max_len as usize);
        if want != dd {
            return Err(Error::invalid_argument(format!(
                "Either first dimensions of diagonal don't match input.shape[:-2], or diagonal.shape[:-1] is not equal to the longests diagonal in range [lower_diag_index:upper_diag_index].\nInput shape: {}\nDiagonal shape: {}\nExpected diagonal shape: {}",
                dims_str(d),
                dims_str(dd),
                dims_str(&want)
            )));
        }
        let total = x.num_elements();
        let per_batch = (rows * cols) as usize;
        let per_diag = (num_diags * max_len) as usize;
        let mut idx: Vec<usize> = (0..total).collect();
        for b in 0..d[..n - 2].iter().product::<usize>() {
            for m in 0..num_diags {
                let dg = hi - m;
                let (len, off) = self.0.len_offset(dg, max_len, rows, cols);
                for k in 0..len.max(0) {
                    let (y, xx) = (k + (-dg).max(0), k + dg.max(0));
                    idx[b * per_batch + (y * cols + xx) as usize] =
                        total + b * per_diag + (m * max_len + k + off) as usize;
                }
            }
        }
        let src = join(x.storage(), diag.storage())?;
        Ok(vec![Tensor::from_storage(d, src.try_gather(&idx)?)?])
    }
}

/// `tf.linalg.diag(diagonal, k, num_rows, num_cols, padding_value, align)`: op
/// `MatrixDiagV3`, default name `diag`. `k`, `num_rows`, `num_cols` int32 (scalar; `k` or
/// `[lower, upper]`), `padding_value` a scalar of `diagonal`'s dtype. See [`MatrixDiag`].
pub fn matrix_diag_v3(
    s: &Scope,
    diagonal: &Output,
    k: &Output,
    num_rows: &Output,
    num_cols: &Output,
    padding_value: &Output,
    align: &str,
) -> Result<Output> {
    s.op("MatrixDiagV3", "diag")
        .input(diagonal)
        .input(k)
        .input(num_rows)
        .input(num_cols)
        .input(padding_value)
        .attr("T", diagonal.dtype())
        .attr("align", align)
        .build_output()
}

/// `tf.linalg.diag_part(input, k, padding_value, align)`: op `MatrixDiagPartV3`, default name
/// `diag_part`. See [`MatrixDiagPart`].
pub fn matrix_diag_part_v3(
    s: &Scope,
    input: &Output,
    k: &Output,
    padding_value: &Output,
    align: &str,
) -> Result<Output> {
    s.op("MatrixDiagPartV3", "diag_part")
        .input(input)
        .input(k)
        .input(padding_value)
        .attr("T", input.dtype())
        .attr("align", align)
        .build_output()
}

/// `tf.linalg.set_diag(input, diagonal, k, align)`: op `MatrixSetDiagV3`, default name
/// `set_diag`. See [`MatrixSetDiag`].
pub fn matrix_set_diag_v3(s: &Scope, input: &Output, diagonal: &Output, k: &Output, align: &str) -> Result<Output> {
    s.op("MatrixSetDiagV3", "set_diag")
        .input(input)
        .input(diagonal)
        .input(k)
        .attr("T", input.dtype())
        .attr("align", align)
        .build_output()
}

/// `tf.compat.v1.matrix_diag` as TensorFlow 1.x wrote it: op `MatrixDiag` (`[..., N]` to
/// `[..., N, N]`), default name `MatrixDiag`. See [`MatrixDiag`].
pub fn matrix_diag(s: &Scope, diagonal: &Output) -> Result<Output> {
    s.op("MatrixDiag", "MatrixDiag").input(diagonal).attr("T", diagonal.dtype()).build_output()
}

/// Op `MatrixDiagPart` (`[..., M, N]` to `[..., min(M, N)]`), default name `MatrixDiagPart`.
/// See [`MatrixDiagPart`].
pub fn matrix_diag_part(s: &Scope, input: &Output) -> Result<Output> {
    s.op("MatrixDiagPart", "MatrixDiagPart").input(input).attr("T", input.dtype()).build_output()
}

/// Op `MatrixSetDiag` (the main diagonal of `input` replaced by `diagonal`), default name
/// `MatrixSetDiag`. See [`MatrixSetDiag`].
pub fn matrix_set_diag(s: &Scope, input: &Output, diagonal: &Output) -> Result<Output> {
    s.op("MatrixSetDiag", "MatrixSetDiag").input(input).input(diagonal).attr("T", input.dtype()).build_output()
}
