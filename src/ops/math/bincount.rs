//! Counting ops: `HistogramFixedWidth` (`tf.histogram_fixed_width`) and `DenseBincount`
//! (`tf.math.bincount`'s dense kernel), as TensorFlow's CPU kernels.

use crate::error::{Error, Result};
use crate::graph::Node;
use crate::ops::array::int_values;
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&HistogramFixedWidth, &DenseBincount];

const VALUES: &[DType] = &[DType::Int32, DType::Int64, DType::Float, DType::Double];

/// `HistogramFixedWidth(values, value_range, nbins)` (attrs `T`: int32, int64, float32,
/// float64; `dtype`: int32 or int64): the counts of `values` in `nbins` equal bins over
/// `value_range = [lo, hi]`, values below `lo` counted in the first bin and from `hi` on in the
/// last; output `dtype [nbins]`. Errors: TensorFlow's messages (`value_range should satisfy
/// value_range[0] < value_range[1]`, `nbins should be a positive number`). No gradient.
pub struct HistogramFixedWidth;

impl RegisteredOp for HistogramFixedWidth {
    fn op_type(&self) -> &'static str {
        "HistogramFixedWidth"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_dtype(0, VALUES)?;
        ctx.check_dtype(2, &[DType::Int32])?;
        let out = out_dtype(ctx.node, "dtype")?;
        let n = ctx.const_input(2).and_then(|t| t.as_slice::<i32>().ok().and_then(|v| v.first().copied()));
        Ok(vec![(out, Shape::partial(&[n.filter(|&n| n > 0).map(|n| n as usize)]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(HistKernel(out_dtype(node, "dtype")?)))
    }
}

fn out_dtype(node: &Node, attr: &str) -> Result<DType> {
    let t = if node.attrs.contains_key(attr) { node.attr_type(attr)? } else { DType::Int32 };
    match t {
        DType::Int32 | DType::Int64 => Ok(t),
        t => Err(Error::invalid_argument(format!(
            "{} '{}': {attr} must be int32 or int64, got {t}",
            node.op_type, node.name
        ))),
    }
}

/// The prepared `HistogramFixedWidth`: its output dtype.
struct HistKernel(DType);

impl Kernel for HistKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (v, range, nbins) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if range.shape() != [2] {
            return Err(Error::invalid_argument("value_range should be a vector of 2 elements"));
        }
        if !nbins.shape().is_empty() {
            return Err(Error::invalid_argument("nbins should be a scalar"));
        }
        let n = nbins.as_slice::<i32>()?[0];
        if n <= 0 {
            return Err(Error::invalid_argument(format!("nbins should be a positive number, but got '{n}'")));
        }
        let r = range.to_f64_vec()?;
        if r[0] >= r[1] {
            let show = |x: f64| {
                if v.dtype() == DType::Float || v.dtype() == DType::Double {
                    format!("{x}")
                } else {
                    format!("{}", x as i64)
                }
            };
            return Err(Error::invalid_argument(format!(
                "value_range should satisfy value_range[0] < value_range[1], but got '[{}, {}]'",
                show(r[0]),
                show(r[1])
            )));
        }
        let step = (r[1] - r[0]) / n as f64;
        let mut counts = vec![0i64; n as usize];
        let f32s = v.dtype() == DType::Float;
        for x in v.to_f64_vec()? {
            // (max(x, lo) - lo) in the values' type, then as double
            let d = if f32s { ((x as f32).max(r[0] as f32) - r[0] as f32) as f64 } else { x.max(r[0]) - r[0] };
            let bin = (d / step).min(n as f64 - 1.0) as i32;
            counts[bin.max(0) as usize] += 1;
        }
        let shape = [n as usize];
        Ok(vec![match self.0 {
            DType::Int64 => Tensor::new(&shape, counts)?,
            _ => Tensor::new(&shape, counts.iter().map(|&c| c as i32).collect::<Vec<_>>())?,
        }])
    }
}

/// `DenseBincount(input, size, weights)` (attrs `Tidx`: int32 or int64; `T`: int32, int64,
/// float32, float64; `binary_output`): for 1-d `input`, `[size]` counts of each value below
/// `size` (the sum of its `weights` when `weights` has `input`'s shape, 1 when
/// `binary_output`); for 2-d `input`, one row of counts per row. Errors: TensorFlow's
/// messages (`Input arr must be non-negative!`, a negative size). No gradient.
pub struct DenseBincount;

impl RegisteredOp for DenseBincount {
    fn op_type(&self) -> &'static str {
        "DenseBincount"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_dtype(0, &[DType::Int32, DType::Int64])?;
        let t = ctx.check_dtype(2, VALUES)?;
        let size = ctx.const_input(1).and_then(|s| int_values(&s).ok()).and_then(|v| v.first().copied());
        let size = size.filter(|&s| s >= 0).map(|s| s as usize);
        let x = ctx.shape(0);
        let shape = match x.rank() {
            Some(1) => Shape::partial(&[size]),
            Some(2) => Shape::partial(&[x.dim(0), size]),
            Some(r) => {
                return Err(Error::invalid_argument(format!(
                    "Shape must be at most rank 2 but is rank {r} (input {x})"
                )))
            }
            None => Shape::unknown(),
        };
        Ok(vec![(t, shape)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(BincountKernel { binary: node.attr_bool_or("binary_output", false)? }))
    }
}

/// The prepared `DenseBincount`.
struct BincountKernel {
    binary: bool,
}

impl Kernel for BincountKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, size, w) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if !size.shape().is_empty() {
            return Err(Error::invalid_argument(format!(
                "Shape must be rank 0 but is rank {} (size)",
                size.shape().len()
            )));
        }
        let size = int_values(size)?[0];
        if size < 0 {
            return Err(Error::invalid_argument(format!("size ({size}) must be non-negative")));
        }
        let (rows, cols) = match *x.shape() {
            [n] => (1, n),
            [b, n] => (b, n),
            _ => return Err(Error::invalid_argument("Input must be a 1 or 2-dimensional tensor")),
        };
        let weighted = w.num_elements() > 0;
        if weighted && w.shape() != x.shape() {
            return Err(Error::invalid_argument("Input and weights must have the same shape."));
        }
        let xv = int_values(x)?;
        if xv.iter().any(|&v| v < 0) {
            return Err(Error::invalid_argument("Input arr must be non-negative!"));
        }
        let wv = if weighted { w.to_f64_vec()? } else { Vec::new() };
        let size = size as usize;
        let mut out = vec![0f64; rows * size];
        for r in 0..rows {
            for c in 0..cols {
                let v = xv[r * cols + c] as usize;
                if v < size {
                    let o = &mut out[r * size + v];
                    if self.binary {
                        *o = 1.0;
                    } else {
                        *o += if weighted { wv[r * cols + c] } else { 1.0 };
                    }
                }
            }
        }
        let shape = if x.shape().len() == 1 { vec![size] } else { vec![rows, size] };
        Ok(vec![Tensor::from_f64(w.dtype(), &shape, &out)?])
    }
}
