//! `CTCBeamSearchDecoder` (`tf.nn.ctc_beam_search_decoder`): TensorFlow's CPU beam search
//! (`core/util/ctc/ctc_beam_search.h` with its default scorer), step for step: the beam
//! entries form a prefix tree, each keeping the log probabilities of its prefix ending in a
//! blank and in its label, the beam the `beam_width` most probable leaves.

use crate::error::{Error, Result};
use crate::graph::{Node, Operation, Output, Scope};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};
use std::collections::HashMap;

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&CtcBeamSearchDecoder];

/// The arithmetic of the search in the op's dtype `T`, as TensorFlow's templated kernel.
trait Real: Copy + PartialOrd + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> {
    const LOG_ZERO: Self;
    const ZERO: Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn ln_1p(self) -> Self;
    fn to_f64(self) -> f64;
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            const LOG_ZERO: Self = <$t>::NEG_INFINITY;
            const ZERO: Self = 0.0;
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            fn ln_1p(self) -> Self {
                <$t>::ln_1p(self)
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}
real!(f32);
real!(f64);

/// TensorFlow's `LogSumExp` of two log probabilities.
fn log_sum_exp<T: Real>(a: T, b: T) -> T {
    if a == T::LOG_ZERO {
        return b;
    }
    if b == T::LOG_ZERO {
        return a;
    }
    if a > b {
        a + (b - a).exp().ln_1p()
    } else {
        b + (a - b).exp().ln_1p()
    }
}

/// `BeamProbability`: total, ending in a blank, ending in the label.
#[derive(Clone, Copy)]
struct Prob<T> {
    total: T,
    blank: T,
    label: T,
}

impl<T: Real> Prob<T> {
    fn zero() -> Self {
        Prob { total: T::LOG_ZERO, blank: T::LOG_ZERO, label: T::LOG_ZERO }
    }
}

/// `BeamEntry`: a node of the prefix tree.
struct Entry<T> {
    parent: Option<usize>,
    label: usize,
    children: HashMap<usize, usize>,
    oldp: Prob<T>,
    newp: Prob<T>,
}

/// One batch element's search: the tree (index 0 the root) and the beam's leaves.
struct Search<T> {
    entries: Vec<Entry<T>>,
    leaves: Vec<usize>,
    width: usize,
}

impl<T: Real> Search<T> {
    fn new(width: usize) -> Self {
        let mut root =
            Entry { parent: None, label: usize::MAX, children: HashMap::new(), oldp: Prob::zero(), newp: Prob::zero() };
        root.newp.total = T::ZERO;
        root.newp.blank = T::ZERO;
        Search { entries: vec![root], leaves: vec![0], width }
    }

    fn total(&self, e: usize) -> T {
        self.entries[e].newp.total
    }

    /// The leaves by descending total (`TopN::Extract`), the beam emptied.
    fn extract(&mut self) -> Vec<usize> {
        let mut v = std::mem::take(&mut self.leaves);
        v.sort_by(|&a, &b| self.total(b).partial_cmp(&self.total(a)).unwrap_or(std::cmp::Ordering::Equal));
        v
    }

    /// The least probable leaf (`TopN::peek_bottom`).
    fn bottom(&self) -> usize {
        let mut at = 0;
        for (i, &e) in self.leaves.iter().enumerate().skip(1) {
            if self.total(e) < self.total(self.leaves[at]) {
                at = i;
            }
        }
        at
    }

    /// `TopN::push`: in while the beam has room, else in place of the bottom when better.
    fn push(&mut self, e: usize) {
        if self.leaves.len() < self.width {
            self.leaves.push(e);
        } else {
            let b = self.bottom();
            if self.total(e) > self.total(self.leaves[b]) {
                self.leaves[b] = e;
            }
        }
    }

    fn child(&mut self, parent: usize, label: usize) -> usize {
        if let Some(&c) = self.entries[parent].children.get(&label) {
            return c;
        }
        let c = self.entries.len();
        self.entries.push(Entry {
            parent: Some(parent),
            label,
            children: HashMap::new(),
            oldp: Prob::zero(),
            newp: Prob::zero(),
        });
        self.entries[parent].children.insert(label, c);
        c
    }

    fn is_candidate(&self, p: &Prob<T>) -> bool {
        p.total > T::LOG_ZERO && (self.leaves.len() < self.width || p.total > self.total(self.leaves[self.bottom()]))
    }

    /// `CTCBeamSearchDecoder::Step` for one time step's logits (blank the last class).
    fn step(&mut self, input: &[T]) {
        let classes = input.len();
        let blank = classes - 1;
        let max = input.iter().copied().fold(input[0], |m, x| if x > m { x } else { m });
        let mut sum = T::ZERO;
        for &x in input {
            sum = sum + (x - max).exp();
        }
        let norm = max + sum.ln();
        let branches = self.extract();
        for &b in &branches {
            self.entries[b].oldp = self.entries[b].newp;
        }
        for &b in &branches {
            if let Some(p) = self.entries[b].parent {
                if self.entries[p].newp.total != T::LOG_ZERO {
                    let pe = &self.entries[p];
                    let previous = if self.entries[b].label == pe.label { pe.oldp.blank } else { pe.oldp.total };
                    let e = &mut self.entries[b];
                    e.newp.label = log_sum_exp(e.newp.label, previous);
                }
                let e = &mut self.entries[b];
                e.newp.label = e.newp.label + input[e.label] - norm;
            }
            let e = &mut self.entries[b];
            e.newp.blank = e.oldp.total + input[blank] - norm;
            e.newp.total = log_sum_exp(e.newp.blank, e.newp.label);
            self.push(b);
        }
        for &b in &branches {
            let bp = self.entries[b].oldp;
            if !self.is_candidate(&bp) {
                continue;
            }
            for (label, &logit) in input.iter().enumerate().take(classes - 1) {
                let c = self.child(b, label);
                if self.entries[c].newp.total != T::LOG_ZERO {
                    continue;
                }
                let previous = if label == self.entries[b].label { bp.blank } else { bp.total };
                let p = logit - norm + previous;
                let cp = Prob { total: p, blank: T::LOG_ZERO, label: p };
                self.entries[c].newp = cp;
                if self.is_candidate(&cp) {
                    if self.leaves.len() == self.width {
                        let bottom = self.leaves[self.bottom()];
                        self.entries[bottom].newp = Prob::zero();
                    }
                    self.push(c);
                } else {
                    self.entries[c].oldp = Prob::zero();
                    self.entries[c].newp = Prob::zero();
                }
            }
        }
    }

    /// `BeamEntry::LabelSeq`: the labels from the root, repeats merged when asked.
    fn labels(&self, mut e: usize, merge_repeated: bool) -> Vec<i64> {
        let mut out = Vec::new();
        let mut prev = usize::MAX;
        while let Some(p) = self.entries[e].parent {
            let l = self.entries[e].label;
            if !merge_repeated || l != prev {
                out.push(l as i64);
            }
            prev = l;
            e = p;
        }
        out.reverse();
        out
    }
}

/// `CTCBeamSearchDecoder(inputs, sequence_length)` (attrs `beam_width` and `top_paths`,
/// each at least 1, `merge_repeated` = true, `T` float32 or float64): for logits `inputs [max_time,
/// batch, num_classes]` (the blank the last class) and int32 `sequence_length [batch]`,
/// TensorFlow's beam search keeping `beam_width` prefixes over each sequence's first
/// `sequence_length[b]` steps. Outputs, `top_paths` of each: `decoded_indices [n, 2]`, then
/// `decoded_values [n]`, then `decoded_shape [2]` (int64 sparse tensors of the best paths,
/// most probable first; `merge_repeated` merges equal neighbouring labels of a path, as
/// TensorFlow does), then `log_probability [batch, top_paths]` (each path's log
/// probability). Errors (TensorFlow's): inputs not of rank 3 or empty,
/// `sequence_length` not a vector (`InvalidArgument`), of the wrong size or a sequence
/// longer than `max_time` (`FailedPrecondition`), `top_paths` above `beam_width`
/// (`requested more paths than the beam width.`) or above the leaves found. No gradient.
pub struct CtcBeamSearchDecoder;

impl RegisteredOp for CtcBeamSearchDecoder {
    fn op_type(&self) -> &'static str {
        "CTCBeamSearchDecoder"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let (t, batch) = super::ctc_greedy::infer_decoder_inputs(ctx, false)?;
        let top = ctx.node.attr_int_or("top_paths", 1)?;
        if top < 1 {
            return Err(Error::invalid_argument(format!("top_paths must be at least 1, got {top}")));
        }
        let top = top as usize;
        let mut out = Vec::with_capacity(3 * top + 1);
        out.extend((0..top).map(|_| (DType::Int64, Shape::partial(&[None, Some(2)]))));
        out.extend((0..top).map(|_| (DType::Int64, Shape::partial(&[None]))));
        out.extend((0..top).map(|_| (DType::Int64, Shape::known(&[2]))));
        out.push((t, Shape::partial(&[batch, Some(top)])));
        Ok(out)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        if !matches!(t, DType::Float | DType::Double) {
            return Err(Error::invalid_argument(format!(
                "CTCBeamSearchDecoder {} supports float32 and float64, not {t}",
                node.name
            )));
        }
        let width = node.attr_int_or("beam_width", 0)?;
        let top = node.attr_int_or("top_paths", 0)?;
        if width < 1 || top < 1 {
            return Err(Error::invalid_argument(format!(
                "CTCBeamSearchDecoder {}: beam_width and top_paths must be at least 1, got {width} and {top}",
                node.name
            )));
        }
        Ok(Box::new(BeamKernel {
            width: width as usize,
            top: top as usize,
            merge_repeated: node.attr_bool_or("merge_repeated", true)?,
        }))
    }
}

/// One batch element's decoded paths, most probable first.
type Paths = Vec<Vec<i64>>;

struct BeamKernel {
    width: usize,
    top: usize,
    merge_repeated: bool,
}

impl BeamKernel {
    /// Each batch element's best paths and their log probabilities.
    fn decode<T: Real>(&self, x: &[T], shape: [usize; 3], seq: &[i32]) -> Result<(Vec<Paths>, Vec<f64>)> {
        let [_, batch, classes] = shape;
        let mut paths = Vec::with_capacity(batch);
        let mut log_probs = Vec::with_capacity(batch * self.top);
        for (b, &len) in seq.iter().enumerate() {
            let mut s = Search::<T>::new(self.width);
            for t in 0..len.max(0) as usize {
                s.step(&x[(t * batch + b) * classes..(t * batch + b + 1) * classes]);
            }
            if self.top > self.width {
                return Err(Error::invalid_argument("requested more paths than the beam width."));
            }
            if self.top > s.leaves.len() {
                return Err(Error::invalid_argument("Less leaves in the beam search than requested."));
            }
            let best = s.extract();
            let mut pb = Vec::with_capacity(self.top);
            for &e in best.iter().take(self.top) {
                pb.push(s.labels(e, self.merge_repeated));
                log_probs.push(s.total(e).to_f64());
            }
            paths.push(pb);
        }
        Ok((paths, log_probs))
    }
}

impl Kernel for BeamKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, sl) = (ctx.input(0), ctx.input(1));
        let &[max_time, batch, classes] = x.shape() else {
            return Err(Error::invalid_argument("inputs is not a 3-Tensor"));
        };
        if x.num_elements() == 0 {
            return Err(Error::invalid_argument("inputs must not be empty"));
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
        let shape = [max_time, batch, classes];
        let (paths, log_probs) = match x.dtype() {
            DType::Double => self.decode(x.as_slice::<f64>()?, shape, seq)?,
            _ => self.decode(x.as_slice::<f32>()?, shape, seq)?,
        };
        let mut indices = Vec::with_capacity(self.top);
        let mut values = Vec::with_capacity(self.top);
        let mut shapes = Vec::with_capacity(self.top);
        for p in 0..self.top {
            let n: usize = paths.iter().map(|pb| pb[p].len()).sum();
            let mut ind = Vec::with_capacity(2 * n);
            let mut val = Vec::with_capacity(n);
            for (b, pb) in paths.iter().enumerate() {
                for (t, &k) in pb[p].iter().enumerate() {
                    ind.extend([b as i64, t as i64]);
                    val.push(k);
                }
            }
            let longest = paths.iter().map(|pb| pb[p].len()).max().unwrap_or(0) as i64;
            indices.push(Tensor::new(&[n, 2], ind)?);
            values.push(Tensor::new(&[n], val)?);
            shapes.push(Tensor::new(&[2], vec![batch as i64, longest])?);
        }
        let mut out = indices;
        out.extend(values);
        out.extend(shapes);
        out.push(Tensor::from_f64(x.dtype(), &[batch, self.top], &log_probs)?);
        Ok(out)
    }
}

/// `tf.nn.ctc_beam_search_decoder`'s op: a `CTCBeamSearchDecoder` node (see
/// [`CtcBeamSearchDecoder`]) of time-major float `inputs` and int32 `sequence_length`;
/// its outputs are `top_paths` decoded indices, then as many values, then as many shapes,
/// then `log_probability`. Errors: `InvalidArgument` for inputs of the wrong dtypes or ranks.
pub fn ctc_beam_search_decoder(
    s: &Scope,
    inputs: &Output,
    sequence_length: &Output,
    beam_width: i64,
    top_paths: i64,
    merge_repeated: bool,
) -> Result<Operation> {
    s.op("CTCBeamSearchDecoder", "CTCBeamSearchDecoder")
        .input(inputs)
        .input(sequence_length)
        .attr("T", inputs.dtype())
        .attr("beam_width", beam_width)
        .attr("top_paths", top_paths)
        .attr("merge_repeated", merge_repeated)
        .build()
}
