#!/usr/bin/env python3
"""Writes the real-model test set (issue 9, item 6) with TensorFlow 2.21 and tf-keras.

    TF_USE_LEGACY_KERAS=1 python scripts/gen_models.py OUTDIR

Run with the interop virtualenv's python (interop/setup_venv.sh installs tensorflow-cpu and
tf-keras). Fixed seeds, no downloads. The set is too large to commit (ResNet50's frozen graph
is about 100 MB): interop/run.sh generates it once into ~/.cache/tensorgraph/models-<hash of
this file>/ and runs cli/tests/real_models.rs on it.

Frozen inference graphs (TF1 control flow: `tf.compat.v1.disable_control_flow_v2()`), each in
OUTDIR/<name>/ with frozen.pb and manifest.json naming the input and output tensors, and per
batch size B in (1, 8): input_bB.npy and TensorFlow's output expected_bB.npy:
- mobilenet_v2, resnet50: Keras' architectures (`weights=None`, 224x224x3, 1000 classes), their
  batch norm moving statistics set to the batch statistics of the batch-8 input, so that
  activations stay of order one through every layer;
- lstm_lm: a `dynamic_rnn` LSTM language model (int32 token ids in, softmax over 50 words out);
- cnn_cond: a conv net with `batch_normalization` and `dropout` under `tf.cond` on a
  `training` flag (a placeholder_with_default(False));
- transformer: an encoder block (multi-head self-attention by einsum and batched matmul,
  layer norm, a GELU feed-forward) in tf.compat.v1 ops.

Training graphs, each in OUTDIR/<name>/ with model.ckpt (+ .meta, written by Saver.save before
training), manifest.json (the loss tensor, the train op, the feeds), batch_x_S.npy /
batch_y_S.npy for the 5 steps S = 0..4, losses.npy (TensorFlow's loss fetched with the train op
at each step, i.e. before that step's update) and final.ckpt (every variable after the 5 steps):
- lstm_classifier: a `dynamic_rnn` LSTM classifier trained by Adam;
- cnn_bn: a CNN with `batch_normalization(training=True)` whose UPDATE_OPS run with Adam's
  train op.
"""
import json
import os
import sys

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import warnings  # noqa: E402

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1
v1.disable_control_flow_v2()
warnings.filterwarnings("ignore", category=UserWarning)

BATCHES = (1, 8)


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=True)
        f.write("\n")


def freeze(sess, graph, out_names, path):
    gd = v1.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), out_names)
    with open(path, "wb") as f:
        f.write(gd.SerializeToString())
    return gd


def save_inference(outdir, name, sess, graph, inputs, output, batches, extra=None):
    """Freezes `graph` at `output`, runs the inputs in TF and writes them with the outputs."""
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    freeze(sess, graph, [output.op.name], os.path.join(d, "frozen.pb"))
    feeds = {}
    for b, x in batches.items():
        np.save(os.path.join(d, f"input_b{b}.npy"), x)
        y = sess.run(output, {inputs: x})
        np.save(os.path.join(d, f"expected_b{b}.npy"), y)
        feeds[str(b)] = list(y.shape)
    manifest = {
        "input": inputs.name,
        "output": output.name,
        "output_shapes": feeds,
        "written_by": f"TensorFlow {tf.__version__}, scripts/gen_models.py",
    }
    manifest.update(extra or {})
    write_json(os.path.join(d, "manifest.json"), manifest)
    print(f"gen_models: {name}: {len(batches)} batches, output {output.name}")


def keras_app(outdir, name, ctor):
    """A Keras application in TF1 graph mode at learning phase 0 with calibrated batch norm.

    The same model is built first at learning phase 1, where each batch norm normalizes by
    its batch's statistics; those statistics, from the batch-8 input, become the moving
    statistics of the inference model (which gets the same weights), so the inference
    model's activations on that batch are the training-mode ones: of order one throughout.
    """
    import tf_keras as keras

    rng = np.random.default_rng(21)
    x8 = rng.standard_normal((8, 224, 224, 3)).astype(np.float32)

    def build(phase):
        g = tf.Graph()
        with g.as_default():
            v1.set_random_seed(9)
            sess = v1.Session(graph=g)
            v1.keras.backend.set_session(sess)
            v1.keras.backend.set_learning_phase(phase)
            model = ctor(keras)
            sess.run(v1.global_variables_initializer())
        bns = [l for l in model.layers if isinstance(l, keras.layers.BatchNormalization)]
        return g, sess, model, bns

    g, sess, model, bns = build(1)
    with g.as_default():
        moments = [tf.nn.moments(l.input, axes=[0, 1, 2]) for l in bns]
        stats = sess.run(moments, {model.input: x8})
        weights = model.get_weights()
    sess.close()
    g, sess, model, bns = build(0)
    with g.as_default():
        model.set_weights(weights)
        for l, (m, v) in zip(bns, stats):
            l.moving_mean.load(m, sess)
            l.moving_variance.load(v, sess)
        save_inference(outdir, name, sess, g, model.input, model.output, {1: x8[:1], 8: x8})
    sess.close()


def mobilenet_v2(outdir):
    keras_app(outdir, "mobilenet_v2", lambda k: k.applications.MobileNetV2(weights=None))


def resnet50(outdir):
    keras_app(outdir, "resnet50", lambda k: k.applications.ResNet50(weights=None))


def lstm_cell(units):
    return v1.nn.rnn_cell.LSTMCell(units, initializer=v1.glorot_uniform_initializer(seed=3))


def lstm_lm(outdir):
    vocab, embed, units, steps = 50, 16, 32, 10
    g = tf.Graph()
    with g.as_default():
        v1.set_random_seed(11)
        ids = v1.placeholder(tf.int32, [None, steps], name="ids")
        emb = v1.get_variable("embedding", [vocab, embed])
        x = tf.nn.embedding_lookup(emb, ids)
        out, _ = v1.nn.dynamic_rnn(lstm_cell(units), x, dtype=tf.float32, scope="rnn")
        w = v1.get_variable("softmax_w", [units, vocab])
        b = v1.get_variable("softmax_b", [vocab], initializer=v1.zeros_initializer())
        logits = tf.einsum("btu,uv->btv", out, w) + b
        probs = tf.nn.softmax(logits, name="probs")
        with v1.Session(graph=g) as sess:
            sess.run(v1.global_variables_initializer())
            rng = np.random.default_rng(5)
            x8 = rng.integers(0, vocab, (8, steps)).astype(np.int32)
            save_inference(outdir, "lstm_lm", sess, g, ids, probs, {1: x8[:1], 8: x8})


def cnn_body(x, training, rate):
    layers = v1.layers
    h = layers.conv2d(x, 8, 3, padding="same", name="conv1")
    h = tf.nn.relu(layers.batch_normalization(h, training=training, name="bn1"))
    h = layers.max_pooling2d(h, 2, 2)
    h = layers.conv2d(h, 16, 3, padding="same", name="conv2")
    h = tf.nn.relu(layers.batch_normalization(h, training=training, name="bn2"))
    h = layers.flatten(h)
    h = layers.dropout(h, rate=rate, training=training)
    return layers.dense(h, 10, name="logits")


def cnn_cond(outdir):
    g = tf.Graph()
    with g.as_default():
        v1.set_random_seed(13)
        x = v1.placeholder(tf.float32, [None, 28, 28, 1], name="x")
        training = v1.placeholder_with_default(False, [], name="training")
        probs = tf.nn.softmax(cnn_body(x, training, 0.5), name="probs")
        with v1.Session(graph=g) as sess:
            sess.run(v1.global_variables_initializer())
            rng = np.random.default_rng(7)
            x8 = rng.standard_normal((8, 28, 28, 1)).astype(np.float32)
            save_inference(outdir, "cnn_cond", sess, g, x, probs, {1: x8[:1], 8: x8})


def layer_norm(x, name):
    with v1.variable_scope(name):
        d = x.shape[-1]
        gamma = v1.get_variable("gamma", [d], initializer=v1.ones_initializer())
        beta = v1.get_variable("beta", [d], initializer=v1.zeros_initializer())
        mean, var = tf.nn.moments(x, axes=[-1], keepdims=True)
        return (x - mean) * tf.math.rsqrt(var + 1e-6) * gamma + beta


def transformer(outdir):
    steps, d, heads = 16, 32, 4
    dk = d // heads
    g = tf.Graph()
    with g.as_default():
        v1.set_random_seed(17)
        x = v1.placeholder(tf.float32, [None, steps, d], name="x")
        with v1.variable_scope("encoder"):
            wq, wk, wv, wo = (v1.get_variable(n, [d, d]) for n in ("wq", "wk", "wv", "wo"))

            def split(t):
                return tf.transpose(tf.reshape(t, [-1, steps, heads, dk]), [0, 2, 1, 3])

            q = split(tf.einsum("btd,de->bte", x, wq))
            k = split(tf.einsum("btd,de->bte", x, wk))
            v = split(tf.einsum("btd,de->bte", x, wv))
            scores = tf.matmul(q, k, transpose_b=True) / np.sqrt(dk).astype(np.float32)
            att = tf.matmul(tf.nn.softmax(scores), v)
            att = tf.reshape(tf.transpose(att, [0, 2, 1, 3]), [-1, steps, d])
            h = layer_norm(x + tf.tensordot(att, wo, axes=1), "ln1")
            w1 = v1.get_variable("w1", [d, 4 * d])
            b1 = v1.get_variable("b1", [4 * d], initializer=v1.zeros_initializer())
            w2 = v1.get_variable("w2", [4 * d, d])
            f = tf.nn.gelu(tf.tensordot(h, w1, axes=1) + b1, approximate=False)
            y = layer_norm(h + tf.tensordot(f, w2, axes=1), "ln2")
        out = tf.identity(y, name="encoded")
        with v1.Session(graph=g) as sess:
            sess.run(v1.global_variables_initializer())
            rng = np.random.default_rng(19)
            x8 = rng.standard_normal((8, steps, d)).astype(np.float32)
            save_inference(outdir, "transformer", sess, g, x, out, {1: x8[:1], 8: x8})


def train_set(outdir, name, build, make_batch, steps=5):
    """Builds with `build() -> (x, y, loss)`, saves, trains `steps` steps, saves final.ckpt."""
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        v1.set_random_seed(23)
        x, y, loss = build()
        update_ops = v1.get_collection(v1.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(update_ops):
            train = v1.train.AdamOptimizer(0.01).minimize(loss, name="train")
        saver = v1.train.Saver()
        with v1.Session(graph=g) as sess:
            sess.run(v1.global_variables_initializer())
            saver.save(sess, os.path.join(d, "model.ckpt"))
            rng = np.random.default_rng(29)
            losses = []
            for s in range(steps):
                bx, by = make_batch(rng)
                np.save(os.path.join(d, f"batch_x_{s}.npy"), bx)
                np.save(os.path.join(d, f"batch_y_{s}.npy"), by)
                l, _ = sess.run([loss, train], {x: bx, y: by})
                losses.append(l)
            np.save(os.path.join(d, "losses.npy"), np.array(losses, dtype=np.float32))
            saver.save(sess, os.path.join(d, "final.ckpt"), write_meta_graph=False)
            names = sorted(v.op.name for v in v1.global_variables())
    write_json(
        os.path.join(d, "manifest.json"),
        {
            "x": x.name,
            "y": y.name,
            "loss": loss.name,
            "train_op": train.name,
            "steps": steps,
            "variables": names,
            "update_ops": [o.name for o in update_ops],
            "written_by": f"TensorFlow {tf.__version__}, scripts/gen_models.py",
        },
    )
    print(f"gen_models: {name}: {steps} steps, losses {losses}")


def lstm_classifier(outdir):
    steps, feats, classes = 8, 4, 3

    def build():
        x = v1.placeholder(tf.float32, [None, steps, feats], name="x")
        y = v1.placeholder(tf.int32, [None], name="y")
        out, _ = v1.nn.dynamic_rnn(lstm_cell(16), x, dtype=tf.float32, scope="rnn")
        last = out[:, -1, :]
        w = v1.get_variable("out/w", [16, classes])
        b = v1.get_variable("out/b", [classes], initializer=v1.zeros_initializer())
        logits = tf.matmul(last, w) + b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
        return x, y, loss

    def batch(rng):
        return (rng.standard_normal((6, steps, feats)).astype(np.float32), rng.integers(0, classes, 6).astype(np.int32))

    train_set(outdir, "lstm_classifier", build, batch)


def cnn_bn(outdir):
    def build():
        x = v1.placeholder(tf.float32, [None, 8, 8, 1], name="x")
        y = v1.placeholder(tf.int32, [None], name="y")
        # no bias before batch norm: its gradient is zero up to rounding, and Adam would move
        # it by the sign of that rounding noise (and the moving mean with it)
        h = v1.layers.conv2d(x, 4, 3, padding="same", use_bias=False, name="conv")
        h = tf.nn.relu(v1.layers.batch_normalization(h, training=True, name="bn"))
        logits = v1.layers.dense(v1.layers.flatten(h), 10, name="logits")
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
        return x, y, loss

    def batch(rng):
        return (rng.standard_normal((8, 8, 8, 1)).astype(np.float32), rng.integers(0, 10, 8).astype(np.int32))

    train_set(outdir, "cnn_bn", build, batch)


ALL = [mobilenet_v2, resnet50, lstm_lm, cnn_cond, transformer, lstm_classifier, cnn_bn]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: gen_models.py OUTDIR [NAME ...]")
    outdir = sys.argv[1]
    wanted = set(sys.argv[2:])
    for gen in ALL:
        if not wanted or gen.__name__ in wanted:
            gen(outdir)


if __name__ == "__main__":
    main()
