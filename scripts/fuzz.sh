#!/usr/bin/env bash
# The fuzz targets of fuzz/ (cargo-fuzz; FUZZING.md has the results and how to read them).
#
#   scripts/fuzz.sh seed                 copy the fixtures into fuzz/corpus/TARGET (not committed)
#   scripts/fuzz.sh build                build every target (once; `run` and `ci` build too)
#   scripts/fuzz.sh run SECONDS [T...]   run each target (all by default) for SECONDS on the
#                                        committed seeds (fuzz/seeds/TARGET) and fuzz/corpus/TARGET
#   scripts/fuzz.sh runs N [T...]        run each target for N executions (-runs=N)
#   scripts/fuzz.sh ci                   what CI runs: installs cargo-fuzz when missing (about a
#                                        minute), then 20 s of each target on the committed seeds;
#                                        fails when any target finds a crash, hang or over-limit
#                                        allocation (the inputs are kept in fuzz/artifacts/TARGET)
#
# Limits on every run: 2 GiB of RSS (-rss_limit_mb) and of any single allocation (the fuzz
# crate's allocator aborts above it), 10 s per input; one process, its output on the terminal.
# Sanitizer: none by default (stable toolchain with RUSTC_BOOTSTRAP=1 and --sanitizer none,
# several times faster); FUZZ_SANITIZER=address uses nightly with AddressSanitizer.
# Environment: FUZZ_MAX_LEN (libFuzzer's -max_len; its default is the largest seed),
# FUZZ_MAX_TIME (-max_total_time: `runs` stops there if N is not reached first),
# FUZZ_CODEGEN_UNITS, FUZZ_TARGET_DIR (see set_extra below), FUZZ_PREBUILT=1 (`run` and
# `runs` start the binaries already in FUZZ_TARGET_DIR, without cargo: no rebuild when that
# build came from another checkout; the binaries are as current as that build).
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`, about a minute and a half).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

TARGETS=(checkpoint_index checkpoint_data checkpoint_state checkpoint_v1 graph_def graph_def_text meta_graph saved_model npy event_file)
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
        event_file) ls $FIX/*/events.out.tfevents.* $DATA/*/events.out.tfevents.* ;;
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

# Extra flags of `cargo fuzz build` and `cargo fuzz run`, the same for both (else `run`
# rebuilds): FUZZ_CODEGEN_UNITS (cargo-fuzz's default is 1; `ci` uses 16) and
# FUZZ_TARGET_DIR (default fuzz/target; .ci/run keeps it under ~/.cache, which CI keeps).
extra=()
set_extra() {
    extra=()
    [ -z "${FUZZ_CODEGEN_UNITS:-}" ] || extra+=(--codegen-units "$FUZZ_CODEGEN_UNITS")
    [ -z "${FUZZ_TARGET_DIR:-}" ] || extra+=(--target-dir "$(mkdir -p "$FUZZ_TARGET_DIR" && cd "$FUZZ_TARGET_DIR" && pwd)")
}

# The toolchain, environment and cargo-fuzz flags of FUZZ_SANITIZER (none or address).
toolchain() {
    case "${FUZZ_SANITIZER:-none}" in
        none) tc=() env=(RUSTC_BOOTSTRAP=1) san=(--sanitizer none) ;;
        address) tc=(+nightly) env=() san=(--sanitizer address) ;;
        *)
            echo "FUZZ_SANITIZER must be none or address, not '$FUZZ_SANITIZER'" >&2
            exit 2
            ;;
    esac
}

build() {
    local tc env san
    toolchain
    (cd fuzz && env "${env[@]}" cargo "${tc[@]}" fuzz build "${san[@]}" "${extra[@]}")
}

# Where the targets that read files write their inputs: tmpfs when there is one (on a disk
# file system each overwrite frees blocks, which with `discard` waits for the device: a
# fortyfold slowdown here).
scratch() {
    if [ -n "${TENSORGRAPH_FUZZ_TMP:-}" ]; then
        echo "$TENSORGRAPH_FUZZ_TMP"
    elif [ -d /dev/shm ] && [ -w /dev/shm ]; then
        echo /dev/shm
    else
        echo "${TMPDIR:-/tmp}"
    fi
}

# The binary of target $1 as built before into FUZZ_TARGET_DIR (FUZZ_PREBUILT=1).
prebuilt() {
    local dir=${FUZZ_TARGET_DIR:-fuzz/target} bin
    bin="$(cd "$dir" && pwd)/$(rustc -vV | sed -n 's/^host: //p')/release/$1"
    [ -x "$bin" ] || {
        echo "FUZZ_PREBUILT: no binary $bin (run 'scripts/fuzz.sh build' with the same FUZZ_TARGET_DIR)" >&2
        exit 2
    }
    echo "$bin"
}

fuzz() {
    local t=$1
    shift
    local corpus=${CORPUS:-corpus/$t}
    local tc env san
    toolchain
    # cargo-fuzz, or the binary as it is (FUZZ_PREBUILT): no build step, so a target dir built
    # from another checkout (CI's cache) is used without cargo rebuilding it for this path
    local cmd=(cargo "${tc[@]}" fuzz run "${san[@]}" "${extra[@]}" "$t") sep=(--)
    if [ -n "${FUZZ_PREBUILT:-}" ]; then
        cmd=("$(prebuilt "$t")" -artifact_prefix="artifacts/$t/") sep=()
        mkdir -p "fuzz/artifacts/$t"
    fi
    (cd fuzz && mkdir -p "$corpus" "seeds/$t" && env "${env[@]}" TENSORGRAPH_FUZZ_TMP="$(scratch)" "${cmd[@]}" \
        "$corpus" "seeds/$t" "${sep[@]}" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
        -print_final_stats=1 ${FUZZ_MAX_LEN:+-max_len="$FUZZ_MAX_LEN"} \
        ${FUZZ_MAX_TIME:+-max_total_time="$FUZZ_MAX_TIME"} "$@")
}

cmd=${1:-}
shift || true
[ "$cmd" != ci ] || FUZZ_CODEGEN_UNITS=${FUZZ_CODEGEN_UNITS:-16}
set_extra
case "$cmd" in
    seed) seed ;;
    build) build ;;
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
        # 16 codegen units (set above): the instrumented library builds in parallel
        # (FUZZING.md has the times)
        build
        tmp=$(mktemp -d)
        trap 'rm -rf "$tmp"' EXIT
        failed=()
        for t in "${TARGETS[@]}"; do
            mkdir -p "$tmp/$t"
            CORPUS="$tmp/$t" fuzz "$t" -max_total_time=20 || failed+=("$t")
        done
        if [ ${#failed[@]} -gt 0 ]; then
            echo "fuzz: ${failed[*]} failed (a crash, hang or over-limit allocation); the inputs are in fuzz/artifacts/TARGET/" >&2
            exit 1
        fi
        ;;
    *)
        sed -n '2,23p' "$0"
        exit 2
        ;;
esac
