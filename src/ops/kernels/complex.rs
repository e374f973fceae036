//! Complex element functions for the element-wise kernels: a complex64 element is
//! `[f32; 2]` and a complex128 one `[f64; 2]` (real part, imaginary part), as the tensor
//! storage holds them. Each is written once, generic over the part type ([`Part`]), and
//! follows the C++ `std::complex` arithmetic TensorFlow's CPU kernels compute.

use super::num::Float;

/// The part type of a complex element (f32 for complex64, f64 for complex128).
pub trait Part: Float {
    /// `sqrt(self)`.
    fn sqrt(self) -> Self;
    /// `sqrt(self² + o²)` without undue overflow.
    fn hypot(self, o: Self) -> Self;
    /// The angle of `(o, self)`: `atan2(self, o)`.
    fn atan2(self, o: Self) -> Self;
    /// `sin(self)`.
    fn sin(self) -> Self;
    /// `cos(self)`.
    fn cos(self) -> Self;
    /// `|self|`.
    fn abs(self) -> Self;
}

macro_rules! part {
    ($t:ty) => {
        impl Part for $t {
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn hypot(self, o: Self) -> Self {
                <$t>::hypot(self, o)
            }
            fn atan2(self, o: Self) -> Self {
                <$t>::atan2(self, o)
            }
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
        }
    };
}
part!(f32);
part!(f64);

/// A complex element: real part, imaginary part.
pub type C<T> = [T; 2];

/// `a + b`.
pub fn add<T: Part>(a: C<T>, b: C<T>) -> C<T> {
    [a[0] + b[0], a[1] + b[1]]
}

/// `a - b`.
pub fn sub<T: Part>(a: C<T>, b: C<T>) -> C<T> {
    [a[0] - b[0], a[1] - b[1]]
}

/// `a · b`.
pub fn mul<T: Part>(a: C<T>, b: C<T>) -> C<T> {
    [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]]
}

/// `a / b` by Smith's algorithm (scaled by the larger part of `b`, so `1 / (1e-30 + 1e-30i)`
/// does not overflow in float32, as TensorFlow's kernel); by 0 it gives infinities and NaN.
pub fn div<T: Part>(a: C<T>, b: C<T>) -> C<T> {
    let ([ar, ai], [br, bi]) = (a, b);
    if br.abs() >= bi.abs() {
        if br == T::ZERO && bi == T::ZERO {
            return [ar / br, ai / br];
        }
        let r = bi / br;
        let d = br + bi * r;
        [(ar + ai * r) / d, (ai - ar * r) / d]
    } else {
        let r = br / bi;
        let d = br * r + bi;
        [(ar * r + ai) / d, (ai * r - ar) / d]
    }
}

/// `a / b`, or 0 where `b` is 0 (`DivNoNan`).
pub fn div_no_nan<T: Part>(a: C<T>, b: C<T>) -> C<T> {
    if b[0] == T::ZERO && b[1] == T::ZERO {
        [T::ZERO, T::ZERO]
    } else {
        div(a, b)
    }
}

/// `-z`.
pub fn neg<T: Part>(z: C<T>) -> C<T> {
    [-z[0], -z[1]]
}

/// `z · z`.
pub fn square<T: Part>(z: C<T>) -> C<T> {
    mul(z, z)
}

/// The complex conjugate.
pub fn conj<T: Part>(z: C<T>) -> C<T> {
    [z[0], -z[1]]
}

/// `1 / z`.
pub fn reciprocal<T: Part>(z: C<T>) -> C<T> {
    div([T::ONE, T::ZERO], z)
}

/// `e^z = e^re (cos im + i sin im)`.
pub fn exp<T: Part>(z: C<T>) -> C<T> {
    let m = z[0].exp();
    [m * z[1].cos(), m * z[1].sin()]
}

/// The principal natural logarithm: `ln |z| + i·atan2(im, re)` (`ln 0 = -inf`).
pub fn log<T: Part>(z: C<T>) -> C<T> {
    [z[0].hypot(z[1]).ln(), z[1].atan2(z[0])]
}

/// The principal square root (real part >= 0, imaginary part of the sign of `im`).
pub fn sqrt<T: Part>(z: C<T>) -> C<T> {
    let [re, im] = z;
    if re == T::ZERO && im == T::ZERO {
        return [T::ZERO, im];
    }
    let half = T::from_f64(0.5);
    // sqrt((|z| + |re|) / 2) computed without overflow for large parts
    let t = ((re.abs().hypot(im) + re.abs()) * half).sqrt();
    if re >= T::ZERO {
        [t, im / (t + t)]
    } else {
        let r = im.abs() / (t + t);
        [r, if im < T::ZERO { -t } else { t }]
    }
}

/// `z / |z|`, or 0 at 0 (`Sign` of a complex number).
pub fn sign<T: Part>(z: C<T>) -> C<T> {
    let m = z[0].hypot(z[1]);
    if m == T::ZERO {
        [T::ZERO, T::ZERO]
    } else {
        [z[0] / m, z[1] / m]
    }
}
