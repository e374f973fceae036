//! Value-preserving dtype conversion of a whole tensor ([`Tensor::convert`]), as a
//! session applies it to a fed value whose dtype differs from the fed tensor's
//! (TensorFlow's `feed_dict` runs `np.asarray(value, dtype=placeholder.dtype)`).

use super::alloc::try_with_capacity;
use super::{DType, Storage, Tensor};
use crate::error::{Error, Result};
use half::{bf16, f16};

impl Tensor {
    /// This tensor's values as `dtype`, when that keeps them:
    ///
    /// - float to float (float16, bfloat16, float32, float64), rounded to the nearest value
    ///   of `dtype`; NaN and infinities stay; a finite value beyond `dtype`'s range is
    ///   refused (numpy would make it inf);
    /// - integer to integer (int8 to uint64, and the quantized qint8 to qint32 as their
    ///   integers) when every value fits (numpy would wrap);
    /// - integer (not quantized) to float, rounded to the nearest value (`2^24 + 1` becomes `2^24` in
    ///   float32), as numpy does; a value beyond a float16's range is refused;
    /// - float or integer (not quantized) to complex64 or complex128: the value as the real
    ///   part, imaginary part 0 (rounded as to float32 or float64);
    /// - complex to complex: each part rounded to the nearest value (complex128 to
    ///   complex64 narrows, as numpy does); a finite part beyond float32's range is refused;
    /// - the same dtype: the tensor itself (shared, not copied).
    ///
    /// Float to integer is refused: TensorFlow's `feed_dict` truncates silently (`1.7`
    /// becomes `1`, NaN becomes `-2147483648`), which is rarely what was meant; the
    /// message says which cast to make. Complex to a real dtype is refused too:
    /// TensorFlow's `feed_dict` drops the imaginary parts silently; the message says so.
    /// Bool and string convert only to themselves.
    ///
    /// Errors: `InvalidArgument` naming both dtypes and, for a value that does not fit,
    /// the value and its index (`[1, 0]`); `ResourceExhausted` when the memory for the
    /// result cannot be had.
    pub fn convert(&self, dtype: DType) -> Result<Tensor> {
        let from = self.dtype();
        if from == dtype {
            return Ok(self.clone());
        }
        let refuse =
            |why: &str| Err(Error::invalid_argument(format!("cannot convert {from} values to {dtype}: {why}")));
        let storage = if let (Some(ints), true) =
            (int_values(self.storage()), dtype.is_integer() || dtype.is_quantized())
        {
            to_ints(ints, self.shape(), dtype)?
        } else if let (Some(floats), true) = (float_values(self.storage()), dtype.is_floating()) {
            to_floats(floats, self.shape(), dtype)?
        } else if let (Some(parts), true) = (complex_values(self.storage()), dtype.is_complex()) {
            to_complex(parts, self.shape(), dtype)?
        } else if from.is_complex() && (dtype.is_floating() || dtype.is_integer()) {
            return refuse(&format!(
                "a complex value becomes real only by dropping its imaginary part, which a conversion does not do (TensorFlow's feed_dict drops it silently); feed {dtype} values, or feed a {from} placeholder and take ops::real of it in the graph"
            ));
        } else if from.is_floating() && dtype.is_integer() {
            return refuse(&format!(
                "a float becomes an integer only by rounding or truncating, which a conversion does not choose; cast the values yourself (numpy: np.rint(x).astype(np.{dtype}) or x.astype(np.{dtype}); in the graph: ops::cast to {dtype} after a {from} placeholder)"
            ));
        } else {
            return refuse(&format!(
                "only float-to-float, integer-to-integer, integer-to-float and float-or-integer-to-complex conversions keep the values; make the value {dtype} (or cast it in the graph with ops::cast)"
            ));
        };
        Tensor::from_storage(self.shape(), storage)
    }
}

type Values<'a, T> = Box<dyn ExactSizeIterator<Item = T> + 'a>;

/// The values of an integer tensor, exactly (every integer dtype fits in i128).
fn int_values(s: &Storage) -> Option<Values<'_, i128>> {
    fn it<T: Copy + Into<i128>>(v: &[T]) -> Values<'_, i128> {
        Box::new(v.iter().map(|&x| x.into()))
    }
    Some(match s {
        Storage::I8(v) => it(v),
        Storage::I16(v) => it(v),
        Storage::I32(v) => it(v),
        Storage::I64(v) => it(v),
        Storage::U8(v) => it(v),
        Storage::U16(v) => it(v),
        Storage::U32(v) => it(v),
        Storage::U64(v) => it(v),
        Storage::QI8(v) => Box::new(v.iter().map(|x| x.0.into())),
        Storage::QU8(v) => Box::new(v.iter().map(|x| x.0.into())),
        Storage::QI16(v) => Box::new(v.iter().map(|x| x.0.into())),
        Storage::QU16(v) => Box::new(v.iter().map(|x| x.0.into())),
        Storage::QI32(v) => Box::new(v.iter().map(|x| x.0.into())),
        _ => return None,
    })
}

/// The values of a float tensor, exactly, or of an integer tensor rounded to f64.
fn float_values(s: &Storage) -> Option<Values<'_, f64>> {
    Some(match s {
        Storage::F32(v) => Box::new(v.iter().map(|&x| f64::from(x))),
        Storage::F64(v) => Box::new(v.iter().copied()),
        Storage::F16(v) => Box::new(v.iter().map(|x| x.to_f64())),
        Storage::BF16(v) => Box::new(v.iter().map(|x| x.to_f64())),
        // a quantized value stands for a real number only with its range: no plain conversion
        other if other.dtype().is_quantized() => return None,
        other => Box::new(int_values(other)?.map(|x| x as f64)),
    })
}

/// The values of a complex tensor as (real, imaginary) pairs, or of a float or integer
/// (not quantized) tensor with imaginary parts 0.
fn complex_values(s: &Storage) -> Option<Values<'_, [f64; 2]>> {
    Some(match s {
        Storage::C64(v) => Box::new(v.iter().map(|z| [f64::from(z[0]), f64::from(z[1])])),
        Storage::C128(v) => Box::new(v.iter().copied()),
        other => Box::new(float_values(other)?.map(|x| [x, 0.0])),
    })
}

fn to_complex(values: Values<'_, [f64; 2]>, shape: &[usize], dtype: DType) -> Result<Storage> {
    Ok(match dtype {
        DType::Complex64 => {
            let mut out = try_with_capacity::<[f32; 2]>(values.len(), dtype)?;
            for (i, [re, im]) in values.enumerate() {
                let z = [re as f32, im as f32];
                if (re.is_finite() && !z[0].is_finite()) || (im.is_finite() && !z[1].is_finite()) {
                    let max = format!("parts of largest magnitude {:?}", f32::MAX);
                    return Err(does_not_fit(format!("({re:?}{im:+?}j)"), i, shape, dtype, &max));
                }
                out.push(z);
            }
            Storage::C64(out)
        }
        DType::Complex128 => {
            let mut out = try_with_capacity::<[f64; 2]>(values.len(), dtype)?;
            out.extend(values);
            Storage::C128(out)
        }
        other => return Err(Error::internal(format!("to_complex called for {other}"))),
    })
}

/// Row-major flat index `i` of `shape` as `[i0, i1, ...]`.
fn index_of(mut i: usize, shape: &[usize]) -> String {
    let mut idx = vec![0; shape.len()];
    for (k, &d) in shape.iter().enumerate().rev() {
        if d > 0 {
            idx[k] = i % d;
            i /= d;
        }
    }
    format!("{idx:?}")
}

fn does_not_fit(value: impl std::fmt::Display, i: usize, shape: &[usize], dtype: DType, range: &str) -> Error {
    Error::invalid_argument(format!(
        "value {value} at {} does not fit in {dtype} ({range}); feed a wider dtype or change the fed tensor's dtype",
        index_of(i, shape)
    ))
}

fn to_ints(values: Values<'_, i128>, shape: &[usize], dtype: DType) -> Result<Storage> {
    macro_rules! ints {
        ($t:ty, $var:ident) => {{
            let mut out = try_with_capacity::<$t>(values.len(), dtype)?;
            for (i, x) in values.enumerate() {
                let range = || format!("{} to {}", <$t>::MIN, <$t>::MAX);
                out.push(<$t>::try_from(x).map_err(|_| does_not_fit(x, i, shape, dtype, &range()))?);
            }
            Storage::$var(out)
        }};
        ($t:ty, $var:ident, $qvar:ident, $q:ident) => {{
            match ints!($t, $var) {
                Storage::$var(v) => Storage::$qvar(v.into_iter().map(super::$q).collect()),
                _ => return Err(Error::internal("to_ints made another dtype")),
            }
        }};
    }
    Ok(match dtype {
        DType::Int8 => ints!(i8, I8),
        DType::Int16 => ints!(i16, I16),
        DType::Int32 => ints!(i32, I32),
        DType::Int64 => ints!(i64, I64),
        DType::UInt8 => ints!(u8, U8),
        DType::UInt16 => ints!(u16, U16),
        DType::UInt32 => ints!(u32, U32),
        DType::UInt64 => ints!(u64, U64),
        DType::QInt8 => ints!(i8, I8, QI8, QInt8),
        DType::QUInt8 => ints!(u8, U8, QU8, QUInt8),
        DType::QInt16 => ints!(i16, I16, QI16, QInt16),
        DType::QUInt16 => ints!(u16, U16, QU16, QUInt16),
        DType::QInt32 => ints!(i32, I32, QI32, QInt32),
        other => return Err(Error::internal(format!("to_ints called for {other}"))),
    })
}

fn to_floats(values: Values<'_, f64>, shape: &[usize], dtype: DType) -> Result<Storage> {
    macro_rules! floats {
        ($t:ty, $var:ident, $conv:expr, $finite:expr, $max:expr) => {{
            let mut out = try_with_capacity::<$t>(values.len(), dtype)?;
            for (i, x) in values.enumerate() {
                let y: $t = $conv(x);
                if x.is_finite() && !$finite(y) {
                    let max = format!("largest magnitude {:?}", $max);
                    return Err(does_not_fit(format!("{x:?}"), i, shape, dtype, &max));
                }
                out.push(y);
            }
            Storage::$var(out)
        }};
    }
    Ok(match dtype {
        DType::Float => floats!(f32, F32, |x| x as f32, f32::is_finite, f32::MAX),
        DType::Double => floats!(f64, F64, |x| x, f64::is_finite, f64::MAX),
        DType::Half => floats!(f16, F16, f16::from_f64, |y: f16| y.is_finite(), f16::MAX),
        DType::BFloat16 => floats!(bf16, BF16, bf16::from_f64, |y: bf16| y.is_finite(), bf16::MAX),
        other => return Err(Error::internal(format!("to_floats called for {other}"))),
    })
}
