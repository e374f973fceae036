#!/usr/bin/env python3
"""TensorFlow 2.21's graphs and numbers for tests/ops_complex_elementwise.rs: the
element-wise ops, reductions and casts on complex64 and complex128 (Add, AddV2, Sub, Mul,
RealDiv, Div, DivNoNan and the "complex sign" x / |x| through it, Neg, Square, Exp, Log,
Sqrt, Reciprocal, Sign, Sum, Mean, Prod, Cast to and from complex), with broadcasting,
and TensorFlow's own gradient graphs of them on real inputs (through tf.complex).

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_ops_complex.py

writes tests/data/ops_complex/elementwise.pbtxt (the graph TensorFlow built) and
elementwise.json (`outputs`, `errors`, `build_errors`, as scripts/gen_ops_nn4.py writes
them, with its helpers). The json holds no complex numbers: every complex result is read
back through Real and Imag. Also unused_branch.pbtxt/.json: a float graph whose complex
branch (Mul, Neg, Square, Tanh, Sum) nothing fetched reads, with TensorFlow's value of
the fetched output. Built in graph mode (tf.compat.v1) and run on CPU.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ops_nn4 as nn4  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

nn4.OUT = os.path.join(nn4.HERE, "..", "tests", "data", "ops_complex")


def dyn(v, dtype=None):
    """An unknown-shape view of a constant, so kernels (not shape functions) see the shapes."""
    return tf.placeholder_with_default(tf.constant(v, dtype), None)


def elementwise(outs, errs):
    """Each op on complex64 and complex128, read through Real and Imag; gradients of a real
    loss through each, wrt the real and imaginary parts."""
    del errs
    rng = np.random.RandomState(61)
    u = lambda shape: rng.uniform(-1, 1, shape)  # noqa: E731
    for dt, ct in [(tf.float32, tf.complex64), (tf.float64, tf.complex128)]:
        n = ct.name
        cz = lambda shape: tf.complex(dyn(u(shape), dt), dyn(u(shape), dt))  # noqa: E731

        def parts(key, z):
            assert z.dtype == ct, (key, z.dtype)
            outs[f"{key}_re_{n}"], outs[f"{key}_im_{n}"] = tf.math.real(z), tf.math.imag(z)

        x, y, row, col = cz([2, 3]), cz([2, 3]), cz([3]), cz([2, 1])
        for op in ["Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "DivNoNan"]:
            f = getattr(tf.raw_ops, op)
            parts(f"{op}", f(x=x, y=y))
            parts(f"{op}_row", f(x=x, y=row))  # [2, 3] with [3]
            parts(f"{op}_outer", f(x=col, y=row))  # [2, 1] with [3]: [2, 3]
        # a divisor with zeros: DivNoNan gives 0 there, RealDiv inf/nan as C++ std::complex
        zy = tf.complex(tf.constant([[0.0, 2.0, 0.0], [0.0, -1.0, 0.5]], dt), tf.constant([[0.0, 0.0, 3.0], [0.0, 1.0, 0.0]], dt))
        parts("DivNoNan_zeros", tf.raw_ops.DivNoNan(x=x, y=zy))
        # tiny and huge divisors (Smith's algorithm: no overflow in |y|^2)
        small = tf.complex(tf.constant([1e-30, 3e30], dt), tf.constant([1e-30, 4e30], dt))
        parts("RealDiv_scaled", tf.raw_ops.RealDiv(x=tf.complex(tf.constant([1.0, 1.0], dt), tf.constant([1.0, 1.0], dt)), y=small))
        # the complex sign x / |x| (0 at 0)
        xz = tf.complex(tf.constant([3.0, 0.0, -1.0, 0.0], dt), tf.constant([4.0, 0.0, 1.0, -2.0], dt))
        parts("sign_idiom", tf.math.divide_no_nan(xz, tf.cast(tf.abs(xz), ct)))
        for op in ["Neg", "Square", "Exp", "Log", "Sqrt", "Reciprocal", "Sign"]:
            parts(op, getattr(tf.raw_ops, op)(x=x))
        parts("Sqrt_axes", tf.sqrt(tf.complex(tf.constant([-4.0, 4.0, 0.0, -1.0, 2.0], dt), tf.constant([0.0, 0.0, 0.0, -1.0, -3.0], dt))))
        x3 = cz([2, 3, 2])
        for op in ["Sum", "Mean", "Prod"]:
            f = getattr(tf.raw_ops, op)
            parts(f"{op}_0", f(input=x3, axis=[0]))
            parts(f"{op}_02", f(input=x3, axis=[0, 2]))
            parts(f"{op}_last_keep", f(input=x3, axis=[-1], keep_dims=True))
            parts(f"{op}_all", f(input=x3, axis=[0, 1, 2]))
        # Cast to complex from real dtypes (imaginary 0), between complex dtypes, and to real
        # dtypes (the real part kept)
        for src, vals in [(tf.float32, [1.5, -2.25, 0.0]), (tf.float64, [1.5, -2.25, 1e10]),
                          (tf.int32, [3, -7, 0]), (tf.int64, [3, -7, 2 ** 40]), (tf.bool, [True, False, True])]:
            parts(f"cast_from_{src.name}", tf.cast(dyn(np.array(vals), src), ct))
        other = tf.complex128 if ct == tf.complex64 else tf.complex64
        zc = tf.complex(tf.constant([1.5, -2.7, 0.0, 0.0], dt), tf.constant([2.5, -0.5, 1.0, 0.0], dt))
        parts(f"cast_from_{other.name}", tf.raw_ops.Cast(x=tf.raw_ops.Cast(x=zc, DstT=other), DstT=ct))
        for dst in [tf.float32, tf.float64, tf.int32, tf.int64, tf.bool]:
            outs[f"cast_{n}_to_{dst.name}"] = tf.raw_ops.Cast(x=zc, DstT=dst)
        # TensorFlow's gradients of a real loss through each op, wrt the real inputs
        st = lambda shape: tf.placeholder_with_default(tf.constant(u(shape), dt), shape)  # noqa: E731
        ins = [st([2, 3]), st([2, 3]), st([3]), st([3])]
        a, b = tf.complex(ins[0], ins[1]), tf.complex(ins[2], ins[3])
        w1, w2 = u([2, 3]), u([2, 3])

        def loss_of(z):
            return tf.reduce_sum(tf.math.real(z) * w1[..., :z.shape[-1]]) + tf.reduce_sum(tf.math.imag(z) * w2[..., :z.shape[-1]])

        cases = {
            "add": a + b, "sub": a - b, "mul": a * b, "realdiv": a / b, "div": tf.raw_ops.Div(x=a, y=b),
            "divnonan": tf.math.divide_no_nan(a, b), "neg": -a, "square": tf.square(a), "exp": tf.exp(a),
            "log": tf.math.log(a), "sqrt": tf.sqrt(a), "reciprocal": tf.math.reciprocal(a),
            "sum": tf.reduce_sum(a, axis=0), "mean": tf.reduce_mean(a, axis=1),
            "abs": tf.cast(tf.abs(a), ct), "sign_idiom": tf.math.divide_no_nan(a, tf.cast(tf.abs(a), ct)),
            "cast_real": tf.cast(tf.cast(a, dt), ct),
        }
        for k, z in cases.items():
            grads = tf.gradients(loss_of(z), ins)
            for i, gi in enumerate(grads):
                if gi is not None:
                    outs[f"grad_{k}_{i}_{n}"] = gi


def unused_branch(outs, errs):
    """A float graph whose complex branch nothing fetched reads: Mul, Neg, Square, Sum and
    Tanh on complex64 (Tanh: an op TensorFlow allows on complex that tensorgraph computes
    only for floats); `y` = 2x + 1 is what runs."""
    del errs
    x = tf.placeholder_with_default(tf.constant([1.0, -2.0, 0.5]), [3], name="x")
    z = tf.complex(x, x * 3.0)
    zz = tf.reduce_sum(tf.tanh(tf.square(-(z * z))), name="complex_branch")
    del zz
    outs["y"] = tf.add(x * 2.0, 1.0, name="y")


def main():
    nn4.write("elementwise", elementwise, dict)
    nn4.write("unused_branch", unused_branch, dict)


if __name__ == "__main__":
    main()
