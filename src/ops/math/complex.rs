//! Complex numbers (`tf.complex` and its parts): `Complex`, `Real`, `Imag`, `ComplexAbs`,
//! `Angle`, `Conj` on complex64 (pairs of float32) and complex128 (pairs of float64), and
//! the complex matrix products `MatMul` and `BatchMatMulV2` run
//! (`complex_batch_matmul`). The element-wise arithmetic, functions and reductions of
//! complex values are the real ops' tables (`arithmetic.rs`, `functions.rs`, ...) with
//! complex entries (`ops::kernels::complex`).

use super::arithmetic::{mul, neg};
use super::binary::{broadcast_partial, no_kernel, reduce_to_inputs};
use super::functions::reciprocal;
use super::pow_diff::div_no_nan;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{constant, zeros_like};
use crate::ops::kernels::{broadcast_binary, broadcast_indices, broadcast_shape, unary_map};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[
    &ComplexOp,
    &Part { op_type: "Real", f32: |z| z[0], f64: |z| z[0] },
    &Part { op_type: "Imag", f32: |z| z[1], f64: |z| z[1] },
    &Part { op_type: "ComplexAbs", f32: |z| z[0].hypot(z[1]), f64: |z| z[0].hypot(z[1]) },
    &Part { op_type: "Angle", f32: |z| z[1].atan2(z[0]), f64: |z| z[1].atan2(z[0]) },
    &Conj,
];

/// The complex dtype of a float dtype's pairs.
fn complex_of(t: DType) -> Option<DType> {
    match t {
        DType::Float => Some(DType::Complex64),
        DType::Double => Some(DType::Complex128),
        _ => None,
    }
}

/// The float dtype of a complex dtype's parts.
fn part_of(t: DType) -> Option<DType> {
    match t {
        DType::Complex64 => Some(DType::Float),
        DType::Complex128 => Some(DType::Double),
        _ => None,
    }
}

/// Errors unless the node's `attr` (when set) is `want`: TensorFlow has kernels only for
/// float32 → complex64 and float64 → complex128.
fn check_out_attr(node: &Node, attr: &str, want: DType) -> Result<()> {
    match node.attrs.get(attr) {
        None => Ok(()),
        Some(_) => {
            let got = node.attr_type(attr)?;
            if got != want {
                return Err(Error::invalid_argument(format!(
                    "{} '{}': {attr} is {got} but the input's dtype gives {want} (TensorFlow has no kernel for it)",
                    node.op_type, node.name
                )));
            }
            Ok(())
        }
    }
}

/// `Complex(real, imag)` (attrs `T` float32/float64, `Tout` complex64/complex128): `real +
/// i·imag`, broadcasting as NumPy. Errors: `InvalidArgument` for other dtypes, a `Tout` not
/// matching `T`, shapes that do not broadcast. Gradient (TensorFlow's `_ComplexGrad`):
/// `Real(g)` and `Imag(g)`, summed over broadcast dimensions.
pub struct ComplexOp;

impl RegisteredOp for ComplexOp {
    fn op_type(&self) -> &'static str {
        "Complex"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.check_dtype(0, &[DType::Float, DType::Double])?;
        ctx.same_dtypes()?;
        let out = complex_of(t).unwrap_or(DType::Complex64);
        check_out_attr(ctx.node, "Tout", out)?;
        Ok(vec![(out, broadcast_partial(ctx.shape(0), ctx.shape(1))?)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        complex_of(t).ok_or_else(|| no_kernel("Complex", t))?;
        Ok(Box::new(crate::ops::FnKernel(|ctx| {
            let (a, b) = (ctx.input(0), ctx.input(1));
            Ok(vec![match a.dtype() {
                DType::Double => broadcast_binary::<f64, [f64; 2]>(a, b, |x, y| [x, y])?,
                _ => broadcast_binary::<f32, [f32; 2]>(a, b, |x, y| [x, y])?,
            }])
        })))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let g = ctx.grad(0)?;
        let (x, y) = (&ctx.inputs[0], &ctx.inputs[1]);
        let (gx, gy) = reduce_to_inputs(s, x, y, real(s, &g)?, imag(s, &g)?)?;
        Ok(vec![Some(gx), Some(gy)])
    }
}

/// `Real`, `Imag`, `ComplexAbs` (`|z|`, as `hypot`) and `Angle` (`atan2(imag, real)`) (attrs
/// `T` complex64/complex128, `Tout` its float dtype): a float tensor of the input's shape.
/// Gradients (TensorFlow's): `Real`: `Complex(g, 0)`; `Imag`: `Complex(0, g)`;
/// `ComplexAbs` (`_ComplexAbsGrad`): `DivNoNan(Complex(g, 0) * x, Complex(|x|, 0))`;
/// `Angle` (`_AngleGrad`): `-Complex(g, 0) * Reciprocal(Complex(Imag(x), Real(x)))`.
pub struct Part {
    op_type: &'static str,
    f32: fn([f32; 2]) -> f32,
    f64: fn([f64; 2]) -> f64,
}

impl RegisteredOp for Part {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let t = ctx.check_dtype(0, &[DType::Complex64, DType::Complex128])?;
        ctx.check_type_attr("T", 0)?;
        let out = part_of(t).unwrap_or(DType::Float);
        check_out_attr(ctx.node, "Tout", out)?;
        Ok(vec![(out, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        part_of(t).ok_or_else(|| no_kernel(self.op_type, t))?;
        Ok(Box::new(PartKernel(self)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let g = ctx.grad(0)?;
        let zero = || -> Result<Output> {
            let z = if g.dtype() == DType::Double { Tensor::scalar(0.0f64) } else { Tensor::scalar(0.0f32) };
            constant(&s.named("Const"), z)
        };
        let x = &ctx.inputs[0];
        match self.op_type {
            "Real" => Ok(vec![Some(complex(s, &g, &zero()?)?)]),
            "Imag" => Ok(vec![Some(complex(s, &zero()?, &g)?)]),
            "ComplexAbs" => {
                let gc = complex(s, &g, &zeros_like(s, &g)?)?;
                let y = &ctx.outputs[0];
                let yc = complex(&s.named("Complex_1"), y, &zeros_like(&s.named("zeros_like_1"), y)?)?;
                Ok(vec![Some(div_no_nan(s, &mul(s, &gc, x)?, &yc)?)])
            }
            "Angle" => {
                let z = reciprocal(s, &complex(s, &imag(s, x)?, &real(s, x)?)?)?;
                let gc = complex(&s.named("Complex_1"), &g, &zero()?)?;
                Ok(vec![Some(mul(s, &neg(s, &gc)?, &z)?)])
            }
            other => Err(Error::internal(format!("{other} ({}) is no part of a complex number", ctx.node.name))),
        }
    }
}

struct PartKernel(&'static Part);

impl Kernel for PartKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        Ok(vec![match x.dtype() {
            DType::Complex128 => unary_map::<[f64; 2], f64>(x, self.0.f64)?,
            _ => unary_map::<[f32; 2], f32>(x, self.0.f32)?,
        }])
    }
}

/// `Conj(input)` (attr `T` complex64/complex128): the complex conjugate, same shape.
/// Gradient (TensorFlow's `_ConjGrad`): `Conj(g)`.
pub struct Conj;

impl RegisteredOp for Conj {
    fn op_type(&self) -> &'static str {
        "Conj"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let t = ctx.check_dtype(0, &[DType::Complex64, DType::Complex128])?;
        ctx.check_type_attr("T", 0)?;
        Ok(vec![(t, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, _node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(crate::ops::FnKernel(|ctx| {
            let x = ctx.input(0);
            Ok(vec![match x.dtype() {
                DType::Complex128 => unary_map::<[f64; 2], [f64; 2]>(x, |z| [z[0], -z[1]])?,
                _ => unary_map::<[f32; 2], [f32; 2]>(x, |z| [z[0], -z[1]])?,
            }])
        })))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Ok(vec![Some(conj(ctx.scope, &ctx.grad(0)?)?)])
    }
}

/// The complex matrix product of `x [..., m, k]` and `y [..., k, n]` with the batch
/// dimensions broadcast: each operand transposed first when `trans_*`, and conjugated too
/// when `conj` (`BatchMatMulV2`'s `adj_x`/`adj_y` are conjugate transposes, `MatMul`'s
/// `transpose_a`/`transpose_b` plain ones). Computed in the dtype's float width.
/// Errors: `InvalidArgument` for ranks below 2, inner dimensions that differ, batch
/// dimensions that do not broadcast.
pub(crate) fn complex_batch_matmul(x: &Tensor, y: &Tensor, trans: (bool, bool), conj: bool) -> Result<Tensor> {
    match x.dtype() {
        DType::Complex128 => cbmm::<f64>(x, y, trans, conj),
        DType::Complex64 => cbmm::<f32>(x, y, trans, conj),
        t => Err(no_kernel("MatMul", t)),
    }
}

trait Part2:
    Copy
    + Default
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Neg<Output = Self>
{
}
impl Part2 for f32 {}
impl Part2 for f64 {}

fn cbmm<T: Part2>(x: &Tensor, y: &Tensor, trans: (bool, bool), conj: bool) -> Result<Tensor>
where
    [T; 2]: crate::tensor::Element,
{
    let (sx, sy) = (x.shape(), y.shape());
    if sx.len() < 2 || sy.len() < 2 {
        return Err(Error::invalid_argument(format!(
            "In[0] and In[1] must be at least rank 2: {} and {}",
            Shape::known(sx),
            Shape::known(sy)
        )));
    }
    let (rx, ry) = (sx.len(), sy.len());
    let (m, k) = if trans.0 { (sx[rx - 1], sx[rx - 2]) } else { (sx[rx - 2], sx[rx - 1]) };
    let (k2, n) = if trans.1 { (sy[ry - 1], sy[ry - 2]) } else { (sy[ry - 2], sy[ry - 1]) };
    if k != k2 {
        return Err(Error::invalid_argument(format!(
            "Matrix size-incompatible: In[0]: {}, In[1]: {}",
            Shape::known(sx),
            Shape::known(sy)
        )));
    }
    let (bx, by) = (&sx[..rx - 2], &sy[..ry - 2]);
    let batch = broadcast_shape(bx, by).map_err(|_| {
        Error::invalid_argument(format!(
            "In[0] and In[1] must have compatible batch dimensions: {} vs. {}",
            Shape::known(sx),
            Shape::known(sy)
        ))
    })?;
    let (ix, iy) = (broadcast_indices(bx, &batch), broadcast_indices(by, &batch));
    let (vx, vy) = (x.as_slice::<[T; 2]>()?, y.as_slice::<[T; 2]>()?);
    let cj = |z: [T; 2], c: bool| if c { [z[0], -z[1]] } else { z };
    let (cx, cy) = (conj && trans.0, conj && trans.1);
    let nb: usize = batch.iter().product();
    let mut out = Vec::with_capacity(nb * m * n);
    for (&bx, &by) in ix.iter().zip(&iy) {
        let (ox, oy) = (bx * sx[rx - 2] * sx[rx - 1], by * sy[ry - 2] * sy[ry - 1]);
        for i in 0..m {
            for j in 0..n {
                let (mut re, mut im) = (T::default(), T::default());
                for p in 0..k {
                    let a = cj(vx[ox + if trans.0 { p * m + i } else { i * k + p }], cx);
                    let c = cj(vy[oy + if trans.1 { j * k + p } else { p * n + j }], cy);
                    re = re + (a[0] * c[0] - a[1] * c[1]);
                    im = im + (a[0] * c[1] + a[1] * c[0]);
                }
                out.push([re, im]);
            }
        }
    }
    let mut shape = batch;
    shape.extend([m, n]);
    Tensor::new(&shape, out)
}

/// `tf.complex(real, imag)`: op `Complex`, default name `Complex`; float32 gives complex64,
/// float64 complex128. Errors: `InvalidArgument` for other or differing dtypes, shapes
/// that do not broadcast.
pub fn complex(s: &Scope, real: &Output, imag: &Output) -> Result<Output> {
    let out = complex_of(real.dtype()).unwrap_or(DType::Complex64);
    s.op("Complex", "Complex").input(real).input(imag).attr("T", real.dtype()).attr("Tout", out).build_output()
}

fn part(s: &Scope, op_type: &str, x: &Output) -> Result<Output> {
    let out = part_of(x.dtype()).unwrap_or(DType::Float);
    s.op(op_type, op_type).input(x).attr("T", x.dtype()).attr("Tout", out).build_output()
}

/// `tf.math.real(x)`: op `Real`; the real parts of a complex tensor (float32 of complex64,
/// float64 of complex128). Errors: `InvalidArgument` for a non-complex `x`.
pub fn real(s: &Scope, x: &Output) -> Result<Output> {
    part(s, "Real", x)
}

/// `tf.math.imag(x)`: op `Imag`; the imaginary parts. Errors as [`real`].
pub fn imag(s: &Scope, x: &Output) -> Result<Output> {
    part(s, "Imag", x)
}

/// `tf.abs(x)` of a complex `x`: op `ComplexAbs`, `|x|`. Errors as [`real`].
pub fn complex_abs(s: &Scope, x: &Output) -> Result<Output> {
    part(s, "ComplexAbs", x)
}

/// `tf.math.angle(x)`: op `Angle`, `atan2(imag, real)`. Errors as [`real`].
pub fn angle(s: &Scope, x: &Output) -> Result<Output> {
    part(s, "Angle", x)
}

/// `tf.math.conj(x)` of a complex `x`: op `Conj`. Errors: `InvalidArgument` for a
/// non-complex `x` (TensorFlow's Python returns a real `x` itself).
pub fn conj(s: &Scope, x: &Output) -> Result<Output> {
    s.op("Conj", "Conj").input(x).attr("T", x.dtype()).build_output()
}
