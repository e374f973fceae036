//! `SpaceToDepth` and `DepthToSpace` (NHWC; `tf.nn.space_to_depth`, `tf.nn.depth_to_space`).
//! Each one's gradient is the other with the same `block_size` (TensorFlow's
//! `_SpaceToDepthGrad`, `_DepthToSpaceGrad`), so both live here.

use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{check_alloc, checked_num_elements, DType, Shape, Tensor};

pub(crate) static DEFS: &[&dyn RegisteredOp] = &[&SPACE_TO_DEPTH, &DEPTH_TO_SPACE];

/// `SpaceToDepth(input)`: each `block_size × block_size` block of the spatial axes of an
/// NHWC `[b, h, w, c]` tensor becomes depth: `[b, h/bs, w/bs, c*bs*bs]`, depth index
/// `(row_in_block * bs + col_in_block) * c + channel`. Gradient: `DepthToSpace`.
pub static SPACE_TO_DEPTH: DepthSpace = DepthSpace { to_depth: true };
/// `DepthToSpace(input)`: the inverse of `SpaceToDepth`: `[b, h, w, c]` to
/// `[b, h*bs, w*bs, c/(bs*bs)]`. Gradient: `SpaceToDepth`.
pub static DEPTH_TO_SPACE: DepthSpace = DepthSpace { to_depth: false };

/// `SpaceToDepth` or `DepthToSpace`: every dtype, attr `block_size` (at least 2, checked
/// against TensorFlow's schema) and `data_format` ("NHWC"; "NCHW" and "NCHW_VECT_C" are
/// `Unimplemented` here). Errors (`InvalidArgument`, TensorFlow's messages, at build time
/// when the shape is known): an input not of rank 4, spatial sizes (SpaceToDepth) or a
/// depth (DepthToSpace) not divisible by the block.
pub struct DepthSpace {
    to_depth: bool,
}

impl DepthSpace {
    fn name(&self) -> &'static str {
        if self.to_depth {
            "SpaceToDepth"
        } else {
            "DepthToSpace"
        }
    }
    /// `block_size`, with `data_format` checked.
    fn block(&self, node: &Node) -> Result<usize> {
        if let Some(AttrValue::String(f)) = node.attrs.get("data_format") {
            if f.as_slice() != b"NHWC" {
                return Err(Error::unimplemented(format!(
                    "{} '{}' with data_format {}: tensorgraph supports NHWC only",
                    self.name(),
                    node.name,
                    String::from_utf8_lossy(f)
                )));
            }
        }
        let b = node.attr_int_or("block_size", 0)?;
        if b < 2 {
            return Err(Error::invalid_argument(format!(
                "Value for attr 'block_size' of {b} must be at least minimum 2"
            )));
        }
        Ok(b as usize)
    }
    /// The output shape of input `d` (`None`: unknown sizes), TensorFlow's shape-function
    /// messages.
    fn out_dims(&self, d: &[Option<usize>], b: usize) -> Result<Vec<Option<usize>>> {
        if d.len() != 4 {
            return Err(Error::invalid_argument(format!("Shape must be rank 4 but is rank {}", d.len())));
        }
        let div = |v: Option<usize>, k: usize| -> Result<Option<usize>> {
            match v {
                Some(n) if n % k != 0 => {
                    Err(Error::invalid_argument(format!("Dimension size must be evenly divisible by {k} but is {n}")))
                }
                v => Ok(v.map(|n| n / k)),
            }
        };
        Ok(if self.to_depth {
            vec![d[0], div(d[1], b)?, div(d[2], b)?, d[3].map(|c| c * b * b)]
        } else {
            vec![d[0], d[1].map(|h| h * b), d[2].map(|w| w * b), div(d[3], b * b)?]
        })
    }
}

impl RegisteredOp for DepthSpace {
    fn op_type(&self) -> &'static str {
        self.name()
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let b = self.block(ctx.node)?;
        let shape = match ctx.shape(0).dims() {
            Some(d) => Shape::partial(&self.out_dims(d, b)?),
            None => Shape::unknown(),
        };
        Ok(vec![(ctx.dtype(0), shape)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let block = self.block(node)?;
        Ok(Box::new(DepthSpaceKernel { op: self, block }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let b = self.block(ctx.node)? as i64;
        let other = if self.to_depth { "DepthToSpace" } else { "SpaceToDepth" };
        Ok(vec![Some(depth_space(ctx.scope, other, &ctx.grad(0)?, b)?)])
    }
}

/// A prepared [`DepthSpace`] op and its block size.
struct DepthSpaceKernel {
    op: &'static DepthSpace,
    block: usize,
}

impl Kernel for DepthSpaceKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let bs = self.block;
        let d = x.shape();
        if d.len() != 4 {
            return Err(Error::invalid_argument(format!("Input rank should be: 4 instead of: {}", d.len())));
        }
        let (n, h, w, c) = (d[0], d[1], d[2], d[3]);
        if self.op.to_depth && (h % bs != 0 || w % bs != 0) {
            return Err(Error::invalid_argument(format!(
                "Image width {w} and height {h} should be divisible by block_size: {bs}"
            )));
        }
        if !self.op.to_depth && c % (bs * bs) != 0 {
            return Err(Error::invalid_argument(format!(
                "Input depth dimension {c} should be divisible by: {}",
                bs * bs
            )));
        }
        let out: Vec<usize> =
            self.op.out_dims(&[Some(n), Some(h), Some(w), Some(c)], bs)?.into_iter().flatten().collect();
        check_alloc(DType::Int64, checked_num_elements(&out)?)?;
        let (oh, ow, oc) = (out[1], out[2], out[3]);
        let mut flat = Vec::with_capacity(out.iter().product());
        for b in 0..n {
            for i in 0..oh {
                for j in 0..ow {
                    for k in 0..oc {
                        // SpaceToDepth reads input (i*bs + di, j*bs + dj, ch) for depth k =
                        // (di*bs + dj)*c + ch; DepthToSpace the reverse
                        let src = if self.op.to_depth {
                            let (blk, ch) = (k / c, k % c);
                            ((b * h + i * bs + blk / bs) * w + j * bs + blk % bs) * c + ch
                        } else {
                            let blk = (i % bs) * bs + j % bs;
                            ((b * h + i / bs) * w + j / bs) * c + blk * oc + k
                        };
                        flat.push(src);
                    }
                }
            }
        }
        Ok(vec![Tensor::from_storage(&out, x.storage().try_gather(&flat)?)?])
    }
}

fn depth_space(s: &Scope, op_type: &str, x: &Output, block_size: i64) -> Result<Output> {
    s.op(op_type, op_type)
        .input(x)
        .attr("T", x.dtype())
        .attr("block_size", block_size)
        .attr("data_format", "NHWC")
        .build_output()
}

/// `tf.nn.space_to_depth(x, block_size)`: op `SpaceToDepth` (NHWC), default name
/// `SpaceToDepth`. See [`DepthSpace`] for shapes and errors.
pub fn space_to_depth(s: &Scope, x: &Output, block_size: i64) -> Result<Output> {
    depth_space(s, "SpaceToDepth", x, block_size)
}

/// `tf.nn.depth_to_space(x, block_size)`: op `DepthToSpace` (NHWC), default name
/// `DepthToSpace`. See [`DepthSpace`] for shapes and errors.
pub fn depth_to_space(s: &Scope, x: &Output, block_size: i64) -> Result<Output> {
    depth_space(s, "DepthToSpace", x, block_size)
}
