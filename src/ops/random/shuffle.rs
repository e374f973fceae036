//! `RandomShuffle` (`tf.random.shuffle`): the rows (first dimension) of a tensor in a
//! random order, drawn from the op's Philox stream as TensorFlow's CPU kernel
//! (`random_shuffle_op.cc`) draws it, so seeded orders are TensorFlow's.

use super::simple_philox::SimplePhilox;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&RandomShuffle];

/// `RandomShuffle(value)` (attrs `T`, any dtype with values, `seed`, `seed2`): `value`
/// with its rows permuted, its shape kept. The permutation is TensorFlow's Fisher-Yates
/// (`i` from the first row, swapped with `i + word % (rows - i)`, one Philox word each,
/// from a generator that moves on by `ceil((rows - 1) / 4)` blocks per run); a scalar or
/// one row passes through. No gradient (TensorFlow registers none).
pub struct RandomShuffle;

impl RegisteredOp for RandomShuffle {
    fn op_type(&self) -> &'static str {
        "RandomShuffle"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_type_attr("T", 0)?;
        Ok(vec![(ctx.dtype(0), ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        node.attr_int_or("seed", 0)?;
        node.attr_int_or("seed2", 0)?;
        Ok(Box::new(ShuffleKernel))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

struct ShuffleKernel;

impl Kernel for ShuffleKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        if x.num_elements() <= 1 || x.shape()[0] <= 1 {
            return Ok(vec![x.clone()]);
        }
        let rows = x.shape()[0];
        let rng = ctx.rng.ok_or_else(|| Error::internal("RandomShuffle run without a generator"))?;
        let gen = rng.lock().unwrap_or_else(|e| e.into_inner()).reserve_samples32(rows as u64 - 1);
        let mut words = SimplePhilox::new(gen);
        let mut perm: Vec<usize> = (0..rows).collect();
        for i in 0..rows - 1 {
            let j = i + (words.rand32() % (rows - i) as u32) as usize;
            perm.swap(i, j);
        }
        let inner = x.num_elements() / rows;
        let flat: Vec<usize> = perm.iter().flat_map(|&r| r * inner..(r + 1) * inner).collect();
        Ok(vec![Tensor::from_storage(x.shape(), x.storage().try_gather(&flat)?)?])
    }
}

/// `tf.random.shuffle(value, seed)`: a `RandomShuffle` node permuting `value`'s rows;
/// `seed` as the other random builders take it.
pub fn random_shuffle(s: &Scope, value: &Output, seed: Option<u64>) -> Result<Output> {
    let (s1, s2) = super::seeds(seed);
    s.op("RandomShuffle", "RandomShuffle")
        .input(value)
        .attr("T", value.dtype())
        .attr("seed", s1)
        .attr("seed2", s2)
        .build_output()
}
