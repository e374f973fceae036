#!/usr/bin/env bash
# The fuzz targets of fuzz/ (cargo-fuzz; FUZZING.md has the results and how to read them).
#
#   scripts/fuzz.sh seed                 copy the fixtures into fuzz/corpus/TARGET (not committed)
#   scripts/fuzz.sh run SECONDS [T...]   run each target (all by default) for SECONDS on the
#                                        committed seeds (fuzz/seeds/TARGET) and fuzz/corpus/TARGET
#   scripts/fuzz.sh runs N [T...]        run each target for N executions (-runs=N)
#   scripts/fuzz.sh ci                   what CI runs: installs cargo-fuzz when missing (about a
#                                        minute), then 20 s of each target on the committed seeds
#
# Limits on every run: 2 GiB of RSS and of any single allocation, 10 s per input; one job.
# Toolchain: nightly with AddressSanitizer when `cargo +nightly` works, else stable with
# RUSTC_BOOTSTRAP=1 and --sanitizer none (then -malloc_limit_mb is not enforced per
# allocation; -rss_limit_mb still is). Needs cargo-fuzz (`cargo install cargo-fuzz`, about
# a minute and a half).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

TARGETS=(checkpoint_index checkpoint_data checkpoint_state checkpoint_v1 graph_def graph_def_text meta_graph saved_model npy)
FIX=tests/fixtures/tf-2.21
DATA=tests/data

# The fixture files each target starts from.
sources() {
    case "$1" in
        checkpoint_index) ls $FIX/*/*.index $DATA/*/*.index $DATA/saved_model/*/variables/*.index ;;
        checkpoint_data) ls $FIX/*/*.data-* $DATA/*/*.data-* ;;
        checkpoint_state) ls $FIX/*/checkpoint $DATA/*/checkpoint ;;
        checkpoint_v1) ls $DATA/legacy/*.ckpt ;;
        graph_def) ls $FIX/*/*.pb ;;
        graph_def_text) ls $FIX/*/*.pbtxt $DATA/*.pbtxt $DATA/*/*.pbtxt ;;
        meta_graph) ls $FIX/*/*.meta ;;
        saved_model) ls $DATA/saved_model/*/saved_model.pb $DATA/offpath/saved_model/saved_model.pb ;;
        npy) ls $FIX/*/*.npy $DATA/npy/*.npy $DATA/saved_model/*.npy ;;
    esac 2>/dev/null || true
}

seed() {
    for t in "${TARGETS[@]}"; do
        mkdir -p "fuzz/corpus/$t"
        for f in $(sources "$t"); do
            cp "$f" "fuzz/corpus/$t/$(echo "$f" | tr '/' '_')"
        done
    done
}

fuzz() {
    local t=$1
    shift
    local corpus=${CORPUS:-corpus/$t}
    local tc=() env=() san=()
    if cargo +nightly --version >/dev/null 2>&1; then
        tc=(+nightly)
    else
        env=(RUSTC_BOOTSTRAP=1)
        san=(--sanitizer none)
    fi
    (cd fuzz && mkdir -p "$corpus" "seeds/$t" && env "${env[@]}" TENSORGRAPH_FUZZ_TMP="${TMPDIR:-/tmp}" cargo "${tc[@]}" fuzz run "${san[@]}" "$t" \
        "$corpus" "seeds/$t" -- -jobs=1 -workers=1 -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
        -print_final_stats=1 "$@")
}

cmd=${1:-}
shift || true
case "$cmd" in
    seed) seed ;;
    run | runs)
        n=${1:?how many seconds or executions}
        shift
        list=("$@")
        [ ${#list[@]} -gt 0 ] || list=("${TARGETS[@]}")
        [ -d fuzz/corpus ] || seed
        for t in "${list[@]}"; do
            if [ "$cmd" = run ]; then fuzz "$t" -max_total_time="$n"; else fuzz "$t" -runs="$n"; fi
        done
        ;;
    ci)
        command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
        tmp=$(mktemp -d)
        trap 'rm -rf "$tmp"' EXIT
        for t in "${TARGETS[@]}"; do
            mkdir -p "$tmp/$t"
            CORPUS="$tmp/$t" fuzz "$t" -max_total_time=20
        done
        ;;
    *)
        sed -n '2,14p' "$0"
        exit 2
        ;;
esac
