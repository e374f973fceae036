#!/usr/bin/env bash
# bench_models.sh MODELS_DIR [MODEL...] — the real models of scripts/gen_models.py, tensorgraph
# beside TensorFlow 2.21 in the same run (issue 9's memory and import targets):
#   1. import: read + parse + import of frozen.pb into a fresh graph, median of 5
#      (examples/import_model.rs) against TF's GraphDef.FromString + tf.import_graph_def,
#      median of 3 (scripts/bench_models_tf.py import);
#   2. run at batch 8: `tensorgraph run frozen.pb --feed ... --fetch ...` under
#      /usr/bin/time (wall time and peak resident memory of the whole process) against one
#      session run in a Python process (scripts/bench_models_tf.py run; its ru_maxrss).
# MODELS_DIR is what interop/check_models.sh caches (~/.cache/tensorgraph/models-*).
# Default models: resnet50 mobilenet_v2. Run on an otherwise idle machine.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$1"; shift
MODELS=("$@"); [ ${#MODELS[@]} -gt 0 ] || MODELS=(resnet50 mobilenet_v2)
PY="$("$ROOT/interop/setup_venv.sh" | tail -n1)"
cd "$ROOT"
cargo build --release --quiet --bin tensorgraph --example import_model
for m in "${MODELS[@]}"; do
  d="$DIR/$m"
  echo "== $m"
  echo "tensorgraph import: $(target/release/examples/import_model "$d/frozen.pb" 5)"
  echo "TensorFlow import:  $("$PY" scripts/bench_models_tf.py import "$d" 3)"
  in=$("$PY" -c "import json;print(json.load(open('$d/manifest.json'))['input'])")
  out=$("$PY" -c "import json;print(json.load(open('$d/manifest.json'))['output'])")
  tmp=$(mktemp -d)
  /usr/bin/time -f "tensorgraph run batch 8: %e s wall, peak RSS %M KiB" \
    target/release/tensorgraph run "$d/frozen.pb" --feed "$in=$d/input_b8.npy" --fetch "$out" --out "$tmp" >/dev/null
  rm -rf "$tmp"
  echo "TensorFlow run batch 8: $("$PY" scripts/bench_models_tf.py run "$d")"
done
