"""Expected values for tests/summary_ops.rs: TensorFlow 2.21's summary ops (ScalarSummary,
HistogramSummary, ImageSummary, TensorSummaryV2 via tf.summary.text, MergeSummary) run in
graph mode; prints each serialized Summary as hex (images: the decoded pixels instead of
the PNG bytes, which depend on the encoder) and each error message. Run with the interop
venv's python: ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_summary_reference.py
"""
import os
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_v2_behavior()


def run(build):
    g = tf.Graph()
    with g.as_default():
        out = build()
        with tf1.Session() as s:
            try:
                return s.run(out)
            except tf.errors.OpError as e:
                lines = [l for l in e.message.splitlines() if l.strip() and not l.startswith(" ")]
                return "ERROR %s: %s" % (type(e).__name__, lines[-2] if len(lines) > 1 else lines[0])


def show(name, build):
    r = run(build)
    if isinstance(r, bytes):
        print(name, r.hex())
    else:
        print(name, r)


show("scalar", lambda: tf1.summary.scalar("loss", tf.constant(0.25)))
show("scalar_vec", lambda: tf.raw_ops.ScalarSummary(tags=["a", "b"], values=tf.constant([1.5, -2.0], tf.float64)))
show("scalar_int", lambda: tf1.summary.scalar("n", tf.constant(7, tf.int32)))
show("scalar_shape", lambda: tf.raw_ops.ScalarSummary(tags=["a", "b"], values=[1.0, 2.0, 3.0]))
show("histo", lambda: tf1.summary.histogram("h", tf.constant([1.5, -2, 3.25, 0, 0.001, 7], tf.float32)))
show("histo_empty", lambda: tf1.summary.histogram("e", tf.zeros([0], tf.float32)))
show("histo_int", lambda: tf1.summary.histogram("i", tf.constant([[3, 3], [-1, 100]], tf.int64)))
show("histo_nan", lambda: tf1.summary.histogram("bad", tf.constant([1.0, np.nan])))
show("histo_inf", lambda: tf1.summary.histogram("bad", tf.constant([1.0, np.inf])))
show("text", lambda: tf1.summary.text("note", tf.constant("hello **world**")))
show("text_vec", lambda: tf1.summary.text("notes", tf.constant(["a", "bc"])))
show("tensor_f", lambda: tf.raw_ops.TensorSummaryV2(tag="t", tensor=tf.constant([[1.0, 2.0]]), serialized_summary_metadata=b""))
show("merge", lambda: tf1.summary.merge([tf1.summary.scalar("a", 1.0), tf1.summary.scalar("b", 2.0)]))
show("merge_dup", lambda: tf.raw_ops.MergeSummary(inputs=[tf.raw_ops.ScalarSummary(tags="a", values=1.0), tf.raw_ops.ScalarSummary(tags="a", values=2.0)]))


def image_case(name, value, **kw):
    def build():
        return tf1.summary.image(name, tf.constant(value), **kw)
    r = run(build)
    if isinstance(r, str):
        print("image", name, r)
        return
    s = tf1.Summary.FromString(r)
    for v in s.value:
        img = v.image
        with tf.Graph().as_default(), tf1.Session() as sess:
            px = sess.run(tf.io.decode_png(img.encoded_image_string))
        print("image", name, v.tag, img.height, img.width, img.colorspace, px.flatten().tolist())


image_case("f_pos", np.array([[[[0.0], [0.5]], [[1.0], [0.25]]]], np.float32))
image_case("f_neg", np.array([[[[-1.0, 0.5, 0.0], [1.0, 0.25, np.nan]]]], np.float32))
image_case("u8", np.arange(2 * 1 * 2 * 4, dtype=np.uint8).reshape(2, 1, 2, 4) * 7, max_outputs=2)
image_case("many", np.zeros([4, 1, 1, 1], np.float32), max_outputs=3)
image_case("bad_depth", np.zeros([1, 1, 1, 2], np.float32))
image_case("bad_rank", np.zeros([1, 1, 1], np.float32))
image_case("one", np.zeros([2, 1, 1, 1], np.float32), max_outputs=1)

# node names and collections the tf.compat.v1.summary builders make
g = tf.Graph()
with g.as_default():
    x = tf.constant(1.0)
    tf1.summary.scalar("loss", x)
    with tf.name_scope("train"):
        tf1.summary.scalar("loss", x)
        tf1.summary.histogram("w b", tf.constant([1.0]))
    tf1.summary.text("note", tf.constant("t"))
    tf1.summary.image("img", tf.zeros([1, 1, 1, 1]))
    tf1.summary.merge_all()
    print("names", [(op.name, op.type) for op in g.get_operations() if op.type != "Const" or "/" in op.name])
    print("summaries", [t.name for t in g.get_collection("summaries")])
