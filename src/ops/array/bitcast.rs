//! `Bitcast` (`tf.bitcast`): a tensor's bytes read as another numeric dtype, no copy of
//! meaning, as TensorFlow's `BitcastOp`.

use crate::error::{Error, Result};
use crate::format::proto::{TensorProto, TensorShapeProto};
use crate::graph::{Node, Output, Scope};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&Bitcast];

/// `Bitcast(input)` (attrs `T`, `type`: bfloat16, float16, float32, float64, the signed and
/// unsigned integers of 8 to 64 bits, complex64, complex128 and the quantized types): the
/// input's bytes (little-endian) as `type`. Equal element sizes keep the shape; a narrower
/// `type` appends a dimension of `size(T) / size(type)`; a wider one drops the last
/// dimension, which must be `size(type) / size(T)`. Errors (TensorFlow's
/// `InvalidArgument`): at build time `Cannot bitcast from 4 to 1 due to shape. 3 does not
/// match 4` (the dtypes as TensorFlow's `DataType` numbers) and `Shape must be at least rank
/// 1 but is rank 0`; when run, `Cannot bitcast from 4 to 1`. No gradient (TensorFlow
/// registers none).
pub struct Bitcast;

/// `T`'s and `type`'s element sizes. Errors: a dtype without a fixed size.
fn sizes(node: &Node) -> Result<(DType, DType, usize, usize)> {
    let (t, to) = (node.attr_type("T")?, node.attr_type("type")?);
    match (t.size(), to.size()) {
        (Some(a), Some(b)) if a > 0 && b > 0 && t != DType::Bool && to != DType::Bool => Ok((t, to, a, b)),
        _ => Err(Error::invalid_argument(format!(
            "Cannot bitcast types {} to {} because one of the type sizes is zero.",
            t.name(),
            to.name()
        ))),
    }
}

impl RegisteredOp for Bitcast {
    fn op_type(&self) -> &'static str {
        "Bitcast"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_type_attr("T", 0)?;
        let (t, to, a, b) = sizes(ctx.node)?;
        let Some(dims) = ctx.shape(0).dims() else { return Ok(vec![(to, Shape::unknown())]) };
        let mut d = dims.to_vec();
        if a < b {
            let Some(last) = d.pop() else {
                return Err(Error::invalid_argument("Shape must be at least rank 1 but is rank 0"));
            };
            if let Some(l) = last.filter(|&l| l != b / a) {
                return Err(Error::invalid_argument(format!(
                    "Cannot bitcast from {} to {} due to shape. {l} does not match {}",
                    t.as_enum(),
                    to.as_enum(),
                    b / a
                )));
            }
        } else if a > b {
            d.push(Some(a / b));
        }
        Ok(vec![(to, Shape::partial(&d))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let (t, to, a, b) = sizes(node)?;
        Ok(Box::new(BitcastKernel { t, to, a, b }))
    }
}

struct BitcastKernel {
    t: DType,
    to: DType,
    a: usize,
    b: usize,
}

impl Kernel for BitcastKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let (a, b) = (self.a, self.b);
        let mut dims = x.shape().to_vec();
        if a < b {
            if dims.last() != Some(&(b / a)) {
                return Err(Error::invalid_argument(format!(
                    "Cannot bitcast from {} to {}",
                    self.t.as_enum(),
                    self.to.as_enum()
                )));
            }
            dims.pop();
        } else if a > b {
            dims.push(a / b);
        }
        let mut p = TensorProto::content_form(x);
        if p.tensor_content.is_empty() && x.num_elements() > 0 {
            return Err(Error::internal(format!("Bitcast: no bytes for a {} tensor", x.dtype())));
        }
        p.dtype = self.to.as_enum();
        p.tensor_shape = Some(TensorShapeProto::from_dims(&dims));
        Ok(vec![p.to_tensor()?])
    }
}

/// `tf.bitcast(input, type)`: op `Bitcast`, default name `Bitcast`. Shapes, dtypes and
/// errors as [`Bitcast`].
pub fn bitcast(s: &Scope, input: &Output, to: DType) -> Result<Output> {
    s.op("Bitcast", "Bitcast").input(input).attr("T", input.dtype()).attr("type", to).build_output()
}
