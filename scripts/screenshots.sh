#!/usr/bin/env bash
# screenshots.sh — see the demo's TensorBoard logs as a user would (not part of CI).
#
#   bash scripts/screenshots.sh [LOGDIR]    # default: runs `tensorgraph demo --out target/screenshots/demo`
#
# Starts TensorBoard (from the interop virtualenv, interop/setup_venv.sh) on LOGDIR at a free
# localhost port, opens its scalars and graphs pages in headless Chromium (Debian's `chromium`
# package: apt-get install chromium) and saves target/screenshots/scalars.png and graphs.png;
# stops the server afterwards.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/target/screenshots"
mkdir -p "$OUT"
LOGDIR="${1:-}"
if [ -z "$LOGDIR" ]; then
  (cd "$ROOT" && cargo run --release --quiet -- demo --out "$OUT/demo" --force >/dev/null)
  LOGDIR="$OUT/demo/logs"
fi
CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"
[ -n "$CHROMIUM" ] || { echo "screenshots.sh: no chromium; apt-get install chromium" >&2; exit 1; }
PY="$("$ROOT/interop/setup_venv.sh" | tail -n1)"
PORT="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

"$PY" -m tensorboard.main --logdir "$LOGDIR" --host 127.0.0.1 --port "$PORT" >"$OUT/tensorboard.log" 2>&1 &
TB=$!
trap 'kill "$TB" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  if "$PY" -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$PORT/data/plugin/scalars/tags', timeout=2)" 2>/dev/null; then
    break
  fi
  sleep 0.5
done

for page in scalars graphs; do
  "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,900 \
    --virtual-time-budget=15000 --screenshot="$OUT/$page.png" "http://127.0.0.1:$PORT/#$page" >/dev/null 2>&1
  echo "screenshots.sh: wrote $OUT/$page.png"
done
