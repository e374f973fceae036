//! `Multinomial` (`tf.random.categorical`): samples class ids from unnormalized log
//! probabilities, drawn from the op's Philox stream as TensorFlow's CPU kernel
//! (`multinomial_op.cc`) draws them, so seeded samples are TensorFlow's.

use super::simple_philox::SimplePhilox;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::step_resources::tf_dims;
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&Multinomial];

/// `Multinomial(logits, num_samples)` (attrs `T`, `output_dtype` int32 or int64, default
/// int64, `seed`, `seed2`): for each row of `logits [batch, num_classes]` (float32, float64;
/// float16 and bfloat16 through float32, exactly), `num_samples` (an int32 scalar) class
/// ids drawn with probabilities `softmax(row)`, non-finite logits never drawn; output
/// `[batch, num_samples]`. Each row's samples are drawn by CDF search over one double per
/// sample, the rows one after another from the generator TensorFlow reserves (`batch *
/// ceil4(num_samples) * 2 * 256` outputs per run); TensorFlow splits rows over threads
/// only when `batch * 50 * (num_samples * log2(num_classes) + num_classes)` exceeds about
/// 10^5 cycles, so larger draws are TensorFlow's distribution but not its values.
/// Errors (TensorFlow's): `InvalidArgument` for logits that are not a matrix, a
/// `num_samples` that is not a scalar or is negative, no classes. No gradient.
pub struct Multinomial;

impl RegisteredOp for Multinomial {
    fn op_type(&self) -> &'static str {
        "Multinomial"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_type_attr("T", 0)?;
        ctx.check_dtype(1, &[DType::Int32])?;
        let out = output_dtype(ctx.node)?;
        let l = ctx.shape(0);
        if let Some(r) = l.rank().filter(|&r| r != 2) {
            return Err(Error::invalid_argument(format!("Shape must be rank 2 but is rank {r} (logits {l})")));
        }
        if let Some(r) = ctx.shape(1).rank().filter(|&r| r != 0) {
            return Err(Error::invalid_argument(format!("Shape must be rank 0 but is rank {r} (num_samples)")));
        }
        let n = ctx.const_input(1).and_then(|t| t.as_slice::<i32>().ok().and_then(|v| v.first().copied()));
        let n = n.and_then(|n| usize::try_from(n).ok());
        let batch = l.dims().and_then(|d| d[0]);
        Ok(vec![(out, Shape::partial(&[batch, n]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        if !matches!(t, DType::Float | DType::Double) {
            return Err(Error::invalid_argument(format!(
                "No registered 'Multinomial' OpKernel for 'CPU' devices compatible with node {}: logits of {t}; \
                 TensorFlow's CPU kernel takes float16, bfloat16, float32 and float64",
                node.name
            )));
        }
        node.attr_int_or("seed", 0)?;
        node.attr_int_or("seed2", 0)?;
        Ok(Box::new(MultinomialKernel { out: output_dtype(node)? }))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

fn output_dtype(node: &Node) -> Result<DType> {
    let out = if node.attrs.contains_key("output_dtype") { node.attr_type("output_dtype")? } else { DType::Int64 };
    if !matches!(out, DType::Int32 | DType::Int64) {
        return Err(Error::invalid_argument(format!("Multinomial's output_dtype must be int32 or int64, not {out}")));
    }
    Ok(out)
}

struct MultinomialKernel {
    out: DType,
}

impl Kernel for MultinomialKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (logits, ns) = (ctx.input(0), ctx.input(1));
        let &[batch, classes] = logits.shape() else {
            return Err(Error::invalid_argument(format!(
                "logits should be a matrix, got shape {}",
                tf_dims(logits.shape())
            )));
        };
        if !ns.shape().is_empty() {
            return Err(Error::invalid_argument(format!(
                "num_samples should be a scalar, got shape {}",
                tf_dims(ns.shape())
            )));
        }
        let n = ns.as_slice::<i32>()?[0];
        if n < 0 {
            return Err(Error::invalid_argument(format!("num_samples should be non-negative, got {n}")));
        }
        if classes == 0 {
            return Err(Error::invalid_argument("num_classes should be positive, got 0"));
        }
        let n = n as usize;
        let mut ids = Vec::new();
        if batch * n > 0 {
            let ceil4 = n.div_ceil(4) * 4 * 2;
            let rng = ctx.rng.ok_or_else(|| Error::internal("Multinomial run without a generator"))?;
            let gen = rng.lock().unwrap_or_else(|e| e.into_inner()).reserve(batch * ceil4);
            let mut words = SimplePhilox::new(gen);
            let values = logits.to_f64_vec()?;
            ids.reserve(batch * n);
            let mut cdf = vec![0.0f64; classes];
            for row in values.chunks(classes) {
                let max = row.iter().filter(|v| v.is_finite()).fold(f64::MIN, |m, &v| m.max(v));
                let mut total = 0.0;
                for (c, &v) in cdf.iter_mut().zip(row) {
                    if v.is_finite() {
                        total += (v - max).exp();
                    }
                    *c = total;
                }
                for _ in 0..n {
                    let find = words.rand_double() * total;
                    ids.push(cdf.partition_point(|&c| c <= find) as i64);
                }
            }
        }
        let shape = [batch, n];
        Ok(vec![match self.out {
            DType::Int32 => Tensor::new(&shape, ids.into_iter().map(|i| i as i32).collect::<Vec<_>>())?,
            _ => Tensor::new(&shape, ids)?,
        }])
    }
}

/// `tf.random.categorical(logits, num_samples, dtype, seed)`: a `Multinomial` node
/// (`num_samples` a constant under its scope) drawing `num_samples` class ids per row of
/// float `logits [batch, num_classes]`; `output_dtype` int32 or int64. `seed` as the
/// other random builders take it (an op seed under TensorFlow's default graph seed, or
/// fresh entropy for `None`). Errors: `InvalidArgument` for logits not of rank 2.
pub fn multinomial(
    s: &Scope,
    logits: &Output,
    num_samples: i32,
    output_dtype: DType,
    seed: Option<u64>,
) -> Result<Output> {
    let sc = s.name_scope("categorical");
    let n = crate::ops::constant(&sc.named("num_samples"), Tensor::scalar(num_samples))?;
    let (s1, s2) = super::seeds(seed);
    sc.op("Multinomial", "Multinomial")
        .input(logits)
        .input(&n)
        .attr("T", logits.dtype())
        .attr("output_dtype", output_dtype)
        .attr("seed", s1)
        .attr("seed2", s2)
        .build_output()
}
