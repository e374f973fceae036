#!/usr/bin/env bash
# setup_venv.sh — create (or reuse) the TensorFlow virtualenv used by the interop
# suite and the TF benchmarks. Lives OUTSIDE the repo at
#   ${TENSORGRAPH_VENV:-$HOME/.cache/tensorgraph/tf-2.21-venv}
# with tensorflow-cpu==2.21.0 (numpy comes with it) and tf-keras==2.21.0 (the TF1-style
# Keras that scripts/gen_models.py builds Keras' applications with) and tensorboard==2.21.0
# (interop/check_events.py: its event loader and its server). Idempotent: if the venv
# already imports the right TF version it does nothing. The last line printed
# is the venv's python path, so callers can do: PY=$(interop/setup_venv.sh | tail -n1)
set -euo pipefail

TF_VERSION=2.21.0
TF_KERAS_VERSION=2.21.0
TENSORBOARD_VERSION=2.21.0
VENV="${TENSORGRAPH_VENV:-$HOME/.cache/tensorgraph/tf-2.21-venv}"
PY="$VENV/bin/python"
CHECK="import tensorflow as tf; assert tf.__version__ == '$TF_VERSION', tf.__version__"
KERAS_CHECK="import tf_keras; assert tf_keras.__version__ == '$TF_KERAS_VERSION', tf_keras.__version__"
TB_CHECK="import tensorboard; assert tensorboard.__version__ == '$TENSORBOARD_VERSION', tensorboard.__version__"

quiet_tf() { TF_CPP_MIN_LOG_LEVEL=3 "$PY" -c "$CHECK" >/dev/null 2>&1; }
quiet_keras() { TF_CPP_MIN_LOG_LEVEL=3 "$PY" -c "$KERAS_CHECK" >/dev/null 2>&1; }
quiet_tb() { "$PY" -c "$TB_CHECK" >/dev/null 2>&1; }

if [ -x "$PY" ] && quiet_tf; then
  if ! quiet_keras; then
    echo "setup_venv: adding tf-keras==$TF_KERAS_VERSION to $VENV" >&2
    "$PY" -m pip install --quiet "tf-keras==$TF_KERAS_VERSION" >&2
  fi
  if ! quiet_tb; then
    echo "setup_venv: adding tensorboard==$TENSORBOARD_VERSION to $VENV" >&2
    "$PY" -m pip install --quiet "tensorboard==$TENSORBOARD_VERSION" >&2
  fi
  echo "$PY"
  exit 0
fi

echo "setup_venv: creating $VENV with tensorflow-cpu==$TF_VERSION" >&2
mkdir -p "$(dirname "$VENV")"
python3 -m venv "$VENV" >&2
"$PY" -m pip install --quiet --upgrade pip >&2
"$PY" -m pip install --quiet "tensorflow-cpu==$TF_VERSION" "tf-keras==$TF_KERAS_VERSION" \
  "tensorboard==$TENSORBOARD_VERSION" >&2

if ! quiet_tf || ! quiet_keras || ! quiet_tb; then
  echo "setup_venv: tensorflow $TF_VERSION or tf-keras $TF_KERAS_VERSION failed to import from $VENV" >&2
  exit 1
fi
echo "$PY"
