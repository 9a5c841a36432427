#!/bin/sh
# tests/run-python.sh — the Python binding (bindings/python/cql.py, ctypes)
# on the library of this build: bindings/python/test_cql.py, which runs it
# beside the cql program (the same games and positions on 1 and 2 threads,
# query errors with line and column, a callback that raises, the limit,
# CQL_LIBRARY). In the sanitizer build the interpreter is not instrumented,
# so the ASan runtime the library needs is preloaded (LD_PRELOAD), with leak
# detection off (the interpreter keeps memory at exit; the C tests check
# the library's leaks). Skipped, with a line saying so, where there is no
# python3 or no ASan runtime to preload.
#
# Usage: sh tests/run-python.sh BUILD_DIR MODE CC   (`make test-python`)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
build=$1 mode=$2 cc=$3
if ! command -v python3 >/dev/null 2>&1; then
    echo "python: skipped: no python3 (the Python binding, bindings/python/, is not tested)"
    exit 0
fi
lib=$build/libcql.so
CQL_LIBRARY=$(pwd)/$lib CQL=$(pwd)/$build/cql
PYTHONDONTWRITEBYTECODE=1   # nothing written into the source tree
export CQL_LIBRARY CQL PYTHONDONTWRITEBYTECODE
T=$(mktemp -d "${TMPDIR:-/tmp}/cql-python.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

if [ "$mode" = asan ]; then
    # gcc links the runtime into the library (ldd names it); clang does not
    runtime=$(ldd "$lib" 2>/dev/null | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p' | head -1)
    [ -n "$runtime" ] || runtime=$($cc -print-file-name="libclang_rt.asan-$(uname -m).so" 2>/dev/null)
    if [ -z "$runtime" ] || [ ! -f "$runtime" ]; then
        echo "python: skipped under the sanitizers: no ASan runtime found to preload for $lib"
        exit 0
    fi
    LD_PRELOAD=$runtime ASAN_OPTIONS=detect_leaks=0
    export LD_PRELOAD ASAN_OPTIONS
    if ! python3 -c 'import sys; sys.path.insert(0, "bindings/python"); import cql; cql.version()' >"$T/log" 2>&1; then
        cat "$T/log" >&2
        echo "python: skipped under the sanitizers: python3 cannot load $lib with $runtime preloaded"
        exit 0
    fi
fi

if python3 bindings/python/test_cql.py >"$T/log" 2>&1; then
    tests=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in.*/\1/p' "$T/log")
    echo "python: $tests tests passed (bindings/python/test_cql.py on $lib$( [ "$mode" = asan ] && echo ', ASan runtime preloaded'))"
else
    cat "$T/log" >&2
    echo "python: FAIL (bindings/python/test_cql.py on $lib)" >&2
    exit 1
fi
