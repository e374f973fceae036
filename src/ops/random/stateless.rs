//! TensorFlow's stateless random ops: the values are a function of the seed (or of the
//! key, counter and algorithm) and the shape only, drawn with Philox4x32-10 exactly as
//! TensorFlow's CPU kernels draw them (`stateless_random_ops.cc`,
//! `stateless_random_ops_v2.cc`): `StatelessRandomUniform`, `StatelessRandomNormal`,
//! `StatelessTruncatedNormal` (a seed input), their `V2` forms (key, counter, algorithm
//! inputs), and `StatelessRandomGetKeyCounter`, `StatelessRandomGetKeyCounterAlg`,
//! `StatelessRandomGetAlg`, which turn a seed into a key and counter. TensorFlow 2's
//! initializers (`glorot_uniform` in `tf.compat.v1.layers.dense`) build these.

use super::distributions::{fill, Dist, Sample};
use super::philox::{stateless_generator, Philox};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::int_values;
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{try_with_capacity, DType, Shape, Tensor};

pub(crate) static DEFS: &[&dyn RegisteredOp] = &[
    &StatelessRandom::UNIFORM,
    &StatelessRandom::NORMAL,
    &StatelessRandom::TRUNCATED,
    &StatelessRandom::UNIFORM_V2,
    &StatelessRandom::NORMAL_V2,
    &StatelessRandom::TRUNCATED_V2,
    &GetKeyCounter { with_alg: false },
    &GetKeyCounter { with_alg: true },
    &GetAlg,
];

/// TensorFlow's `RNG_ALG_PHILOX`, the one algorithm its CPU kernels draw with.
pub const RNG_ALG_PHILOX: i32 = 1;
/// TensorFlow's `RNG_ALG_AUTO_SELECT`: Philox on CPU.
const RNG_ALG_AUTO_SELECT: i32 = 3;

/// A shape as TensorFlow's `TensorShape::DebugString` writes it (`[2,3]`).
fn debug(dims: &[usize]) -> String {
    let d: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
    format!("[{}]", d.join(","))
}

/// The output shape from the `shape` input, as TensorFlow's `tensor::MakeShape`.
/// Errors: `InvalidArgument` for a shape that is not a vector or has a negative dimension.
fn make_shape(t: &Tensor) -> Result<Vec<usize>> {
    if t.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "shape must be a vector of {{int32,int64}}, got shape {}",
            debug(t.shape())
        )));
    }
    let dims = int_values(t)?;
    if let Some(d) = dims.iter().find(|&&d| d < 0) {
        return Err(Error::invalid_argument(format!("Dimension {d} must be >= 0")));
    }
    let dims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    crate::tensor::checked_num_elements(&dims)?;
    Ok(dims)
}

/// The generator for a `seed` input (int32 or int64, shape `[2]`), as TensorFlow's
/// `GenerateKey`. Errors: `InvalidArgument` for another shape.
fn seed_generator(seed: &Tensor) -> Result<Philox> {
    if seed.shape() != [2] {
        return Err(Error::invalid_argument(format!("seed must have shape [2], not {}", debug(seed.shape()))));
    }
    let s = int_values(seed)?;
    // int32 seeds are sign-extended, as C++'s int32 → uint64 conversion
    Ok(stateless_generator(s[0] as u64, s[1] as u64))
}

/// The algorithm and generator of the `key`, `counter` and `alg` inputs of the V2 ops,
/// as TensorFlow's `GetKeyCounterAlgFromInputs` (auto-select is Philox). Errors:
/// `InvalidArgument` for a non-scalar `alg`, a `key` not of shape `[1]`, a `counter`
/// shorter than the algorithm's (2 words; ThreeFry's 1).
fn key_counter_generator(key: &Tensor, counter: &Tensor, alg: &Tensor) -> Result<(i32, Philox)> {
    if alg.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "input 3 (0-based) must have shape [], not {}",
            debug(alg.shape())
        )));
    }
    let mut alg_id = alg.as_slice::<i32>()?[0];
    if alg_id == RNG_ALG_AUTO_SELECT {
        alg_id = RNG_ALG_PHILOX;
    }
    if key.shape() != [1] {
        return Err(Error::invalid_argument(format!(
            "key must have shape [1], not {}. (Note that batched keys are not supported yet.)",
            debug(key.shape())
        )));
    }
    // ThreeFry's counter is one word; every other id is checked as Philox's two
    let counter_size = if alg_id == 2 { 1 } else { 2 };
    if counter.rank() != 1 || counter.shape()[0] < counter_size {
        return Err(Error::invalid_argument(format!(
            "counter must be a vector with length at least {counter_size}; got shape: {}. (Note that batched counters are not supported yet.)",
            debug(counter.shape())
        )));
    }
    let c = counter.as_slice::<u64>()?;
    Ok((alg_id, Philox::from_key_counter(key.as_slice::<u64>()?[0], [c[0], c.get(1).copied().unwrap_or(0)])))
}

/// The six sampling ops: `shape` is input 0, then the seed (V1) or key, counter and
/// algorithm (V2); the output has dtype `dtype` (float32 or float64).
pub struct StatelessRandom {
    op_type: &'static str,
    dist: Dist,
    v2: bool,
}

impl StatelessRandom {
    const UNIFORM: StatelessRandom =
        StatelessRandom { op_type: "StatelessRandomUniform", dist: Dist::Uniform, v2: false };
    const NORMAL: StatelessRandom = StatelessRandom { op_type: "StatelessRandomNormal", dist: Dist::Normal, v2: false };
    const TRUNCATED: StatelessRandom =
        StatelessRandom { op_type: "StatelessTruncatedNormal", dist: Dist::Truncated, v2: false };
    const UNIFORM_V2: StatelessRandom =
        StatelessRandom { op_type: "StatelessRandomUniformV2", dist: Dist::Uniform, v2: true };
    const NORMAL_V2: StatelessRandom =
        StatelessRandom { op_type: "StatelessRandomNormalV2", dist: Dist::Normal, v2: true };
    const TRUNCATED_V2: StatelessRandom =
        StatelessRandom { op_type: "StatelessTruncatedNormalV2", dist: Dist::Truncated, v2: true };
}

fn check_dtype(op_type: &str, dtype: DType) -> Result<()> {
    if !matches!(dtype, DType::Float | DType::Double) {
        return Err(Error::invalid_argument(format!("{op_type} supports float32 and float64 here, not {dtype}")));
    }
    Ok(())
}

impl RegisteredOp for StatelessRandom {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(if self.v2 { 4 } else { 2 })?;
        let dtype = ctx.node.attr_type("dtype")?;
        check_dtype(self.op_type, dtype)?;
        let shape = match ctx.const_input(0) {
            Some(t) => Shape::known(&make_shape(&t)?),
            None => match ctx.shape(0).to_vec() {
                Some(d) if d.len() == 1 => Shape::partial(&vec![None; d[0]]),
                _ => Shape::unknown(),
            },
        };
        Ok(vec![(dtype, shape)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let dtype = node.attr_type("dtype")?;
        check_dtype(self.op_type, dtype).map_err(|e| e.context(format!("node '{}'", node.name)))?;
        Ok(Box::new(StatelessKernel { dist: self.dist, v2: self.v2, dtype }))
    }
}

/// The kernel of a sampling op: its distribution, its input form and its dtype.
struct StatelessKernel {
    dist: Dist,
    v2: bool,
    dtype: DType,
}

fn sample<T: Sample + crate::tensor::Element>(gen: Philox, dist: Dist, dims: &[usize], dtype: DType) -> Result<Tensor> {
    let n: usize = dims.iter().product();
    let mut v = try_with_capacity::<T>(n, dtype)?;
    v.resize(n, T::default());
    fill(gen, dist, &mut v);
    Tensor::new(dims, v)
}

impl Kernel for StatelessKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        // TensorFlow's order: V2 checks its key, counter and algorithm before the shape,
        // V1 its shape before the seed; neither draws (nor refuses an algorithm) for an
        // empty output
        let (alg, gen) = if self.v2 {
            key_counter_generator(ctx.input(1), ctx.input(2), ctx.input(3))?
        } else {
            make_shape(ctx.input(0))?;
            (RNG_ALG_PHILOX, seed_generator(ctx.input(1))?)
        };
        let dims = make_shape(ctx.input(0))?;
        if alg != RNG_ALG_PHILOX && dims.iter().product::<usize>() != 0 {
            return Err(Error::invalid_argument(format!("Unsupported algorithm id: {alg}")));
        }
        let out = match self.dtype {
            DType::Float => sample::<f32>(gen, self.dist, &dims, self.dtype)?,
            DType::Double => sample::<f64>(gen, self.dist, &dims, self.dtype)?,
            other => return Err(Error::internal(format!("{} kernel prepared for dtype {other}", ctx.op_type()))),
        };
        Ok(vec![out])
    }
}

/// `StatelessRandomGetKeyCounter` (`with_alg` false: outputs `key` uint64 `[1]` and
/// `counter` uint64 `[2]`) and `StatelessRandomGetKeyCounterAlg` (and `alg`, an int32
/// scalar, always Philox), from a `seed` of shape `[2]` (int32 or int64).
pub struct GetKeyCounter {
    with_alg: bool,
}

impl RegisteredOp for GetKeyCounter {
    fn op_type(&self) -> &'static str {
        if self.with_alg {
            "StatelessRandomGetKeyCounterAlg"
        } else {
            "StatelessRandomGetKeyCounter"
        }
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let mut out = vec![(DType::UInt64, Shape::known(&[1])), (DType::UInt64, Shape::known(&[2]))];
        if self.with_alg {
            out.push((DType::Int32, Shape::known(&[])));
        }
        Ok(out)
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(KeyCounterKernel { with_alg: self.with_alg }))
    }
}

struct KeyCounterKernel {
    with_alg: bool,
}

impl Kernel for KeyCounterKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let gen = seed_generator(ctx.input(0))?;
        let mut out = vec![Tensor::vector(vec![gen.key_u64()]), Tensor::vector(gen.counter_u64().to_vec())];
        if self.with_alg {
            out.push(Tensor::scalar(RNG_ALG_PHILOX));
        }
        Ok(out)
    }
}

/// `StatelessRandomGetAlg`: the algorithm the device's kernels use, an int32 scalar
/// (Philox).
pub struct GetAlg;

impl RegisteredOp for GetAlg {
    fn op_type(&self) -> &'static str {
        "StatelessRandomGetAlg"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(0)?;
        Ok(vec![(DType::Int32, Shape::known(&[]))])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(crate::ops::FnKernel(|_| Ok(vec![Tensor::scalar(RNG_ALG_PHILOX)]))))
    }
}

/// `tf.raw_ops.StatelessRandomGetKeyCounter(seed)`: the Philox `key` (uint64 `[1]`) and
/// `counter` (uint64 `[2]`) for a `seed` of shape `[2]`, int32 or int64. Running it
/// errors with `InvalidArgument` for a seed of another shape.
pub fn stateless_random_get_key_counter(s: &Scope, seed: &Output) -> Result<(Output, Output)> {
    let op = s
        .op("StatelessRandomGetKeyCounter", "StatelessRandomGetKeyCounter")
        .input(seed)
        .attr("Tseed", seed.dtype())
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

fn sampler(s: &Scope, op_type: &str, inputs: &[&Output], dtype: DType) -> Result<Output> {
    let mut b = s.op(op_type, op_type);
    for i in inputs {
        b = b.input(i);
    }
    b = b.attr("dtype", dtype);
    if inputs.len() == 2 {
        b.attr("T", inputs[0].dtype()).attr("Tseed", inputs[1].dtype()).build_output()
    } else {
        b.attr("Tshape", inputs[0].dtype()).build_output()
    }
}

/// `tf.raw_ops.StatelessRandomUniform(shape, seed, dtype)`: values in `[0, 1)` of shape
/// `shape` (an int32 or int64 vector) and `dtype` (float32, float64), a function of
/// `seed` (`[2]`, int32 or int64) alone. Running it errors with `InvalidArgument` for a
/// bad shape or seed.
pub fn stateless_random_uniform(s: &Scope, shape: &Output, seed: &Output, dtype: DType) -> Result<Output> {
    sampler(s, "StatelessRandomUniform", &[shape, seed], dtype)
}

/// `tf.raw_ops.StatelessRandomNormal(shape, seed, dtype)`: standard normal values, as
/// [`stateless_random_uniform`].
pub fn stateless_random_normal(s: &Scope, shape: &Output, seed: &Output, dtype: DType) -> Result<Output> {
    sampler(s, "StatelessRandomNormal", &[shape, seed], dtype)
}

/// `tf.raw_ops.StatelessTruncatedNormal(shape, seed, dtype)`: standard normal values
/// within two standard deviations, as [`stateless_random_uniform`].
pub fn stateless_truncated_normal(s: &Scope, shape: &Output, seed: &Output, dtype: DType) -> Result<Output> {
    sampler(s, "StatelessTruncatedNormal", &[shape, seed], dtype)
}

/// `tf.raw_ops.StatelessRandomUniformV2(shape, key, counter, alg, dtype)`: values in
/// `[0, 1)` from a Philox `key` (uint64 `[1]`) and `counter` (uint64, at least 2), `alg`
/// an int32 scalar (1: Philox, 3: auto-select, which is Philox). Running it errors with
/// `InvalidArgument` for bad shapes or another algorithm.
pub fn stateless_random_uniform_v2(
    s: &Scope,
    shape: &Output,
    key: &Output,
    counter: &Output,
    alg: &Output,
    dtype: DType,
) -> Result<Output> {
    sampler(s, "StatelessRandomUniformV2", &[shape, key, counter, alg], dtype)
}

/// `tf.raw_ops.StatelessRandomNormalV2`: standard normal values, as
/// [`stateless_random_uniform_v2`].
pub fn stateless_random_normal_v2(
    s: &Scope,
    shape: &Output,
    key: &Output,
    counter: &Output,
    alg: &Output,
    dtype: DType,
) -> Result<Output> {
    sampler(s, "StatelessRandomNormalV2", &[shape, key, counter, alg], dtype)
}

/// `tf.raw_ops.StatelessTruncatedNormalV2`: standard normal values within two standard
/// deviations, as [`stateless_random_uniform_v2`].
pub fn stateless_truncated_normal_v2(
    s: &Scope,
    shape: &Output,
    key: &Output,
    counter: &Output,
    alg: &Output,
    dtype: DType,
) -> Result<Output> {
    sampler(s, "StatelessTruncatedNormalV2", &[shape, key, counter, alg], dtype)
}
