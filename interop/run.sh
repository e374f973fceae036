#!/usr/bin/env bash
# run.sh — interop suite: real TensorFlow 2.21 reads what tensorgraph writes.
#
#   interop/run.sh                    # build + run `tensorgraph demo --out <fresh tmp dir>`, then check it
#   interop/run.sh --skip-demo DIR    # only check an existing demo output DIR
#   TENSORGRAPH_DEMO_DIR=DIR interop/run.sh   # same as --skip-demo DIR
#
# Steps: interop/setup_venv.sh (TF venv outside the repo, reused when present),
# the demo (cargo run --release), then interop/check_demo.py DIR, which prints
# PASS/FAIL per check and `interop: N passed, M failed`. Exits non-zero on failure.
# A temp dir made here is removed on success and kept (path printed) on failure.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"

DEMO_DIR="${TENSORGRAPH_DEMO_DIR:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --skip-demo)
      [ $# -ge 2 ] || { echo "run.sh: --skip-demo needs a DIR" >&2; exit 2; }
      DEMO_DIR="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

PY="$("$HERE/setup_venv.sh" | tail -n1)"

if [ -z "$DEMO_DIR" ]; then
  DEMO_DIR="$(mktemp -d "${TMPDIR:-/tmp}/tensorgraph-interop.XXXXXX")"
  echo "interop: running tensorgraph demo --out $DEMO_DIR" >&2
  if ! (cd "$ROOT" && cargo run --release --quiet -- demo --out "$DEMO_DIR"); then
    echo "FAIL  tensorgraph demo did not run (output kept in $DEMO_DIR)"
    echo "interop: 0 passed, 1 failed"
    exit 1
  fi
  status=0
  "$PY" "$HERE/check_demo.py" "$DEMO_DIR" || status=$?
  if [ "$status" -eq 0 ]; then rm -rf "$DEMO_DIR"; else echo "interop: demo output kept in $DEMO_DIR" >&2; fi
  exit "$status"
fi

exec "$PY" "$HERE/check_demo.py" "$DEMO_DIR"
