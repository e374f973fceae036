//! `UniformCandidateSampler` and `LogUniformCandidateSampler` (what
//! `tf.nn.sampled_softmax_loss` and `tf.nn.nce_loss` sample negative classes with): sampled
//! ids drawn from the op's Philox stream as TensorFlow's `RangeSampler`s draw them
//! (`candidate_sampler_ops.cc`, `range_sampler.cc`), and the expected counts TensorFlow
//! computes from them, so seeded outputs are TensorFlow's.

use super::simple_philox::SimplePhilox;
use crate::error::{Error, Result};
use crate::graph::{Node, Operation, Output, Scope};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};
use rustc_hash::FxHashSet as HashSet;

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&CandidateSampler::UNIFORM, &CandidateSampler::LOG_UNIFORM];

/// Which distribution over `[0, range_max)` a sampler draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dist {
    /// Every id with probability `1 / range_max` (`UniformSampler`).
    Uniform,
    /// Id `k` with probability `log((k + 2) / (k + 1)) / log(range_max + 1)`, Zipf-like
    /// (`LogUniformSampler`).
    LogUniform,
}

/// `UniformCandidateSampler` / `LogUniformCandidateSampler(true_classes)` (attrs
/// `num_true`, `num_sampled`, `unique`, `range_max`, `seed`, `seed2`): for int64
/// `true_classes [batch, num_true]`, outputs `sampled_candidates` (int64 `[num_sampled]`,
/// ids in `[0, range_max)`, distinct when `unique`), `true_expected_count` (float32
/// `[batch, num_true]`) and `sampled_expected_count` (float32 `[num_sampled]`): each id's
/// probability times `num_sampled`, or with `unique` `1 - (1 - p)^tries` for the number of
/// draws it took (TensorFlow's `ExpectedCountHelper`, in float32). Errors (TensorFlow's):
/// `InvalidArgument` for `true_classes` not a matrix of `num_true` columns, a class outside
/// `[0, range_max)`, and `num_sampled > range_max` with `unique` ("Sampler's range is too
/// small."). No gradient.
pub struct CandidateSampler {
    op_type: &'static str,
    dist: Dist,
}

impl CandidateSampler {
    const UNIFORM: CandidateSampler = CandidateSampler { op_type: "UniformCandidateSampler", dist: Dist::Uniform };
    const LOG_UNIFORM: CandidateSampler =
        CandidateSampler { op_type: "LogUniformCandidateSampler", dist: Dist::LogUniform };
}

impl RegisteredOp for CandidateSampler {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_dtype(0, &[DType::Int64])?;
        let a = Attrs::of(ctx.node)?;
        let t = ctx.shape(0);
        if let Some(r) = t.rank().filter(|&r| r != 2) {
            return Err(Error::invalid_argument(format!("Shape must be rank 2 but is rank {r} (true_classes {t})")));
        }
        let batch = t.dims().and_then(|d| d[0]);
        let v = Shape::known(&[a.num_sampled]);
        Ok(vec![
            (DType::Int64, v.clone()),
            (DType::Float, Shape::partial(&[batch, Some(a.num_true)])),
            (DType::Float, v),
        ])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        node.attr_int_or("seed", 0)?;
        node.attr_int_or("seed2", 0)?;
        Ok(Box::new(SamplerKernel { dist: self.dist, attrs: Attrs::of(node)? }))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// The sampler's attrs, checked (`num_true`, `num_sampled`, `range_max` at least 1).
#[derive(Clone, Copy)]
struct Attrs {
    num_true: usize,
    num_sampled: usize,
    unique: bool,
    range: i64,
}

impl Attrs {
    fn of(node: &Node) -> Result<Attrs> {
        let pos = |name: &str| -> Result<i64> {
            let v = node.attr_int_or(name, 0)?;
            if v < 1 {
                return Err(Error::invalid_argument(format!(
                    "Value for attr '{name}' of {v} must be at least minimum 1 (node {})",
                    node.name
                )));
            }
            Ok(v)
        };
        Ok(Attrs {
            num_true: pos("num_true")? as usize,
            num_sampled: pos("num_sampled")? as usize,
            unique: node.attr_bool_or("unique", false)?,
            range: pos("range_max")?,
        })
    }
}

struct SamplerKernel {
    dist: Dist,
    attrs: Attrs,
}

impl SamplerKernel {
    /// One draw (`Sample`).
    fn sample(&self, words: &mut SimplePhilox, log_range: f64) -> i64 {
        let range = self.attrs.range;
        match self.dist {
            Dist::Uniform => words.uniform64(range as u64) as i64,
            Dist::LogUniform => ((words.rand_double() * log_range).exp() as i64 - 1) % range,
        }
    }

    /// The probability of id `v` (`Probability`, a float).
    fn probability(&self, v: i64, log_range: f64) -> f32 {
        match self.dist {
            Dist::Uniform => (1.0 / self.attrs.range as f64) as f32,
            Dist::LogUniform => (((v as f64 + 2.0) / (v as f64 + 1.0)).ln() / log_range) as f32,
        }
    }
}

/// TensorFlow's `ExpectedCountHelper`, in float32 as it computes.
fn expected_count(p: f32, batch: usize, tries: usize) -> f32 {
    if tries == batch {
        return p * batch as f32;
    }
    -(tries as f32 * (-p).ln_1p()).exp_m1()
}

impl Kernel for SamplerKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let a = self.attrs;
        let t = ctx.input(0);
        let &[batch, cols] = t.shape() else {
            return Err(Error::invalid_argument("true_classes must be a matrix"));
        };
        if cols != a.num_true {
            return Err(Error::invalid_argument(format!(
                "true_classes must have num_true columns, expected: {cols} was: {}",
                a.num_true
            )));
        }
        if a.unique && a.num_sampled as i64 > a.range {
            return Err(Error::invalid_argument("Sampler's range is too small."));
        }
        let true_ids = t.as_slice::<i64>()?;
        if let Some(c) = true_ids.iter().find(|&&c| c < 0 || c >= a.range) {
            return Err(Error::invalid_argument(format!(
                "`true_candidate` out of range [0, {}), received {c}",
                a.range
            )));
        }
        let rng = ctx.rng.ok_or_else(|| Error::internal("candidate sampler run without a generator"))?;
        let samples32 = 2048 * a.num_sampled as u64;
        let gen = rng.lock().unwrap_or_else(|e| e.into_inner()).reserve_samples32(samples32);
        let mut words = SimplePhilox::new(gen);
        let log_range = (a.range as f64).ln_1p();
        let n = a.num_sampled;
        let mut sampled = Vec::with_capacity(n);
        let tries = if a.unique {
            let mut used = HashSet::default();
            let mut tries = 0;
            while sampled.len() < n {
                tries += 1;
                let v = self.sample(&mut words, log_range);
                if used.insert(v) {
                    sampled.push(v);
                }
            }
            tries
        } else {
            sampled.extend((0..n).map(|_| self.sample(&mut words, log_range)));
            n
        };
        let count = |v: &i64| expected_count(self.probability(*v, log_range), n, tries);
        let sampled_count: Vec<f32> = sampled.iter().map(count).collect();
        let true_count: Vec<f32> = true_ids.iter().map(count).collect();
        Ok(vec![
            Tensor::new(&[n], sampled)?,
            Tensor::new(&[batch, a.num_true], true_count)?,
            Tensor::new(&[n], sampled_count)?,
        ])
    }
}

#[allow(clippy::too_many_arguments)]
fn sampler(
    s: &Scope,
    op_type: &str,
    true_classes: &Output,
    num_true: i64,
    num_sampled: i64,
    unique: bool,
    range_max: i64,
    seed: Option<u64>,
) -> Result<Operation> {
    let (s1, s2) = super::seeds(seed);
    s.op(op_type, op_type)
        .input(true_classes)
        .attr("num_true", num_true)
        .attr("num_sampled", num_sampled)
        .attr("unique", unique)
        .attr("range_max", range_max)
        .attr("seed", s1)
        .attr("seed2", s2)
        .build()
}

/// `tf.random.uniform_candidate_sampler(true_classes, num_true, num_sampled, unique,
/// range_max, seed)`: a `UniformCandidateSampler` op; its outputs 0, 1, 2 are
/// `sampled_candidates`, `true_expected_count`, `sampled_expected_count` (see
/// [`CandidateSampler`]). Errors: `InvalidArgument` for `true_classes` not int64 of rank 2.
pub fn uniform_candidate_sampler(
    s: &Scope,
    true_classes: &Output,
    num_true: i64,
    num_sampled: i64,
    unique: bool,
    range_max: i64,
    seed: Option<u64>,
) -> Result<Operation> {
    sampler(s, "UniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max, seed)
}

/// `tf.random.log_uniform_candidate_sampler(...)`: a `LogUniformCandidateSampler` op, as
/// [`uniform_candidate_sampler`] with id `k` drawn with probability
/// `log((k + 2) / (k + 1)) / log(range_max + 1)`.
pub fn log_uniform_candidate_sampler(
    s: &Scope,
    true_classes: &Output,
    num_true: i64,
    num_sampled: i64,
    unique: bool,
    range_max: i64,
    seed: Option<u64>,
) -> Result<Operation> {
    sampler(s, "LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max, seed)
}
