//! `NonMaxSuppressionV3`, `V4` and `V5` (`tf.image.non_max_suppression`,
//! `non_max_suppression_padded`, `non_max_suppression_with_scores`): the boxes kept, best
//! score first, dropping those that overlap a kept box too much (or, V5 with
//! `soft_nms_sigma > 0`, lowering their scores).

use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::checks::debug_string;
use crate::ops::array::int_values;
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

pub(crate) static DEFS: &[&dyn RegisteredOp] = &[&NonMaxSuppression(3), &NonMaxSuppression(4), &NonMaxSuppression(5)];

const FLOATS: &[DType] = &[DType::Half, DType::Float];

/// `NonMaxSuppressionV3(boxes, scores, max_output_size, iou_threshold, score_threshold)`,
/// `V4` (same inputs, attr `pad_to_max_output_size`, outputs `selected_indices` and
/// `valid_outputs`) and `V5` (input `soft_nms_sigma` added, outputs `selected_indices`,
/// `selected_scores`, `valid_outputs`). `boxes` `[num_boxes, 4]` (corners `y1, x1, y2, x2`
/// in any order) and `scores` `[num_boxes]` are float32 or half (attr `T`), the thresholds
/// 0-d of `T_threshold` (V3/V4) or `T` (V5), `max_output_size` a 0-d int32. As TensorFlow's
/// kernel: candidates scoring above `score_threshold`, best first (ties: lower index
/// first); a candidate whose IoU with a kept box is above `iou_threshold` is dropped
/// (with soft NMS its score is multiplied by `exp(-0.5 * iou² / sigma)` instead and it
/// goes back in the queue while above `score_threshold`); at most `max_output_size` kept.
/// Padded outputs hold zeros after the `valid_outputs` kept ones. Errors
/// (`InvalidArgument`, TensorFlow's texts): `boxes must be 2-D[4]`, `boxes must have 4
/// columns`, `scores must be 1-D[1,1]`, `scores has incompatible shape`, `max_output_size
/// must be 0-D, got shape [1]` (and the thresholds'), `iou_threshold must be in [0, 1]`,
/// `soft_nms_sigma_val must be >= 0`, `output size must be non-negative`. No gradient.
pub struct NonMaxSuppression(pub u8);

impl NonMaxSuppression {
    fn padded(&self, node: &Node) -> Result<bool> {
        if self.0 == 3 {
            Ok(false)
        } else {
            node.attr_bool_or("pad_to_max_output_size", false)
        }
    }
}

impl RegisteredOp for NonMaxSuppression {
    fn op_type(&self) -> &'static str {
        match self.0 {
            3 => "NonMaxSuppressionV3",
            4 => "NonMaxSuppressionV4",
            _ => "NonMaxSuppressionV5",
        }
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(if self.0 == 5 { 6 } else { 5 })?;
        let t = ctx.check_dtype(0, FLOATS)?;
        ctx.check_type_attr("T", 0)?;
        ctx.check_dtype(1, FLOATS)?;
        ctx.check_dtype(2, &[DType::Int32])?;
        let (b, s) = (ctx.shape(0), ctx.shape(1));
        let rank = |sh: &Shape, r: usize| match sh.rank() {
            Some(got) if got != r => Err(Error::invalid_argument(format!("Shape must be rank {r} but is rank {got}"))),
            _ => Ok(()),
        };
        rank(b, 2)?;
        rank(s, 1)?;
        for i in 2..ctx.inputs.len() {
            rank(ctx.shape(i), 0)?;
        }
        if let Some(d) = b.dim(1).filter(|&d| d != 4) {
            return Err(Error::invalid_argument(format!("Dimension must be 4 but is {d}")));
        }
        if let (Some(x), Some(y)) = (b.dim(0), s.dim(0)) {
            if x != y {
                return Err(Error::invalid_argument(format!("Dimensions must be equal, but are {x} and {y}")));
            }
        }
        let n = if self.padded(ctx.node)? {
            ctx.const_input(2).and_then(|m| int_values(&m).ok()).and_then(|v| v.first().map(|&m| m.max(0) as usize))
        } else {
            None
        };
        let idx = (DType::Int32, Shape::partial(&[n]));
        let valid = (DType::Int32, Shape::scalar());
        Ok(match self.0 {
            3 => vec![idx],
            4 => vec![idx, valid],
            _ => vec![idx, (t, Shape::partial(&[n])), valid],
        })
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(NmsKernel { version: self.0, pad: self.padded(node)?, dtype: node.attr_type("T")? }))
    }
}

struct NmsKernel {
    version: u8,
    pad: bool,
    dtype: DType,
}

fn scalar(t: &Tensor, what: &str, shape_note: bool) -> Result<f32> {
    if t.rank() != 0 {
        let note = if shape_note { format!(" (Shape must be rank 0 but is rank {})", t.rank()) } else { String::new() };
        return Err(Error::invalid_argument(format!(
            "{what} must be 0-D, got shape {}{note}",
            debug_string(&Shape::known(t.shape()))
        )));
    }
    Ok(t.to_f64_vec()?[0] as f32)
}

/// The IoU of boxes `a` and `b` (TensorFlow's `IOU`: 0 when either has no area).
fn iou(a: &[f32], b: &[f32]) -> f32 {
    let (ay0, ax0, ay1, ax1) = (a[0].min(a[2]), a[1].min(a[3]), a[0].max(a[2]), a[1].max(a[3]));
    let (by0, bx0, by1, bx1) = (b[0].min(b[2]), b[1].min(b[3]), b[0].max(b[2]), b[1].max(b[3]));
    let (area_a, area_b) = ((ay1 - ay0) * (ax1 - ax0), (by1 - by0) * (bx1 - bx0));
    if area_a <= 0.0 || area_b <= 0.0 {
        return 0.0;
    }
    let ih = (ay1.min(by1) - ay0.max(by0)).max(0.0);
    let iw = (ax1.min(bx1) - ax0.max(bx0)).max(0.0);
    let inter = ih * iw;
    inter / (area_a + area_b - inter)
}

/// A queued box: higher score first, then lower index.
#[derive(Clone, Copy)]
struct Candidate {
    index: usize,
    score: f32,
    suppress_begin: usize,
}

impl PartialEq for Candidate {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Candidate {
    fn cmp(&self, o: &Self) -> Ordering {
        self.score.partial_cmp(&o.score).unwrap_or(Ordering::Equal).then(o.index.cmp(&self.index))
    }
}

impl Kernel for NmsKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (boxes, scores) = (ctx.input(0), ctx.input(1));
        let max_out = ctx.input(2);
        if max_out.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "max_output_size must be 0-D, got shape {} (Shape must be rank 0 but is rank {})",
                debug_string(&Shape::known(max_out.shape())),
                max_out.rank()
            )));
        }
        let iou_threshold = scalar(ctx.input(3), "iou_threshold", true)?;
        if !(0.0..=1.0).contains(&iou_threshold) {
            return Err(Error::invalid_argument("iou_threshold must be in [0, 1]"));
        }
        let score_threshold = scalar(ctx.input(4), "score_threshold", false)?;
        let sigma = if self.version == 5 { scalar(ctx.input(5), "soft_nms_sigma", false)? } else { 0.0 };
        if sigma < 0.0 {
            return Err(Error::invalid_argument("soft_nms_sigma_val must be >= 0"));
        }
        if boxes.rank() != 2 {
            return Err(Error::invalid_argument(format!(
                "boxes must be 2-D{} (Shape must be rank 2 but is rank {})",
                debug_string(&Shape::known(boxes.shape())),
                boxes.rank()
            )));
        }
        let n = boxes.shape()[0];
        if boxes.shape()[1] != 4 {
            return Err(Error::invalid_argument(format!(
                "boxes must have 4 columns (Dimension must be 4 but is {})",
                boxes.shape()[1]
            )));
        }
        if scores.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "scores must be 1-D{} (Shape must be rank 1 but is rank {})",
                debug_string(&Shape::known(scores.shape())),
                scores.rank()
            )));
        }
        if scores.shape()[0] != n {
            return Err(Error::invalid_argument(format!(
                "scores has incompatible shape (Dimensions must be equal, but are {n} and {})",
                scores.shape()[0]
            )));
        }
        let max_out = int_values(max_out)?[0];
        if max_out < 0 {
            return Err(Error::invalid_argument("output size must be non-negative"));
        }
        let max_out = max_out as usize;
        let b: Vec<f32> = boxes.to_f64_vec()?.into_iter().map(|v| v as f32).collect();
        let s: Vec<f32> = scores.to_f64_vec()?.into_iter().map(|v| v as f32).collect();
        let soft = sigma > 0.0;
        let scale = if soft { -0.5 / sigma } else { 0.0 };
        let weight = |sim: f32| if soft || sim <= iou_threshold { (scale * sim * sim).exp() } else { 0.0 };
        let mut queue: BinaryHeap<Candidate> = (0..n)
            .filter(|&i| s[i] > score_threshold)
            .map(|i| Candidate { index: i, score: s[i], suppress_begin: 0 })
            .collect();
        let (mut selected, mut selected_scores) = (Vec::<i32>::new(), Vec::<f64>::new());
        while selected.len() < max_out {
            let Some(mut next) = queue.pop() else { break };
            let original = next.score;
            let mut hard = false;
            for j in (next.suppress_begin..selected.len()).rev() {
                let k = selected[j] as usize;
                let sim = iou(&b[next.index * 4..next.index * 4 + 4], &b[k * 4..k * 4 + 4]);
                next.score *= weight(sim);
                if !soft && sim > iou_threshold {
                    hard = true;
                    break;
                }
                if next.score <= score_threshold {
                    break;
                }
            }
            next.suppress_begin = selected.len();
            if hard {
                continue;
            }
            if next.score == original {
                selected.push(next.index as i32);
                selected_scores.push(next.score as f64);
            } else if next.score > score_threshold {
                queue.push(next);
            }
        }
        let valid = selected.len() as i32;
        if self.pad {
            selected.resize(max_out, 0);
            selected_scores.resize(max_out, 0.0);
        }
        let k = selected.len();
        let idx = Tensor::new(&[k], selected)?;
        Ok(match self.version {
            3 => vec![idx],
            4 => vec![idx, Tensor::scalar(valid)],
            _ => vec![idx, Tensor::from_f64(self.dtype, &[k], &selected_scores)?, Tensor::scalar(valid)],
        })
    }
}

/// `tf.image.non_max_suppression(boxes, scores, max_output_size, iou_threshold,
/// score_threshold)`: op `NonMaxSuppressionV3`, default name `NonMaxSuppressionV3`; the
/// kept boxes' indices (int32). See [`NonMaxSuppression`].
pub fn non_max_suppression_v3(
    s: &Scope,
    boxes: &Output,
    scores: &Output,
    max_output_size: &Output,
    iou_threshold: &Output,
    score_threshold: &Output,
) -> Result<Output> {
    s.op("NonMaxSuppressionV3", "NonMaxSuppressionV3")
        .input(boxes)
        .input(scores)
        .input(max_output_size)
        .input(iou_threshold)
        .input(score_threshold)
        .attr("T", boxes.dtype())
        .attr("T_threshold", iou_threshold.dtype())
        .build_output()
}

/// `tf.image.non_max_suppression_with_scores(...)`: op `NonMaxSuppressionV5`, default name
/// `NonMaxSuppressionV5`; outputs `selected_indices`, `selected_scores`, `valid_outputs`.
/// See [`NonMaxSuppression`].
#[allow(clippy::too_many_arguments)]
pub fn non_max_suppression_v5(
    s: &Scope,
    boxes: &Output,
    scores: &Output,
    max_output_size: &Output,
    iou_threshold: &Output,
    score_threshold: &Output,
    soft_nms_sigma: &Output,
    pad_to_max_output_size: bool,
) -> Result<Vec<Output>> {
    let op = s
        .op("NonMaxSuppressionV5", "NonMaxSuppressionV5")
        .input(boxes)
        .input(scores)
        .input(max_output_size)
        .input(iou_threshold)
        .input(score_threshold)
        .input(soft_nms_sigma)
        .attr("T", boxes.dtype())
        .attr("pad_to_max_output_size", pad_to_max_output_size)
        .build()?;
    (0..3).map(|i| op.output(i)).collect()
}
