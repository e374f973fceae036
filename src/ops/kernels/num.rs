//! `Num`: the element types numeric kernels are written for.

use crate::tensor::Element;
use std::ops::{Add, AddAssign, Div, Mul, Sub, SubAssign};

/// A numeric element type (f32, f64, i32, i64, and the small integers i8, i16, u8, u16
/// that the kernels dispatched with `small_ints` take).
pub trait Num:
    Element
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + AddAssign
    + SubAssign
{
    /// 0
    const ZERO: Self;
    /// 1
    const ONE: Self;
    /// The lowest value (for max-reductions).
    const MIN: Self;
    /// The highest value (for min-reductions).
    const MAX: Self;
    /// Converts from f64 (truncating for integers).
    fn from_f64(v: f64) -> Self;
    /// Converts to f64.
    fn to_f64(self) -> f64;
    /// `self + o`, wrapping around for integers as TensorFlow's kernels do.
    fn add_wrapping(self, o: Self) -> Self;
    /// `self * o`, wrapping around for integers as TensorFlow's kernels do.
    fn mul_wrapping(self, o: Self) -> Self;
    /// `self - o`, wrapping around for integers as TensorFlow's kernels do.
    fn sub_wrapping(self, o: Self) -> Self;
    /// True for the integer types narrower than 32 bits (their means accumulate wider).
    const SMALL_INT: bool = false;
}

macro_rules! num {
    ($t:ty, $min:expr, $max:expr, $add:expr, $mul:expr, $sub:expr, $small:expr) => {
        impl Num for $t {
            const ZERO: Self = 0 as $t;
            const ONE: Self = 1 as $t;
            const MIN: Self = $min;
            const MAX: Self = $max;
            const SMALL_INT: bool = $small;
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn add_wrapping(self, o: Self) -> Self {
                $add(self, o)
            }
            fn mul_wrapping(self, o: Self) -> Self {
                $mul(self, o)
            }
            fn sub_wrapping(self, o: Self) -> Self {
                $sub(self, o)
            }
        }
    };
}
num!(f32, f32::NEG_INFINITY, f32::INFINITY, |a: f32, b| a + b, |a: f32, b| a * b, |a: f32, b| a - b, false);
num!(f64, f64::NEG_INFINITY, f64::INFINITY, |a: f64, b| a + b, |a: f64, b| a * b, |a: f64, b| a - b, false);
num!(i32, i32::MIN, i32::MAX, i32::wrapping_add, i32::wrapping_mul, i32::wrapping_sub, false);
num!(i64, i64::MIN, i64::MAX, i64::wrapping_add, i64::wrapping_mul, i64::wrapping_sub, false);
num!(i8, i8::MIN, i8::MAX, i8::wrapping_add, i8::wrapping_mul, i8::wrapping_sub, true);
num!(i16, i16::MIN, i16::MAX, i16::wrapping_add, i16::wrapping_mul, i16::wrapping_sub, true);
num!(u8, u8::MIN, u8::MAX, u8::wrapping_add, u8::wrapping_mul, u8::wrapping_sub, true);
num!(u16, u16::MIN, u16::MAX, u16::wrapping_add, u16::wrapping_mul, u16::wrapping_sub, true);

/// A floating-point element type (f32, f64).
pub trait Float: Num + std::ops::Neg<Output = Self> {
    /// e^x.
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
}

macro_rules! float {
    ($t:ty) => {
        impl Float for $t {
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
        }
    };
}
float!(f32);
float!(f64);
