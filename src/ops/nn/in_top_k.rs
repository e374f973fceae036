//! `InTopK` and `InTopKV2` (`tf.math.in_top_k`, `tf.compat.v1.nn.in_top_k`): whether each
//! target class is among the `k` highest predictions of its row.

use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::int_values;
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(crate) static DEFS: &[&dyn RegisteredOp] = &[&InTopK(false), &InTopK(true)];

const INTS: &[DType] = &[DType::Int32, DType::Int64];

/// `InTopK(predictions, targets)` (attr `k`) and `InTopKV2(predictions, targets, k)` (`k` a
/// 0-d tensor of `targets`' dtype): `predictions` float32 `[batch, classes]`, `targets`
/// int32/int64 `[batch]`; output bool `[batch]`, true where fewer than `k` classes predict
/// strictly more than the target class (ties count in the target's favour). A target out of
/// `[0, classes)`, or a row with a non-finite prediction, gives false (TensorFlow's "cannot
/// say"). Errors (`InvalidArgument`, TensorFlow's texts): `predictions must be
/// 2-dimensional`, `targets must be 1-dimensional`, `First dimension of predictions 1 must
/// match length of targets 2`, `k must be 0-D, got shape [2]`. No gradient.
pub struct InTopK(pub bool);

impl RegisteredOp for InTopK {
    fn op_type(&self) -> &'static str {
        if self.0 {
            "InTopKV2"
        } else {
            "InTopK"
        }
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(if self.0 { 3 } else { 2 })?;
        ctx.check_dtype(0, &[DType::Float])?;
        ctx.check_dtype(1, INTS)?;
        ctx.check_type_attr("T", 1)?;
        let (p, t) = (ctx.shape(0), ctx.shape(1));
        for (s, r) in [(p, 2), (t, 1)].into_iter().chain(self.0.then(|| (ctx.shape(2), 0))) {
            if let Some(got) = s.rank().filter(|&g| g != r) {
                return Err(Error::invalid_argument(format!("Shape must be rank {r} but is rank {got}")));
            }
        }
        let batch = match (p.dim(0), t.dim(0)) {
            (Some(a), Some(b)) if a != b => {
                return Err(Error::invalid_argument(format!("Dimensions must be equal, but are {a} and {b}")))
            }
            (a, b) => a.or(b),
        };
        Ok(vec![(DType::Bool, Shape::partial(&[batch]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let k = if self.0 { None } else { Some(node.attr_int_or("k", i64::MIN)?) };
        if k == Some(i64::MIN) {
            return Err(Error::invalid_argument(format!("NodeDef missing attr 'k' of node {}", node.name)));
        }
        Ok(Box::new(InTopKKernel(k)))
    }
}

struct InTopKKernel(Option<i64>);

impl Kernel for InTopKKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (p, t) = (ctx.input(0), ctx.input(1));
        let k = match self.0 {
            Some(k) => k,
            None => {
                let k = ctx.input(2);
                if k.rank() != 0 {
                    return Err(Error::invalid_argument(format!(
                        "k must be 0-D, got shape {}",
                        crate::ops::array::checks::debug_string(&Shape::known(k.shape()))
                    )));
                }
                int_values(k)?[0]
            }
        };
        if p.rank() != 2 {
            return Err(Error::invalid_argument("predictions must be 2-dimensional"));
        }
        if t.rank() != 1 {
            return Err(Error::invalid_argument("targets must be 1-dimensional"));
        }
        let (rows, classes) = (p.shape()[0], p.shape()[1]);
        if rows != t.shape()[0] {
            return Err(Error::invalid_argument(format!(
                "First dimension of predictions {rows} must match length of targets {}",
                t.shape()[0]
            )));
        }
        let pred = p.as_slice::<f32>()?;
        let targets = int_values(t)?;
        let out: Vec<bool> = targets
            .iter()
            .enumerate()
            .map(|(b, &target)| {
                let row = &pred[b * classes..(b + 1) * classes];
                if target < 0 || target as usize >= classes {
                    return false;
                }
                let tp = row[target as usize];
                if !tp.is_finite() || row.iter().any(|v| !v.is_finite()) {
                    return false;
                }
                (row.iter().filter(|&&v| v > tp).count() as i64) < k
            })
            .collect();
        Ok(vec![Tensor::new(&[rows], out)?])
    }
}

/// `tf.compat.v1.nn.in_top_k(predictions, targets, k)` as TensorFlow 1.x wrote it: op
/// `InTopK` (`k` an attr), default name `InTopK`. See [`InTopK`].
pub fn in_top_k(s: &Scope, predictions: &Output, targets: &Output, k: i64) -> Result<Output> {
    s.op("InTopK", "InTopK").input(predictions).input(targets).attr("k", k).attr("T", targets.dtype()).build_output()
}

/// `tf.math.in_top_k(targets, predictions, k)`: op `InTopKV2` (`k` a 0-d tensor of
/// `targets`' dtype), default name `in_top_k`. See [`InTopK`].
pub fn in_top_k_v2(s: &Scope, predictions: &Output, targets: &Output, k: &Output) -> Result<Output> {
    s.op("InTopKV2", "in_top_k").input(predictions).input(targets).input(k).attr("T", targets.dtype()).build_output()
}
