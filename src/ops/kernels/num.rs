//! `Num`: the element types numeric kernels are written for.

use crate::tensor::Element;
use std::ops::{Add, AddAssign, Div, Mul, Sub, SubAssign};

/// A numeric element type (f32, f64, i32, i64).
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
}

macro_rules! num {
    ($t:ty, $min:expr, $max:expr) => {
        impl Num for $t {
            const ZERO: Self = 0 as $t;
            const ONE: Self = 1 as $t;
            const MIN: Self = $min;
            const MAX: Self = $max;
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}
num!(f32, f32::NEG_INFINITY, f32::INFINITY);
num!(f64, f64::NEG_INFINITY, f64::INFINITY);
num!(i32, i32::MIN, i32::MAX);
num!(i64, i64::MIN, i64::MAX);

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
