#!/bin/sh
# tests/run-fuzz-replay.sh BUILD NAME... — runs each fuzz harness without
# libFuzzer (BUILD/tests/fuzz_replay_NAME, see tests/fuzz/replay_main.c) over
# its seed corpus tests/fuzz/corpus/NAME and over tests/fuzz/regressions/NAME,
# the inputs that once found a problem. Called by `make test` (target
# test-fuzz-replay); under MODE=asan the harnesses run with the sanitizers.
# Exits non-zero when a harness fails on any input.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
build=${1:?usage: run-fuzz-replay.sh BUILD NAME...}
shift
status=0
total=0
for name in "$@"; do
    bin=$build/tests/fuzz_replay_$name
    [ -x "$bin" ] || { echo "run-fuzz-replay: $bin is missing" >&2; exit 1; }
    dirs=
    for d in tests/fuzz/corpus/$name tests/fuzz/regressions/$name; do
        [ -d "$d" ] && dirs="$dirs $d"
    done
    # shellcheck disable=SC2086
    if ! out=$("$bin" $dirs 2>&1); then
        printf '%s\n' "$out" | tail -40 >&2
        echo "fuzz replay: $name FAILED (rerun: $bin -v$dirs)" >&2
        status=1
        continue
    fi
    n=$(printf '%s\n' "$out" | sed -n 's/.*: \([0-9]*\) inputs replayed$/\1/p')
    total=$((total + ${n:-0}))
done
[ "$status" -eq 0 ] && echo "fuzz replay: $total seed and regression inputs through $# harnesses"
exit $status
