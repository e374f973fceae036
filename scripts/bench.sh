#!/usr/bin/env bash
# bench.sh — tensorgraph benchmarks next to the same work in TensorFlow 2.21.
#
# Usage (from anywhere):  scripts/bench.sh [extra args for scripts/bench_tf.py]
#   1. cargo bench --bench session_run --bench mlp_adam --bench checkpoint_io
#      --bench graph_import -- --noplot (criterion; see target/criterion/ for details)
#   2. scripts/bench_tf.py in the TF venv made by interop/setup_venv.sh
#      (TENSORGRAPH_VENV overrides its location); prints
#      {"tf_add_run_us": ..., "tf_mlp_adam_step_ms": ..., "tf_save_256mib_s": ...,
#       "tf_restore_256mib_s": ..., "tf_build_20000_ms": ..., "tf_import_20000_ms": ...}
# Compare session_run's add_1 time (µs) with tf_add_run_us, mlp_adam's step
# time (ms) with tf_mlp_adam_step_ms, checkpoint_io's checkpoint_256mib/save and
# /restore with tf_save_256mib_s / tf_restore_256mib_s, and graph_import's
# graph_20000/build and /import with tf_build_20000_ms / tf_import_20000_ms.
# Both sides are single-threaded; run on an
# otherwise idle machine. If the cargo benches fail (e.g. not written yet) the TF
# part still runs and the script exits non-zero at the end.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

echo "== tensorgraph: cargo bench (session_run, mlp_adam, checkpoint_io, graph_import)"
cargo_status=0
cargo bench --bench session_run --bench mlp_adam --bench checkpoint_io --bench graph_import -- --noplot ||
  cargo_status=$?
[ "$cargo_status" -eq 0 ] || echo "bench.sh: cargo bench failed (exit $cargo_status)" >&2

echo "== TensorFlow 2.21: scripts/bench_tf.py"
PY="$(interop/setup_venv.sh | tail -n1)"
"$PY" scripts/bench_tf.py "$@"

exit "$cargo_status"
