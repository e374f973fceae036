//! `SelectV2` (`tf.where(cond, x, y)`): element-wise choice between two tensors with
//! NumPy broadcasting of all three inputs, and its gradient (TensorFlow's `_SelectGradV2`).

use super::binary::{broadcast_partial, reduce_to_input};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::constant;
use crate::ops::kernels::{broadcast_indices, broadcast_shape};
use crate::ops::{FnKernel, GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Storage, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&SelectV2];

/// `SelectV2(condition, t, e)`: `t` where `condition` (bool) holds, else `e`; the three
/// shapes broadcast (NumPy rules) to the output's. `t` and `e` of one dtype `T`, any
/// dtype. Errors: `InvalidArgument` for a non-bool condition, dtypes that differ, or
/// shapes that do not broadcast (at build time when known, naming the shapes). Gradient
/// (TensorFlow's `_SelectGradV2`): `SelectV2(c, g, 0)` to `t` and `SelectV2(c, 0, g)` to
/// `e`, each summed back to its input's shape; none to the condition.
pub struct SelectV2;
impl RegisteredOp for SelectV2 {
    fn op_type(&self) -> &'static str {
        "SelectV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_dtype(0, &[DType::Bool])?;
        if ctx.dtype(1) != ctx.dtype(2) {
            return Err(Error::invalid_argument(format!(
                "SelectV2's t and e must have one dtype, got {} and {}",
                ctx.dtype(1),
                ctx.dtype(2)
            )));
        }
        ctx.check_type_attr("T", 1)?;
        let shape = broadcast_partial(&broadcast_partial(ctx.shape(0), ctx.shape(1))?, ctx.shape(2))?;
        Ok(vec![(ctx.dtype(1), shape)])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(select_v2_kernel)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (c, x, y, z) = (&ctx.inputs[0], &ctx.inputs[1], &ctx.inputs[2], &ctx.outputs[0]);
        let g = ctx.grad(0)?;
        let zeros = constant(&s.named("zeros"), Tensor::from_f64(g.dtype(), &[], &[0.0])?)?;
        let gx = where_v2(s, c, &g, &zeros)?;
        let gy = where_v2(s, c, &zeros, &g)?;
        let gx = reduce_to_input(s, x, z, gx)?;
        let gy = reduce_to_input(s, y, z, gy)?;
        Ok(vec![None, Some(gx), Some(gy)])
    }
}

fn select_v2_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let (c, x, y) = (ctx.input(0), ctx.input(1), ctx.input(2));
    let out = broadcast_shape(&broadcast_shape(c.shape(), x.shape())?, y.shape())?;
    let (ic, ix, iy) =
        (broadcast_indices(c.shape(), &out), broadcast_indices(x.shape(), &out), broadcast_indices(y.shape(), &out));
    let cond = c.as_slice::<bool>()?;
    // gather from x's elements followed by y's
    let nx = x.num_elements();
    let src: Vec<usize> = (0..ic.len()).map(|k| if cond[ic[k]] { ix[k] } else { nx + iy[k] }).collect();
    let both = concat_storage(x.storage(), y.storage())?;
    Ok(vec![Tensor::from_storage(&out, both.gather(&src))?])
}

/// The elements of `a` followed by those of `b` (one dtype).
pub(crate) fn concat_storage(a: &Storage, b: &Storage) -> Result<Storage> {
    macro_rules! cat {
        ($($v:ident),*) => {
            match (a, b) {
                $((Storage::$v(a), Storage::$v(b)) => Storage::$v(a.iter().chain(b).cloned().collect()),)*
                _ => return Err(Error::invalid_argument(format!("dtypes differ: {} vs {}", a.dtype(), b.dtype()))),
            }
        };
    }
    Ok(cat!(F32, F64, I32, I64, Bool, I8, I16, U8, U16, U32, U64, F16, BF16, C64, C128, Str))
}

/// `tf.where(condition, x, y)` (TensorFlow 2's `where_v2`): op `SelectV2`, default name
/// `SelectV2`; `x` where `condition` (bool) holds, else `y`, with the three shapes
/// broadcast. Any dtype (`x` and `y` of one). Errors: `InvalidArgument` as [`SelectV2`].
pub fn where_v2(s: &Scope, condition: &Output, x: &Output, y: &Output) -> Result<Output> {
    s.op("SelectV2", "SelectV2").input(condition).input(x).input(y).attr("T", x.dtype()).build_output()
}
