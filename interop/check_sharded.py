#!/usr/bin/env python3
"""Has TensorFlow 2.21 read a sharded checkpoint written by tensorgraph.

Usage: check_sharded.py [PREFIX]
(use the venv python: PY=$(interop/setup_venv.sh | tail -n1); $PY interop/check_sharded.py)

PREFIX is a checkpoint written by tests/saver_sharded.rs::write_for_interop
(`TG_SHARDED_OUT=DIR cargo test --release --test saver_sharded write_for_interop` writes
DIR/sharded.ckpt: variables v0..v5 float32 [1 + 40 i] with v{i}[j] = 1000 i + j, count
int64 42, flag bool [True, False], over 3 data files). Without PREFIX the script runs that
command itself (from the crate root) into a temporary directory.

Checks: the prefix has 3 data files `.data-0000k-of-00003` and one index;
tf.train.list_variables lists every variable with its shape; load_checkpoint(...).get_tensor
returns the exact values; tf.compat.v1.train.Saver restores them into graph-mode variables.
Prints PASS and `interop: 1 passed, 0 failed`, or FAIL naming the first difference and exits 1.
"""
import glob
import os
import subprocess
import sys
import tempfile

from tfcheck import np, tf, tf1  # noqa: F401


def expected():
    want = {"v%d" % i: np.arange(1 + 40 * i, dtype=np.float32) + 1000 * i for i in range(6)}
    want["count"] = np.int64(42)
    want["flag"] = np.array([True, False])
    return want


def fail(msg):
    print("FAIL  sharded checkpoint: " + msg)
    print("interop: 0 passed, 1 failed")
    sys.exit(1)


def write_checkpoint(out_dir):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, TG_SHARDED_OUT=out_dir)
    subprocess.run(
        ["cargo", "test", "--release", "--test", "saver_sharded", "write_for_interop"],
        cwd=root, env=env, check=True, stdout=subprocess.DEVNULL,
    )
    return os.path.join(out_dir, "sharded.ckpt")


def check(prefix):
    want = expected()
    data = sorted(os.path.basename(p) for p in glob.glob(prefix + ".data-*"))
    names = ["%s.data-%05d-of-00003" % (os.path.basename(prefix), k) for k in range(3)]
    if data != names:
        fail("data files %s, expected %s" % (data, names))
    if not os.path.isfile(prefix + ".index"):
        fail("no index file")
    listed = dict(tf.train.list_variables(prefix))
    if sorted(listed) != sorted(want):
        fail("list_variables gives %s" % sorted(listed))
    reader = tf.train.load_checkpoint(prefix)
    for name, value in want.items():
        if list(listed[name]) != list(np.shape(value)):
            fail("%s listed with shape %s" % (name, listed[name]))
        got = reader.get_tensor(name)
        if got.dtype != np.asarray(value).dtype or not np.array_equal(got, value):
            fail("%s: get_tensor gives %r" % (name, got))
    g = tf.Graph()
    with g.as_default():
        variables = {n: tf1.Variable(tf.zeros_like(v), name=n) for n, v in want.items()}
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            saver.restore(sess, prefix)
            for name, var in variables.items():
                if not np.array_equal(sess.run(var), want[name]):
                    fail("%s: Saver.restore gives %r" % (name, sess.run(var)))
    print("PASS  sharded checkpoint read by TensorFlow (%d tensors in %d data files)" % (len(want), len(data)))
    print("interop: 1 passed, 0 failed")


def main():
    if len(sys.argv) > 1:
        check(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory() as d:
            check(write_checkpoint(d))


if __name__ == "__main__":
    main()
