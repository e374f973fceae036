//! `Select` (TensorFlow 1.x's `tf.where(cond, x, y)`, `tf.compat.v1.where`): picks elements
//! of two tensors of one shape by a condition that is a scalar, of their shape, or a vector
//! over their first dimension (no NumPy broadcasting; that is `SelectV2`).

use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::zeros_like;
use crate::ops::{FnKernel, GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Storage, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&Select];

/// TensorFlow's `Merge` of two partial shapes, with its words when they differ: `Shapes must
/// be equal rank, but are 2 and 1` or `Dimension 0 in both shapes must be equal, but are 2
/// and 1. Shapes are [2,2] and [1,2].`
fn merge(a: &Shape, b: &Shape) -> Result<Shape> {
    if let Some(m) = a.merge(b) {
        return Ok(m);
    }
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else { return Ok(Shape::unknown()) };
    if da.len() != db.len() {
        return Err(Error::invalid_argument(format!(
            "Shapes must be equal rank, but are {} and {} (Select of shapes {a} and {b})",
            da.len(),
            db.len()
        )));
    }
    let i = (0..da.len()).find(|&i| matches!((da[i], db[i]), (Some(x), Some(y)) if x != y)).unwrap_or(0);
    let tf = |s: &Shape| s.to_string().replace(", ", ",");
    Err(Error::invalid_argument(format!(
        "Dimension {i} in both shapes must be equal, but are {} and {}. Shapes are {} and {}.",
        da[i].map_or("?".into(), |d| d.to_string()),
        db[i].map_or("?".into(), |d| d.to_string()),
        tf(a),
        tf(b)
    )))
}

/// `Select(condition, t, e)`: where `condition` (bool) is true the element of `t`, else of
/// `e`; `t` and `e` have one dtype (any) and one shape, the output's. `condition` is a
/// scalar (choosing all of `t` or all of `e`), has their shape (element by element), or is a
/// vector whose length is their first dimension (row by row). Errors: `InvalidArgument` in
/// TensorFlow's words for shapes that fit none of these, at build time when known, else
/// when run. Gradient (TensorFlow's `_SelectGrad`): none for `condition`,
/// `Select(c, g, zeros_like(t))` for `t` and `Select(c, zeros_like(t), g)` for `e`.
pub struct Select;
impl RegisteredOp for Select {
    fn op_type(&self) -> &'static str {
        "Select"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_dtype(0, &[DType::Bool])?;
        if ctx.dtype(1) != ctx.dtype(2) {
            return Err(Error::invalid_argument(format!(
                "Select's t and e must have one dtype, got {} and {}",
                ctx.dtype(1),
                ctx.dtype(2)
            )));
        }
        ctx.check_type_attr("T", 1)?;
        let data = merge(ctx.shape(1), ctx.shape(2))?;
        let cond = ctx.shape(0);
        let (Some(cr), Some(dr)) = (cond.rank(), data.rank()) else { return Ok(vec![(ctx.dtype(1), data)]) };
        let out = match (cr, dr) {
            (0, _) => data,
            (1, d) if d > 0 => {
                merge(cond, &Shape::partial(&[data.dims().and_then(|d| d[0])]))?;
                data
            }
            _ => merge(&data, cond)?,
        };
        Ok(vec![(ctx.dtype(1), out)])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(select_kernel)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (c, x) = (&ctx.inputs[0], &ctx.inputs[1]);
        let g = ctx.grad(0)?;
        let zeros = zeros_like(s, x)?;
        let gx = select_v1(s, c, &g, &zeros)?;
        let gy = select_v1(s, c, &zeros, &g)?;
        Ok(vec![None, Some(gx), Some(gy)])
    }
}

/// A concrete shape as TensorFlow's `TensorShape::DebugString` writes it: `[2,3]`.
fn tf_dims(d: &[usize]) -> String {
    fmt_dims(d).replace(", ", ",")
}

/// The `Select` kernel.
fn select_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let (cond, t, e) = (ctx.input(0), ctx.input(1), ctx.input(2));
    let c = cond.as_slice::<bool>()?;
    if t.shape() != e.shape() {
        return Err(Error::invalid_argument(format!(
            "'then' and 'else' must have the same size.  but received: {} vs. {}",
            tf_dims(t.shape()),
            tf_dims(e.shape())
        )));
    }
    let n = t.num_elements();
    let out = if cond.rank() == 0 {
        return Ok(vec![if c[0] { t.clone() } else { e.clone() }]);
    } else if cond.rank() == 1 && t.rank() > 1 {
        if c.len() != t.shape()[0] {
            return Err(Error::invalid_argument(format!(
                "Number of batches of 'then' must match size of 'cond', but saw: {} vs. {}",
                t.shape()[0],
                c.len()
            )));
        }
        let row = if c.is_empty() { 0 } else { n / c.len() };
        choose(t.storage(), e.storage(), |i| c[i / row.max(1)])
    } else {
        if cond.shape() != t.shape() {
            return Err(Error::invalid_argument(format!(
                "Inputs to operation {} of type Select must have the same size and shape.  Input 0: {} != input 1: {}",
                ctx.node_name(),
                tf_dims(cond.shape()),
                tf_dims(t.shape())
            )));
        }
        choose(t.storage(), e.storage(), |i| c[i])
    };
    Ok(vec![Tensor::from_storage(t.shape(), out.ok_or_else(|| Error::internal("Select of two dtypes"))?)?])
}

/// Element `i` of `t` where `pick(i)`, else of `e` (one dtype; `None` otherwise).
fn choose(t: &Storage, e: &Storage, pick: impl Fn(usize) -> bool) -> Option<Storage> {
    macro_rules! go {
        ($($v:ident),*) => {
            match (t, e) {
                $((Storage::$v(a), Storage::$v(b)) => Some(Storage::$v(
                    a.iter().zip(b).enumerate().map(|(i, (x, y))| if pick(i) { x.clone() } else { y.clone() }).collect(),
                )),)*
                _ => None,
            }
        };
    }
    go!(F32, F64, I32, I64, Bool, I8, I16, U8, U16, U32, U64, F16, BF16, C64, C128, Str)
}

/// `tf.compat.v1.where(condition, x, y)` (TensorFlow 1.x's `tf.where` with both values): op
/// `Select` (attr `T`), default name `Select`. `condition` is bool: a scalar, of `x`'s shape,
/// or a vector over `x`'s first dimension; `x` and `y` share dtype and shape. Errors as
/// [`Select`]'s.
pub fn select_v1(s: &Scope, condition: &Output, x: &Output, y: &Output) -> Result<Output> {
    s.op("Select", "Select").input(condition).input(x).input(y).attr("T", x.dtype()).build_output()
}
