#!/bin/sh
# tests/run-fuzz.sh — the libFuzzer runs of `make fuzz`.
#
#   run-fuzz.sh --check CC            exit 0 when CC can build a libFuzzer program
#   run-fuzz.sh DIR SECONDS NAME...   runs DIR/fuzz_NAME for SECONDS each
#                                     (FUZZ_TIMEOUT: seconds one input may take, default 30)
#
# Each harness starts from its seed corpus (tests/fuzz/corpus/NAME) and the
# regression inputs (tests/fuzz/regressions/NAME), with its dictionary
# DIR/NAME.dict; new inputs go to the scratch corpus DIR/corpus/NAME (kept
# between runs, never in the repository). A finding (crash, sanitizer
# report, leak, timeout, out-of-memory, or a harness's own check) leaves its
# input under DIR/artifacts/NAME/ and fails the run. Prints executions,
# speed and coverage per harness at the end.
#
# The timeout is 30 s, not libFuzzer's usual 10: some inputs are slow by design
# but bounded, such as nested transforms that run into the 250,000-filter
# budget of src/query/transform.c (tests/fuzz/regressions/query/
# nested-transforms-exhaust-memory.cql: 0.2 s in a release build, 2 s in the
# instrumented one, and more than 10 s on a loaded 2-core machine). A real
# runaway (a loop without a budget) takes far longer than 30 s.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u

if [ "${1:-}" = "--check" ]; then
    cc=${2:-clang}
    tmp=$(mktemp -d)
    printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
        > "$tmp/t.c"
    if command -v "$cc" >/dev/null 2>&1 &&
       "$cc" -fsanitize=fuzzer,address,undefined "$tmp/t.c" -o "$tmp/t" >/dev/null 2>&1; then
        rm -rf "$tmp"
        exit 0
    fi
    rm -rf "$tmp"
    echo "run-fuzz: '$cc' cannot build libFuzzer programs (-fsanitize=fuzzer); install clang" >&2
    exit 1
fi

dir=${1:?usage: run-fuzz.sh DIR SECONDS NAME...}
seconds=${2:?usage: run-fuzz.sh DIR SECONDS NAME...}
shift 2

# Longest input per harness: enough for a few games or a long query, small
# enough to keep the runs fast.
max_len() {
    case $1 in
    pgn) echo 4096 ;;
    fen_san) echo 512 ;;
    query) echo 2048 ;;
    pipeline) echo 4096 ;;
    regex) echo 512 ;;
    movecode) echo 1024 ;;
    sidecar) echo 4096 ;;
    *) echo 4096 ;;
    esac
}

status=0
summary=
for name in "$@"; do
    bin=$dir/fuzz_$name
    [ -x "$bin" ] || { echo "run-fuzz: $bin is missing" >&2; exit 1; }
    corpus=$dir/corpus/$name
    artifacts=$dir/artifacts/$name
    log=$dir/fuzz_$name.log
    mkdir -p "$corpus"
    rm -rf "$artifacts"
    mkdir -p "$artifacts"
    seeds=
    for d in tests/fuzz/corpus/$name tests/fuzz/regressions/$name; do
        [ -d "$d" ] && seeds="$seeds $d"
    done
    echo "fuzz: $name for $seconds s (log: $log)"
    # shellcheck disable=SC2086
    "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout="${FUZZ_TIMEOUT:-30}" \
        -max_len="$(max_len "$name")" -dict="$dir/$name.dict" \
        -artifact_prefix="$artifacts/" -print_final_stats=1 \
        "$corpus" $seeds >"$log" 2>&1
    rc=$?
    found=$(ls "$artifacts" | head -5)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -E '^#[0-9]+' "$log" | grep 'cov:' | tail -1 |
          sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\)\/.*/cov: \1 ft: \2 corpus: \3/p')
    line=$(printf '%-9s %10s execs %6s/s  %s' "$name" "${execs:-?}" "${speed:-?}" "${cov:-cov: ?}")
    if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
        status=1
        line="$line  FINDING"
        echo "---- fuzz: $name found a problem (exit $rc):" >&2
        # the harness's message or the sanitizer's report, without libFuzzer's frames
        sed -n '/^==== fuzz_\|ERROR: \|runtime error/,$p' "$log" |
            grep -v 'in fuzzer::\|in __libc_start\|in _start\|in main ' | head -50 >&2
        for f in $found; do
            echo "     input: $artifacts/$f — replay with $bin $artifacts/$f" >&2
        done
    fi
    summary="$summary$line
"
done
echo "fuzz results ($seconds s per harness):"
printf '%s' "$summary"
[ "$status" -eq 0 ] || echo "fuzz: FAILED — add each input as a regression (docs/testing.md, Fuzzing)" >&2
exit $status
