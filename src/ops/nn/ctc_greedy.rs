//! `CTCGreedyDecoder` (`tf.nn.ctc_greedy_decoder`): the most likely class per step,
//! repeats merged and blanks dropped, as a sparse tensor, as TensorFlow's
//! `ctc_decoder_ops.cc` decodes.

use crate::error::{Error, Result};
use crate::graph::{Node, Operation, Output, Scope};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&CtcGreedyDecoder];

/// `CTCGreedyDecoder(inputs, sequence_length)` (attrs `merge_repeated` = false,
/// `blank_index` = -1, the last class, negative counting from the end, `T` float32 or
/// float64): for logits `inputs [max_time, batch, num_classes]` and int32 `sequence_length
/// [batch]`, each step's first largest class over the first `sequence_length[b]` steps,
/// the blank dropped and, with `merge_repeated`, a class equal to the previous step's
/// dropped. Outputs the decoded sequences as a sparse int64 tensor (`decoded_indices [n,
/// 2]`, `decoded_values [n]`, `decoded_shape` `[batch, longest]`) and `log_probability
/// [batch, 1]`, minus the sum of the chosen logits. Errors (TensorFlow's): inputs not of
/// rank 3, no time steps, `sequence_length` of the wrong size, a `blank_index` outside
/// `[-num_classes, num_classes)` (`InvalidArgument`), a sequence longer than `max_time`
/// (`FailedPrecondition`). No gradient.
pub struct CtcGreedyDecoder;

/// The shape function's checks of a CTC decoder's inputs (TensorFlow's, shared by
/// `CTCGreedyDecoder` and `CTCBeamSearchDecoder`): `inputs` float32/float64 `[max_time,
/// batch, num_classes]` matching attr `T`, `sequence_length` int32 `[batch]`. Returns the
/// dtype and the batch size when known. A rank error names the input when `name_input`
/// (the greedy decoder's message). Errors: `InvalidArgument`.
pub(super) fn infer_decoder_inputs(ctx: &InferCtx, name_input: bool) -> Result<(DType, Option<usize>)> {
    ctx.expect_inputs(2)?;
    let t = ctx.check_dtype(0, &[DType::Float, DType::Double])?;
    ctx.check_type_attr("T", 0)?;
    ctx.check_dtype(1, &[DType::Int32])?;
    for (i, r) in [(0, 3), (1, 1)] {
        if let Some(got) = ctx.shape(i).rank().filter(|&g| g != r) {
            let which = if name_input { format!(" (input {i})") } else { String::new() };
            return Err(Error::invalid_argument(format!("Shape must be rank {r} but is rank {got}{which}")));
        }
    }
    let d = |i: usize, k: usize| ctx.shape(i).dims().and_then(|d| d[k]);
    match (d(0, 1), d(1, 0)) {
        (Some(a), Some(b)) if a != b => {
            Err(Error::invalid_argument(format!("Dimensions must be equal, but are {a} and {b}")))
        }
        (a, b) => Ok((t, a.or(b))),
    }
}

impl RegisteredOp for CtcGreedyDecoder {
    fn op_type(&self) -> &'static str {
        "CTCGreedyDecoder"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let (t, batch) = infer_decoder_inputs(ctx, true)?;
        Ok(vec![
            (DType::Int64, Shape::partial(&[None, Some(2)])),
            (DType::Int64, Shape::partial(&[None])),
            (DType::Int64, Shape::known(&[2])),
            (t, Shape::partial(&[batch, Some(1)])),
        ])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        if !matches!(t, DType::Float | DType::Double) {
            return Err(Error::invalid_argument(format!(
                "CTCGreedyDecoder {} supports float32 and float64, not {t}",
                node.name
            )));
        }
        Ok(Box::new(GreedyKernel {
            merge_repeated: node.attr_bool_or("merge_repeated", false)?,
            blank_index: node.attr_int_or("blank_index", -1)?,
        }))
    }
}

struct GreedyKernel {
    merge_repeated: bool,
    blank_index: i64,
}

impl Kernel for GreedyKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, sl) = (ctx.input(0), ctx.input(1));
        let &[max_time, batch, classes] = x.shape() else {
            return Err(Error::invalid_argument("inputs is not a 3-Tensor"));
        };
        if max_time == 0 {
            return Err(Error::invalid_argument("max_time is 0"));
        }
        if sl.shape().len() != 1 {
            return Err(Error::invalid_argument("sequence_length is not a vector"));
        }
        if sl.shape()[0] != batch {
            return Err(Error::failed_precondition(format!(
                "len(sequence_length) != batch_size.  len(sequence_length):  {} batch_size: {batch}",
                sl.shape()[0]
            )));
        }
        let seq = sl.as_slice::<i32>()?;
        for (b, &l) in seq.iter().enumerate() {
            if i64::from(l) > max_time as i64 {
                return Err(Error::failed_precondition(format!("sequence_length({b}) <= {max_time}")));
            }
        }
        let c = classes as i64;
        let blank = if self.blank_index < 0 { c + self.blank_index } else { self.blank_index };
        if blank < 0 || blank >= c {
            return Err(Error::invalid_argument(format!(
                "blank_index expected to be between {} and {} but was {}",
                -c,
                c - 1,
                self.blank_index
            )));
        }
        if classes == 0 {
            return Err(Error::invalid_argument("Invalid input dimensions."));
        }
        let v = x.to_f64_vec()?;
        let mut log_prob = vec![0.0f64; batch];
        let mut seqs: Vec<Vec<i64>> = vec![Vec::new(); batch];
        for b in 0..batch {
            let mut prev = -1i64;
            for t in 0..seq[b].max(0) as usize {
                let row = &v[(t * batch + b) * classes..(t * batch + b + 1) * classes];
                let (mut best, mut at) = (row[0], 0usize);
                for (k, &r) in row.iter().enumerate().skip(1) {
                    if r > best {
                        best = r;
                        at = k;
                    }
                }
                // accumulated in the op's dtype, as TensorFlow's kernel
                log_prob[b] = if x.dtype() == DType::Float {
                    f64::from(log_prob[b] as f32 + (-best) as f32)
                } else {
                    log_prob[b] - best
                };
                let k = at as i64;
                if k != blank && !(self.merge_repeated && k == prev) {
                    seqs[b].push(k);
                }
                prev = k;
            }
        }
        let n: usize = seqs.iter().map(Vec::len).sum();
        let mut indices = Vec::with_capacity(2 * n);
        let mut values = Vec::with_capacity(n);
        for (b, s) in seqs.iter().enumerate() {
            for (t, &k) in s.iter().enumerate() {
                indices.extend([b as i64, t as i64]);
                values.push(k);
            }
        }
        let longest = seqs.iter().map(Vec::len).max().unwrap_or(0) as i64;
        let lp = Tensor::from_f64(x.dtype(), &[batch, 1], &log_prob)?;
        Ok(vec![
            Tensor::new(&[n, 2], indices)?,
            Tensor::new(&[n], values)?,
            Tensor::new(&[2], vec![batch as i64, longest])?,
            lp,
        ])
    }
}

/// `tf.nn.ctc_greedy_decoder`'s op: a `CTCGreedyDecoder` node (see [`CtcGreedyDecoder`])
/// of time-major float `inputs` and int32 `sequence_length`; outputs 0..4 are
/// `decoded_indices`, `decoded_values`, `decoded_shape`, `log_probability`.
/// `blank_index` -1 is the last class. Errors: `InvalidArgument` for inputs of the wrong
/// dtypes or ranks.
pub fn ctc_greedy_decoder(
    s: &Scope,
    inputs: &Output,
    sequence_length: &Output,
    merge_repeated: bool,
    blank_index: i64,
) -> Result<Operation> {
    s.op("CTCGreedyDecoder", "CTCGreedyDecoder")
        .input(inputs)
        .input(sequence_length)
        .attr("T", inputs.dtype())
        .attr("merge_repeated", merge_repeated)
        .attr("blank_index", blank_index)
        .build()
}
