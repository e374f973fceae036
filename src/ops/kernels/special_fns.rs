//! Special functions without a `libm` form, as Eigen computes them for TensorFlow's kernels
//! (Cephes' algorithms, in float64): the digamma function `psi`, the Hurwitz zeta function,
//! the polygamma functions, `ndtri` (the standard normal quantile) and `erfinv`. The
//! coefficients are Cephes' as published (more digits than a float64 holds).
#![allow(clippy::excessive_precision)]

use std::f64::consts::{PI, SQRT_2};

/// Evaluates the polynomial with coefficients `c` (highest power first) at `x`.
fn polevl(x: f64, c: &[f64]) -> f64 {
    c.iter().fold(0.0, |acc, &k| acc * x + k)
}

/// [`polevl`] with an implicit leading coefficient 1.
fn p1evl(x: f64, c: &[f64]) -> f64 {
    c.iter().fold(1.0, |acc, &k| acc * x + k)
}

/// The digamma function `psi(x) = d/dx ln(Gamma(x))` (Cephes `psi`, as Eigen's
/// `digamma`): NaN at the poles 0, -1, -2, ...; the reflection formula below 0.
pub fn digamma(x: f64) -> f64 {
    const A: [f64; 7] = [
        8.33333333333333333333E-2,
        -2.10927960927960927961E-2,
        7.57575757575757575758E-3,
        -4.16666666666666666667E-3,
        3.96825396825396825397E-3,
        -8.33333333333333333333E-3,
        8.33333333333333333333E-2,
    ];
    if x.is_nan() {
        return x;
    }
    let (mut x, mut reflection) = (x, None);
    if x <= 0.0 {
        let p = x.floor();
        if p == x {
            return f64::NAN;
        }
        let mut nz = x - p;
        if nz != 0.5 {
            if nz > 0.5 {
                nz = x - (p + 1.0);
            }
            nz = PI / (PI * nz).tan();
        } else {
            nz = 0.0;
        }
        reflection = Some(nz);
        x = 1.0 - x;
    }
    let mut w = 0.0;
    while x < 10.0 {
        w += 1.0 / x;
        x += 1.0;
    }
    let y = if x < 1.0e17 {
        let z = 1.0 / (x * x);
        z * polevl(z, &A)
    } else {
        0.0
    };
    let y = x.ln() - 0.5 / x - y - w;
    match reflection {
        Some(nz) => y - nz,
        None => y,
    }
}

/// The Hurwitz zeta function `zeta(x, q) = sum over k >= 0 of (k + q)^-x` (Cephes `zeta`, as
/// Eigen's): infinity at `x == 1`, NaN for `x < 1`; for `q <= 0` infinity at an integer `q`
/// and NaN for a non-integer `x`.
pub fn zeta(x: f64, q: f64) -> f64 {
    const A: [f64; 12] = [
        12.0,
        -720.0,
        30240.0,
        -1209600.0,
        47900160.0,
        -1.8924375803183791606e9,
        7.47242496e10,
        -2.950130727918164224e12,
        1.1646782814350067249e14,
        -4.5979787224074726105e15,
        1.8152105401943546773e17,
        -7.1661652561756670113e18,
    ];
    const MACHEP: f64 = 1.11022302462515654042E-16;
    if x.is_nan() || q.is_nan() {
        return f64::NAN;
    }
    if x == 1.0 {
        return f64::INFINITY;
    }
    if x < 1.0 {
        return f64::NAN;
    }
    if q <= 0.0 {
        if q == q.floor() {
            return f64::INFINITY;
        }
        if x != x.floor() {
            return f64::NAN;
        }
    }
    // Euler-Maclaurin summation
    let mut s = q.powf(-x);
    let mut a = q;
    let mut b = 0.0;
    let mut i = 0;
    while i < 9 || a <= 9.0 {
        i += 1;
        a += 1.0;
        b = a.powf(-x);
        s += b;
        if (b / s).abs() < MACHEP {
            return s;
        }
    }
    let w = a;
    s += b * w / (x - 1.0);
    s -= 0.5 * b;
    let (mut a, mut k) = (1.0, 0.0);
    for &c in &A {
        a *= x + k;
        b /= w;
        let t = a * b / c;
        s += t;
        if (t / s).abs() < MACHEP {
            return s;
        }
        k += 1.0;
        a *= x + k;
        b /= w;
        k += 1.0;
    }
    s
}

/// The polygamma function `psi^(n)(x)`, the n-th derivative of digamma (as Eigen's:
/// `digamma(x)` for `n == 0`, NaN for a non-integer `n`, else
/// `(-1)^(n+1) n! zeta(n + 1, x)`).
pub fn polygamma(n: f64, x: f64) -> f64 {
    if n.is_nan() || n != n.floor() {
        return f64::NAN;
    }
    if n == 0.0 {
        return digamma(x);
    }
    let np1 = n + 1.0;
    let factorial = libm::lgamma(np1).exp();
    let sign = if np1 % 2.0 == 0.0 { 1.0 } else { -1.0 };
    sign * factorial * zeta(np1, x)
}

/// The standard normal quantile, the inverse of its CDF (Cephes `ndtri`, as Eigen's):
/// `-inf` at 0, `inf` at 1, NaN outside [0, 1].
pub fn ndtri(y0: f64) -> f64 {
    const S2PI: f64 = 2.50662827463100050242E0;
    const P0: [f64; 5] = [
        -5.99633501014107895267E1,
        9.80010754185999661536E1,
        -5.66762857469070293439E1,
        1.39312609387279679503E1,
        -1.23916583867381258016E0,
    ];
    const Q0: [f64; 8] = [
        1.95448858338141759834E0,
        4.67627912898881538453E0,
        8.63602421390890590575E1,
        -2.25462687854119370527E2,
        2.00260212380060660359E2,
        -8.20372256168333339912E1,
        1.59056225126211695515E1,
        -1.18331621121330003142E0,
    ];
    const P1: [f64; 9] = [
        4.05544892305962419923E0,
        3.15251094599893866154E1,
        5.71628192246421288162E1,
        4.40805073893200834700E1,
        1.46849561928858024014E1,
        2.18663306850790267539E0,
        -1.40256079171354495875E-1,
        -3.50424626827848203418E-2,
        -8.57456785154685413611E-4,
    ];
    const Q1: [f64; 8] = [
        1.57799883256466749731E1,
        4.53907635128879210584E1,
        4.13172038254672030440E1,
        1.50425385692907503408E1,
        2.50464946208309415979E0,
        -1.42182922854787788574E-1,
        -3.80806407691578277194E-2,
        -9.33259480895457427372E-4,
    ];
    const P2: [f64; 9] = [
        3.23774891776946035970E0,
        6.91522889068984211695E0,
        3.93881025292474443415E0,
        1.33303460815807542389E0,
        2.01485389549179081538E-1,
        1.23716634817820021358E-2,
        3.01581553508235416007E-4,
        2.65806974686737550832E-6,
        6.23974539184983293730E-9,
    ];
    const Q2: [f64; 8] = [
        6.02427039364742014255E0,
        3.67983563856160859403E0,
        1.37702099489081330271E0,
        2.16236993594496635890E-1,
        1.34204006088543189037E-2,
        3.28014464682127739104E-4,
        2.89247864745380683936E-6,
        6.79019408009981274425E-9,
    ];
    const EXP_M2: f64 = 0.13533528323661269189;
    if y0.is_nan() || !(0.0..=1.0).contains(&y0) {
        return f64::NAN;
    }
    if y0 == 0.0 {
        return f64::NEG_INFINITY;
    }
    if y0 == 1.0 {
        return f64::INFINITY;
    }
    let (mut y, mut negate) = (y0, true);
    if y > 1.0 - EXP_M2 {
        y = 1.0 - y;
        negate = false;
    }
    if y > EXP_M2 {
        let y = y - 0.5;
        let y2 = y * y;
        return (y + y * (y2 * polevl(y2, &P0) / p1evl(y2, &Q0))) * S2PI;
    }
    let x = (-2.0 * y.ln()).sqrt();
    let x0 = x - x.ln() / x;
    let z = 1.0 / x;
    let x1 = if x < 8.0 { z * polevl(z, &P1) / p1evl(z, &Q1) } else { z * polevl(z, &P2) / p1evl(z, &Q2) };
    let x = x0 - x1;
    if negate {
        -x
    } else {
        x
    }
}

/// The inverse error function (as Eigen's: `ndtri((x + 1) / 2) / sqrt(2)`): `±inf` at
/// `±1`, NaN outside [-1, 1].
pub fn erfinv(x: f64) -> f64 {
    ndtri((x + 1.0) / 2.0) / SQRT_2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-13 * b.abs().max(1.0)
    }

    #[test]
    fn known_values() {
        // Euler-Mascheroni, psi(1/2) = -gamma - 2 ln 2, zeta(2) = pi^2/6, ndtri(0.975).
        assert!(close(digamma(1.0), -0.5772156649015329));
        assert!(close(digamma(0.5), -1.9635100260214235));
        assert!(close(digamma(-0.5), 0.03648997397857652));
        assert!(digamma(-2.0).is_nan());
        assert!(close(zeta(2.0, 1.0), PI * PI / 6.0));
        assert!(close(polygamma(1.0, 1.0), PI * PI / 6.0));
        assert!(close(ndtri(0.975), 1.959963984540054));
        assert!(close(ndtri(1e-20), -9.262340089798408));
        assert!(close(erfinv(0.5), 0.4769362762044699));
        assert_eq!(erfinv(1.0), f64::INFINITY);
        assert!(erfinv(1.5).is_nan());
    }
}
