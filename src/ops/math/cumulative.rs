//! `Cumsum` and `Cumprod` (`tf.cumsum`, `tf.math.cumprod`): running sums and products
//! along one axis, `exclusive` (each element leaves itself out) and `reverse` (from the
//! end), with TensorFlow's gradients.

use super::arithmetic::mul;
use super::pow_diff::div_no_nan;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{constant, int_values};
use crate::ops::kernels::Num;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&Scan::CUMSUM, &Scan::CUMPROD];

const NUMBERS: &[DType] = crate::ops::kernels::NUMBERS_AND_SMALL_INTS;

/// `Cumsum` / `Cumprod(x, axis)` (attrs `exclusive`, `reverse`, `T`, `Tidx`): along
/// `axis` (a 0-d int32/int64, negative from the end), element `i` is the sum (product)
/// of elements `0..=i` (`0..i` when `exclusive`; counted from the end when `reverse`).
/// float32, float64, int8, int16, int32, int64, uint8, uint16 (integers wrap); same shape. Errors: `InvalidArgument`
/// with TensorFlow's `ScanOp: Expected scan axis in the range [-1, 1), but got 1` (at
/// build time for a constant axis). Gradients (TensorFlow's): `Cumsum` of the gradient in
/// the other direction; for `Cumprod`, `div_no_nan(cumsum(cumprod(x) * g, reverse = not
/// reverse), x)`.
pub struct Scan {
    op_type: &'static str,
    product: bool,
}

impl Scan {
    const CUMSUM: Scan = Scan { op_type: "Cumsum", product: false };
    const CUMPROD: Scan = Scan { op_type: "Cumprod", product: true };
}

/// The normalized scan axis. Errors: TensorFlow's message.
pub(super) fn scan_axis(axis: i64, rank: usize) -> Result<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(Error::invalid_argument(format!(
            "ScanOp: Expected scan axis in the range [{}, {r}), but got {axis}",
            -r
        )));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

impl RegisteredOp for Scan {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.check_dtype(0, NUMBERS)?;
        ctx.check_dtype(1, &[DType::Int32, DType::Int64])?;
        if let Some(r) = ctx.shape(1).rank().filter(|&r| r != 0) {
            return Err(Error::invalid_argument(format!("Shape must be rank 0 but is rank {r} (the scan axis)")));
        }
        if let (Some(rank), Some(a)) = (ctx.shape(0).rank(), ctx.const_input(1)) {
            scan_axis(int_values(&a)?.first().copied().unwrap_or(0), rank)?;
        }
        Ok(vec![(t, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        let f = crate::dispatch_numeric!(t, self.op_type, small_ints, T => scan::<T> as ScanFn);
        Ok(Box::new(ScanKernel {
            f,
            product: self.product,
            exclusive: node.attr_bool_or("exclusive", false)?,
            reverse: node.attr_bool_or("reverse", false)?,
        }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (x, axis) = (&ctx.inputs[0], &ctx.inputs[1]);
        let exclusive = ctx.node.attr_bool_or("exclusive", false)?;
        let reverse = ctx.node.attr_bool_or("reverse", false)?;
        let g = ctx.grad(0)?;
        if !self.product {
            return Ok(vec![Some(cumsum_dyn(s, &g, axis, exclusive, !reverse)?), None]);
        }
        let prod = cumprod_dyn(s, x, axis, exclusive, reverse)?;
        let out = cumsum_dyn(s, &mul(s, &prod, &g)?, axis, exclusive, !reverse)?;
        Ok(vec![Some(div_no_nan(s, &out, x)?), None])
    }
}

type ScanFn = fn(&Tensor, usize, bool, bool, bool) -> Result<Tensor>;

/// A prepared `Cumsum`/`Cumprod`: its typed kernel and attrs.
struct ScanKernel {
    f: ScanFn,
    product: bool,
    exclusive: bool,
    reverse: bool,
}

impl Kernel for ScanKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let a = ctx.input(1);
        if a.rank() != 0 {
            return Err(Error::invalid_argument(format!("ScanOp: axis must be a scalar, not {}", fmt_dims(a.shape()))));
        }
        let axis = scan_axis(int_values(a)?[0], x.rank())?;
        Ok(vec![(self.f)(x, axis, self.product, self.exclusive, self.reverse)?])
    }
}

fn scan<T: Num>(x: &Tensor, axis: usize, product: bool, exclusive: bool, reverse: bool) -> Result<Tensor> {
    let v = x.as_slice::<T>()?;
    let sh = x.shape();
    let (outer, n, inner) = (sh[..axis].iter().product::<usize>(), sh[axis], sh[axis + 1..].iter().product::<usize>());
    let mut out = vec![T::ZERO; v.len()];
    let start = if product { T::ONE } else { T::ZERO };
    for o in 0..outer {
        for i in 0..inner {
            let mut acc = start;
            for step in 0..n {
                let j = if reverse { n - 1 - step } else { step };
                let k = (o * n + j) * inner + i;
                if exclusive {
                    out[k] = acc;
                }
                acc = if product { acc.mul_wrapping(v[k]) } else { acc.add_wrapping(v[k]) };
                if !exclusive {
                    out[k] = acc;
                }
            }
        }
    }
    Tensor::new(sh, out)
}

/// A scan op with `axis` a tensor.
fn scan_op(s: &Scope, op_type: &str, x: &Output, axis: &Output, exclusive: bool, reverse: bool) -> Result<Output> {
    s.op(op_type, op_type)
        .input(x)
        .input(axis)
        .attr("exclusive", exclusive)
        .attr("reverse", reverse)
        .attr("T", x.dtype())
        .attr("Tidx", axis.dtype())
        .build_output()
}

/// A scan op with a constant axis (`<op>/axis`).
fn scan_const(s: &Scope, op_type: &str, x: &Output, axis: i32, exclusive: bool, reverse: bool) -> Result<Output> {
    let (op, inner) = s.op_scope(op_type);
    let a = constant(&inner.named("axis"), Tensor::scalar(axis))?;
    scan_op(&op, op_type, x, &a, exclusive, reverse)
}

/// `tf.cumsum(x, axis, exclusive, reverse)`: op `Cumsum`, default name `Cumsum`, axis
/// const `Cumsum/axis`. float32, float64, int32, int64. Errors: `InvalidArgument` as [`Scan`].
pub fn cumsum(s: &Scope, x: &Output, axis: i32, exclusive: bool, reverse: bool) -> Result<Output> {
    scan_const(s, "Cumsum", x, axis, exclusive, reverse)
}

/// `tf.math.cumprod(x, axis, exclusive, reverse)`: op `Cumprod`, default name `Cumprod`,
/// axis const `Cumprod/axis`. As [`cumsum`].
pub fn cumprod(s: &Scope, x: &Output, axis: i32, exclusive: bool, reverse: bool) -> Result<Output> {
    scan_const(s, "Cumprod", x, axis, exclusive, reverse)
}

/// `Cumsum` with the axis a 0-d int32/int64 tensor. As [`cumsum`].
pub fn cumsum_dyn(s: &Scope, x: &Output, axis: &Output, exclusive: bool, reverse: bool) -> Result<Output> {
    scan_op(s, "Cumsum", x, axis, exclusive, reverse)
}

/// `Cumprod` with the axis a 0-d int32/int64 tensor. As [`cumprod`].
pub fn cumprod_dyn(s: &Scope, x: &Output, axis: &Output, exclusive: bool, reverse: bool) -> Result<Output> {
    scan_op(s, "Cumprod", x, axis, exclusive, reverse)
}
