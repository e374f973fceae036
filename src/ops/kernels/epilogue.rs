//! What a fused matrix product (`_FusedConv2D`, `_FusedMatMul`, and the depthwise
//! `_FusedDepthwiseConv2dNative`) does to its output while it writes it: a bias added, or an
//! inference batch normalisation applied, per output column, then an activation, applied to
//! each block of the output right after the block's product, on the thread that computed it
//! (no intermediate tensor, no second pass over the whole output).

use super::Float;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The activation a fused product applies after its bias, as TensorFlow's `fused_ops`
/// names them; each computes what the op of the same name computes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Activation {
    /// No activation (`fused_ops = ["BiasAdd"]`).
    Identity,
    /// `Relu`: `max(x, 0)`.
    Relu,
    /// `Relu6`: `min(max(x, 0), 6)`.
    Relu6,
    /// `Elu`: `x < 0 ? exp(x) - 1 : x`.
    Elu,
    /// `LeakyRelu` with its `alpha`: `x > 0 ? x : alpha * x`.
    LeakyRelu(f32),
}

impl Activation {
    /// The activation of a `fused_ops` entry (`Relu`, `Relu6`, `Elu`, `LeakyRelu`), with
    /// `alpha` for `LeakyRelu`; `None` for other names.
    pub fn from_name(name: &str, alpha: f32) -> Option<Activation> {
        Some(match name {
            "Relu" => Activation::Relu,
            "Relu6" => Activation::Relu6,
            "Elu" => Activation::Elu,
            "LeakyRelu" => Activation::LeakyRelu(alpha),
            _ => return None,
        })
    }

    /// Applies the activation to `v` in place. Relu and Relu6 store a select for every
    /// element (no branch), so the loops vectorise.
    #[inline(always)]
    pub fn apply<T: Float>(self, v: &mut [T]) {
        match self {
            Activation::Identity => {}
            Activation::Relu => v.iter_mut().for_each(|x| *x = if *x < T::ZERO { T::ZERO } else { *x }),
            Activation::Relu6 => {
                let six = T::from_f64(6.0);
                v.iter_mut().for_each(|x| {
                    let low = if *x < T::ZERO { T::ZERO } else { *x };
                    *x = if *x > six { six } else { low }
                })
            }
            Activation::Elu => v.iter_mut().for_each(|x| {
                if *x < T::ZERO {
                    *x = x.exp() - T::ONE
                }
            }),
            Activation::LeakyRelu(alpha) => {
                let a = T::from_f64(alpha as f64);
                v.iter_mut().for_each(|x| {
                    // x > 0 ? x : alpha * x (NaN takes the alpha branch, as LeakyRelu's kernel)
                    if (*x).partial_cmp(&T::ZERO) != Some(std::cmp::Ordering::Greater) {
                        *x = a * *x
                    }
                })
            }
        }
    }
}

/// A batch normalisation with known statistics, per channel `c`:
/// `y = (x - mean[c]) * k[c] + offset[c]` in `T`'s own arithmetic, with
/// `k = scale / sqrt(variance + epsilon)` computed in float64 and rounded once to `T`.
/// `FusedBatchNorm`/`V2`/`V3` compute their `y` with it (float32 and float64), and a fused
/// product applies it as its epilogue (`fused_ops = ["FusedBatchNorm", ...]`), so the fused
/// op's values are bitwise the separate ops'.
#[derive(Clone, Debug, PartialEq)]
pub struct Norm<T> {
    /// `mean`, per channel.
    pub mean: Vec<T>,
    /// `scale / sqrt(variance + epsilon)`, per channel.
    pub k: Vec<T>,
    /// `offset`, per channel.
    pub offset: Vec<T>,
}

impl<T: Float> Norm<T> {
    /// The normalisation from the statistics (one value per channel each) and `epsilon`.
    pub fn from_stats(scale: &[f64], offset: &[f64], mean: &[f64], var: &[f64], epsilon: f64) -> Norm<T> {
        Norm {
            mean: mean.iter().map(|&m| T::from_f64(m)).collect(),
            k: scale.iter().zip(var).map(|(s, v)| T::from_f64(s / (v + epsilon).sqrt())).collect(),
            offset: offset.iter().map(|&o| T::from_f64(o)).collect(),
        }
    }

    /// The normalisation of `columns` output columns from the batch norm's `scale`,
    /// `offset`, `mean` and `variance` (its inputs 1 to 4, any float dtype) and `epsilon`.
    /// Errors: `InvalidArgument` when one is not 1-D with `columns` values, naming it.
    pub fn new(args: [&Tensor; 4], epsilon: f64, columns: usize) -> Result<Norm<T>> {
        let mut v = Vec::with_capacity(4);
        for (t, name) in args.into_iter().zip(["scale", "offset", "mean", "variance"]) {
            if t.rank() != 1 || t.num_elements() != columns {
                return Err(Error::invalid_argument(format!(
                    "{name} must be 1-D with the {columns} output channels, got shape {:?}",
                    t.shape()
                )));
            }
            v.push(t.to_f64_vec()?);
        }
        Ok(Norm::from_stats(&v[0], &v[1], &v[2], &v[3], epsilon))
    }

    /// How many channels it normalises.
    pub fn channels(&self) -> usize {
        self.mean.len()
    }

    /// Normalises `row` in place, whose elements are channels `c0..c0 + row.len()`.
    #[inline(always)]
    pub fn apply_row(&self, row: &mut [T], c0: usize) {
        let cols = c0..c0 + row.len();
        let per = self.mean[cols.clone()].iter().zip(&self.k[cols.clone()]).zip(&self.offset[cols]);
        for (v, ((&m, &k), &o)) in row.iter_mut().zip(per) {
            *v = (*v - m) * k + o;
        }
    }

    /// Normalises `values` in place, all of channel `c`.
    #[inline]
    pub fn apply_channel(&self, values: &mut [T], c: usize) {
        let (m, k, o) = (self.mean[c], self.k[c], self.offset[c]);
        values.iter_mut().for_each(|v| *v = (*v - m) * k + o);
    }
}

/// What a fused product applies to its output: a bias or a batch normalisation (one value
/// per output column), then an activation.
#[derive(Clone, Copy)]
pub struct Epilogue<'a, T> {
    /// Added to every row of the output (length: the output's columns).
    pub bias: Option<&'a [T]>,
    /// Applied to every row (after the bias, if both were given).
    pub norm: Option<&'a Norm<T>>,
    /// Applied last.
    pub act: Activation,
}

impl<'a, T: Float> Epilogue<'a, T> {
    /// Nothing: the plain product.
    pub fn none() -> Self {
        Epilogue { bias: None, norm: None, act: Activation::Identity }
    }

    /// A bias, then `act`.
    pub fn bias(bias: &'a [T], act: Activation) -> Self {
        Epilogue { bias: Some(bias), norm: None, act }
    }

    /// True when it changes nothing.
    pub fn is_plain(&self) -> bool {
        self.bias.is_none() && self.norm.is_none() && self.act == Activation::Identity
    }

    /// Applies the epilogue to `rows` rows of `cols` elements each, the output columns
    /// `j0..j0 + cols`, the first at `c` and each `ld` elements after the previous one;
    /// with 256-bit vectors where the CPU has AVX2 (the same values: no fused
    /// multiply-add). Panics as [`Epilogue::apply`].
    ///
    /// # Safety
    /// The `rows` rows are valid for reads and writes, initialised, and not accessed
    /// through any other reference meanwhile.
    pub(crate) unsafe fn apply_rows(&self, c: *mut T, ld: usize, rows: usize, cols: usize, j0: usize) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above); the rows as the caller promises
            unsafe { self.apply_rows_avx2(c, ld, rows, cols, j0) };
            return;
        }
        // SAFETY: as the caller promises
        unsafe { self.apply_rows_any(c, ld, rows, cols, j0) };
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn apply_rows_avx2(&self, c: *mut T, ld: usize, rows: usize, cols: usize, j0: usize) {
        // SAFETY: as the caller promises
        unsafe { self.apply_rows_any(c, ld, rows, cols, j0) };
    }

    #[inline(always)]
    unsafe fn apply_rows_any(&self, c: *mut T, ld: usize, rows: usize, cols: usize, j0: usize) {
        for i in 0..rows {
            // SAFETY: row i of the rows the caller promises
            self.apply(unsafe { std::slice::from_raw_parts_mut(c.add(i * ld), cols) }, j0);
        }
    }

    /// Applies the epilogue to `row`, the output columns `j0..j0 + row.len()` of one row.
    /// Panics when the bias or normalisation has fewer columns (callers check them).
    #[inline(always)]
    pub fn apply(&self, row: &mut [T], j0: usize) {
        if let Some(bias) = self.bias {
            let n = row.len();
            row.iter_mut().zip(&bias[j0..j0 + n]).for_each(|(v, &b)| *v += b);
        }
        if let Some(n) = self.norm {
            n.apply_row(row, j0);
        }
        self.act.apply(row);
    }
}

/// The arguments a fused op's `fused_ops` names before its activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FusedArgs {
    /// `"BiasAdd"`: one argument, the bias.
    BiasAdd,
    /// `"FusedBatchNorm"`: four arguments (scale, offset, mean, variance) and `epsilon`.
    BatchNorm,
    /// `"BiasAdd", "FusedBatchNorm"`: the bias, then the batch norm's four arguments
    /// (tensorgraph's own fusion, for `Conv2D` -> `BiasAdd` -> `FusedBatchNorm*` as Keras
    /// writes a convolution with `use_bias=True` before its batch norm; TensorFlow's
    /// remapper leaves the batch norm separate there).
    BiasAddBatchNorm,
}

impl FusedArgs {
    /// How many arguments (`num_args`) this fusion takes.
    pub fn count(self) -> usize {
        match self {
            FusedArgs::BiasAdd => 1,
            FusedArgs::BatchNorm => 4,
            FusedArgs::BiasAddBatchNorm => 5,
        }
    }
}

/// A fused op's epilogue read from its arguments: the bias (a view of its tensor) and the
/// normalisation (computed once per run), for [`Epilogue`]s that borrow them.
pub struct EpilogueArgs<'a, T> {
    bias: Option<&'a [T]>,
    norm: Option<Norm<T>>,
    act: Activation,
}

impl<'a, T: Float> EpilogueArgs<'a, T> {
    /// Reads `args` (the fused op's inputs after the input and filter, as many as
    /// `kind.count()`) for `columns` output channels, or, when `None`, as many as the first
    /// argument has (the caller checks them against its filter).
    /// Errors: `InvalidArgument` when an argument is not 1-D with that many values, naming it.
    pub fn new(
        kind: FusedArgs,
        args: &'a [Tensor],
        epsilon: f64,
        columns: Option<usize>,
        act: Activation,
    ) -> Result<Self> {
        if args.len() != kind.count() {
            return Err(Error::invalid_argument(format!(
                "expects {} fused arguments, got {}",
                kind.count(),
                args.len()
            )));
        }
        let columns = columns.unwrap_or_else(|| args[0].num_elements());
        let (bias, stats) = match kind {
            FusedArgs::BiasAdd => (Some(&args[0]), None),
            FusedArgs::BatchNorm => (None, Some(args)),
            FusedArgs::BiasAddBatchNorm => (Some(&args[0]), Some(&args[1..])),
        };
        let bias = match bias {
            Some(b) if b.rank() != 1 || b.num_elements() != columns => {
                return Err(Error::invalid_argument(format!(
                    "bias must be 1-D with the {columns} output channels, got shape {:?}",
                    b.shape()
                )));
            }
            Some(b) => Some(b.as_slice::<T>()?),
            None => None,
        };
        let norm = match stats {
            Some(s) => Some(Norm::new([&s[0], &s[1], &s[2], &s[3]], epsilon, columns)?),
            None => None,
        };
        Ok(EpilogueArgs { bias, norm, act })
    }

    /// The epilogue: the bias, then the normalisation, then the activation.
    pub fn epilogue(&self) -> Epilogue<'_, T> {
        Epilogue { bias: self.bias, norm: self.norm.as_ref(), act: self.act }
    }
}

/// Reads a fused op's `fused_ops`: `["BiasAdd"]` or `["BiasAdd", A]` for an activation `A`
/// of [`Activation::from_name`] (`A`'s alpha from `leakyrelu_alpha`) with `num_args` 1 and,
/// when `batch_norm` is allowed, `["FusedBatchNorm"]` or `["FusedBatchNorm", A]` with
/// `num_args` 4, and `["BiasAdd", "FusedBatchNorm"]` (+ `A`) with 5. Errors:
/// `Unimplemented` for other fusions (`Add`, ...), naming the node and its `fused_ops`.
pub(crate) fn read_fused_ops(node: &crate::graph::Node, batch_norm: bool) -> Result<(FusedArgs, Activation)> {
    use crate::graph::AttrValue;
    let ops: Vec<String> = match node.attrs.get("fused_ops") {
        Some(AttrValue::ListString(v)) => v.iter().map(|s| String::from_utf8_lossy(s).into_owned()).collect(),
        _ => Vec::new(),
    };
    let names: Vec<&str> = ops.iter().map(String::as_str).collect();
    let alpha = node.attr_float_or("leakyrelu_alpha", 0.2)?;
    let num_args = node.attr_int_or("num_args", 0)?;
    let (args, rest) = match names.as_slice() {
        ["BiasAdd", "FusedBatchNorm", rest @ ..] if batch_norm => (Some(FusedArgs::BiasAddBatchNorm), rest),
        ["BiasAdd", rest @ ..] => (Some(FusedArgs::BiasAdd), rest),
        ["FusedBatchNorm", rest @ ..] if batch_norm => (Some(FusedArgs::BatchNorm), rest),
        rest => (None, rest),
    };
    let act = match rest {
        [] => Some(Activation::Identity),
        [a] => Activation::from_name(a, alpha),
        _ => None,
    };
    match (args, act) {
        (Some(args), Some(act)) if num_args == args.count() as i64 => Ok((args, act)),
        _ => Err(Error::unimplemented(format!(
            "{} '{}' with fused_ops {ops:?} and num_args {num_args}: tensorgraph runs [\"BiasAdd\"] and [\"BiasAdd\", A] with one argument (the bias){}, for A in Relu, Relu6, Elu, LeakyRelu",
            node.op_type,
            node.name,
            if batch_norm { ", [\"FusedBatchNorm\"] and [\"FusedBatchNorm\", A] with four (scale, offset, mean, variance), and [\"BiasAdd\", \"FusedBatchNorm\"] (+ A) with five (the bias, then those four)" } else { "" }
        ))),
    }
}
