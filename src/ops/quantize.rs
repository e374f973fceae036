//! Quantization (TensorFlow's `array_ops` `QuantizeV2` and `Dequantize`): float32 values
//! to the quantized types qint8, quint8, qint16, quint16, qint32 and back, in TensorFlow's
//! three modes (`MIN_COMBINED`, `MIN_FIRST`, `SCALED`), per tensor or per slice along
//! `axis`. The arithmetic is TensorFlow's CPU kernels' (float32 with the same roundings), so
//! the results are bit for bit TensorFlow's. Other quantized ops (`QuantizedMatMul`, ...)
//! are not registered: they import as unknown ops and stay off the run path.

use super::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::tensor::{DType, Element, QInt16, QInt32, QInt8, QUInt16, QUInt8, Shape, Tensor};
use half::bf16;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&QuantizeV2, &Dequantize];

/// A quantized element type: its integer range and conversions.
trait Quantized: Element {
    const LOWEST: i64;
    const HIGHEST: i64;
    const BITS: u32;
    /// `x` cast as C++ casts a float in range (toward zero).
    fn from_f32(x: f32) -> Self;
    fn to_i64(self) -> i64;
}

macro_rules! quantized {
    ($q:ident, $int:ty) => {
        impl Quantized for $q {
            const LOWEST: i64 = <$int>::MIN as i64;
            const HIGHEST: i64 = <$int>::MAX as i64;
            const BITS: u32 = <$int>::BITS;
            fn from_f32(x: f32) -> Self {
                $q(x as i64 as $int)
            }
            fn to_i64(self) -> i64 {
                self.0 as i64
            }
        }
    };
}
quantized!(QInt8, i8);
quantized!(QUInt8, u8);
quantized!(QInt16, i16);
quantized!(QUInt16, u16);
quantized!(QInt32, i32);

/// `mode` of both ops.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    MinCombined,
    MinFirst,
    Scaled,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::MinCombined => "MIN_COMBINED",
            Mode::MinFirst => "MIN_FIRST",
            Mode::Scaled => "SCALED",
        }
    }
}

fn string_attr(node: &Node, name: &str, default: &str) -> Result<String> {
    match node.attrs.get(name) {
        None => Ok(default.to_string()),
        Some(AttrValue::String(s)) => Ok(String::from_utf8_lossy(s).into_owned()),
        Some(v) => Err(Error::invalid_argument(format!(
            "attr '{name}' of node {} ({}) should be a string, got {v:?}",
            node.name, node.op_type
        ))),
    }
}

fn mode_attr(node: &Node) -> Result<Mode> {
    match string_attr(node, "mode", "MIN_COMBINED")?.as_str() {
        "MIN_COMBINED" => Ok(Mode::MinCombined),
        "MIN_FIRST" => Ok(Mode::MinFirst),
        "SCALED" => Ok(Mode::Scaled),
        other => Err(Error::invalid_argument(format!(
            "Attr 'mode' of '{}' Op passed string '{other}' not in: \"MIN_COMBINED\", \"MIN_FIRST\", \"SCALED\".",
            node.op_type
        ))),
    }
}

/// The `axis` attr, checked: -1 (the whole tensor) or a dimension.
fn axis_attr(node: &Node) -> Result<i64> {
    let axis = node.attr_int_or("axis", -1)?;
    if axis < -1 {
        return Err(Error::invalid_argument(format!("axis should be at least -1, got {axis} (node {})", node.name)));
    }
    Ok(axis)
}

/// Shape function of both ops (TensorFlow's `QuantizeV2Shape`): `min_range` and
/// `max_range` are scalars for `axis` -1, else vectors as long as the input's `axis`
/// dimension; returns the shape of the range outputs.
fn range_shapes(ctx: &InferCtx, axis: i64) -> Result<Shape> {
    let shapes = || {
        let s: Vec<String> = ctx.inputs.iter().map(|(_, s)| s.to_string()).collect();
        s.join(", ")
    };
    let want_rank = if axis == -1 { 0 } else { 1 };
    for i in [1, 2] {
        if let Some(r) = ctx.shape(i).rank() {
            if r != want_rank {
                return Err(Error::invalid_argument(format!(
                    "Shape must be rank {want_rank} but is rank {r} for '{}' ({}) with input shapes: {}",
                    ctx.node.name,
                    ctx.node.op_type,
                    shapes()
                )));
            }
        }
    }
    if axis == -1 {
        return Ok(Shape::scalar());
    }
    let axis = axis as usize;
    if let Some(r) = ctx.shape(0).rank() {
        if r <= axis {
            return Err(Error::invalid_argument(format!(
                "Shape must be at least rank {} but is rank {r} for '{}' ({}) with input shapes: {}",
                axis + 1,
                ctx.node.name,
                ctx.node.op_type,
                shapes()
            )));
        }
    }
    let mut dim = ctx.shape(0).dims().and_then(|d| d[axis]);
    for i in [1, 2] {
        match (dim, ctx.shape(i).dim(0)) {
            (Some(a), Some(b)) if a != b => {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {b} and {a} for '{}' ({}) with input shapes: {}",
                    ctx.node.name,
                    ctx.node.op_type,
                    shapes()
                )))
            }
            (None, Some(b)) => dim = Some(b),
            _ => {}
        }
    }
    Ok(Shape::partial(&[dim]))
}

/// The input's elements split by `axis`: (slices, elements between consecutive slices'
/// runs); element `i` is in slice `(i / post) % slices`. `axis` -1: one slice.
fn slicing(shape: &[usize], axis: i64, range: &Tensor, what: &str) -> Result<(usize, usize)> {
    if axis == -1 {
        if range.num_elements() != 1 {
            return Err(Error::invalid_argument(format!(
                "If axis is not specified, {what} must contain a single float element, but it contains {} elements",
                range.num_elements()
            )));
        }
        return Ok((1, 1));
    }
    let axis = axis as usize;
    if axis >= shape.len() {
        return Err(Error::invalid_argument(format!(
            "Axis is on a zero-based index, so its value must always be less than number of input's dims, but given axis value was {axis} and input's dims was {}",
            shape.len()
        )));
    }
    let n = shape[axis];
    if range.rank() != 1 || range.num_elements() != n {
        return Err(Error::invalid_argument(format!(
            "If axis is specified, {what} must be a 1-D tensor whose size matches the axis dimension of the input and output tensors, but {what} is a {}-D tensor of size {} and input's axis dimension is of size {n}",
            range.rank(),
            range.num_elements()
        )));
    }
    Ok((n, shape[axis + 1..].iter().product()))
}

/// The float32 values of a `min_range`/`max_range` input.
fn floats(t: &Tensor, what: &str) -> Result<Vec<f32>> {
    t.to_vec::<f32>().map_err(|_| Error::invalid_argument(format!("{what} must be float32, got {}", t.dtype())))
}

/// `QuantizeV2(input, min_range, max_range)` (attrs `T` one of qint8, quint8, qint32,
/// qint16, quint16; `mode` MIN_COMBINED (default), MIN_FIRST or SCALED; `round_mode`
/// HALF_AWAY_FROM_ZERO (default) or HALF_TO_EVEN (SCALED only); `narrow_range` (SCALED:
/// leave out the type's lowest value); `axis` (-1: one range for the whole tensor, else one
/// per slice along that dimension; not with MIN_FIRST); `ensure_minimum_range` (0.01)):
/// float32 `input` quantized to `T` of the same shape, and the float32 range the values
/// stand for (`output_min`, `output_max`: scalars, or vectors per slice). The given range
/// is widened to hold 0 and to be at least `ensure_minimum_range` wide, as TensorFlow does.
/// Errors (`InvalidArgument`, TensorFlow's words): `max_range` below `min_range`
/// ("input_max_range must be larger than input_min_range."), range tensors of the wrong
/// size for `axis`, an `axis` beyond the input's rank, HALF_TO_EVEN outside SCALED;
/// `Unimplemented` for MIN_FIRST with an `axis`. No gradient (TensorFlow has none).
pub struct QuantizeV2;
impl RegisteredOp for QuantizeV2 {
    fn op_type(&self) -> &'static str {
        "QuantizeV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        let t = ctx.node.attr_type("T")?;
        let ranges = range_shapes(ctx, axis_attr(ctx.node)?)?;
        Ok(vec![(t, ctx.shape(0).clone()), (DType::Float, ranges.clone()), (DType::Float, ranges)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let mode = mode_attr(node)?;
        let half_to_even = match string_attr(node, "round_mode", "HALF_AWAY_FROM_ZERO")?.as_str() {
            "HALF_AWAY_FROM_ZERO" => false,
            "HALF_TO_EVEN" if mode == Mode::Scaled => true,
            "HALF_TO_EVEN" => {
                return Err(Error::invalid_argument(format!(
                    "Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but mode is '{}'.",
                    mode.name()
                )))
            }
            other => {
                return Err(Error::invalid_argument(format!(
                    "Round mode string must be 'HALF_AWAY_FROM_ZERO' or 'HALF_TO_EVEN', is '{other}'"
                )))
            }
        };
        let params = QuantizeParams {
            mode,
            half_to_even,
            narrow_range: node.attr_bool_or("narrow_range", false)?,
            axis: axis_attr(node)?,
            ensure_minimum_range: node.attr_float_or("ensure_minimum_range", 0.01)?,
        };
        let t = node.attr_type("T")?;
        let f: QuantizeFn = match t {
            DType::QInt8 => quantize::<QInt8>,
            DType::QUInt8 => quantize::<QUInt8>,
            DType::QInt16 => quantize::<QInt16>,
            DType::QUInt16 => quantize::<QUInt16>,
            DType::QInt32 => quantize::<QInt32>,
            other => {
                return Err(Error::invalid_argument(format!(
                    "QuantizeV2 quantizes to qint8, quint8, qint16, quint16 or qint32, not {other} (node {})",
                    node.name
                )))
            }
        };
        Ok(Box::new(QuantizeKernel { params, f }))
    }
}

/// The attrs of a `QuantizeV2` node, read once.
struct QuantizeParams {
    mode: Mode,
    half_to_even: bool,
    narrow_range: bool,
    axis: i64,
    ensure_minimum_range: f32,
}

/// Quantized values (as storage) and the ranges per slice.
type QuantizedOut = (crate::tensor::Storage, Vec<f32>, Vec<f32>);

/// [`quantize`] for one dtype: (attrs, values, mins, maxs, slices, elements per slice run).
type QuantizeFn = fn(&QuantizeParams, &[f32], &[f32], &[f32], usize, usize) -> Result<QuantizedOut>;

struct QuantizeKernel {
    params: QuantizeParams,
    f: QuantizeFn,
}

impl Kernel for QuantizeKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, lo, hi) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let p = &self.params;
        let values = x.as_slice::<f32>()?;
        let (n, post) = slicing(x.shape(), p.axis, lo, "min_range")?;
        slicing(x.shape(), p.axis, hi, "max_range")?;
        if n > 1 && p.mode == Mode::MinFirst {
            return Err(Error::unimplemented("MIN_FIRST mode is not implemented for Quantize with axis != -1."));
        }
        let (storage, mins, maxs) = (self.f)(p, values, &floats(lo, "min_range")?, &floats(hi, "max_range")?, n, post)?;
        // one slice (axis -1, or an axis of size 1): scalar ranges, as TensorFlow
        let range = |v: Vec<f32>| if n == 1 { Ok(Tensor::scalar(v[0])) } else { Tensor::new(&[n], v) };
        Ok(vec![Tensor::from_storage(x.shape(), storage)?, range(mins)?, range(maxs)?])
    }
}

/// The range TensorFlow actually uses for a given one: widened to hold 0 and to be at
/// least `ensure_minimum_range` (relative to the larger magnitude, at least 1) wide.
fn adjusted_range(lo: f32, hi: f32, ensure_minimum_range: f32) -> Result<(f32, f32)> {
    if hi < lo {
        return Err(Error::invalid_argument("input_max_range must be larger than input_min_range."));
    }
    let min_range = lo.min(0.0);
    let epsilon = 1f32.max(lo.abs().max(hi.abs())) * ensure_minimum_range;
    Ok((min_range, 0f32.max(hi.max(min_range + epsilon))))
}

fn quantize<T: Quantized>(
    p: &QuantizeParams,
    x: &[f32],
    los: &[f32],
    his: &[f32],
    n: usize,
    post: usize,
) -> Result<QuantizedOut> {
    let (lowest, highest) = (T::LOWEST as f32, T::HIGHEST as f32);
    let signed = T::LOWEST < 0;
    // per slice: the element function and the output range
    let mut fns: Vec<Box<dyn Fn(f32) -> T>> = Vec::with_capacity(n);
    let (mut mins, mut maxs) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        let (min_range, max_range) = adjusted_range(los[i], his[i], p.ensure_minimum_range)?;
        let (out_min, out_max, f): (f32, f32, Box<dyn Fn(f32) -> T>) = match p.mode {
            Mode::MinCombined => {
                let scale = ((T::HIGHEST as f64 - T::LOWEST as f64) / (max_range - min_range) as f64) as f32;
                let half_range = if signed { ((T::HIGHEST as f64 - T::LOWEST as f64 + 1.0) / 2.0) as f32 } else { 0.0 };
                let f = move |v: f32| {
                    let scaled = (v.min(max_range).max(min_range) - min_range) * scale;
                    if signed {
                        T::from_f32((scaled - half_range).round())
                    } else {
                        T::from_f32(scaled + 0.5)
                    }
                };
                (min_range, max_range, Box::new(f))
            }
            Mode::MinFirst => {
                let steps = (1u64 << T::BITS) as f64;
                let scale =
                    if max_range == min_range { 0.0 } else { ((steps - 1.0) / (max_range - min_range) as f64) as f32 };
                let min_scaled = (min_range * scale).round();
                // TensorFlow's bounds that convert back to int32: -2^31 and 2^31 - 128
                let (lower, upper) = (lowest.max(i32::MIN as f32), highest.min(2_147_483_520.0));
                let f = move |v: f32| T::from_f32(((v * scale).round() - (min_scaled - lowest)).max(lower).min(upper));
                (min_range, max_range, Box::new(f))
            }
            Mode::Scaled => {
                let min_out = (T::LOWEST + i64::from(p.narrow_range)) as f32;
                let max_out = T::HIGHEST as f32;
                let from_min = if min_out * min_range > 0.0 { min_out / min_range } else { f32::MAX };
                let from_max = if max_out * max_range > 0.0 { max_out / max_range } else { f32::MAX };
                let scale = from_min.min(from_max);
                let (lo, hi) = (min_out / scale, max_out / scale);
                let even = p.half_to_even;
                let f = move |v: f32| {
                    let s = v.min(hi).max(lo) * scale;
                    T::from_f32(if even { s.round_ties_even() } else { s.round() })
                };
                (lo, hi, Box::new(f))
            }
        };
        fns.push(f);
        mins.push(out_min);
        maxs.push(out_max);
    }
    let out: Vec<T> = x.iter().enumerate().map(|(i, &v)| fns[(i / post) % n](v)).collect();
    Ok((T::into_storage(out), mins, maxs))
}

/// `Dequantize(input, min_range, max_range)` (attrs `T` the input's quantized type;
/// `mode` MIN_COMBINED (default), MIN_FIRST or SCALED; `narrow_range`; `axis` (-1: one
/// range, else one per slice; not with MIN_FIRST); `dtype` float32 (default) or bfloat16):
/// the real values quantized `input` stands for, as TensorFlow's kernel computes them in
/// float32 (then rounded to bfloat16 when asked). Errors (`InvalidArgument`): range tensors
/// of the wrong size for `axis`, an `axis` beyond the input's rank; `Unimplemented` for
/// MIN_FIRST with an `axis`. No gradient.
pub struct Dequantize;
impl RegisteredOp for Dequantize {
    fn op_type(&self) -> &'static str {
        "Dequantize"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_type_attr("T", 0)?;
        range_shapes(ctx, axis_attr(ctx.node)?)?;
        let dtype = match ctx.node.attrs.get("dtype") {
            None => DType::Float,
            Some(_) => ctx.node.attr_type("dtype")?,
        };
        Ok(vec![(dtype, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let bfloat16 = match node.attrs.get("dtype") {
            None => false,
            Some(_) => match node.attr_type("dtype")? {
                DType::Float => false,
                DType::BFloat16 => true,
                other => {
                    return Err(Error::invalid_argument(format!(
                        "Dequantize's dtype is float32 or bfloat16, not {other} (node {})",
                        node.name
                    )))
                }
            },
        };
        Ok(Box::new(DequantizeKernel {
            mode: mode_attr(node)?,
            narrow_range: node.attr_bool_or("narrow_range", false)?,
            axis: axis_attr(node)?,
            bfloat16,
        }))
    }
}

struct DequantizeKernel {
    mode: Mode,
    narrow_range: bool,
    axis: i64,
    bfloat16: bool,
}

impl Kernel for DequantizeKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, lo, hi) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let (n, post) = slicing(x.shape(), self.axis, lo, "min_range")?;
        slicing(x.shape(), self.axis, hi, "max_range")?;
        if n > 1 && self.mode == Mode::MinFirst {
            return Err(Error::unimplemented("MIN_FIRST mode is not implemented for Dequantize with axis != -1."));
        }
        let (los, his) = (floats(lo, "min_range")?, floats(hi, "max_range")?);
        let out = match x.dtype() {
            DType::QInt8 => self.dequantize::<QInt8>(x, &los, &his, n, post)?,
            DType::QUInt8 => self.dequantize::<QUInt8>(x, &los, &his, n, post)?,
            DType::QInt16 => self.dequantize::<QInt16>(x, &los, &his, n, post)?,
            DType::QUInt16 => self.dequantize::<QUInt16>(x, &los, &his, n, post)?,
            DType::QInt32 => self.dequantize::<QInt32>(x, &los, &his, n, post)?,
            other => {
                return Err(Error::invalid_argument(format!(
                    "Dequantize takes qint8, quint8, qint16, quint16 or qint32 values, not {other}"
                )))
            }
        };
        if self.bfloat16 {
            let v: Vec<bf16> = out.iter().map(|&v| bf16::from_f32(v)).collect();
            return Ok(vec![Tensor::new(x.shape(), v)?]);
        }
        Ok(vec![Tensor::new(x.shape(), out)?])
    }
}

impl DequantizeKernel {
    fn dequantize<T: Quantized>(
        &self,
        x: &Tensor,
        los: &[f32],
        his: &[f32],
        n: usize,
        post: usize,
    ) -> Result<Vec<f32>> {
        let q = x.as_slice::<T>()?;
        let lowest = T::LOWEST as f32;
        let half_range = if T::LOWEST < 0 { (T::HIGHEST as f32 - lowest + 1.0) / 2.0 } else { 0.0 };
        // per slice: (scale, offset) with value = q * scale + offset, or the MIN_COMBINED form
        let fns: Vec<Box<dyn Fn(i64) -> f32>> = (0..n)
            .map(|i| -> Box<dyn Fn(i64) -> f32> {
                let (min_range, max_range) = (los[i], his[i]);
                match self.mode {
                    Mode::MinCombined => {
                        let scale = (max_range - min_range) / (T::HIGHEST as f32 - lowest);
                        Box::new(move |q| ((q as f32 + half_range) * scale) + min_range)
                    }
                    Mode::MinFirst => {
                        let steps = (1u64 << T::BITS) as f64;
                        let scale = ((max_range - min_range) as f64 / (steps - 1.0)) as f32;
                        let min_rounded =
                            if max_range == min_range { min_range } else { (min_range / scale).round() * scale };
                        let offset = min_rounded - lowest * scale;
                        Box::new(move |q| offset + q as f32 * scale)
                    }
                    Mode::Scaled => {
                        let min_out = (T::LOWEST + i64::from(self.narrow_range)) as f32;
                        let max_out = T::HIGHEST as f32;
                        let scale = if T::LOWEST == 0 {
                            max_range / max_out
                        } else {
                            (min_range / min_out).max(max_range / max_out)
                        };
                        // TensorFlow casts to int through float: a qint32 above 2^31 - 128
                        // becomes 2^31 as a float, which converts to int's lowest value
                        Box::new(move |q| {
                            let f = q as f32;
                            let i = if f >= 2_147_483_648.0 { i32::MIN } else { f as i32 };
                            i as f32 * scale
                        })
                    }
                }
            })
            .collect();
        Ok(q.iter().enumerate().map(|(i, &v)| fns[(i / post) % n](v.to_i64())).collect())
    }
}

/// Options of [`quantize_v2`] beyond the target type: TensorFlow's attrs and defaults.
#[derive(Clone, Debug)]
pub struct QuantizeOptions {
    /// `mode`: "MIN_COMBINED" (default), "MIN_FIRST" or "SCALED".
    pub mode: String,
    /// `round_mode`: "HALF_AWAY_FROM_ZERO" (default) or "HALF_TO_EVEN" (SCALED only).
    pub round_mode: String,
    /// `narrow_range` (default false).
    pub narrow_range: bool,
    /// `axis` (default -1: one range for the whole tensor).
    pub axis: i64,
    /// `ensure_minimum_range` (default 0.01).
    pub ensure_minimum_range: f32,
}

impl Default for QuantizeOptions {
    fn default() -> Self {
        QuantizeOptions {
            mode: "MIN_COMBINED".into(),
            round_mode: "HALF_AWAY_FROM_ZERO".into(),
            narrow_range: false,
            axis: -1,
            ensure_minimum_range: 0.01,
        }
    }
}

/// `tf.quantization.quantize(input, min_range, max_range, T, ...)` (op `QuantizeV2`,
/// default name `QuantizeV2`): `(output, output_min, output_max)`. `input`, `min_range`
/// and `max_range` are float32; `t` a quantized dtype. Errors as [`QuantizeV2`].
pub fn quantize_v2(
    s: &Scope,
    input: &Output,
    min_range: &Output,
    max_range: &Output,
    t: DType,
    options: &QuantizeOptions,
) -> Result<(Output, Output, Output)> {
    let op = s
        .op("QuantizeV2", "QuantizeV2")
        .input(input)
        .input(min_range)
        .input(max_range)
        .attr("T", t)
        .attr("mode", options.mode.as_str())
        .attr("round_mode", options.round_mode.as_str())
        .attr("narrow_range", options.narrow_range)
        .attr("axis", options.axis)
        .attr("ensure_minimum_range", options.ensure_minimum_range)
        .build()?;
    Ok((op.output(0)?, op.output(1)?, op.output(2)?))
}

/// Options of [`dequantize`]: TensorFlow's attrs and defaults.
#[derive(Clone, Debug)]
pub struct DequantizeOptions {
    /// `mode`: "MIN_COMBINED" (default), "MIN_FIRST" or "SCALED".
    pub mode: String,
    /// `narrow_range` (default false; SCALED).
    pub narrow_range: bool,
    /// `axis` (default -1: one range for the whole tensor).
    pub axis: i64,
    /// `dtype` of the output: float32 (default) or bfloat16.
    pub dtype: DType,
}

impl Default for DequantizeOptions {
    fn default() -> Self {
        DequantizeOptions { mode: "MIN_COMBINED".into(), narrow_range: false, axis: -1, dtype: DType::Float }
    }
}

/// `tf.quantization.dequantize(input, min_range, max_range, ...)` (op `Dequantize`,
/// default name `Dequantize`): the float32 (or bfloat16, `options.dtype`) values of
/// quantized `input`; `min_range`, `max_range` float32. Errors as [`Dequantize`].
pub fn dequantize(
    s: &Scope,
    input: &Output,
    min_range: &Output,
    max_range: &Output,
    options: &DequantizeOptions,
) -> Result<Output> {
    s.op("Dequantize", "Dequantize")
        .input(input)
        .input(min_range)
        .input(max_range)
        .attr("T", input.dtype())
        .attr("mode", options.mode.as_str())
        .attr("narrow_range", options.narrow_range)
        .attr("axis", options.axis)
        .attr("dtype", options.dtype)
        .build_output()
}
