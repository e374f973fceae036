//! The activations of deployed networks beyond Relu/Sigmoid/Tanh (TensorFlow's `nn_ops`):
//! Relu6, Elu, Selu, LeakyRelu (attr `alpha`), Softplus, Softsign, each with its gradient
//! op, and the `swish`/`silu` builder (`x * sigmoid(x)`). The element functions are
//! TensorFlow's CPU functors (`relu_op_functor.h`, `softplus_op.h`, `softsign_op.h`),
//! selects included: `Elu(0) = 0`, `EluGrad` passes the gradient where the output is 0,
//! `LeakyRelu` is `x > 0 ? x : alpha * x` for any alpha (not a max).

use super::sigmoid;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{scalar_like, zeros_like};
use crate::ops::kernels::{broadcast_binary, unary_map, unary_map_into, Float};
use crate::ops::math::{add, binary_op, div, exp, mul, neg, unary_op, BinaryOp, UnaryFns, UnaryOp};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[
    &RELU6,
    &RELU6_GRAD,
    &ELU,
    &ELU_GRAD,
    &SELU,
    &SELU_GRAD,
    &Leaky::RELU,
    &Leaky::GRAD,
    &SOFTPLUS,
    &SOFTPLUS_GRAD,
    &SOFTSIGN,
    &SOFTSIGN_GRAD,
];

/// Selu's `scale` (TensorFlow's `Selu` functor).
const SELU_SCALE: f64 = 1.050_700_987_355_480_5;
/// Selu's `scale * alpha`.
const SELU_SCALE_ALPHA: f64 = 1.758_099_340_847_376_9;

// ---------------------------------------------------------------- Relu6

/// `Relu6`: `min(max(x, 0), 6)` (float32, float64, int32, int64; NaN stays NaN).
/// Gradient `Relu6Grad(g, y)` (TensorFlow's `_Relu6Grad` passes the output).
pub static RELU6: UnaryOp =
    UnaryOp::new("Relu6", crate::unary_fns!(float: |x| x.clamp(0.0, 6.0), int: |x| x.clamp(0, 6)), |c| {
        Ok(vec![Some(binary_op(c.scope, "Relu6Grad", "Relu6Grad", &c.grad(0)?, &c.outputs[0])?)])
    });

/// `Relu6Grad(gradients, features)`: `gradients` where `0 < features < 6`, else 0 (float32,
/// float64, int32, int64; inputs of one shape). Gradient (`_Relu6GradGrad`):
/// `(Relu6Grad(g, features), zeros_like(features))`.
pub static RELU6_GRAD: BinaryOp = BinaryOp::same_shape(
    "Relu6Grad",
    crate::binary_fns!(
        float: |g, x| if x > 0.0 && x < 6.0 { g } else { 0.0 },
        int: |g, x| if x > 0 && x < 6 { g } else { 0 }
    ),
    |c| {
        let (s, x) = (c.scope, &c.inputs[1]);
        Ok(vec![Some(binary_op(s, "Relu6Grad", "Relu6Grad", &c.grad(0)?, x)?), Some(zeros_like(s, x)?)])
    },
);

// ---------------------------------------------------------------- Elu, Selu

/// `Elu`: `x < 0 ? exp(x) - 1 : x` (float32, float64). Gradient `EluGrad(g, y)`.
pub static ELU: UnaryOp =
    UnaryOp::new("Elu", crate::unary_fns!(float: |x| if x < 0.0 { x.exp() - 1.0 } else { x }), |c| {
        Ok(vec![Some(binary_op(c.scope, "EluGrad", "EluGrad", &c.grad(0)?, &c.outputs[0])?)])
    });

/// `EluGrad(gradients, outputs)`: `outputs < 0 ? gradients * (outputs + 1) : gradients`
/// (float32, float64; inputs of one shape). Its own gradient (`_EluGradGrad`) needs
/// `Select`, which tensorgraph does not have: `Unimplemented`.
pub static ELU_GRAD: BinaryOp =
    BinaryOp::same_shape("EluGrad", crate::binary_fns!(float: |g, y| if y < 0.0 { g * (y + 1.0) } else { g }), |c| {
        Err(no_second_order(c, "Select"))
    });

/// `Selu`: `x < 0 ? scale * alpha * (exp(x) - 1) : scale * x` with TensorFlow's constants
/// (scale ≈ 1.0507, alpha ≈ 1.6733; float32, float64). Gradient `SeluGrad(g, y)`.
pub static SELU: UnaryOp = UnaryOp::new("Selu", crate::unary_fns!(float: selu_value), |c| {
    Ok(vec![Some(binary_op(c.scope, "SeluGrad", "SeluGrad", &c.grad(0)?, &c.outputs[0])?)])
});

fn selu_value<T: Float>(x: T) -> T {
    if x < T::ZERO {
        T::from_f64(SELU_SCALE_ALPHA) * (x.exp() - T::ONE)
    } else {
        T::from_f64(SELU_SCALE) * x
    }
}

/// `SeluGrad(gradients, outputs)`: `outputs < 0 ? gradients * (outputs + scale * alpha) :
/// gradients * scale` (float32, float64; inputs of one shape). Its own gradient needs
/// `Select`: `Unimplemented`.
pub static SELU_GRAD: BinaryOp =
    BinaryOp::same_shape("SeluGrad", crate::binary_fns!(float: selu_grad_value), |c| Err(no_second_order(c, "Select")));

fn selu_grad_value<T: Float>(g: T, y: T) -> T {
    if y < T::ZERO {
        g * (y + T::from_f64(SELU_SCALE_ALPHA))
    } else {
        g * T::from_f64(SELU_SCALE)
    }
}

/// `Unimplemented`: the gradient of gradient op `c.node` needs op type `missing`.
fn no_second_order(c: &GradCtx, missing: &str) -> Error {
    Error::unimplemented(format!(
        "the gradient of {} ('{}') needs {missing}, which tensorgraph does not have",
        c.node.op_type, c.node.name
    ))
}

// ---------------------------------------------------------------- Softplus, Softsign

/// `log(exp(x) + 1)` as TensorFlow's `Softplus` functor: `x` above `-threshold`, `exp(x)`
/// below `threshold` (`threshold = log(epsilon) + 2` of the dtype).
fn softplus_value<T: Float>(x: T, threshold: T) -> T {
    if x > -threshold {
        x
    } else if x < threshold {
        x.exp()
    } else {
        (x.exp() + T::ONE).ln()
    }
}

/// `Softplus`: `log(exp(x) + 1)`, stable for large `|x|` (float32, float64). Gradient
/// (TensorFlow's `_SoftplusGrad`): `g * Sigmoid(x)`.
pub static SOFTPLUS: UnaryOp = UnaryOp::new(
    "Softplus",
    UnaryFns {
        f32: Some(|x| unary_map_into::<f32>(x, |v| softplus_value(v, f32::EPSILON.ln() + 2.0))),
        f64: Some(|x| unary_map_into::<f64>(x, |v| softplus_value(v, f64::EPSILON.ln() + 2.0))),
        ..UnaryFns::NONE
    },
    |c| Ok(vec![Some(mul(c.scope, &c.grad(0)?, &sigmoid(c.scope, &c.inputs[0])?)?)]),
);

/// `SoftplusGrad(gradients, features)`: `gradients / (exp(-features) + 1)` (float32,
/// float64; inputs of one shape). Gradient (`_SoftplusGradGrad`): `(SoftplusGrad(g, x),
/// g * dy / (exp(-x) + 2 + exp(x)))`.
pub static SOFTPLUS_GRAD: BinaryOp =
    BinaryOp::same_shape("SoftplusGrad", crate::binary_fns!(float: |g, x| g / ((-x).exp() + 1.0)), |c| {
        let s = c.scope;
        let (dy, x, g) = (&c.inputs[0], &c.inputs[1], c.grad(0)?);
        let ddy = binary_op(s, "SoftplusGrad", "SoftplusGrad", &g, x)?;
        let two = scalar_like(s, 2.0, x.dtype())?;
        let den = add(s, &add(s, &exp(s, &neg(s, x)?)?, &two)?, &exp(s, x)?)?;
        Ok(vec![Some(ddy), Some(div(s, &mul(s, &g, dy)?, &den)?)])
    });

/// `Softsign`: `x / (|x| + 1)` (float32, float64). Gradient `SoftsignGrad(g, x)`.
pub static SOFTSIGN: UnaryOp = UnaryOp::new("Softsign", crate::unary_fns!(float: |x| x / (x.abs() + 1.0)), |c| {
    Ok(vec![Some(binary_op(c.scope, "SoftsignGrad", "SoftsignGrad", &c.grad(0)?, &c.inputs[0])?)])
});

/// `SoftsignGrad(gradients, features)`: `gradients / (|features| + 1)^2` (float32, float64;
/// inputs of one shape). TensorFlow registers no gradient for it.
pub static SOFTSIGN_GRAD: BinaryOp = BinaryOp::same_shape(
    "SoftsignGrad",
    crate::binary_fns!(float: |g, x| g / ((x.abs() + 1.0) * (x.abs() + 1.0))),
    |c| Err(Error::unimplemented(format!("TensorFlow has no gradient for SoftsignGrad ('{}')", c.node.name))),
);

// ---------------------------------------------------------------- LeakyRelu

/// `LeakyRelu(features)` and `LeakyReluGrad(gradients, features)`, attr `alpha` (float,
/// default 0.2), float32/float64: `x > 0 ? x : alpha * x` and `x > 0 ? g : alpha * g`.
/// Gradients as TensorFlow's `_LeakyReluGrad` (`LeakyReluGrad(g, x)`) and
/// `_LeakyReluGradGrad` (`(LeakyReluGrad(g, x), zeros_like(x))`).
pub struct Leaky {
    op_type: &'static str,
    grad: bool,
}
impl Leaky {
    const RELU: Leaky = Leaky { op_type: "LeakyRelu", grad: false };
    const GRAD: Leaky = Leaky { op_type: "LeakyReluGrad", grad: true };
}

impl RegisteredOp for Leaky {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(if self.grad { 2 } else { 1 })?;
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, &[DType::Float, DType::Double])?;
        ctx.node.attr_float_or("alpha", 0.2)?;
        let mut shape = ctx.shape(0).clone();
        if self.grad {
            let b = ctx.shape(1);
            shape = shape.merge(b).ok_or_else(|| {
                Error::invalid_argument(format!("Incompatible shapes: {} vs. {b} (they must be equal)", ctx.shape(0)))
            })?;
        }
        Ok(vec![(t, shape)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(LeakyKernel { alpha: node.attr_float_or("alpha", 0.2)? as f64, grad: self.grad }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let x = &ctx.inputs[if self.grad { 1 } else { 0 }];
        let alpha = ctx.node.attr_float_or("alpha", 0.2)?;
        let dx = leaky_relu_grad(s, &ctx.grad(0)?, x, alpha)?;
        Ok(if self.grad { vec![Some(dx), Some(zeros_like(s, x)?)] } else { vec![Some(dx)] })
    }
}

/// The prepared `LeakyRelu`/`LeakyReluGrad` kernel: `alpha` read once.
struct LeakyKernel {
    alpha: f64,
    grad: bool,
}
impl Kernel for LeakyKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let a = self.alpha;
        let x = ctx.input(0);
        let out = if self.grad {
            let f = ctx.input(1);
            if x.shape() != f.shape() || x.dtype() != f.dtype() {
                return Err(Error::invalid_argument(format!(
                    "LeakyReluGrad inputs must have one shape and dtype: {} {} vs. {} {}",
                    x.dtype(),
                    fmt_dims(x.shape()),
                    f.dtype(),
                    fmt_dims(f.shape())
                )));
            }
            crate::dispatch_float!(x.dtype(), "LeakyReluGrad", T => {
                let a = a as T;
                broadcast_binary::<T, T>(x, f, |g, v| if v > 0.0 { g } else { g * a })?
            })
        } else {
            crate::dispatch_float!(x.dtype(), "LeakyRelu", T => {
                let a = a as T;
                unary_map::<T, T>(x, |v| if v > 0.0 { v } else { v * a })?
            })
        };
        Ok(vec![out])
    }
}

fn leaky_relu_grad(s: &Scope, g: &Output, x: &Output, alpha: f32) -> Result<Output> {
    s.op("LeakyReluGrad", "LeakyReluGrad").input(g).input(x).attr("T", g.dtype()).attr("alpha", alpha).build_output()
}

// ---------------------------------------------------------------- builders

/// `tf.nn.relu6(features)`: op `Relu6`, default name `Relu6`; `min(max(features, 0), 6)`
/// with `features`' dtype (float32, float64, int32, int64) and shape. Other dtypes are
/// `InvalidArgument` at build time. Gradient: `Relu6Grad`.
pub fn relu6(s: &Scope, features: &Output) -> Result<Output> {
    unary_op(s, "Relu6", "Relu6", features)
}

/// `tf.nn.elu(features)`: op `Elu`, default name `Elu`; `exp(x) - 1` below 0, `x` above
/// (float32/float64, shape of `features`). Gradient: `EluGrad`.
pub fn elu(s: &Scope, features: &Output) -> Result<Output> {
    unary_op(s, "Elu", "Elu", features)
}

/// `tf.nn.selu(features)`: op `Selu`, default name `Selu` (float32/float64). Gradient:
/// `SeluGrad`.
pub fn selu(s: &Scope, features: &Output) -> Result<Output> {
    unary_op(s, "Selu", "Selu", features)
}

/// `tf.nn.leaky_relu(features, alpha)`: op `LeakyRelu` (attrs `T`, `alpha`), default name
/// `LeakyRelu`; `x > 0 ? x : alpha * x` (float32/float64, shape of `features`). Gradient:
/// `LeakyReluGrad` with the same `alpha`.
pub fn leaky_relu(s: &Scope, features: &Output, alpha: f32) -> Result<Output> {
    s.op("LeakyRelu", "LeakyRelu").input(features).attr("T", features.dtype()).attr("alpha", alpha).build_output()
}

/// `tf.nn.softplus(features)`: op `Softplus`, default name `Softplus`; `log(exp(x) + 1)`
/// (float32/float64). Gradient: `g * Sigmoid(x)`.
pub fn softplus(s: &Scope, features: &Output) -> Result<Output> {
    unary_op(s, "Softplus", "Softplus", features)
}

/// `tf.nn.softsign(features)`: op `Softsign`, default name `Softsign`; `x / (|x| + 1)`
/// (float32/float64). Gradient: `SoftsignGrad`.
pub fn softsign(s: &Scope, features: &Output) -> Result<Output> {
    unary_op(s, "Softsign", "Softsign", features)
}

/// `tf.nn.swish(features)` / `tf.nn.silu` with `beta = 1`: `features * sigmoid(features)`,
/// ops `Sigmoid` and `Mul` (`Sigmoid`, `mul`); float32/float64. TensorFlow also multiplies
/// by `beta` first and wraps the product in a custom gradient (`IdentityN`) that
/// recomputes the sigmoid; here the gradient is the one of `Mul` and `Sigmoid`, of the
/// same value.
pub fn swish(s: &Scope, features: &Output) -> Result<Output> {
    mul(s, features, &sigmoid(s, features)?)
}

/// `tf.nn.silu(features)`: the same as [`swish`].
pub fn silu(s: &Scope, features: &Output) -> Result<Output> {
    swish(s, features)
}
