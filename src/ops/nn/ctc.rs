//! `CTCLoss` (`tf.compat.v1.nn.ctc_loss`): connectionist temporal classification loss of
//! label sequences under per-step class logits, with its gradient as the op's second
//! output, computed as TensorFlow's `CTCLossCalculator` (`ctc_loss_calculator.h`): softmax
//! per step, forward and backward variables in log space, the last class the blank.

use crate::error::{Error, Result};
use crate::graph::{Node, Operation, Output, Scope};
use crate::ops::array::{expand_dims, prevent_gradient};
use crate::ops::math::mul;
use crate::ops::step_resources::tf_dims;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};
use std::ops::{Add, Div, Neg, Sub};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&CtcLoss];

/// `CTCLoss(inputs, labels_indices, labels_values, sequence_length)` (attrs
/// `preprocess_collapse_repeated` = false, `ctc_merge_repeated` = true,
/// `ignore_longer_outputs_than_inputs` = false, `T` float32 or float64): for logits `inputs
/// [max_time, batch, num_classes]` (class `num_classes - 1` the blank), labels as a sparse
/// int64 `labels_indices [n, 2]` (batch, position; ordered) and int32 `labels_values [n]`,
/// and int32 `sequence_length [batch]`, outputs `loss [batch]` (`-log p(labels | inputs)`)
/// and `gradient [max_time, batch, num_classes]` (of each loss with respect to its
/// logits; zero past a sequence's length). `preprocess_collapse_repeated` merges repeated
/// labels first; `ctc_merge_repeated` lets repeated non-blank outputs merge into one
/// label; a label sequence longer than its input is an error, or with
/// `ignore_longer_outputs_than_inputs` a zero loss and gradient. Labels `>= num_classes -
/// 1` end a sequence. Errors (TensorFlow's `InvalidArgument` messages): inputs not of
/// rank 3, no time steps, batch sizes that differ, a batch element without labels, a
/// sequence longer than `max_time`, labels longer than the input. Gradient: the `gradient`
/// output (through `PreventGradient`) times the loss's incoming gradient, as TensorFlow's
/// `_CTCLossGrad`.
pub struct CtcLoss;

impl RegisteredOp for CtcLoss {
    fn op_type(&self) -> &'static str {
        "CTCLoss"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(4)?;
        let t = ctx.check_dtype(0, &[DType::Float, DType::Double])?;
        ctx.check_type_attr("T", 0)?;
        ctx.check_dtype(1, &[DType::Int64])?;
        ctx.check_dtype(2, &[DType::Int32])?;
        ctx.check_dtype(3, &[DType::Int32])?;
        for (i, r) in [(0, 3), (1, 2), (2, 1), (3, 1)] {
            if let Some(got) = ctx.shape(i).rank().filter(|&g| g != r) {
                return Err(Error::invalid_argument(format!("Shape must be rank {r} but is rank {got} (input {i})")));
            }
        }
        let d = |i: usize, k: usize| ctx.shape(i).dims().and_then(|d| d[k]);
        if let (Some(a), Some(b)) = (d(1, 0), d(2, 0)) {
            if a != b {
                return Err(Error::invalid_argument(format!("Dimensions must be equal, but are {a} and {b}")));
            }
        }
        let batch = match (d(0, 1), d(3, 0)) {
            (Some(a), Some(b)) if a != b => {
                return Err(Error::invalid_argument(format!("Dimensions must be equal, but are {a} and {b}")))
            }
            (a, b) => a.or(b),
        };
        let inputs = Shape::partial(&[d(0, 0), batch, d(0, 2)]);
        Ok(vec![(t, Shape::partial(&[batch])), (t, inputs)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        if !matches!(t, DType::Float | DType::Double) {
            return Err(Error::invalid_argument(format!(
                "CTCLoss {} supports float32 and float64, not {t}",
                node.name
            )));
        }
        Ok(Box::new(CtcKernel {
            preprocess_collapse_repeated: node.attr_bool_or("preprocess_collapse_repeated", false)?,
            ctc_merge_repeated: node.attr_bool_or("ctc_merge_repeated", true)?,
            ignore_longer: node.attr_bool_or("ignore_longer_outputs_than_inputs", false)?,
        }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let g = prevent_gradient(
            s,
            &ctx.outputs[1],
            "Currently there is no way to take the second  derivative of ctc_loss due to the fused \
             implementation's interaction  with tf.gradients()",
        )?;
        let v = expand_dims(s, &ctx.grad(0)?, -1)?;
        Ok(vec![Some(mul(s, &v, &g)?), None, None, None])
    }
}

struct CtcKernel {
    preprocess_collapse_repeated: bool,
    ctc_merge_repeated: bool,
    ignore_longer: bool,
}

/// The float arithmetic the calculator needs, for float32 and float64.
trait Real: Copy + PartialOrd + Add<Output = Self> + Sub<Output = Self> + Div<Output = Self> + Neg<Output = Self> {
    const ZERO: Self;
    const NEG_INF: Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn ln_1p(self) -> Self;
    /// TensorFlow's `expf(x)` on this type (the gradient's negative term is a float32 `expf`
    /// for both types).
    fn expf(self) -> Self;
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const NEG_INF: Self = <$t>::NEG_INFINITY;
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            fn ln_1p(self) -> Self {
                <$t>::ln_1p(self)
            }
            fn expf(self) -> Self {
                (self as f32).exp() as $t
            }
        }
    };
}
real!(f32);
real!(f64);

/// TensorFlow's `LogSumExp` of two log probabilities.
fn log_sum_exp<T: Real>(a: T, b: T) -> T {
    if a == T::NEG_INF {
        b
    } else if b == T::NEG_INF {
        a
    } else if a > b {
        a + (b - a).exp().ln_1p()
    } else {
        b + (a - b).exp().ln_1p()
    }
}

/// The shapes and labels the kernel checked.
struct Problem {
    max_time: usize,
    batch: usize,
    classes: usize,
    seq_len: Vec<i32>,
    labels: Vec<Vec<i32>>,
}

impl CtcKernel {
    fn check(&self, ctx: &KernelCtx) -> Result<Problem> {
        let (x, idx, vals, sl) = (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        let bad = |m: String| Err(Error::invalid_argument(m));
        let &[max_time, batch, classes] = x.shape() else { return bad("inputs is not a 3-Tensor".into()) };
        if sl.shape().len() != 1 {
            return bad("sequence_length is not a vector".into());
        }
        let &[n, cols] = idx.shape() else { return bad("labels_indices is not a matrix".into()) };
        if cols <= 1 {
            return bad(format!("labels_indices second dimension must be >= 1. Received {cols}"));
        }
        if vals.shape().len() != 1 {
            return bad("labels_values is not a vector".into());
        }
        if max_time == 0 {
            return bad("Max time or first dimension of input cannot be 0.".into());
        }
        if sl.shape()[0] != batch {
            return bad(format!(
                "len(sequence_length) != batch_size.  len(sequence_length):  {} batch_size: {batch}",
                sl.shape()[0]
            ));
        }
        if vals.shape()[0] != n {
            return bad(format!(
                "labels_indices and labels_values must contain the same number of rows, but saw shapes: {} vs. {}",
                tf_dims(idx.shape()),
                tf_dims(vals.shape())
            ));
        }
        if batch == 0 {
            return bad("batch_size must not be 0".into());
        }
        let iv = idx.as_slice::<i64>()?;
        let vv = vals.as_slice::<i32>()?;
        let max_len = (0..n).map(|i| iv[i * cols + 1] + 1).max().unwrap_or(0).max(0);
        let mut labels = vec![Vec::new(); batch];
        let mut prev: Option<(i64, i64)> = None;
        for i in 0..n {
            let (b, p) = (iv[i * cols], iv[i * cols + 1]);
            let at = format!("indices[{i}] = [{b},{p}]");
            if b < 0 || b >= batch as i64 || p < 0 || p >= max_len {
                return bad(format!(
                    "label SparseTensor is not valid: {at} is out of bounds: need 0 <= index < [{batch},{max_len}]"
                ));
            }
            if prev.is_some_and(|q| q >= (b, p)) {
                let what = if prev == Some((b, p)) { "is repeated" } else { "is out of order" };
                return bad(format!("label SparseTensor is not valid: {at} {what}"));
            }
            prev = Some((b, p));
            labels[b as usize].push(vv[i]);
        }
        let seq_len = sl.as_slice::<i32>()?.to_vec();
        for (b, &l) in seq_len.iter().enumerate() {
            if i64::from(l) > max_time as i64 {
                return bad(format!("sequence_length({b}) <= {max_time}"));
            }
        }
        for (b, &l) in seq_len.iter().enumerate() {
            if l < 0 {
                return bad(format!("seq_len({b}) < 0"));
            }
        }
        Ok(Problem { max_time, batch, classes, seq_len, labels })
    }

    /// The label sequences with blanks around each label (`l'`), as `PopulateLPrimes`.
    fn l_primes(&self, p: &Problem) -> Result<Vec<Vec<usize>>> {
        let blank = p.classes as i64 - 1;
        let mut out = Vec::with_capacity(p.batch);
        for (b, label) in p.labels.iter().enumerate() {
            if label.is_empty() {
                return Err(Error::invalid_argument(format!("Labels length is zero in batch {b}")));
            }
            let join = |v: &[i32]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",");
            let mut l: Vec<i32> = Vec::new();
            let mut finished = false;
            for i in 0..label.len() {
                if i == 0 || !self.preprocess_collapse_repeated || label[i] != label[i - 1] {
                    if i64::from(label[i]) >= blank {
                        finished = true;
                    } else {
                        if finished {
                            return Err(Error::invalid_argument(format!(
                                "Saw a non-null label (index >= num_classes - 1) following a null label, batch: {b} \
                                 num_classes: {} labels: {} labels seen so far: {}",
                                p.classes,
                                join(label),
                                join(&l)
                            )));
                        }
                        l.push(label[i]);
                    }
                }
            }
            if l.iter().any(|&x| x < 0) {
                return Err(Error::invalid_argument(format!(
                    "All labels must be nonnegative integers, batch: {b} labels: {}",
                    join(&l)
                )));
            }
            if !self.ignore_longer && label.len() as i64 > i64::from(p.seq_len[b]) {
                return Err(Error::invalid_argument(format!(
                    "Not enough time for target transition sequence (required: {}, available: {}){b}You can turn \
                     this error into a warning by using the flag ignore_longer_outputs_than_inputs",
                    label.len(),
                    p.seq_len[b]
                )));
            }
            let mut lp = Vec::with_capacity(2 * l.len() + 1);
            for &x in &l {
                lp.push(blank as usize);
                lp.push(x as usize);
            }
            lp.push(blank as usize);
            out.push(lp);
        }
        Ok(out)
    }

    /// Loss and gradient of batch element `b` into `loss[b]` and `grad` (`[max_time, batch,
    /// classes]`), as `ComputeLossAndGradients`.
    fn one<T: Real>(&self, p: &Problem, b: usize, lp: &[usize], x: &[T], loss: &mut T, grad: &mut [T]) {
        let (c, nb) = (p.classes, p.batch);
        let tlen = p.seq_len[b] as usize;
        if tlen == 0 || (self.ignore_longer && p.labels[b].len() > tlen) {
            return;
        }
        // softmax per step: y[t * c + k]
        let mut y = vec![T::ZERO; tlen * c];
        for t in 0..tlen {
            let row = &x[(t * nb + b) * c..(t * nb + b + 1) * c];
            let max = row.iter().copied().fold(row[0], |m, v| if v > m { v } else { m });
            let e: Vec<T> = row.iter().map(|&v| (v - max).exp()).collect();
            let sum = e.iter().copied().fold(T::ZERO, |a, v| a + v);
            for k in 0..c {
                y[t * c + k] = e[k] / sum;
            }
        }
        let u_len = lp.len();
        let merge = self.ctc_merge_repeated;
        let blank = c - 1;
        let at = |m: &Vec<T>, u: usize, t: usize| m[u * tlen + t];
        // forward
        let mut alpha = vec![T::NEG_INF; u_len * tlen];
        alpha[0] = y[blank].ln();
        if u_len > 1 {
            alpha[tlen] = y[lp[1]].ln();
        }
        for t in 1..tlen {
            let lo = u_len.saturating_sub(2 * (tlen - t));
            for u in lo..u_len.min(2 * (t + 1)) {
                let mut s = if merge || lp[u] == blank { at(&alpha, u, t - 1) } else { T::NEG_INF };
                if u > 0 {
                    s = log_sum_exp(s, at(&alpha, u - 1, t - 1));
                }
                if u > 1 && lp[u] != blank && !(merge && lp[u] == lp[u - 2]) {
                    s = log_sum_exp(s, at(&alpha, u - 2, t - 1));
                }
                alpha[u * tlen + t] = y[t * c + lp[u]].ln() + s;
            }
        }
        // backward
        let mut beta = vec![T::NEG_INF; u_len * tlen];
        for u in u_len.saturating_sub(2)..u_len {
            beta[u * tlen + tlen - 1] = T::ZERO;
        }
        for t in (0..tlen.saturating_sub(1)).rev() {
            let lo = u_len.saturating_sub(2 * (tlen - t));
            for u in lo..u_len.min(2 * (t + 1)) {
                let mut v = at(&beta, u, t);
                let ly = |k: usize| y[(t + 1) * c + lp[k]].ln();
                if merge || lp[u] == blank {
                    v = log_sum_exp(v, at(&beta, u, t + 1) + ly(u));
                }
                if u + 1 < u_len {
                    v = log_sum_exp(v, at(&beta, u + 1, t + 1) + ly(u + 1));
                }
                if u + 2 < u_len && lp[u] != blank && !(merge && lp[u] == lp[u + 2]) {
                    v = log_sum_exp(v, at(&beta, u + 2, t + 1) + ly(u + 2));
                }
                beta[u * tlen + t] = v;
            }
        }
        let mut log_p = T::NEG_INF;
        for u in 0..u_len {
            log_p = log_sum_exp(log_p, at(&alpha, u, 0) + at(&beta, u, 0));
        }
        *loss = -log_p;
        let g = |t: usize, k: usize| (t * nb + b) * c + k;
        if log_p == T::NEG_INF {
            for t in 0..tlen {
                for k in 0..c {
                    grad[g(t, k)] = y[t * c + k];
                }
            }
            return;
        }
        let mut prob_sum = vec![T::NEG_INF; c];
        for t in 0..tlen {
            prob_sum.fill(T::NEG_INF);
            for u in 0..u_len {
                prob_sum[lp[u]] = log_sum_exp(prob_sum[lp[u]], at(&alpha, u, t) + at(&beta, u, t));
            }
            for k in 0..c {
                grad[g(t, k)] = y[t * c + k] - (prob_sum[k] - log_p).expf();
            }
        }
    }

    fn run<T: Real + crate::tensor::Element>(&self, ctx: &KernelCtx, p: &Problem) -> Result<Vec<Tensor>> {
        let lps = self.l_primes(p)?;
        let x = ctx.input(0).as_slice::<T>()?;
        let mut loss = vec![T::ZERO; p.batch];
        let mut grad = vec![T::ZERO; p.max_time * p.batch * p.classes];
        for (b, lp) in lps.iter().enumerate() {
            self.one(p, b, lp, x, &mut loss[b], &mut grad);
        }
        Ok(vec![Tensor::new(&[p.batch], loss)?, Tensor::new(&[p.max_time, p.batch, p.classes], grad)?])
    }
}

impl Kernel for CtcKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let p = self.check(ctx)?;
        match ctx.input(0).dtype() {
            DType::Float => self.run::<f32>(ctx, &p),
            DType::Double => self.run::<f64>(ctx, &p),
            other => Err(Error::internal(format!("CTCLoss kernel run on {other}"))),
        }
    }
}

/// The flags of [`ctc_loss`], TensorFlow's defaults by [`Default`].
#[derive(Clone, Copy, Debug)]
pub struct CtcLossOptions {
    /// Merge repeated labels before the loss (default false).
    pub preprocess_collapse_repeated: bool,
    /// Let repeated non-blank outputs merge into one label (default true).
    pub ctc_merge_repeated: bool,
    /// A label sequence longer than its input gives a zero loss instead of an error
    /// (default false).
    pub ignore_longer_outputs_than_inputs: bool,
}

impl Default for CtcLossOptions {
    fn default() -> Self {
        CtcLossOptions {
            preprocess_collapse_repeated: false,
            ctc_merge_repeated: true,
            ignore_longer_outputs_than_inputs: false,
        }
    }
}

/// `tf.compat.v1.nn.ctc_loss`'s op: a `CTCLoss` node (see [`CtcLoss`]) of time-major float
/// `inputs [max_time, batch, num_classes]`, int64 `labels_indices`, int32 `labels_values`
/// and int32 `sequence_length`; output 0 is the loss, output 1 its gradient.
/// Errors: `InvalidArgument` for inputs of the wrong dtypes or ranks.
pub fn ctc_loss(
    s: &Scope,
    inputs: &Output,
    labels_indices: &Output,
    labels_values: &Output,
    sequence_length: &Output,
    options: CtcLossOptions,
) -> Result<Operation> {
    s.op("CTCLoss", "CTCLoss")
        .input(inputs)
        .input(labels_indices)
        .input(labels_values)
        .input(sequence_length)
        .attr("T", inputs.dtype())
        .attr("preprocess_collapse_repeated", options.preprocess_collapse_repeated)
        .attr("ctc_merge_repeated", options.ctc_merge_repeated)
        .attr("ignore_longer_outputs_than_inputs", options.ignore_longer_outputs_than_inputs)
        .build()
}
