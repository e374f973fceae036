//! `Equal` and `NotEqual` on every dtype TensorFlow registers them for (bool, strings,
//! integers of every width, float16/bfloat16/float32/float64, complex), with broadcasting
//! and the `incompatible_shape_error` attr. Neither has a gradient.

use super::binary::broadcast_partial;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::kernels::{broadcast_indices, broadcast_shape};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Storage, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&EQUAL, &NOT_EQUAL];

/// `Equal(x, y)`: bool `x == y` element-wise, with broadcasting.
pub static EQUAL: Equality = Equality { op_type: "Equal", equal: true };
/// `NotEqual(x, y)`: bool `x != y` element-wise, with broadcasting.
pub static NOT_EQUAL: Equality = Equality { op_type: "NotEqual", equal: false };

/// `Equal` / `NotEqual(x, y)` (attrs `T`, `incompatible_shape_error = true`): bool output
/// of the broadcast shape, for any dtype with values (floats compare as IEEE: NaN differs
/// from everything; strings byte-wise). Errors: `InvalidArgument` for dtypes that differ,
/// and for shapes that do not broadcast (at build time when known) unless
/// `incompatible_shape_error` is false, when the output is a scalar `false` (`Equal`) or
/// `true` (`NotEqual`), as TensorFlow's.
pub struct Equality {
    op_type: &'static str,
    equal: bool,
}

impl RegisteredOp for Equality {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.same_dtypes()?;
        let strict = ctx.node.attr_bool_or("incompatible_shape_error", true)?;
        let shape = match broadcast_partial(ctx.shape(0), ctx.shape(1)) {
            Ok(s) => s,
            Err(_) if !strict => Shape::unknown(),
            Err(e) => return Err(e),
        };
        Ok(vec![(DType::Bool, shape)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        t.check_storage(&format!("input of {} '{}'", self.op_type, node.name))?;
        let strict = node.attr_bool_or("incompatible_shape_error", true)?;
        Ok(Box::new(EqualityKernel { equal: self.equal, strict }))
    }
}

/// A prepared [`Equality`]: which comparison and what incompatible shapes do.
struct EqualityKernel {
    equal: bool,
    strict: bool,
}

impl Kernel for EqualityKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        let out = match broadcast_shape(a.shape(), b.shape()) {
            Ok(out) => out,
            Err(_) if !self.strict => return Ok(vec![Tensor::scalar(!self.equal)]),
            Err(e) => return Err(e),
        };
        let (ia, ib) = (broadcast_indices(a.shape(), &out), broadcast_indices(b.shape(), &out));
        let eq = self.equal;
        macro_rules! cmp {
            ($($v:ident),*) => {
                match (a.storage(), b.storage()) {
                    $((Storage::$v(x), Storage::$v(y)) => ia.iter().zip(&ib).map(|(&i, &j)| (x[i] == y[j]) == eq).collect(),)*
                    (x, y) => {
                        return Err(Error::invalid_argument(format!(
                            "{} inputs must have one dtype: {} vs {}",
                            ctx.op_type(),
                            x.dtype(),
                            y.dtype()
                        )))
                    }
                }
            };
        }
        let v: Vec<bool> = cmp!(F32, F64, I32, I64, Bool, I8, I16, U8, U16, U32, U64, F16, BF16, C64, C128, Str);
        Ok(vec![Tensor::new(&out, v)?])
    }
}

/// `tf.math.not_equal(x, y)`: op `NotEqual` (attr `incompatible_shape_error = true`),
/// default name `NotEqual`; bool `x != y` with broadcasting. Any dtype (one for both);
/// shapes that do not broadcast are `InvalidArgument` naming both.
pub fn not_equal(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    s.op("NotEqual", "NotEqual")
        .input(x)
        .input(y)
        .attr("T", x.dtype())
        .attr("incompatible_shape_error", true)
        .build_output()
}
