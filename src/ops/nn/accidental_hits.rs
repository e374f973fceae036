//! `ComputeAccidentalHits` (TensorFlow's `tf.nn.compute_accidental_hits`, which
//! `tf.nn.sampled_softmax_loss` and `nce_loss` emit with `remove_accidental_hits`): where a
//! sampled candidate equals one of a row's true classes.

use crate::error::{Error, Result};
use crate::graph::Node;
use crate::ops::{FnKernel, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};
use rustc_hash::FxHashMap as HashMap;

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&ComputeAccidentalHits];

/// `ComputeAccidentalHits(true_classes, sampled_candidates)` (attrs `num_true`, `seed`,
/// `seed2`): for each row `i` of int64 `true_classes [batch, num_true]` and each of its classes
/// found among int64 `sampled_candidates [num_sampled]` (at its last position there), the
/// outputs `indices` (int32 `i`), `ids` (int64 the position) and `weights` (float32 `-FLT_MAX`),
/// row by row. Errors: `InvalidArgument` for a `true_classes` that is not a matrix of
/// `num_true` columns or `sampled_candidates` not a vector. No gradient.
pub struct ComputeAccidentalHits;

impl RegisteredOp for ComputeAccidentalHits {
    fn op_type(&self) -> &'static str {
        "ComputeAccidentalHits"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(0, &[DType::Int64])?;
        ctx.check_dtype(1, &[DType::Int64])?;
        let num_true = ctx.node.attr_int_or("num_true", 1)?;
        let t = ctx.shape(0);
        if let Some(r) = t.rank().filter(|&r| r != 2) {
            return Err(Error::invalid_argument(format!("Shape must be rank 2 but is rank {r} (true_classes {t})")));
        }
        if let Some(c) = t.dim(1).filter(|&c| c as i64 != num_true) {
            return Err(Error::invalid_argument(format!("Dimension must be {num_true} but is {c} (true_classes {t})")));
        }
        let v = Shape::partial(&[None]);
        Ok(vec![(DType::Int32, v.clone()), (DType::Int64, v.clone()), (DType::Float, v)])
    }
    fn prepare(&'static self, _node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(hits)))
    }
}

fn hits(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let (t, s) = (ctx.input(0), ctx.input(1));
    let [batch, num_true] = *t.shape() else {
        return Err(Error::invalid_argument("true_classes must be a matrix"));
    };
    if s.shape().len() != 1 {
        return Err(Error::invalid_argument(
            "sampled_candidates must be a vector, which is typically an output from CandidateSampler",
        ));
    }
    let mut pos = HashMap::default();
    for (i, &c) in s.as_slice::<i64>()?.iter().enumerate() {
        pos.insert(c, i as i64);
    }
    let tv = t.as_slice::<i64>()?;
    let (mut idx, mut ids) = (Vec::new(), Vec::new());
    for i in 0..batch {
        for &c in &tv[i * num_true..(i + 1) * num_true] {
            if let Some(&p) = pos.get(&c) {
                idx.push(i as i32);
                ids.push(p);
            }
        }
    }
    let n = idx.len();
    Ok(vec![Tensor::new(&[n], idx)?, Tensor::new(&[n], ids)?, Tensor::new(&[n], vec![-f32::MAX; n])?])
}
