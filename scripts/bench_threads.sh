#!/usr/bin/env bash
# bench_threads.sh [MODELS_DIR] — intra-op threads beside TensorFlow, one run after the
# other on this machine: ResNet50 at batch 1 and 8 and MobileNetV2 at batch 1
# (examples/time_model.rs against scripts/bench_models_tf.py time, median of 10 runs after
# 2 warm-ups), with 1 and 2 threads against TensorFlow with 1 thread and its default
# (0); then the MLP Adam step (benches/mlp_adam.rs against scripts/bench_tf.py --only-mlp).
# MODELS_DIR defaults to the models interop/check_models.sh caches. Prints `uptime` first:
# on a shared machine compare ratios measured in one run, not absolute times.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${1:-$(ls -d "$HOME"/.cache/tensorgraph/models-* | head -n1)}"
PY="$("$ROOT/interop/setup_venv.sh" | tail -n1)"
cd "$ROOT"
cargo build --release --quiet --example time_model
uptime
for spec in resnet50:1 resnet50:8 mobilenet_v2:1; do
  m="${spec%%:*}"; b="${spec##*:}"
  for t in 1 2; do
    echo "tensorgraph $m batch $b, $t thread(s): $(target/release/examples/time_model "$DIR/$m" "$b" "$t" 10)"
  done
  for t in 1 0; do
    echo "TensorFlow  $m batch $b, threads=$t: $("$PY" scripts/bench_models_tf.py time "$DIR/$m" "$b" "$t" 10)"
  done
done
cargo bench --quiet --bench mlp_adam -- --warm-up-time 1 --measurement-time 3 2>&1 | grep -E "^mlp|time:"
for t in 1 0; do
  echo "TensorFlow MLP Adam step, threads=$t: $("$PY" scripts/bench_tf.py --only-mlp --threads "$t")"
done
uptime
