# tests/expect.sh — the checks the shell test layers share (the run-*.sh
# layers source it after making their scratch folder $T). Each check counts a pass or prints "FAIL: ..." and counts a
# failure; the layer ends with its counts.
# SPDX-License-Identifier: GPL-3.0-or-later
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# expect_rc NAME WANT CMD... : runs CMD (its output in $T/out and $T/err),
# compares its exit status
expect_rc() {
    name=$1 want=$2
    shift 2
    "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "$name: exit $rc, expected $want"; cat "$T/err" >&2; fi
}

# expect_grep NAME FILE PATTERN : FILE must contain a line matching PATTERN
expect_grep() { if grep -q -- "$3" "$2"; then ok; else bad "$1: no line matching '$3' in:"; cat "$2" >&2; fi; }
# expect_no_grep NAME FILE PATTERN : no line of FILE may match PATTERN
expect_no_grep() { if grep -q -- "$3" "$2"; then bad "$1: a line matches '$3' in:"; cat "$2" >&2; else ok; fi; }
# expect_eq NAME GOT WANT
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', expected '$3'"; fi; }
# expect_same NAME FILE1 FILE2 : the two files are byte for byte the same
expect_same() { if cmp -s "$2" "$3"; then ok; else bad "$1: $2 and $3 differ"; fi; }

# complete_words PREVIOUS CURRENT : the words the bash completion
# (scripts/completion/cql.bash) offers for CURRENT after PREVIOUS, run in
# $T/complete (the caller makes it and its files) with $CQL as the program;
# sorted, on one line
complete_words() {
    (cd "$T/complete" && bash -c '. "$1/scripts/completion/cql.bash"; _cql "$2" "$4" "$3"; for w in "${COMPREPLY[@]}"; do echo "$w"; done' \
        sh "$OLDPWD" "$CQL" "$1" "$2") | sort | tr '\n' ' '
}
