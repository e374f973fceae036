//! Random ops: RandomUniform, RandomStandardNormal, TruncatedNormal (and in their own
//! files the sampling ops [`multinomial`](mod@multinomial), [`shuffle`], [`candidate_sampler`]). Seeded by the
//! attrs `seed`/`seed2` (both 0: fresh entropy); each op keeps one generator per
//! session ([`RandomState`], TensorFlow's `GuardedPhiloxRandom`), so successive runs
//! draw new values and a new session repeats them; with seeds set the values are
//! TensorFlow's, drawn by the same Philox stream. The stateless ops
//! (`StatelessRandomUniformV2`, ...) are in [`stateless`].

pub mod candidate_sampler;
mod distributions;
pub mod multinomial;
mod philox;
pub mod shuffle;
mod simple_philox;
pub mod stateless;

pub use candidate_sampler::{log_uniform_candidate_sampler, uniform_candidate_sampler};
pub use multinomial::multinomial;
pub use shuffle::random_shuffle;

pub use stateless::{
    stateless_random_get_key_counter, stateless_random_normal, stateless_random_normal_v2, stateless_random_uniform,
    stateless_random_uniform_v2, stateless_truncated_normal, stateless_truncated_normal_v2,
};

use super::array::{constant, int_values};
use super::math::{add, mul, sub};
use super::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::tensor::{try_with_capacity, DType, Shape, Tensor};
use distributions::{fill, Dist};
use philox::Philox;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&RandomOp::UNIFORM, &RandomOp::NORMAL, &RandomOp::TRUNCATED];

/// TensorFlow's `DEFAULT_GRAPH_SEED`, used as `seed` when only an op seed is given.
pub const DEFAULT_GRAPH_SEED: i64 = 87654321;

/// Philox outputs a stateful op reserves per output value (TensorFlow's
/// `ReserveRandomOutputs(n, 256)`): each run starts this far past the last one's start.
const RESERVED_PER_OUTPUT: u64 = 256;

/// The generator of one stateful random op in one session, TensorFlow's
/// `GuardedPhiloxRandom`: Philox keyed by `seed` with `seed2` as the counter's high half
/// (both 0: two fresh random seeds); each run takes the generator as it is and moves
/// it on by 256 blocks per output value.
pub struct RandomState(Philox);

impl RandomState {
    /// The generator for attrs `seed` and `seed2`.
    pub fn new(seed: i64, seed2: i64) -> RandomState {
        let (s, s2) = if seed == 0 && seed2 == 0 {
            (rand::random::<u64>(), rand::random::<u64>())
        } else {
            (seed as u64, seed2 as u64)
        };
        RandomState(Philox::from_seeds(s, s2))
    }

    /// The generator for a run drawing `n` values; moves this one past what it may use.
    fn reserve(&mut self, n: usize) -> Philox {
        self.reserve_samples128((n as u64).wrapping_mul(RESERVED_PER_OUTPUT))
    }

    /// The generator for a run using `n` Philox blocks (TensorFlow's `ReserveSamples128`).
    fn reserve_samples128(&mut self, n: u64) -> Philox {
        let g = self.0;
        self.0.skip(n);
        g
    }

    /// The generator for a run using `n` Philox words (TensorFlow's `ReserveSamples32`).
    fn reserve_samples32(&mut self, n: u64) -> Philox {
        self.reserve_samples128(n.div_ceil(4))
    }
}

/// The three random ops: shape from input 0 (int32), dtype from attr `dtype`.
pub struct RandomOp {
    op_type: &'static str,
    dist: Dist,
}

impl RandomOp {
    const UNIFORM: RandomOp = RandomOp { op_type: "RandomUniform", dist: Dist::Uniform };
    const NORMAL: RandomOp = RandomOp { op_type: "RandomStandardNormal", dist: Dist::Normal };
    const TRUNCATED: RandomOp = RandomOp { op_type: "TruncatedNormal", dist: Dist::Truncated };
}

impl RegisteredOp for RandomOp {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let dtype = ctx.node.attr_type("dtype")?;
        if !matches!(dtype, DType::Float | DType::Double) {
            return Err(Error::invalid_argument(format!("{} supports float32 and float64, not {dtype}", self.op_type)));
        }
        let shape = match ctx.const_input(0) {
            Some(t) => Shape::known(&int_values(&t)?.iter().map(|&d| d.max(0) as usize).collect::<Vec<_>>()),
            None => Shape::unknown(),
        };
        Ok(vec![(dtype, shape)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let dtype = node.attr_type("dtype")?;
        if !matches!(dtype, DType::Float | DType::Double) {
            return Err(Error::invalid_argument(format!(
                "attr 'dtype' of op '{}' ({}) is {dtype}; {} supports float32 and float64",
                node.name, node.op_type, self.op_type
            )));
        }
        // the session seeds the op's generator from these; checked here so that a bad attr
        // names the node rather than surfacing as a missing generator
        node.attr_int_or("seed", 0)?;
        node.attr_int_or("seed2", 0)?;
        Ok(Box::new(RandomKernel { dist: self.dist, dtype }))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// The kernel of a random op: its distribution and output dtype (attr `dtype`, read once).
/// Draws from the op's generator in the [`KernelCtx`].
struct RandomKernel {
    dist: Dist,
    dtype: DType,
}

impl Kernel for RandomKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let dims = int_values(ctx.input(0))?;
        if dims.iter().any(|&d| d < 0) {
            return Err(Error::invalid_argument(format!("{} shape must be non-negative, got {dims:?}", ctx.op_type())));
        }
        let dims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
        let n = crate::tensor::checked_num_elements(&dims)?;
        let rng = ctx.rng.as_ref().ok_or_else(|| Error::internal("random op run without a generator"))?;
        let gen = rng.lock().unwrap_or_else(|e| e.into_inner()).reserve(n);
        // the shape is an input: the output is allocated fallibly, in its own dtype
        let out = match self.dtype {
            DType::Float => {
                let mut v = try_with_capacity::<f32>(n, self.dtype)?;
                v.resize(n, 0.0);
                fill(gen, self.dist, &mut v);
                Tensor::new(&dims, v)?
            }
            DType::Double => {
                let mut v = try_with_capacity::<f64>(n, self.dtype)?;
                v.resize(n, 0.0);
                fill(gen, self.dist, &mut v);
                Tensor::new(&dims, v)?
            }
            other => return Err(Error::internal(format!("{} kernel prepared for dtype {other}", ctx.op_type()))),
        };
        Ok(vec![out])
    }
}

/// (`seed`, `seed2`) attrs for an op seed, as TensorFlow's `get_seed` without a graph seed.
fn seeds(seed: Option<u64>) -> (i64, i64) {
    match seed {
        Some(s) => (DEFAULT_GRAPH_SEED, s as i64),
        None => (0, 0),
    }
}

/// The `shape` constant: int32 as TensorFlow makes it, int64 when a dimension does not
/// fit in int32 (never truncated). Errors: `InvalidArgument` for one beyond int64.
fn shape_const(s: &Scope, dims: &[usize]) -> Result<Output> {
    let value = match dims.iter().map(|&d| i32::try_from(d)).collect::<std::result::Result<Vec<i32>, _>>() {
        Ok(v) => Tensor::vector(v),
        Err(_) => Tensor::vector(
            dims.iter()
                .map(|&d| i64::try_from(d))
                .collect::<std::result::Result<Vec<i64>, _>>()
                .map_err(|_| Error::invalid_argument(format!("random shape {dims:?} has a dimension beyond int64")))?,
        ),
    };
    constant(&s.named("shape"), value)
}

fn raw(s: &Scope, op_type: &str, shape: &Output, dtype: DType, seed: Option<u64>) -> Result<Output> {
    let (s1, s2) = seeds(seed);
    s.op(op_type, op_type)
        .input(shape)
        .attr("dtype", dtype)
        .attr("seed", s1)
        .attr("seed2", s2)
        .attr("T", shape.dtype())
        .build_output()
}

/// `tf.random_uniform(dims, minval, maxval, dtype, seed)`: ops under `random_uniform/`
/// (`shape`, `min`, `max`, `RandomUniform`, `sub`, `mul`), the result named `random_uniform`.
/// Values in `[minval, maxval)`; dtype float32 or float64.
pub fn random_uniform(
    s: &Scope,
    dims: &[usize],
    minval: f64,
    maxval: f64,
    dtype: DType,
    seed: Option<u64>,
) -> Result<Output> {
    let sc = s.name_scope("random_uniform");
    let shape = shape_const(&sc, dims)?;
    let min = constant(&sc.named("min"), Tensor::from_f64(dtype, &[], &[minval])?)?;
    let max = constant(&sc.named("max"), Tensor::from_f64(dtype, &[], &[maxval])?)?;
    let r = raw(&sc, "RandomUniform", &shape, dtype, seed)?;
    let range = sub(&sc, &max, &min)?;
    let scaled = mul(&sc, &r, &range)?;
    add(&sc.named(&format!("{}/", sc.prefix())), &scaled, &min)
}

/// `tf.random_normal(dims, mean, stddev, dtype, seed)`: ops under `random_normal/`.
pub fn random_normal(
    s: &Scope,
    dims: &[usize],
    mean: f64,
    stddev: f64,
    dtype: DType,
    seed: Option<u64>,
) -> Result<Output> {
    scaled(s, "random_normal", "RandomStandardNormal", dims, mean, stddev, dtype, seed)
}

/// `tf.truncated_normal(dims, mean, stddev, dtype, seed)`: normal values beyond two
/// standard deviations are redrawn; ops under `truncated_normal/`.
pub fn truncated_normal(
    s: &Scope,
    dims: &[usize],
    mean: f64,
    stddev: f64,
    dtype: DType,
    seed: Option<u64>,
) -> Result<Output> {
    scaled(s, "truncated_normal", "TruncatedNormal", dims, mean, stddev, dtype, seed)
}

#[allow(clippy::too_many_arguments)]
fn scaled(
    s: &Scope,
    scope: &str,
    op_type: &str,
    dims: &[usize],
    mean: f64,
    stddev: f64,
    dtype: DType,
    seed: Option<u64>,
) -> Result<Output> {
    let sc = s.name_scope(scope);
    let shape = shape_const(&sc, dims)?;
    let m = constant(&sc.named("mean"), Tensor::from_f64(dtype, &[], &[mean])?)?;
    let sd = constant(&sc.named("stddev"), Tensor::from_f64(dtype, &[], &[stddev])?)?;
    let r = raw(&sc, op_type, &shape, dtype, seed)?;
    let scaled = mul(&sc, &r, &sd)?;
    add(&sc.named(&format!("{}/", sc.prefix())), &scaled, &m)
}
