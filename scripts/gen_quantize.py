#!/usr/bin/env python3
"""TensorFlow 2.21's numbers for tests/ops_quantize.rs and tests/quantized_dtypes.rs:

- tests/data/quantize/cases.json: QuantizeV2 and Dequantize for every quantized dtype and
  mode (and round_mode, narrow_range, axis, bfloat16 output), inputs and outputs; float32
  values as their IEEE bit patterns so the test compares them exactly;
- tests/data/quantize/quantize.pbtxt: a TensorFlow-written graph with qint8/quint8/qint32
  Consts (TensorProto int_val and tensor_content), QuantizeV2 and Dequantize, with its
  fetched values in cases.json under "graph";
- tests/data/quantize/ckpt.*: a V2 checkpoint TensorFlow's SaveV2 wrote holding one tensor
  of each quantized dtype, its values in cases.json under "checkpoint".

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_quantize.py

(the venv is made by interop/setup_venv.sh). Everything runs in graph mode on CPU.
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# TensorFlow's own CPU kernels: oneDNN would rewrite the two ops to _MklQuantizeV2 and
# _MklDequantize, which round differently and lack most dtypes
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "quantize")

QTYPES = [tf.qint8, tf.quint8, tf.qint16, tf.quint16, tf.qint32]
X = np.array([-3.7, -1.0, -0.5, -0.0049, 0.0, 0.25, 0.5, 1.5, 2.49, 2.5, 3.1, 7.9], np.float32)


def bits(a):
    return np.asarray(a, np.float32).reshape(-1).view(np.uint32).tolist()


def ints(a):
    a = np.asarray(a)
    if a.dtype.names:  # TensorFlow's quantized numpy types are one-field records
        a = a[a.dtype.names[0]]
    return a.reshape(-1).astype(np.int64).tolist()


def run(fetches, feeds=None):
    with tf.Session() as s:
        return s.run(fetches, feeds)


def quantize_case(t, x, lo, hi, **attrs):
    g = tf.Graph()
    with g.as_default():
        q = tf.raw_ops.QuantizeV2(input=x, min_range=lo, max_range=hi, T=t, **attrs)
        dq_attrs = {k: v for k, v in attrs.items() if k in ("mode", "narrow_range", "axis")}
        d = tf.raw_ops.Dequantize(input=q.output, min_range=q.output_min, max_range=q.output_max, **dq_attrs)
        qv, mn, mx, dv = run([q.output, q.output_min, q.output_max, d])
    return {
        "T": t.name,
        "shape": list(np.shape(x)),
        "input": bits(x),
        "min_range": bits(lo),
        "max_range": bits(hi),
        "range_shape": list(np.shape(lo)),
        "attrs": attrs,
        "output": ints(qv),
        "output_min": bits(mn),
        "output_max": bits(mx),
        "output_range_shape": list(np.shape(mn)),
        "dequantized": bits(dv),
    }


def dequantize_case(t, q, lo, hi, **attrs):
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(np.array(q).astype(t.as_numpy_dtype), dtype=t)
        d = tf.raw_ops.Dequantize(input=c, min_range=lo, max_range=hi, **attrs)
        dv = run(d)
    attrs = {k: (v.name if isinstance(v, tf.DType) else v) for k, v in attrs.items()}
    out = bits(dv) if d.dtype == tf.float32 else np.asarray(dv, np.float32).reshape(-1).tolist()
    return {"T": t.name, "shape": list(np.shape(q)), "input": [int(v) for v in np.reshape(q, -1)], "min_range": bits(lo),
            "max_range": bits(hi), "range_shape": list(np.shape(lo)), "attrs": attrs, "output": out}


def cases():
    qs, ds = [], []
    for t in QTYPES:
        for mode in ["MIN_COMBINED", "MIN_FIRST", "SCALED"]:
            qs.append(quantize_case(t, X, -2.0, 6.0, mode=mode))
            qs.append(quantize_case(t, X, 0.5, 3.0, mode=mode))  # widened to hold 0
        qs.append(quantize_case(t, X, -2.0, 6.0, mode="SCALED", narrow_range=True))
        qs.append(quantize_case(t, X, -2.0, 6.0, mode="SCALED", round_mode="HALF_TO_EVEN"))
        qs.append(quantize_case(t, X, 1.0, 1.0, mode="MIN_FIRST"))  # ensure_minimum_range
        x2 = X.reshape(3, 4)
        for mode in ["MIN_COMBINED", "SCALED"]:
            qs.append(quantize_case(t, x2, np.array([-1.0, -2.0, 0.0, -4.0], np.float32),
                                    np.array([1.0, 3.0, 8.0, 2.0], np.float32), mode=mode, axis=1))
        lo_q = {"qint8": -128, "quint8": 0, "qint16": -32768, "quint16": 0, "qint32": -2147483648}[t.name]
        hi_q = {"qint8": 127, "quint8": 255, "qint16": 32767, "quint16": 65535, "qint32": 2147483647}[t.name]
        q = [lo_q, lo_q + 1, lo_q // 2, 0, 1, 7, hi_q // 3, hi_q - 1, hi_q]
        for mode in ["MIN_COMBINED", "MIN_FIRST", "SCALED"]:
            ds.append(dequantize_case(t, q, -1.5, 4.25, mode=mode))
        ds.append(dequantize_case(t, q, -1.5, 4.25, mode="SCALED", narrow_range=True))
        ds.append(dequantize_case(t, q, -1.5, 4.25, mode="MIN_COMBINED", dtype=tf.bfloat16))
        ds.append(dequantize_case(t, q, 2.0, 2.0, mode="MIN_FIRST"))
    return qs, ds


def graph():
    """A graph as a TF1 quantized model holds it: quantized Consts and the two ops."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        w8 = tf.constant(np.array([[-128, 0, 127]], np.int8).astype(tf.qint8.as_numpy_dtype), tf.qint8, name="w_qint8")
        u8 = tf.constant(np.array(200, np.uint8).astype(tf.quint8.as_numpy_dtype), tf.quint8, name="w_quint8")
        i32 = tf.constant(np.array([5, -6], np.int32).astype(tf.qint32.as_numpy_dtype), tf.qint32, name="w_qint32")
        dw = tf.raw_ops.Dequantize(input=w8, min_range=-1.0, max_range=1.0, mode="SCALED", name="dq_w")
        du = tf.raw_ops.Dequantize(input=u8, min_range=0.0, max_range=2.0, name="dq_u")
        di = tf.raw_ops.Dequantize(input=i32, min_range=-10.0, max_range=10.0, mode="SCALED", name="dq_i")
        q = tf.raw_ops.QuantizeV2(input=x, min_range=-1.0, max_range=4.0, T=tf.quint8, mode="MIN_FIRST", name="q")
        back = tf.raw_ops.Dequantize(input=q.output, min_range=q.output_min, max_range=q.output_max,
                                     mode="MIN_FIRST", name="back")
        y = tf.add(back * dw, du, name="y")
        feed = np.array([[-1.0, 0.3, 2.0], [3.9, -0.7, 1.25]], np.float32)
        vals = run([y, q.output, q.output_min, q.output_max, di], {x: feed})
        tf.io.write_graph(g.as_graph_def(), OUT, "quantize.pbtxt", as_text=True)
    return {"feed_x": bits(feed), "y": bits(vals[0]), "q": ints(vals[1]), "q_min": bits(vals[2]),
            "q_max": bits(vals[3]), "dq_i": bits(vals[4])}


def checkpoint():
    """SaveV2 of one tensor per quantized dtype (TensorFlow's BundleWriter)."""
    g = tf.Graph()
    vals = {}
    with g.as_default():
        names, tensors = [], []
        for t, v in [(tf.qint8, [[-128, 5], [7, 127]]), (tf.quint8, [0, 9, 255]), (tf.qint16, [-32768, 1, 32767]),
                     (tf.quint16, [65535]), (tf.qint32, [-2147483648, 0, 2147483647, 42])]:
            names.append("v_" + t.name)
            tensors.append(tf.constant(np.array(v).astype(t.as_numpy_dtype), t))
            vals[names[-1]] = {"dtype": t.name, "shape": list(np.shape(v)), "values": [int(i) for i in np.reshape(v, -1)]}
        save = tf.raw_ops.SaveV2(prefix=os.path.join(OUT, "ckpt"), tensor_names=names,
                                 shape_and_slices=[""] * len(names), tensors=tensors)
        run(save)
    return vals


def main():
    os.makedirs(OUT, exist_ok=True)
    qs, ds = cases()
    doc = {"quantize": qs, "dequantize": ds, "graph": graph(), "checkpoint": checkpoint()}
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(qs)} QuantizeV2 and {len(ds)} Dequantize cases, quantize.pbtxt and ckpt to {OUT}")


if __name__ == "__main__":
    main()
