//! `Cross` (`tf.linalg.cross`): the cross product of 3-element vectors along the last
//! axis, with TensorFlow's gradient.

use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::kernels::Num;
use crate::ops::step_resources::{tf_dims, tf_shape};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&Cross];

const NUMBERS: &[DType] = crate::ops::kernels::NUMBERS_AND_SMALL_INTS;

/// `Cross(a, b)` (attr `T`): for `a` and `b` of one shape `[..., 3]`, `a x b` per vector
/// (`[a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0]`, integers wrapping), same shape.
/// float32, float64, float16, bfloat16 (each operation rounded to it, as TensorFlow), int8,
/// int16, int32, int64, uint8, uint16. Errors (TensorFlow's): at build time for known shapes that
/// differ or a last dimension that is not 3 (`InvalidArgument`); when run, `Both inputs
/// must be of same shape: [2,3] vs. [1,3]` (`InvalidArgument`) and `Cross-products are
/// only defined for 3-element vectors.` (`FailedPrecondition`). Gradient (TensorFlow's
/// `_CrossGrad`): `cross(b, g)` to `a`, `cross(g, a)` to `b`.
pub struct Cross;

impl RegisteredOp for Cross {
    fn op_type(&self) -> &'static str {
        "Cross"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.check_dtype(0, &[NUMBERS, &[DType::Half, DType::BFloat16]].concat())?;
        ctx.same_dtypes()?;
        for i in 0..2 {
            if ctx.shape(i).rank() == Some(0) {
                return Err(Error::invalid_argument("Shape must be at least rank 1 but is rank 0"));
            }
        }
        let (a, b) = (ctx.shape(0), ctx.shape(1));
        let merged = match (a.dims(), b.dims()) {
            (Some(x), Some(y)) => {
                if x.len() != y.len() {
                    return Err(Error::invalid_argument(format!(
                        "Shapes must be equal rank, but are {} and {}",
                        x.len(),
                        y.len()
                    )));
                }
                let mut m = Vec::with_capacity(x.len());
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    if let (Some(p), Some(q)) = (p, q) {
                        if p != q {
                            let (sa, sb) = (tf_shape(a), tf_shape(b));
                            return Err(Error::invalid_argument(format!(
                                "Dimension {i} in both shapes must be equal, but are {p} and {q}. Shapes are {sa} and {sb}."
                            )));
                        }
                    }
                    m.push(p.or(*q));
                }
                Shape::partial(&m)
            }
            (Some(_), None) => a.clone(),
            _ => b.clone(),
        };
        if let Some(d) = merged.dims().and_then(|d| *d.last().unwrap_or(&None)) {
            if d != 3 {
                return Err(Error::invalid_argument(format!("Dimension must be 3 but is {d}")));
            }
        }
        Ok(vec![(t, merged)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        let f = match t {
            DType::Half => cross_f16 as CrossFn,
            DType::BFloat16 => cross_bf16 as CrossFn,
            _ => crate::dispatch_numeric!(t, "Cross", small_ints, T => cross_kernel::<T> as CrossFn),
        };
        Ok(Box::new(CrossKernel(f)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let g = ctx.grad(0)?;
        Ok(vec![Some(cross(s, &ctx.inputs[1], &g)?), Some(cross(s, &g, &ctx.inputs[0])?)])
    }
}

type CrossFn = fn(&Tensor, &Tensor) -> Result<Tensor>;

struct CrossKernel(CrossFn);

impl Kernel for CrossKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        if a.shape() != b.shape() {
            return Err(Error::invalid_argument(format!(
                "Both inputs must be of same shape: {} vs. {}",
                tf_dims(a.shape()),
                tf_dims(b.shape())
            )));
        }
        if a.rank() == 0 {
            return Err(Error::invalid_argument(format!("Input must be at least 1D{}", tf_dims(a.shape()))));
        }
        if a.shape()[a.rank() - 1] != 3 {
            return Err(Error::failed_precondition("Cross-products are only defined for 3-element vectors."));
        }
        Ok(vec![(self.0)(a, b)?])
    }
}

fn cross_kernel<T: Num>(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (x, y) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
    let mut out = Vec::with_capacity(x.len());
    for (p, q) in x.chunks(3).zip(y.chunks(3)) {
        let m = |i: usize, j: usize| p[i].mul_wrapping(q[j]).sub_wrapping(p[j].mul_wrapping(q[i]));
        out.extend([m(1, 2), m(2, 0), m(0, 1)]);
    }
    Tensor::new(a.shape(), out)
}

/// The narrow float kernels: each product and the difference rounded to the narrow type,
/// as Eigen's `half`/`bfloat16` arithmetic rounds every operation.
macro_rules! cross_narrow {
    ($name:ident, $t:ty) => {
        fn $name(a: &Tensor, b: &Tensor) -> Result<Tensor> {
            let (x, y) = (a.as_slice::<$t>()?, b.as_slice::<$t>()?);
            let r = |v: f32| <$t>::from_f32(v);
            let mut out = Vec::with_capacity(x.len());
            for (p, q) in x.chunks(3).zip(y.chunks(3)) {
                let m = |i: usize, j: usize| {
                    let (u, v) = (r(p[i].to_f32() * q[j].to_f32()), r(p[j].to_f32() * q[i].to_f32()));
                    r(u.to_f32() - v.to_f32())
                };
                out.extend([m(1, 2), m(2, 0), m(0, 1)]);
            }
            Tensor::new(a.shape(), out)
        }
    };
}
cross_narrow!(cross_f16, half::f16);
cross_narrow!(cross_bf16, half::bf16);

/// `tf.linalg.cross(a, b)`: op `Cross`, default name `Cross`. Shapes, dtypes and errors
/// as [`Cross`].
pub fn cross(s: &Scope, a: &Output, b: &Output) -> Result<Output> {
    s.op("Cross", "Cross").input(a).input(b).attr("T", a.dtype()).build_output()
}
