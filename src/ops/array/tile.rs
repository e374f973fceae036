//! `Tile` (`tf.tile`).

use super::layout::{product_indices, strides};
use super::{
    cast, const_under, constant, index_dtype, index_tensor, int_values, plain, range_dyn, reshape, shape_as, stack,
    transpose_dyn, INTS,
};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{check_alloc, checked_num_elements, fmt_dims, try_collect, DType, Shape, Tensor};

/// `Tile(input, multiples)`: repeats `input` `multiples[i]` times along dimension `i`
/// (`multiples` int32/int64, attr `Tmultiples`). All dtypes.
pub struct Tile;
impl RegisteredOp for Tile {
    fn op_type(&self) -> &'static str {
        "Tile"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(1, INTS)?;
        let x = ctx.shape(0);
        let m = ctx.const_input(1).map(|b| int_values(&b)).transpose()?;
        let rank = x.rank().or(m.as_ref().map(|m| m.len())).or(ctx.shape(1).dim(0));
        let Some(rank) = rank else {
            return Ok(vec![(ctx.dtype(0), Shape::unknown())]);
        };
        if let Some(m) = &m {
            if m.len() != rank {
                return Err(Error::invalid_argument(format!(
                    "Expected multiples argument to be a vector of length {rank} but got length {} (input {x}, multiples {m:?})",
                    m.len()
                )));
            }
            if let Some(&v) = m.iter().find(|&&v| v < 0) {
                return Err(Error::invalid_argument(format!(
                    "Expected multiples to be non-negative, got {v} in {m:?} (input {x})"
                )));
            }
        }
        let out: Vec<Option<usize>> = (0..rank)
            .map(|i| match (x.dims().and_then(|d| d[i]), m.as_ref().map(|m| m[i] as usize)) {
                (Some(d), Some(k)) => d.checked_mul(k),
                (_, Some(0)) => Some(0),
                _ => None,
            })
            .collect();
        Ok(vec![(ctx.dtype(0), Shape::partial(&out))])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(tile_kernel)
    }
    // TensorFlow's _TileGrad: reshape the gradient to [m0, d0, m1, d1, ...] and sum the m axes
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        tile_grad(ctx)
    }
}

/// The `Tile` kernel: gathers input element `i % d` for output position `i` of each dimension.
fn tile_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let x = ctx.input(0);
    let m = int_values(ctx.input(1))?;
    if m.len() != x.rank() || m.iter().any(|&v| v < 0) {
        return Err(Error::invalid_argument(format!(
                "Expected multiples argument to be a vector of length {} with non-negative entries but got {m:?} (input {})",
                x.rank(),
                fmt_dims(x.shape())
            )));
    }
    let shape = tiled_shape(x.shape(), &m)?;
    let n = checked_num_elements(&shape)?;
    // the output's size comes from `multiples`: every buffer is allocated fallibly
    check_alloc(x.dtype(), n)?;
    let st = strides(x.shape());
    let per_dim: Vec<Vec<usize>> = x
        .shape()
        .iter()
        .zip(&shape)
        .zip(&st)
        .map(|((&d, &n), &s)| try_collect((0..n).map(|i| (i % d.max(1)) * s), DType::Int64))
        .collect::<Result<_>>()?;
    check_alloc(DType::Int64, n)?;
    Ok(vec![Tensor::from_storage(&shape, x.storage().try_gather(&product_indices(&per_dim))?)?])
}

/// The output shape of tiling `dims` by `multiples` (non-negative, one per dimension).
/// Errors: `InvalidArgument` naming both when a dimension overflows.
fn tiled_shape(dims: &[usize], multiples: &[i64]) -> Result<Vec<usize>> {
    dims.iter()
        .zip(multiples)
        .map(|(&d, &k)| usize::try_from(k).ok().and_then(|k| d.checked_mul(k)))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| {
            Error::invalid_argument(format!(
                "Tile of a tensor of shape {} by multiples {multiples:?} has more elements than fit in memory",
                fmt_dims(dims)
            ))
        })
}

fn tile_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let s = ctx.scope;
    let (x, m) = (&ctx.inputs[0], &ctx.inputs[1]);
    let m = if m.dtype() == DType::Int32 { m.clone() } else { cast(s, m, DType::Int32)? };
    let xs = shape_as(s, x, DType::Int32)?;
    let both = stack(s, &[m, xs], 0)?;
    let perm = constant(&s.named("transpose/perm"), Tensor::vector(vec![1i32, 0]))?;
    let split = reshape(
        s,
        &transpose_dyn(s, &both, &perm)?,
        &constant(&s.named("Reshape/shape"), Tensor::vector(vec![-1i32]))?,
    )?;
    let n = s.op("Size", "Size").input(&split).attr("T", DType::Int32).attr("out_type", DType::Int32).build_output()?;
    let axes = range_dyn(
        s,
        &constant(&s.named("range/start"), Tensor::scalar(0i32))?,
        &n,
        &constant(&s.named("range/delta"), Tensor::scalar(2i32))?,
    )?;
    let g = reshape(&s.named("Reshape_1"), &ctx.grad(0)?, &split)?;
    let sum = s
        .op("Sum", "Sum")
        .input(&g)
        .input(&axes)
        .attr("T", g.dtype())
        .attr("Tidx", DType::Int32)
        .attr("keep_dims", false)
        .build_output()?;
    Ok(vec![Some(sum), None])
}

/// `tf.tile(input, multiples)` with constant multiples (const `Tile/multiples`, int32, or
/// int64 when a multiple does not fit in int32, as TensorFlow converts Python ints): op
/// `Tile` (attrs `T`, `Tmultiples`), default name `Tile`. `input` any dtype; output
/// dimension `i` is `input.shape[i] * multiples[i]`. Errors: `InvalidArgument` naming the
/// shape when `multiples` has the wrong length or a negative entry. Gradient: Reshape + Sum.
pub fn tile(s: &Scope, input: &Output, multiples: &[i64]) -> Result<Output> {
    let base = s.unique_op_name("Tile");
    let m = const_under(s, &base, "multiples", index_tensor(&[multiples.len()], multiples, index_dtype(multiples))?)?;
    tile_dyn(&s.named(&format!("{base}/")), input, &m)
}

/// `Tile` with `multiples` a 1-d int32 or int64 tensor. As [`tile`].
pub fn tile_dyn(s: &Scope, input: &Output, multiples: &Output) -> Result<Output> {
    s.op("Tile", "Tile")
        .input(input)
        .input(multiples)
        .attr("T", input.dtype())
        .attr("Tmultiples", multiples.dtype())
        .build_output()
}
