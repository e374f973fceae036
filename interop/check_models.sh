#!/usr/bin/env bash
# check_models.sh PY — the real-model set (issue 9): TensorFlow 2.21 writes MobileNetV2, ResNet50,
# an LSTM language model, a conv net under tf.cond, a transformer block and two training
# graphs (scripts/gen_models.py); cli/tests/real_models.rs runs them here to TF's outputs.
# The set (~120 MB) is generated once into
#   ${TENSORGRAPH_MODELS:-$HOME/.cache/tensorgraph/models-<first 12 hex of sha256(gen_models.py)>}
# (into a temporary folder renamed into place, so an interrupted run leaves no half set) and
# reused while the script is unchanged (a folder without the top-level manifest.json that marks
# a finished set is regenerated). Prints PASS/FAIL per test and the summary line
# `interop: N passed, M failed`.
set -uo pipefail
PY="$1"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HASH="$(sha256sum "$ROOT/scripts/gen_models.py" | cut -c1-12)"
MODELS="${TENSORGRAPH_MODELS:-$HOME/.cache/tensorgraph/models-$HASH}"

if [ ! -f "$MODELS/manifest.json" ]; then
  echo "interop: generating the real-model set into $MODELS (once; a few minutes)" >&2
  tmp="$MODELS.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  if ! "$PY" "$ROOT/scripts/gen_models.py" "$tmp" >&2 \
      || ! echo "{\"generator_sha256_12\": \"$HASH\"}" >"$tmp/manifest.json" \
      || ! rm -rf "$MODELS" || ! mv "$tmp" "$MODELS"; then
    rm -rf "$tmp"
    echo "FAIL  scripts/gen_models.py did not write the model set"
    echo "interop: 0 passed, 1 failed"
    exit 1
  fi
fi

log="$(mktemp "${TMPDIR:-/tmp}/tensorgraph-models-log.XXXXXX")"
(cd "$ROOT" && TENSORGRAPH_MODELS="$MODELS" cargo test --release -p tensorgraph-cli \
  --test real_models -- --ignored --test-threads 1) >"$log" 2>&1
status=$?
passed=$(grep -c '^test .* \.\.\. ok$' "$log")
failed=$(grep -c '^test .* \.\.\. FAILED$' "$log")
sed -n 's/^test \(.*\) \.\.\. ok$/PASS  real models: \1/p; s/^test \(.*\) \.\.\. FAILED$/FAIL  real models: \1/p' "$log"
if [ "$status" -ne 0 ]; then
  grep -E "panicked|^error" -A2 "$log" | head -40
  [ "$failed" -gt 0 ] || failed=1
fi
rm -f "$log"
echo "interop: $passed passed, $failed failed"
[ "$status" -eq 0 ]
