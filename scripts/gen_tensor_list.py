#!/usr/bin/env python3
"""Writes tests/data/tensor_list/, TensorFlow 2.21's TensorList graphs and values, read by
tests/tensor_list.rs:

- `list_ops.pbtxt` + `list_ops.json`: a TF1-style graph of the TensorList ops
  (`tf.raw_ops`: Reserve, FromTensor, Stack, GetItem, SetItem, Length, PushBack, PopBack,
  ElementShape, EmptyTensorList, ConcatV2, Split, Gather, ScatterIntoExistingList,
  ScatterV2, Scatter, Resize) on fed placeholders, and per fetch TensorFlow's value, or for the
  `err_*` fetches TensorFlow's error text;
- `lstm/`: a tf_keras LSTM (units 4, timesteps 5, features 3, `return_sequences`, random
  weights, seed 5) saved as a TF2 SavedModel by `tf.saved_model.save` of a module holding
  its weights and a `serving_default` function calling it (its `standard_lstm` function
  keeps the sequence in TensorLists inside a `While`); `lstm_x1.npy`/`lstm_x3.npy` inputs (batch 1 and 3) and
  TensorFlow's outputs `lstm_y1.npy`/`lstm_y3.npy`;
- `while_grad.pbtxt` + `while_grad.json`: a graph (control flow v2) calling a
  `tf.function` that returns a `GradientTape` gradient through a `tf.while_loop`, so its
  library holds the forward `While` accumulating intermediates in TensorLists and the
  backward `While` popping them; the fed x, w, n and TensorFlow's y and gradients.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_tensor_list.py
"""

import json
import os
import shutil
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["CUDA_VISIBLE_DEVICES"] = ""

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "data", "tensor_list")


def tj(a):
    a = np.asarray(a)
    return {"dtype": a.dtype.name, "shape": list(a.shape), "values": a.reshape(-1).tolist()}


def list_ops():
    import tensorflow.compat.v1 as tf
    from google.protobuf import text_format
    R = tf.raw_ops
    f32 = tf.float32
    g = tf.Graph()
    fetches = {}
    with g.as_default():
        x = tf.placeholder(f32, [4, 3], name="x")
        v = tf.placeholder(f32, [3], name="v")
        i = tf.placeholder(tf.int32, [], name="i")
        big = tf.placeholder(tf.int32, [], name="big")
        xu = tf.placeholder(f32, None, name="xu")
        es_bad = tf.placeholder(tf.int32, [None], name="es_bad")
        es3 = tf.constant([3], tf.int32, name="es3")
        unk = tf.constant(-1, tf.int32, name="unk")
        l = R.TensorListFromTensor(tensor=x, element_shape=es3, name="from_tensor")
        fetches["stack"] = R.TensorListStack(input_handle=l, element_shape=es3, element_dtype=f32, num_elements=4,
                                             name="stack")
        fetches["get_item"] = R.TensorListGetItem(input_handle=l, index=i, element_shape=es3, element_dtype=f32,
                                                  name="get_item")
        s = R.TensorListSetItem(input_handle=l, index=i, item=v, name="set_item")
        fetches["set_stack"] = R.TensorListStack(input_handle=s, element_shape=unk, element_dtype=f32,
                                                 name="set_stack")
        fetches["from_unchanged"] = R.TensorListStack(input_handle=l, element_shape=es3, element_dtype=f32,
                                                      name="from_unchanged")
        fetches["length"] = R.TensorListLength(input_handle=s, name="length")
        r = R.TensorListReserve(element_shape=tf.constant([2], tf.int32), num_elements=3, element_dtype=f32,
                                name="reserve")
        r1 = R.TensorListSetItem(input_handle=r, index=1, item=tf.constant([5.0, 6.0]), name="reserve_set")
        fetches["reserve_stack"] = R.TensorListStack(input_handle=r1, element_shape=unk, element_dtype=f32,
                                                     name="reserve_stack")
        fetches["reserve_get0"] = R.TensorListGetItem(input_handle=r1, index=0, element_shape=unk,
                                                      element_dtype=f32, name="reserve_get0")
        e = R.EmptyTensorList(element_shape=es3, max_num_elements=-1, element_dtype=f32, name="empty")
        p1 = R.TensorListPushBack(input_handle=e, tensor=x[0], name="push1")
        p2 = R.TensorListPushBack(input_handle=p1, tensor=v, name="push2")
        pl, pt = R.TensorListPopBack(input_handle=p2, element_shape=es3, element_dtype=f32, name="pop")
        fetches["pop_tensor"] = pt
        fetches["pop_length"] = R.TensorListLength(input_handle=pl, name="pop_length")
        fetches["push_stack"] = R.TensorListStack(input_handle=p2, element_shape=es3, element_dtype=f32,
                                                  name="push_stack")
        part = R.EmptyTensorList(element_shape=tf.constant([-1, 3]), max_num_elements=-1, element_dtype=f32,
                                 name="partial")
        fetches["element_shape_partial"] = R.TensorListElementShape(input_handle=part, shape_type=tf.int32,
                                                                    name="element_shape_partial")
        fetches["element_shape_unknown"] = R.TensorListElementShape(
            input_handle=R.EmptyTensorList(element_shape=unk, max_num_elements=-1, element_dtype=f32),
            shape_type=tf.int64, name="element_shape_unknown")
        fetches["element_shape_known"] = R.TensorListElementShape(input_handle=l, shape_type=tf.int32,
                                                                  name="element_shape_known")
        sp = R.TensorListSplit(tensor=x, element_shape=tf.constant([-1, 3]), lengths=tf.constant([1, 3], tf.int64),
                               name="split")
        fetches["split_length"] = R.TensorListLength(input_handle=sp, name="split_length")
        fetches["split_get1"] = R.TensorListGetItem(input_handle=sp, index=1, element_shape=unk, element_dtype=f32,
                                                    name="split_get1")
        ct, cl = R.TensorListConcatV2(input_handle=sp, element_shape=tf.constant([-1, 3]),
                                      leading_dims=tf.constant([], tf.int64), element_dtype=f32, name="concat")
        fetches["concat"] = ct
        fetches["concat_lengths"] = cl
        fetches["gather"] = R.TensorListGather(input_handle=l, indices=tf.constant([3, 0, 3]), element_shape=es3,
                                               element_dtype=f32, name="gather")
        r5 = R.TensorListReserve(element_shape=es3, num_elements=5, element_dtype=f32, name="reserve5")
        sc = R.TensorListScatterIntoExistingList(input_handle=r5, tensor=x[:2], indices=tf.constant([4, 1]),
                                                 name="scatter_existing")
        fetches["scatter_existing"] = R.TensorListStack(input_handle=sc, element_shape=es3, element_dtype=f32,
                                                        name="scatter_existing_stack")
        sv = R.TensorListScatterV2(tensor=x, indices=tf.constant([2, 0, 5, 1]), element_shape=es3, num_elements=7,
                                   name="scatter_v2")
        fetches["scatter_v2"] = R.TensorListStack(input_handle=sv, element_shape=es3, element_dtype=f32,
                                                  name="scatter_v2_stack")
        s1 = R.TensorListScatter(tensor=x[:3], indices=tf.constant([3, 0, 1]), element_shape=es3, name="scatter_v1")
        fetches["scatter_v1_length"] = R.TensorListLength(input_handle=s1, name="scatter_v1_length")
        fetches["scatter_v1_get3"] = R.TensorListGetItem(input_handle=s1, index=3, element_shape=es3,
                                                         element_dtype=f32, name="scatter_v1_get3")
        fetches["resize_up"] = R.TensorListStack(input_handle=R.TensorListResize(input_handle=l, size=6),
                                                 element_shape=es3, element_dtype=f32, name="resize_up")
        fetches["resize_down"] = R.TensorListStack(input_handle=R.TensorListResize(input_handle=l, size=2),
                                                   element_shape=es3, element_dtype=f32, name="resize_down")
        # errors (TensorFlow's texts)
        fetches["err_get_out_of_range"] = R.TensorListGetItem(input_handle=l, index=big, element_shape=es3,
                                                              element_dtype=f32, name="err_get_out_of_range")
        fetches["err_set_out_of_range"] = R.TensorListLength(
            input_handle=R.TensorListSetItem(input_handle=l, index=big, item=v), name="err_set_out_of_range")
        r_unk = R.TensorListReserve(element_shape=unk, num_elements=2, element_dtype=f32, name="reserve_unknown")
        fetches["err_stack_uninitialized"] = R.TensorListStack(input_handle=r_unk, element_shape=unk,
                                                               element_dtype=f32, name="err_stack_uninitialized")
        fetches["err_get_uninitialized"] = R.TensorListGetItem(input_handle=r_unk, index=0, element_shape=unk,
                                                               element_dtype=f32, name="err_get_uninitialized")
        e_unk = R.EmptyTensorList(element_shape=unk, max_num_elements=-1, element_dtype=f32)
        fetches["err_pop_empty"] = R.TensorListPopBack(input_handle=e_unk, element_shape=unk, element_dtype=f32,
                                                       name="err_pop_empty")[1]
        fetches["err_reserve_negative"] = R.TensorListLength(
            input_handle=R.TensorListReserve(element_shape=unk, num_elements=big * -1, element_dtype=f32),
            name="err_reserve_negative")
        fetches["err_push_shape"] = R.TensorListLength(
            input_handle=R.TensorListPushBack(input_handle=e, tensor=xu), name="err_push_shape")
        fetches["err_full"] = R.TensorListLength(
            input_handle=R.TensorListPushBack(
                input_handle=R.TensorListPushBack(
                    input_handle=R.EmptyTensorList(element_shape=es3, max_num_elements=1, element_dtype=f32),
                    tensor=v), tensor=v), name="err_full")
        fetches["err_split_unused"] = R.TensorListLength(
            input_handle=R.TensorListSplit(tensor=x, element_shape=unk, lengths=tf.constant([1, 1], tf.int64)),
            name="err_split_unused")
        fetches["err_from_tensor_shape"] = R.TensorListLength(
            input_handle=R.TensorListFromTensor(tensor=x, element_shape=es_bad),
            name="err_from_tensor_shape")
        fetches["err_stack_num_elements"] = R.TensorListStack(input_handle=l, element_shape=es3, element_dtype=f32,
                                                              num_elements=3, name="err_stack_num_elements")
        fetches["err_resize_negative"] = R.TensorListLength(
            input_handle=R.TensorListResize(input_handle=l, size=big * -1), name="err_resize_negative")
        fetches["err_gather_out_of_range"] = R.TensorListGather(
            input_handle=l, indices=tf.reshape(big, [1]), element_shape=es3, element_dtype=f32,
            name="err_gather_out_of_range")
        fetches["err_get_negative"] = R.TensorListGetItem(input_handle=l, index=-big, element_shape=es3,
                                                          element_dtype=f32, name="err_get_negative")
        fetches["err_scatter_negative"] = R.TensorListLength(
            input_handle=R.TensorListScatterV2(tensor=x[:1], indices=tf.reshape(-big, [1]), element_shape=es3,
                                               num_elements=-1), name="err_scatter_negative")
        gd = g.as_graph_def()
        feeds = {"x:0": np.arange(12, dtype=np.float32).reshape(4, 3) * 0.5 - 1.0,
                 "v:0": np.array([10.0, 20.0, 30.0], np.float32), "i:0": np.int32(2), "big:0": np.int32(7),
                 "es_bad:0": np.array([2], np.int32)}
        feeds["xu:0"] = feeds["x:0"]
        out = {"feeds": {k: tj(a) for k, a in feeds.items()}, "values": {}, "errors": {}}
        with tf.Session(graph=g) as sess:
            for name, t in fetches.items():
                try:
                    val = sess.run(t, feeds)
                    assert not name.startswith("err_"), name
                    out["values"][name] = {"fetch": t.name, **tj(val)}
                except tf.errors.OpError as err:
                    assert name.startswith("err_"), (name, err.message)
                    out["errors"][name] = {"fetch": t.name, "code": err.error_code,
                                           "message": err.message.split("\n\t [[")[0].split("\n")[-1]}
    with open(os.path.join(OUT, "list_ops.pbtxt"), "w") as f:
        f.write(text_format.MessageToString(gd))
    with open(os.path.join(OUT, "list_ops.json"), "w") as f:
        json.dump(out, f, indent=1)


def lstm():
    import tensorflow as tf
    import tf_keras as keras
    keras.utils.set_random_seed(5)
    x = keras.Input(shape=(5, 3), name="seq")
    y = keras.layers.LSTM(4, return_sequences=True, name="lstm")(x)
    model = keras.Model(x, y, name="small_lstm")
    rng = np.random.default_rng(5)
    model.set_weights([rng.uniform(-0.8, 0.8, w.shape).astype(np.float32) for w in model.get_weights()])
    d = os.path.join(OUT, "lstm")
    shutil.rmtree(d, ignore_errors=True)
    # the model's variables and one serving function (Keras' own `model.save` writes every
    # layer's traced functions too, ten times the bytes)
    module = tf.Module()
    module.variables_ = model.weights
    module.serve = tf.function(lambda seq: {"lstm": model(seq)},
                               input_signature=[tf.TensorSpec([None, 5, 3], tf.float32, name="seq")])
    tf.saved_model.save(module, d, signatures={"serving_default": module.serve})
    loaded = tf.saved_model.load(d)
    fn = loaded.signatures["serving_default"]
    x3 = rng.uniform(-1.0, 1.0, (3, 5, 3)).astype(np.float32)
    for name, xv in (("1", x3[:1].copy()), ("3", x3)):
        (key, yv), = fn(tf.constant(xv)).items()
        yv = yv.numpy()
        np.testing.assert_allclose(yv, np.asarray(model(xv)), rtol=1e-5, atol=1e-6)
        np.save(os.path.join(OUT, f"lstm_x{name}.npy"), xv)
        np.save(os.path.join(OUT, f"lstm_y{name}.npy"), yv)
    for extra in ("fingerprint.pb",):
        p = os.path.join(d, extra)
        if os.path.exists(p):
            os.remove(p)


def while_grad():
    import tensorflow as tf2
    import tensorflow.compat.v1 as tf
    from google.protobuf import text_format
    g = tf.Graph()
    with g.as_default():
        tf.enable_control_flow_v2()
        x = tf.placeholder(tf.float32, [3], name="x")
        w = tf.placeholder(tf.float32, [3], name="w")
        n = tf.placeholder(tf.int32, [], name="n")

        @tf2.function
        def fn(x, w, n):
            with tf2.GradientTape() as tape:
                tape.watch([x, w])
                _, h = tf.while_loop(lambda k, h: k < n, lambda k, h: (k + 1, tf.tanh(h * w + x)), [0, x],
                                     name="loop")
                y = tf.reduce_sum(h * h)
            gx, gw = tape.gradient(y, [x, w])
            return y, gx, gw

        y, gx, gw = fn(x, w, n)
        outs = [tf.identity(y, name="y"), tf.identity(gx, name="gx"), tf.identity(gw, name="gw")]
        gd = g.as_graph_def()
        feeds = {"x:0": np.array([0.3, -0.7, 1.1], np.float32), "w:0": np.array([0.9, -1.2, 0.4], np.float32)}
        out = {"feeds": {k: tj(a) for k, a in feeds.items()}, "cases": []}
        with tf.Session(graph=g) as sess:
            for nv in (0, 1, 4):
                vals = sess.run(outs, dict(feeds, **{"n:0": np.int32(nv)}))
                out["cases"].append({"n": nv, "y": tj(vals[0]), "gx": tj(vals[1]), "gw": tj(vals[2])})
    ops = sorted({nd.op for f in gd.library.function for nd in f.node_def})
    assert "TensorListPopBack" in ops and "TensorListPushBack" in ops, ops
    out["library_ops"] = ops
    with open(os.path.join(OUT, "while_grad.pbtxt"), "w") as f:
        f.write(text_format.MessageToString(gd))
    with open(os.path.join(OUT, "while_grad.json"), "w") as f:
        json.dump(out, f, indent=1)


def main():
    os.makedirs(OUT, exist_ok=True)
    which = sys.argv[2:] or ["list_ops", "lstm", "while_grad"]
    if "list_ops" in which:
        list_ops()
    if "while_grad" in which:
        while_grad()
    if "lstm" in which:
        lstm()


if __name__ == "__main__":
    main()
