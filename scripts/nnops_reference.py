#!/usr/bin/env python3
"""TensorFlow 2.21's values for the tests of the deployed-CNN ops (tests/ops_activations.rs,
tests/ops_batch_norm.rs, tests/ops_depthwise.rs) and the GraphDef they import
(tests/data/nnops_cnn.pbtxt).

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/nnops_reference.py SECTION

SECTION is `activations`, `batch_norm`, `depthwise`, `conv2d_transpose` (each prints Rust
`const` items, pasted into the test file of that name) or `graph` (writes
tests/data/nnops_cnn.pbtxt and prints the expected outputs). Inputs are exact in float32:
`pattern(shape, mul, mod, div)` is `((i * mul) % mod - mod // 2) / div` over the flat
index i, as `pattern` in the tests. Runs with oneDNN off (TensorFlow's reference kernels).
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# TensorFlow's own CPU kernels: the oneDNN ones fail (aborts, garbage) on some of the
# dilated and NCHW depthwise cases below
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def pattern(shape, mul, mod, div, dtype=np.float32):
    n = int(np.prod(shape))
    v = [((i * mul) % mod - mod // 2) / div for i in range(n)]
    return np.array(v, dtype=np.float64).reshape(shape).astype(dtype)


def lit(a):
    a = np.asarray(a)
    if a.dtype == np.float64:
        return ", ".join(repr(float(v)) for v in a.ravel())
    if a.dtype.kind == "i":
        return ", ".join(str(int(v)) for v in a.ravel())
    return ", ".join(str(np.float32(v)) for v in a.ravel())


def const(name, a, ty="f32"):
    a = np.asarray(a)
    print(f"/// shape {list(a.shape)}")
    print(f"const {name}: &[{ty}] = &[{lit(a)}];")


def activations():
    x = np.array([-20, -15, -3, -1, -0.5, -0.001, 0, 0.001, 0.5, 1, 3, 5.9, 6, 6.5, 15, 20], np.float32)
    g = pattern([16], 3, 7, 4.0)
    const("X", x)
    const("G", g)
    for name, y in [
        ("RELU6", tf.nn.relu6(x)),
        ("ELU", tf.nn.elu(x)),
        ("SELU", tf.nn.selu(x)),
        ("LEAKY_DEFAULT", tf.nn.leaky_relu(x)),
        ("LEAKY_1_5", tf.nn.leaky_relu(x, alpha=1.5)),
        ("SOFTPLUS", tf.nn.softplus(x)),
        ("SOFTSIGN", tf.nn.softsign(x)),
        ("ERF", tf.math.erf(x)),
        ("ERFC", tf.math.erfc(x)),
        ("SWISH", tf.nn.silu(x)),
    ]:
        const(name, y.numpy())
    x64 = x.astype(np.float64) * 2.5
    for name, y in [
        ("SOFTPLUS_F64", tf.nn.softplus(x64)),
        ("ELU_F64", tf.nn.elu(x64)),
        ("ERF_F64", tf.math.erf(x64 / 10.0)),
        ("ERFC_F64", tf.math.erfc(x64 / 10.0)),
    ]:
        const(name, y.numpy(), "f64")
    r = tf.raw_ops
    for name, y in [
        ("RELU6_GRAD", r.Relu6Grad(gradients=g, features=x)),
        ("ELU_GRAD", r.EluGrad(gradients=g, outputs=tf.nn.elu(x))),
        ("SELU_GRAD", r.SeluGrad(gradients=g, outputs=tf.nn.selu(x))),
        ("LEAKY_GRAD_DEFAULT", r.LeakyReluGrad(gradients=g, features=x)),
        ("LEAKY_GRAD_1_5", r.LeakyReluGrad(gradients=g, features=x, alpha=1.5)),
        ("SOFTPLUS_GRAD", r.SoftplusGrad(gradients=g, features=x)),
        ("SOFTSIGN_GRAD", r.SoftsignGrad(gradients=g, features=x)),
    ]:
        const(name, y.numpy())
    # int32 Relu6 / Relu6Grad
    xi = np.array([-3, 0, 3, 6, 9], np.int32)
    const("RELU6_I32", tf.nn.relu6(xi).numpy(), "i32")
    const("RELU6_GRAD_I32", r.Relu6Grad(gradients=np.array([5, 5, 5, 5, 5], np.int32), features=xi).numpy(), "i32")


BN_SCALE = np.array([1.5, -0.5, 2.0], np.float32)
BN_OFFSET = np.array([0.1, 0.2, -0.3], np.float32)
BN_MEAN = np.array([0.2, -0.1, 0.05], np.float32)
BN_VAR = np.array([0.5, 1.5, 2.0], np.float32)


def batch_norm():
    r = tf.raw_ops
    x = pattern([2, 3, 2, 3], 7, 23, 8.0)
    xc = pattern([2, 3, 2, 2], 7, 23, 8.0)  # NCHW, C = 3
    const("X_NHWC", x)
    const("X_NCHW", xc)

    def fwd(prefix, xv, fmt, training, factor=1.0, op=r.FusedBatchNormV3, dtype=None):
        xin = xv if dtype is None else xv.astype(dtype)
        kw = dict(x=xin, scale=BN_SCALE, offset=BN_OFFSET, mean=BN_MEAN, variance=BN_VAR, epsilon=0.001,
                  data_format=fmt, is_training=training, exponential_avg_factor=factor)
        outs = op(**kw)
        # in inference TensorFlow's CPU kernel leaves the reserve spaces unset
        for i, o in enumerate(outs[:5 if training else 3]):
            const(f"{prefix}_{i}", o.numpy().astype(np.float32))

    fwd("INF_NHWC", x, "NHWC", False)
    fwd("TRAIN_NHWC", x, "NHWC", True)
    fwd("TRAIN_NHWC_F025", x, "NHWC", True, 0.25)
    fwd("TRAIN_NCHW", xc, "NCHW", True)
    fwd("INF_NCHW", xc, "NCHW", False)
    fwd("TRAIN_NHWC_HALF", x, "NHWC", True, dtype=np.float16)
    x5 = pattern([2, 3, 2, 2, 2], 5, 19, 8.0)
    const("X_NCDHW", x5)
    outs = r.FusedBatchNormV3(x=x5, scale=BN_SCALE, offset=BN_OFFSET, mean=BN_MEAN, variance=BN_VAR, epsilon=0.001,
                              data_format="NCDHW", is_training=True)
    for i in range(3):
        const(f"TRAIN_NCDHW_{i}", outs[i].numpy())
    dy = pattern([2, 3, 2, 3], 5, 17, 4.0)
    dyc = pattern([2, 3, 2, 2], 5, 17, 4.0)
    const("DY_NHWC", dy)
    const("DY_NCHW", dyc)
    for name, d, xv, fmt, training in [("GRAD_TRAIN_NHWC", dy, x, "NHWC", True),
                                       ("GRAD_INF_NHWC", dy, x, "NHWC", False),
                                       ("GRAD_TRAIN_NCHW", dyc, xc, "NCHW", True)]:
        outs = r.FusedBatchNormGradV3(y_backprop=d, x=xv, scale=BN_SCALE, reserve_space_1=BN_MEAN,
                                      reserve_space_2=BN_VAR, reserve_space_3=np.zeros([0], np.float32),
                                      epsilon=0.001, data_format=fmt, is_training=training)
        for i in range(3):
            const(f"{name}_{i}", outs[i].numpy())
    # tf.gradients of sum(y * dy) with respect to x, scale, offset (graph mode)
    for name, xv, d, fmt, training in [("SYM_TRAIN_NHWC", x, dy, "NHWC", True),
                                       ("SYM_INF_NCHW", xc, dyc, "NCHW", False)]:
        g = tf.Graph()
        with g.as_default():
            xp = tf.constant(xv)
            sc = tf.constant(BN_SCALE)
            of = tf.constant(BN_OFFSET)
            y, _, _ = tf.compat.v1.nn.fused_batch_norm(xp, sc, of, tf.constant(BN_MEAN), tf.constant(BN_VAR),
                                                       is_training=training, data_format=fmt)
            grads = tf.gradients(tf.reduce_sum(y * d), [xp, sc, of])
            with tf.compat.v1.Session() as s:
                vals = s.run(grads)
        for i, v in enumerate(vals):
            const(f"{name}_{i}", v)


DW_CASES = [
    # name, strides, padding (tf.nn form), explicit_paddings (raw op), dilations
    ("SAME_1", [1, 1], "SAME", [], [1, 1]),
    ("VALID_2", [2, 2], "VALID", [], [1, 1]),
    ("SAME_DIL2", [1, 1], "SAME", [], [2, 2]),
    ("VALID_DIL12", [1, 1], "VALID", [], [1, 2]),
    ("EXPLICIT_2", [2, 2], [[0, 0], [1, 2], [2, 0], [0, 0]], [0, 0, 1, 2, 2, 0, 0, 0], [1, 1]),
]


def depthwise():
    """NHWC values from tf.nn.depthwise_conv2d and tf.GradientTape. TensorFlow's CPU kernels
    refuse NCHW, dilations and unequal strides (and its oneDNN ones ignore `dilations` in
    the backprop ops), so dilated values come from tf.nn.depthwise_conv2d's space-to-batch
    form, and the NCHW tests transpose these NHWC values."""
    r = tf.raw_ops
    x = pattern([2, 4, 5, 2], 7, 23, 8.0)
    f = pattern([3, 3, 2, 2], 5, 13, 4.0)
    const("X", x)
    const("F", f)
    for name, st, pad, ex, dil in DW_CASES:
        xv, fv = tf.constant(x), tf.constant(f)
        with tf.GradientTape() as tape:
            tape.watch([xv, fv])
            y = tf.nn.depthwise_conv2d(xv, fv, [1, st[0], st[1], 1], pad, dilations=dil)
            dy = pattern(y.shape, 3, 11, 4.0)
            loss = tf.reduce_sum(y * dy)
        dx, df = tape.gradient(loss, [xv, fv])
        const(f"{name}_Y", y.numpy())
        const(f"{name}_DX", dx.numpy())
        const(f"{name}_DF", df.numpy())
    # unequal strides (which TensorFlow's own CPU kernels refuse): VALID with strides (2, 1)
    # is every other row of VALID with strides 1
    y = r.DepthwiseConv2dNative(input=x, filter=f, strides=[1, 1, 1, 1], padding="VALID")
    const("VALID_21_Y", y.numpy()[:, ::2, :, :])
    y64 = r.DepthwiseConv2dNative(input=x.astype(np.float64), filter=f.astype(np.float64), strides=[1, 2, 2, 1],
                                  padding="SAME")
    const("F64_SAME_2_Y", y64.numpy(), "f64")


def conv2d_transpose():
    x = pattern([2, 3, 3, 2], 7, 23, 8.0)  # [N, H, W, O]
    f = pattern([3, 3, 4, 2], 5, 13, 4.0)  # [KH, KW, C, O]
    const("X", x)
    const("F", f)
    const("SAME_2", tf.nn.conv2d_transpose(x, f, [2, 6, 6, 4], [1, 2, 2, 1], "SAME").numpy())
    const("VALID_2", tf.nn.conv2d_transpose(x, f, [2, 7, 7, 4], [1, 2, 2, 1], "VALID").numpy())
    g = tf.Graph()
    with g.as_default():
        xp = tf.constant(x)
        fp = tf.constant(f)
        y = tf.nn.conv2d_transpose(xp, fp, [2, 6, 6, 4], [1, 2, 2, 1], "SAME")
        w = tf.constant(pattern([2, 6, 6, 4], 3, 11, 4.0))
        grads = tf.gradients(tf.reduce_sum(y * w), [xp, fp])
        with tf.compat.v1.Session() as s:
            gx, gf = s.run(grads)
    const("SAME_2_GRAD_X", gx)
    const("SAME_2_GRAD_F", gf)


def graph():
    """A small CNN with every new op, frozen to constants, and its gradients."""
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1, 4, 4, 2], name="input")
        dwf = tf.constant(pattern([3, 3, 2, 2], 5, 13, 4.0), name="dw_filter")
        h = tf.compat.v1.nn.depthwise_conv2d_native(x, dwf, [1, 1, 1, 1], "SAME", name="dw")
        sc = tf.constant(pattern([4], 3, 7, 4.0) + 1.0, name="bn_scale")
        of = tf.constant(pattern([4], 5, 7, 8.0), name="bn_offset")
        h, _, _ = tf.compat.v1.nn.fused_batch_norm(h, sc, of, is_training=True, name="bn")
        h = tf.nn.relu6(h * 3.0, name="relu6")
        tf_ = tf.constant(pattern([2, 2, 3, 4], 7, 11, 4.0), name="up_filter")
        h = tf.nn.conv2d_transpose(h, tf_, [1, 8, 8, 3], [1, 2, 2, 1], "SAME", name="up")
        nchw = tf.transpose(h, [0, 3, 1, 2], name="to_nchw")
        mean = tf.constant(pattern([3], 3, 5, 4.0), name="bn2_mean")
        var = tf.constant(pattern([3], 3, 5, 8.0) + 1.0, name="bn2_var")
        sc2 = tf.constant([0.5, 1.0, -1.0], name="bn2_scale")
        h, _, _ = tf.compat.v1.nn.fused_batch_norm(nchw, sc2, sc2, mean, var, is_training=False,
                                                   data_format="NCHW", name="bn2")
        h = tf.transpose(h, [0, 2, 3, 1], name="to_nhwc")
        acts = [tf.nn.leaky_relu(h, 0.1), tf.nn.elu(h), tf.nn.selu(h), tf.nn.softplus(h), tf.nn.softsign(h),
                tf.math.erf(h), tf.nn.relu6(h)]
        pooled = [tf.reduce_mean(a, axis=[1, 2]) for a in acts]
        out = tf.concat(pooled, axis=1, name="out")
        loss = tf.reduce_sum(out * tf.constant(pattern([1, 21], 5, 11, 4.0)), name="loss")
        gx, gf = tf.gradients(loss, [x, dwf])
        tf.identity(gx, name="grad_input")
        tf.identity(gf, name="grad_filter")
        inp = pattern([1, 4, 4, 2], 7, 23, 8.0)
        with tf.compat.v1.Session() as s:
            o, a, b = s.run([out, gx, gf], {x: inp})
    path = os.path.join(HERE, "..", "tests", "data", "nnops_cnn.pbtxt")
    tf.io.write_graph(g.as_graph_def(), os.path.dirname(path), os.path.basename(path), as_text=True)
    print("// op types:", sorted({n.op for n in g.as_graph_def().node}))
    const("OUT", o)
    const("GRAD_INPUT", a)
    const("GRAD_FILTER", b)


if __name__ == "__main__":
    {"activations": activations, "batch_norm": batch_norm, "depthwise": depthwise,
     "conv2d_transpose": conv2d_transpose, "graph": graph}[sys.argv[1]]()
