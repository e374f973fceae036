#!/usr/bin/env bash
# bench_threads.sh [MODELS_DIR] — issue 10's benchmark rows, tensorgraph beside TensorFlow,
# one run after the other on this machine:
#   - inference: ResNet50 at batch 1 and 8, MobileNetV2 at batch 1 and 8, the LSTM language
#     model at batch 1 and 8 (examples/time_model.rs against scripts/bench_models_tf.py time,
#     median of 10 runs after 2 warm-ups);
#   - one training step of the CNN with batch norm (cnn_bn) and of the LSTM classifier
#     (examples/time_train.rs against bench_models_tf.py train, restored from TF's checkpoint);
#   - MatMul 1024^3 with its GFLOP/s and the GEMM kernel's cache-resident peak
#     (examples/time_matmul.rs against bench_models_tf.py matmul);
#   - the MLP Adam step (benches/mlp_adam.rs against scripts/bench_tf.py --only-mlp).
# tensorgraph with 1 and 2 intra-op threads; TensorFlow with 1 thread and its default (0),
# each with oneDNN on (its default) and off (TF_ENABLE_ONEDNN_OPTS=0): TensorFlow's best of
# those is the number to beat. MODELS_DIR defaults to the models interop/check_models.sh
# caches. Prints `uptime` first and last: on a shared machine compare ratios measured in one
# run, not absolute times. ONLY=resnet50 (a word of the row names) limits the rows.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${1:-$(ls -d "$HOME"/.cache/tensorgraph/models-* | head -n1)}"
PY="$("$ROOT/interop/setup_venv.sh" | tail -n1)"
ONLY="${ONLY:-}"
cd "$ROOT"
cargo build --release --quiet --example time_model --example time_train --example time_matmul
want() { [ -z "$ONLY" ] || [[ "$1" == *"$ONLY"* ]]; }
# tf LABEL ARGS...: TensorFlow at 1 thread and its default, oneDNN on and off
tf() {
  local label="$1"; shift
  for t in 1 0; do
    for onednn in 1 0; do
      echo "TensorFlow  $label, threads=$t, oneDNN $([ $onednn = 1 ] && echo on || echo off): $(TF_ENABLE_ONEDNN_OPTS=$onednn "$PY" scripts/bench_models_tf.py "$@" "$t" 10 2>/dev/null | tail -n1)"
    done
  done
}
uptime
for spec in resnet50:1 resnet50:8 mobilenet_v2:1 mobilenet_v2:8 lstm_lm:1 lstm_lm:8; do
  m="${spec%%:*}"; b="${spec##*:}"
  want "$m" || continue
  for t in 1 2; do
    echo "tensorgraph $m batch $b, $t thread(s): $(target/release/examples/time_model "$DIR/$m" "$b" "$t" 10)"
  done
  tf "$m batch $b" time "$DIR/$m" "$b"
done
for m in cnn_bn lstm_classifier; do
  want "$m" || continue
  for t in 1 2; do
    echo "tensorgraph $m training step, $t thread(s): $(target/release/examples/time_train "$DIR/$m" "$t" 10)"
  done
  tf "$m training step" train "$DIR/$m"
done
if want matmul; then
  for t in 1 2; do
    echo "tensorgraph matmul 1024^3, $t thread(s): $(target/release/examples/time_matmul "$t" 10)"
  done
  tf "matmul 1024^3" matmul -
fi
if want mlp; then
  cargo bench --quiet --bench mlp_adam -- --warm-up-time 1 --measurement-time 3 2>&1 | grep -E "^mlp|time:"
  for t in 1 0; do
    for onednn in 1 0; do
      echo "TensorFlow MLP Adam step, threads=$t, oneDNN $([ $onednn = 1 ] && echo on || echo off): $(TF_ENABLE_ONEDNN_OPTS=$onednn "$PY" scripts/bench_tf.py --only-mlp --threads "$t" 2>/dev/null | tail -n1)"
    done
  done
fi
uptime
