//! `MatrixBandPart(input, num_lower, num_upper)` (`tf.linalg.band_part`): the innermost
//! matrices of `input` with everything outside a band around the diagonal set to zero.

use super::checks::debug_string;
use super::int_values;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Storage, Tensor};

/// `MatrixBandPart`: `out[..., m, n] = in[..., m, n]` where `(num_lower < 0 || m - n <=
/// num_lower) && (num_upper < 0 || n - m <= num_upper)`, else 0. Every numeric dtype and
/// bool (attr `T`); `num_lower`/`num_upper` int32/int64 scalars (attr `Tindex`; negative:
/// the whole triangle). Output: `input`'s shape.
///
/// Errors (`InvalidArgument`, TensorFlow's texts): at build time for `input` of rank below 2
/// or a non-scalar band; when run, `input must be at least 2-dim, received shape: [2]`,
/// `num_lower must be scalar, got shape [2]`, `num_lower must be negative or less or equal
/// to number of rows (3) got: 5` (and `num_upper` against the columns). Gradient (TensorFlow's
/// `_MatrixBandPartGrad`): `MatrixBandPart(g, num_lower, num_upper)`.
pub struct MatrixBandPart;

impl RegisteredOp for MatrixBandPart {
    fn op_type(&self) -> &'static str {
        "MatrixBandPart"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_type_attr("T", 0)?;
        ctx.check_dtype(1, &[DType::Int32, DType::Int64])?;
        if let Some(r) = ctx.shape(0).rank().filter(|&r| r < 2) {
            return Err(Error::invalid_argument(format!("Shape must be at least rank 2 but is rank {r}")));
        }
        for i in [1, 2] {
            if let Some(r) = ctx.shape(i).rank().filter(|&r| r != 0) {
                return Err(Error::invalid_argument(format!("Shape must be rank 0 but is rank {r}")));
            }
        }
        Ok(vec![(ctx.dtype(0), ctx.shape(0).clone())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(BandKernel))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let g = matrix_band_part(ctx.scope, &ctx.grad(0)?, &ctx.inputs[1], &ctx.inputs[2])?;
        Ok(vec![Some(g), None, None])
    }
}

struct BandKernel;

/// Zeroes `v`'s elements outside the band (matrices `rows x cols`, innermost).
fn zero_outside<T: Default>(v: &mut [T], rows: usize, cols: usize, lower: i64, upper: i64) {
    for (i, x) in v.iter_mut().enumerate() {
        let (m, n) = (((i / cols) % rows) as i64, (i % cols) as i64);
        if (lower >= 0 && m - n > lower) || (upper >= 0 && n - m > upper) {
            *x = T::default();
        }
    }
}

impl Kernel for BandKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let d = x.shape();
        if d.len() < 2 {
            return Err(Error::invalid_argument(format!(
                "input must be at least 2-dim, received shape: {}",
                debug_string(&Shape::known(d))
            )));
        }
        let (rows, cols) = (d[d.len() - 2], d[d.len() - 1]);
        let band = |i: usize, what: &str, side: &str, limit: usize| -> Result<i64> {
            let t = ctx.input(i);
            if t.rank() != 0 {
                return Err(Error::invalid_argument(format!(
                    "{what} must be scalar, got shape {}",
                    debug_string(&Shape::known(t.shape()))
                )));
            }
            let v = int_values(t)?[0];
            if v > limit as i64 {
                return Err(Error::invalid_argument(format!(
                    "{what} must be negative or less or equal to number of {side} ({limit}) got: {v}"
                )));
            }
            Ok(v)
        };
        let lower = band(1, "num_lower", "rows", rows)?;
        let upper = band(2, "num_upper", "columns", cols)?;
        let mut st = x.storage().clone();
        if rows > 0 && cols > 0 {
            match &mut st {
                Storage::F32(v) => zero_outside(v, rows, cols, lower, upper),
                Storage::F64(v) => zero_outside(v, rows, cols, lower, upper),
                Storage::I32(v) => zero_outside(v, rows, cols, lower, upper),
                Storage::I64(v) => zero_outside(v, rows, cols, lower, upper),
                Storage::Bool(v) => zero_outside(v, rows, cols, lower, upper),
                Storage::I8(v) => zero_outside(v, rows, cols, lower, upper),
                Storage::I16(v) => zero_outside(v, rows, cols, lower, upper),
                Storage::U8(v) => zero_outside(v, rows, cols, lower, upper),
                Storage::U16(v) => zero_outside(v, rows, cols, lower, upper),
                Storage::U32(v) => zero_outside(v, rows, cols, lower, upper),
                Storage::U64(v) => zero_outside(v, rows, cols, lower, upper),
                Storage::F16(v) => zero_outside(v, rows, cols, lower, upper),
                Storage::BF16(v) => zero_outside(v, rows, cols, lower, upper),
                Storage::C64(v) => zero_outside(v, rows, cols, lower, upper),
                Storage::C128(v) => zero_outside(v, rows, cols, lower, upper),
                other => {
                    return Err(Error::invalid_argument(format!(
                        "MatrixBandPart has no kernel for dtype {}",
                        other.dtype()
                    )))
                }
            }
        }
        Ok(vec![Tensor::from_storage(d, st)?])
    }
}

/// `tf.linalg.band_part(input, num_lower, num_upper)`: op `MatrixBandPart`, default name
/// `MatrixBandPart` (attrs `T`, `Tindex` from `num_lower`). Shapes, dtypes and errors as
/// [`MatrixBandPart`].
pub fn matrix_band_part(s: &Scope, input: &Output, num_lower: &Output, num_upper: &Output) -> Result<Output> {
    s.op("MatrixBandPart", "MatrixBandPart")
        .input(input)
        .input(num_lower)
        .input(num_upper)
        .attr("T", input.dtype())
        .attr("Tindex", num_lower.dtype())
        .build_output()
}
