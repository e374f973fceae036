#!/usr/bin/env python3
"""Check, with real TensorFlow 2.21, the checkpoints `write_checkpoints` wrote.

Usage: check_checkpoints.py DIR [--tensorgraph BIN]

DIR is what `cargo run --release --example write_checkpoints -- DIR` wrote: checkpoints
under all_dtypes/, partitioned/, steps/ and keep2/, and DIR/manifest.json:

  {"checkpoints": [{"prefix": "all_dtypes/model.ckpt",
                    "tensors": [{"name", "dtype", "shape", "encoding", "data"}, ...]}, ...],
   "partitioned": [{"name", "shape", "axis", "num_shards", "slices": [[[start, len], ...], ...]}],
   "state_dirs": [{"deleted": [prefix, ...],
                   "state": {"dir", "latest_checkpoint", "model_checkpoint_path",
                             "all_model_checkpoint_paths"}}]}

(all paths relative to DIR; "latest_checkpoint" is tensorgraph's answer, null for none).

encoding "bits": IEEE bit patterns of the float/complex elements (complex: re, im
interleaved); "int", "bool": the values; "hex": each string's bytes in hex.

Checks, per checkpoint: tf.train.list_variables gives exactly the manifest's names and
shapes; load_checkpoint's dtypes match; get_tensor of every tensor equals the manifest
exactly (bit for bit for floats, incl. float16/bfloat16 and NaN payloads). Partitioned
variables: TF lists them once with the full shape, tf.compat.v1.get_variable with
fixed_size_partitioner makes the same slices, and tf.compat.v1.train.Saver restores them
to the manifest's values. State files: tf.train.latest_checkpoint(dir) and
get_checkpoint_state agree with what tensorgraph's latest_checkpoint / read_checkpoint_state
answered (recorded in the manifest), and checkpoints deleted by max_to_keep are gone.
With --tensorgraph BIN, also: `BIN inspect DIR/steps --json --values` lists the checkpoint
TF calls latest, with TF's values; and a TF2 object-based checkpoint written here by
tf.train.Checkpoint.save is resolved and read by `BIN inspect DIR --json --values` equal
to TF's get_tensor.
Prints PASS/FAIL per check, then `interop: N passed, M failed`; exits 1 on failure.
"""
import json
import os
import subprocess
import sys
import tempfile

from tfcheck import Checker, np, tf, tf1

BITS = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64, "complex64": 32, "complex128": 64}


def flat_data(value, dtype):
    """The flat data of a numpy value in the manifest's encoding."""
    if dtype == "string":
        arr = np.asarray(value, dtype=object).reshape(-1)
        return [bytes(x).hex() for x in arr]
    arr = np.ascontiguousarray(np.asarray(value)).reshape(-1)
    if dtype in BITS:
        return arr.view(np.dtype("uint%d" % BITS[dtype])).tolist()
    if dtype == "bool":
        return [bool(x) for x in arr.tolist()]
    return [int(x) for x in arr.tolist()]


def first_mismatch(got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return "element %d: TF %r, manifest %r" % (i, g if len(str(g)) < 80 else str(g)[:80] + "...",
                                                       w if len(str(w)) < 80 else str(w)[:80] + "...")
    return "length: TF %d, manifest %d" % (len(got), len(want))


def same_path(a, b):
    return a is not None and b is not None and os.path.realpath(a) == os.path.realpath(b)


def json_values_flat(v, shape):
    """Flattens `tensorgraph inspect --json` values (nested by shape)."""
    if len(shape) == 0:
        return [v]
    out = []
    for x in v:
        out.extend(json_values_flat(x, shape[1:]))
    return out


def json_to_number(x):
    if isinstance(x, str):
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[x]
    return x


def compare_inspect_json(items, reader, prefix):
    """Compares `tensorgraph inspect --json --values` output with TF's reader."""
    want = {n: list(s) for n, s in tf.train.list_variables(prefix)}
    got = {it["name"]: it["shape"] for it in items}
    if got != want:
        return "inspect lists %r, TF lists %r" % (got, want)
    dtypes = {k: d.name for k, d in reader.get_variable_to_dtype_map().items()}
    for it in items:
        name = it["name"]
        if it["dtype"] != dtypes[name]:
            return "%s: inspect dtype %s, TF %s" % (name, it["dtype"], dtypes[name])
        tfv = reader.get_tensor(name)
        vals = json_values_flat(it["values"], it["shape"])
        if it["dtype"] == "string":
            tf_flat = [bytes(x) for x in np.asarray(tfv, dtype=object).reshape(-1)]
            mine = [bytes.fromhex(v["hex"]) if isinstance(v, dict) else v.encode("utf-8") for v in vals]
        else:
            tf_flat = np.asarray(tfv).reshape(-1).astype(np.float64).tolist()
            mine = [float(json_to_number(v)) for v in vals]
            # exact: JSON numbers hold the float32/float64 values exactly; NaN == NaN here
            tf_flat = ["nan" if v != v else v for v in tf_flat]
            mine = ["nan" if v != v else v for v in mine]
        if tf_flat != mine:
            return "%s: %s" % (name, first_mismatch(mine, tf_flat))


def main(argv):
    args = argv[1:]
    binary = None
    if "--tensorgraph" in args:
        i = args.index("--tensorgraph")
        if i + 1 >= len(args):
            print(__doc__, file=sys.stderr)
            return 2
        binary = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = os.path.abspath(args[0])
    c = Checker()
    st = {}

    def load_manifest():
        with open(os.path.join(out, "manifest.json")) as f:
            st["m"] = json.load(f)
        assert st["m"]["checkpoints"], "no checkpoints in the manifest"

    c.check("manifest.json in %s loads" % out, load_manifest)
    if "m" not in st:
        return c.summary()
    m = st["m"]

    for ck in m["checkpoints"]:
        prefix = os.path.join(out, ck["prefix"])
        tensors = ck["tensors"]

        def listing(prefix=prefix, tensors=tensors):
            got = {n: list(s) for n, s in tf.train.list_variables(prefix)}
            want = {t["name"]: list(t["shape"]) for t in tensors}
            if got != want:
                extra = sorted(set(got) - set(want))
                missing = sorted(set(want) - set(got))
                diff = sorted(n for n in set(got) & set(want) if got[n] != want[n])
                return "TF lists extra %s, lacks %s, other shapes %s" % (extra, missing, diff)

        def values(prefix=prefix, tensors=tensors):
            reader = tf.train.load_checkpoint(prefix)
            dtypes = {k: d.name for k, d in reader.get_variable_to_dtype_map().items()}
            errs = []
            for t in tensors:
                name, dtype = t["name"], t["dtype"]
                if dtypes.get(name) != dtype:
                    errs.append("%s: TF dtype %s, manifest %s" % (name, dtypes.get(name), dtype))
                    continue
                value = reader.get_tensor(name)
                shape = list(np.shape(value))
                if shape != list(t["shape"]):
                    errs.append("%s: TF shape %s, manifest %s" % (name, shape, t["shape"]))
                    continue
                got = flat_data(value, dtype)
                if got != t["data"]:
                    errs.append("%s (%s): %s" % (name, dtype, first_mismatch(got, t["data"])))
            return "; ".join(errs) if errs else None

        n = len(tensors)
        dts = sorted({t["dtype"] for t in tensors})
        c.check("%s: tf.train.list_variables gives the %d names and shapes written" % (ck["prefix"], n), listing)
        c.check("%s: get_tensor equals the manifest exactly (%s)" % (ck["prefix"], ", ".join(dts)), values)

    parts = m.get("partitioned", [])
    if parts:
        part_ck = next(ck for ck in m["checkpoints"] if ck["prefix"].startswith("partitioned/"))
        prefix = os.path.join(out, part_ck["prefix"])
        by_name = {t["name"]: t for t in part_ck["tensors"]}

        def restore_partitioned():
            g = tf.Graph()
            with g.as_default():
                pvars, plain = {}, []
                for p in parts:
                    scope, short = p["name"].rsplit("/", 1)
                    dtype = by_name[p["name"]]["dtype"]
                    with tf1.variable_scope(scope, reuse=tf1.AUTO_REUSE):
                        pvars[p["name"]] = tf1.get_variable(
                            short, p["shape"], dtype=tf.as_dtype(dtype),
                            partitioner=tf1.fixed_size_partitioner(p["num_shards"], axis=p["axis"]))
                for name, t in by_name.items():
                    if name in pvars:
                        continue
                    scope, short = name.rsplit("/", 1)
                    with tf1.variable_scope(scope, reuse=tf1.AUTO_REUSE):
                        plain.append((name, tf1.get_variable(short, t["shape"], dtype=tf.as_dtype(t["dtype"]))))
                errs = []
                for p in parts:
                    got = [[[o, s] for o, s in zip(v._save_slice_info.var_offset, v._save_slice_info.var_shape)]
                           for v in pvars[p["name"]]]
                    if got != p["slices"]:
                        errs.append("%s: TF partitions into %s, tensorgraph wrote %s" % (p["name"], got, p["slices"]))
                fetch = {n: tf.convert_to_tensor(v) for n, v in pvars.items()}
                fetch.update({n: v for n, v in plain})
                with tf1.Session(graph=g) as sess:
                    tf1.train.Saver().restore(sess, prefix)
                    vals = sess.run(fetch)
            for name, v in vals.items():
                t = by_name[name]
                got = flat_data(v, t["dtype"])
                if list(v.shape) != t["shape"] or got != t["data"]:
                    errs.append("%s: restored %s %s" % (name, list(v.shape), first_mismatch(got, t["data"])))
            return "; ".join(errs) if errs else None

        c.check("partitioned: fixed_size_partitioner variables make the same slices and Saver.restore "
                "reads back the values (%s)" % ", ".join(p["name"] for p in parts), restore_partitioned)

    def absolute(p):
        return None if p is None else os.path.join(out, p)

    for sd in m.get("state_dirs", []):
        s = dict(sd["state"])
        d = os.path.join(out, s["dir"])
        s["latest_checkpoint"] = absolute(s["latest_checkpoint"])
        s["model_checkpoint_path"] = absolute(s["model_checkpoint_path"])
        s["all_model_checkpoint_paths"] = [absolute(p) for p in s["all_model_checkpoint_paths"]]

        def latest(d=d, s=s):
            p = tf.train.latest_checkpoint(d)
            if not same_path(p, s["latest_checkpoint"]):
                return "tf.train.latest_checkpoint = %r, tensorgraph latest_checkpoint = %r" % (p, s["latest_checkpoint"])

        def state(d=d, s=s, deleted=sd["deleted"]):
            cs = tf.train.get_checkpoint_state(d)
            if cs is None:
                return "TF finds no checkpoint state in %s" % d
            errs = []
            if not same_path(cs.model_checkpoint_path, s["model_checkpoint_path"]):
                errs.append("model_checkpoint_path: TF %r, tensorgraph %r" % (
                    cs.model_checkpoint_path, s["model_checkpoint_path"]))
            tfa = [os.path.realpath(p) for p in cs.all_model_checkpoint_paths]
            tga = [os.path.realpath(p) for p in s["all_model_checkpoint_paths"]]
            if tfa != tga:
                errs.append("all_model_checkpoint_paths: TF %r, tensorgraph %r" % (tfa, tga))
            for p in deleted:
                left = [f for f in os.listdir(os.path.dirname(os.path.join(out, p)))
                        if f.startswith(os.path.basename(p) + ".")]
                if left:
                    errs.append("%s should be deleted (max_to_keep) but %s remain" % (p, left))
            return "; ".join(errs) if errs else None

        c.check("%s/: tf.train.latest_checkpoint agrees with tensorgraph (%s)" % (
            s["dir"], os.path.basename(s["latest_checkpoint"] or "None")), latest)
        c.check("%s/: tf.train.get_checkpoint_state agrees with tensorgraph's read_checkpoint_state%s" % (
            s["dir"], " and max_to_keep deleted %d" % len(sd["deleted"]) if sd["deleted"] else ""), state)

    if binary:
        def run_inspect(path):
            r = subprocess.run([binary, "inspect", path, "--json", "--values"], capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError("tensorgraph inspect %s failed (%d): %s" % (path, r.returncode, r.stderr.strip()))
            return json.loads(r.stdout)

        def inspect_steps():
            d = os.path.join(out, "steps")
            p = tf.train.latest_checkpoint(d)
            return compare_inspect_json(run_inspect(d), tf.train.load_checkpoint(p), p)

        def tf2_object_checkpoint():
            with tempfile.TemporaryDirectory() as tmp:
                if not tf.executing_eagerly():
                    return "TF is not in eager mode (tf.train.Checkpoint needs TF2 behavior)"
                layer = tf.Module()
                layer.kernel = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) / 7.0)
                layer.bias = tf.Variable(np.array([0.5, -0.0, np.inf], dtype=np.float32))
                model = tf.Module()
                model.layer = layer
                model.table = tf.Variable([b"a", b"", b"\xff\x00raw"], dtype=tf.string)
                ckpt = tf.train.Checkpoint(model=model, step=tf.Variable(7, dtype=tf.int64),
                                           half=tf.Variable(np.array([1.5, -2.0], dtype=np.float16)))
                ckpt.save(os.path.join(tmp, "ckpt"))
                layer.bias.assign([1.0, 2.0, 3.0])
                saved = ckpt.save(os.path.join(tmp, "ckpt"))  # ckpt-2; state file with timestamps
                want = tf.train.latest_checkpoint(tmp)
                if not same_path(want, saved):
                    return "TF's own latest_checkpoint %r != %r" % (want, saved)
                items = run_inspect(tmp)
                names = [it["name"] for it in items]
                for key in ("_CHECKPOINTABLE_OBJECT_GRAPH", "model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE",
                            "save_counter/.ATTRIBUTES/VARIABLE_VALUE"):
                    if key not in names:
                        return "inspect does not list %s: %s" % (key, names)
                bias = next(it for it in items if it["name"] == "model/layer/bias/.ATTRIBUTES/VARIABLE_VALUE")
                if bias["values"] != [1.0, 2.0, 3.0]:
                    return "inspect DIR did not read the latest (ckpt-2) bias: %r" % (bias["values"],)
                return compare_inspect_json(items, tf.train.load_checkpoint(saved), saved)

        c.check("tensorgraph inspect steps/ --json --values reads TF's latest checkpoint with TF's values",
                inspect_steps)
        c.check("tensorgraph inspect DIR --json --values reads a TF2 object-based checkpoint "
                "(tf.train.Checkpoint.save) like TF", tf2_object_checkpoint)

    return c.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
