//! `ApproximateEqual(x, y)` (attr `tolerance`, float, default 1e-5): bool `|x - y| <
//! tolerance` element-wise, on inputs of one shape (no broadcasting), float32 and float64
//! as TensorFlow's CPU kernels. Not differentiable (TensorFlow's `NotDifferentiable`).

use super::binary::no_kernel;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::checks::debug_string;
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&ApproximateEqual];

/// The `ApproximateEqual` op. Errors (`InvalidArgument`, TensorFlow's texts): at build time
/// for known shapes that differ (`Dimension 0 in both shapes must be equal, but are 2 and
/// 3. Shapes are [2] and [3].`, `Shapes must be equal rank, but are 1 and 2`) or a dtype
/// other than float32/float64; when run, `x and y must be of the same shape. x shape: [2].
/// y shape: [3]`.
pub struct ApproximateEqual;

impl RegisteredOp for ApproximateEqual {
    fn op_type(&self) -> &'static str {
        "ApproximateEqual"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.same_dtypes()?;
        ctx.check_dtype(0, &[DType::Float, DType::Double])?;
        let (a, b) = (ctx.shape(0), ctx.shape(1));
        if let (Some(da), Some(db)) = (a.dims(), b.dims()) {
            if da.len() != db.len() {
                return Err(Error::invalid_argument(format!(
                    "Shapes must be equal rank, but are {} and {}",
                    da.len(),
                    db.len()
                )));
            }
            if let Some((i, (x, y))) =
                da.iter().zip(db).enumerate().find(|(_, (x, y))| x.is_some() && y.is_some() && x != y)
            {
                return Err(Error::invalid_argument(format!(
                    "Dimension {i} in both shapes must be equal, but are {} and {}. Shapes are {} and {}.",
                    x.unwrap_or(0),
                    y.unwrap_or(0),
                    debug_string(a),
                    debug_string(b)
                )));
            }
        }
        Ok(vec![(DType::Bool, a.merge(b).unwrap_or_else(|| a.clone()))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        if !matches!(t, DType::Float | DType::Double) {
            return Err(no_kernel("ApproximateEqual", t));
        }
        Ok(Box::new(ApproxKernel { tolerance: node.attr_float_or("tolerance", 1e-5)? }))
    }
}

struct ApproxKernel {
    tolerance: f32,
}

impl Kernel for ApproxKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, y) = (ctx.input(0), ctx.input(1));
        if x.shape() != y.shape() {
            return Err(Error::invalid_argument(format!(
                "x and y must be of the same shape. x shape: {}. y shape: {}",
                debug_string(&Shape::known(x.shape())),
                debug_string(&Shape::known(y.shape()))
            )));
        }
        let out: Vec<bool> = match x.dtype() {
            DType::Double => {
                let tol = self.tolerance as f64;
                x.as_slice::<f64>()?.iter().zip(y.as_slice::<f64>()?).map(|(a, b)| (a - b).abs() < tol).collect()
            }
            _ => {
                let tol = self.tolerance;
                x.as_slice::<f32>()?.iter().zip(y.as_slice::<f32>()?).map(|(a, b)| (a - b).abs() < tol).collect()
            }
        };
        Ok(vec![Tensor::new(x.shape(), out)?])
    }
}

/// `tf.raw_ops.ApproximateEqual(x, y, tolerance)`: op `ApproximateEqual`, default name
/// `ApproximateEqual`; bool `|x - y| < tolerance`, the shape of `x` and `y` (one shape,
/// float32/float64). Errors as [`ApproximateEqual`].
pub fn approximate_equal(s: &Scope, x: &Output, y: &Output, tolerance: f32) -> Result<Output> {
    s.op("ApproximateEqual", "ApproximateEqual")
        .input(x)
        .input(y)
        .attr("T", x.dtype())
        .attr("tolerance", tolerance)
        .build_output()
}
