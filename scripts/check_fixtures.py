#!/usr/bin/env python3
"""Check that scripts/gen_fixtures.py still reproduces tests/fixtures/tf-2.21.

Usage (slow, needs TensorFlow 2.21.0; not part of CI):

    PY=$(bash interop/setup_venv.sh | tail -n1)
    $PY scripts/check_fixtures.py [--keep DIR] [--fixtures DIR] [SET ...]

Regenerates every named set (all when none is named) into a temporary folder
(or DIR with --keep, which must not exist yet) and compares it with the
committed copy (or the copy in --fixtures DIR):
  - every file the committed manifest marks deterministic must have the same
    sha256 (except the CPU_DEPENDENT files below, which may instead match within
    the float tolerance; that is reported as a note); a non-deterministic file (an event file, whose name holds the time
    and host) must exist under a name with the same prefix;
  - the regenerated manifest.json must hold the same values: strings, ints and
    structure exactly, floats within rtol 1e-5 / atol 1e-6. Not compared:
    'generator' (the script's path), 'files' (checked above), event file names,
    and the python source lines inside TF error messages ('message' is compared
    with its 'File "..."' lines removed).
Prints one line per set and every difference; exits 1 if any set differs.
"""

import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FIXTURES = os.path.join(REPO, "tests", "fixtures", "tf-2.21")
sys.path.insert(0, HERE)

import gen_fixtures  # noqa: E402  (sets the TF environment before importing TF)

EVENT_RE = re.compile(r"^events\.out\.tfevents\.\d+\..+$")
RTOL, ATOL = 1e-5, 1e-6
# Files whose float32 values depend on the CPU's vector code path: regenerated on a machine
# other than the one that wrote tests/fixtures/tf-2.21 they may differ in the last bit, so
# they are compared with the tolerance above when their sha256 differs.
CPU_DEPENDENT = {("mlp", "expected_probs.npy")}


def normalize(v):
    if isinstance(v, str) and EVENT_RE.match(v):
        return "events.out.tfevents.<time>.<host>"
    return v


def compare(ref, new, path, diffs):
    ref, new = normalize(ref), normalize(new)
    if isinstance(ref, dict) and isinstance(new, dict):
        if list(ref) != list(new):
            diffs.append("%s: keys %s != %s" % (path or "/", list(ref), list(new)))
        for k in ref:
            if k not in new:
                continue
            if not path and k in ("generator", "files"):
                continue
            if k == "message" and isinstance(ref[k], str) and isinstance(new.get(k), str):
                compare(gen_fixtures.strip_stack_lines(ref[k]),
                        gen_fixtures.strip_stack_lines(new[k]), path + "/" + k, diffs)
                continue
            compare(ref[k], new[k], path + "/" + k, diffs)
    elif isinstance(ref, list) and isinstance(new, list):
        if len(ref) != len(new):
            diffs.append("%s: %d items != %d items" % (path, len(ref), len(new)))
            return
        for i, (a, b) in enumerate(zip(ref, new)):
            compare(a, b, "%s[%d]" % (path, i), diffs)
    elif isinstance(ref, float) or isinstance(new, float):
        if isinstance(ref, bool) or isinstance(new, bool) or not isinstance(new, (int, float)) \
                or not isinstance(ref, (int, float)):
            diffs.append("%s: %r != %r" % (path, ref, new))
        elif ref != new and not abs(ref - new) <= ATOL + RTOL * abs(ref):
            diffs.append("%s: %r != %r" % (path, ref, new))
    elif type(ref) is not type(new) or ref != new:
        diffs.append("%s: %r != %r" % (path, shorten(ref), shorten(new)))


def shorten(v):
    s = repr(v)
    return s if len(s) < 200 else s[:200] + "..."


def check_set(name, ref_dir, new_dir):
    import hashlib
    import json
    with open(os.path.join(ref_dir, "manifest.json")) as f:
        ref = json.load(f)
    with open(os.path.join(new_dir, "manifest.json")) as f:
        new = json.load(f)
    diffs, notes = [], []
    matched = total = 0
    new_files = set(os.listdir(new_dir)) - {"manifest.json"}
    for entry in ref["files"]:
        fname = entry["file"]
        if not entry["deterministic"]:
            prefix = fname.split(".")[0:3]
            found = [n for n in new_files if n.split(".")[0:3] == prefix]
            if not found:
                diffs.append("file %s: no regenerated file named %s.*" % (fname, ".".join(prefix)))
            new_files -= set(found)
            continue
        total += 1
        path = os.path.join(new_dir, fname)
        new_files.discard(fname)
        if not os.path.exists(path):
            diffs.append("file %s: not regenerated" % fname)
            continue
        with open(path, "rb") as f:
            data = f.read()
        sha = hashlib.sha256(data).hexdigest()
        if sha == entry["sha256"]:
            matched += 1
        elif (name, fname) in CPU_DEPENDENT and npy_close(os.path.join(ref_dir, fname), path):
            notes.append("file %s: sha256 differs, values within rtol %g / atol %g (known "
                         "CPU-dependent float32 rounding, see tests/fixtures/README.md)"
                         % (fname, RTOL, ATOL))
        else:
            diffs.append("file %s: sha256 %s (%d bytes) != committed %s (%d bytes)"
                         % (fname, sha, len(data), entry["sha256"], entry["bytes"]))
    for extra in sorted(new_files):
        diffs.append("file %s: regenerated but not in the committed manifest" % extra)
    compare(ref, new, "", diffs)
    return matched, total, diffs, notes


def npy_close(ref_path, new_path):
    import numpy as np
    a, b = np.load(ref_path), np.load(new_path)
    return a.dtype == b.dtype and a.shape == b.shape and bool(
        np.allclose(b, a, rtol=RTOL, atol=ATOL))


def main(argv):
    keep, fixtures = None, FIXTURES
    while argv[:1] in (["--keep"], ["--fixtures"]):
        if len(argv) < 2:
            print(__doc__)
            return 2
        if argv[0] == "--keep":
            keep = os.path.abspath(argv[1])
        else:
            fixtures = os.path.abspath(argv[1])
        argv = argv[2:]
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 2
    names = argv or list(gen_fixtures.SETS)
    unknown = [n for n in names if n not in gen_fixtures.SETS]
    if unknown:
        print("check_fixtures: unknown set(s): %s" % ", ".join(unknown), file=sys.stderr)
        return 2
    out = keep or tempfile.mkdtemp(prefix="tg-fixtures-")
    failed = False
    try:
        gen_fixtures.generate(out, names)
        for name in names:
            matched, total, diffs, notes = check_set(name, os.path.join(fixtures, name),
                                              os.path.join(out, name))
            status = "ok" if not diffs else "DIFFERS"
            print("%-16s %s: deterministic files matched %d/%d, %d difference(s)"
                  % (name, status, matched, total, len(diffs)))
            for d in diffs:
                print("    " + d)
            for n in notes:
                print("    note: " + n)
            failed = failed or bool(diffs)
    finally:
        if keep is None:
            shutil.rmtree(out, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
