#!/bin/sh
# tests/run-output.sh — what cql promises about its output file (docs/output.md):
# it writes into what -o names and never replaces it, never writes over its
# input, leaves nothing behind when interrupted, and stops at a failed write.
# Usage: sh tests/run-output.sh build/MODE
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
CQL=$(pwd)/$BUILD/cql
export LC_ALL=C
T=$(mktemp -d)
trap 'umount "$T/small" "$T/tiny" 2>/dev/null; rm -rf "$T"' EXIT
. tests/expect.sh
no_temporary_left() {
    if ls -a "$T" | grep -q '^\.[^.].*\.[A-Za-z0-9]\{6\}$'; then bad "$1: temporary file left: $(ls -a "$T" | grep '^\.[^.]')"
    else ok; fi
}

# stopped_early LABEL: the run whose messages are in $T/err said it stopped
# before the last of $BIG's 713 games
stopped_early() {
    read_games=$(sed -n 's/.*the run stopped after \([0-9]*\) games.*/\1/p' "$T/err")
    if [ -n "$read_games" ] && [ "$read_games" -lt 713 ]; then ok
    else bad "$1: the run did not stop at once (read '$read_games' of 713 games)"; fi
}

GAMES=tests/data/pgn/python-chess/molinari-bordais-1979.pgn
BIG=tests/data/pgn/sunfish/3fold.pgn          # 713 games, 2.3 MB of output for `true`
printf 'cql() true\n' >"$T/true.cql"
"$CQL" -i "$GAMES" -o "$T/want.pgn" "$T/true.cql" >/dev/null || bad "reference run"
is_root=false
[ "$(id -u)" = 0 ] && is_root=true

# ---- devices are written in place, never replaced ------------------------------
# As root a private node stands in for /dev/null: a wrong rename would replace the real one.
if $is_root; then
    if mknod "$T/null" c 1 3 2>/dev/null; then
        "$CQL" -i "$GAMES" -o "$T/null" "$T/true.cql" >"$T/out" 2>"$T/err"
        expect_eq "device node: exit" $? 0
        if [ -c "$T/null" ]; then ok; else bad "the device node was replaced by a $(stat -c %F "$T/null")"; fi
    else
        echo "note: mknod is not allowed here; device-node tests skipped" >&2
    fi
else
    "$CQL" -i "$GAMES" -o /dev/null "$T/true.cql" >"$T/out" 2>"$T/err"
    expect_eq "/dev/null: exit" $? 0
    if [ -c /dev/null ]; then ok; else bad "/dev/null is no longer a device"; fi
fi
no_temporary_left "device node"

# /dev/stdout into a pipe: written in place, the same bytes as a file. The
# test uses a private link like /dev/stdout, so that a wrong rename cannot
# replace the real one.
ln -s /proc/self/fd/1 "$T/stdout"
"$CQL" -i "$GAMES" -o "$T/stdout" "$T/true.cql" 2>"$T/err" | cat >"$T/via-stdout.pgn"
expect_same "-o /dev/stdout into a pipe (the summary goes to stderr)" "$T/via-stdout.pgn" "$T/want.pgn"
if [ -L "$T/stdout" ]; then ok; else bad "the /dev/stdout link was replaced"; fi

# a FIFO: read by another process, still a FIFO afterwards
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/from-fifo.pgn" &
reader=$!
"$CQL" -i "$GAMES" -o "$T/fifo" "$T/true.cql" >"$T/out" 2>"$T/err"
rc=$?
expect_eq "FIFO: exit" $rc 0
# the reader sees the end only if cql wrote into the FIFO; otherwise stop it
if [ $rc -eq 0 ] && [ -p "$T/fifo" ]; then wait $reader; else kill $reader 2>/dev/null; fi
expect_same "FIFO output" "$T/from-fifo.pgn" "$T/want.pgn"
if [ -p "$T/fifo" ]; then ok; else bad "the FIFO was replaced"; fi

# ---- symlinks and hard links ----------------------------------------------------
printf 'old\n' >"$T/target.pgn"
ln -s target.pgn "$T/link.pgn"
"$CQL" -i "$GAMES" -o "$T/link.pgn" "$T/true.cql" >/dev/null 2>"$T/err"
if [ -L "$T/link.pgn" ]; then ok; else bad "the symlink was replaced"; fi
expect_same "symlink: its target is written" "$T/target.pgn" "$T/want.pgn"
ln -s new-target.pgn "$T/dangling.pgn"
"$CQL" -i "$GAMES" -o "$T/dangling.pgn" "$T/true.cql" >/dev/null 2>"$T/err"
if [ -L "$T/dangling.pgn" ]; then ok; else bad "the dangling symlink was replaced"; fi
expect_same "dangling symlink: its target is created" "$T/new-target.pgn" "$T/want.pgn"
printf 'old\n' >"$T/hard1.pgn"
ln "$T/hard1.pgn" "$T/hard2.pgn"
"$CQL" -i "$GAMES" -o "$T/hard2.pgn" "$T/true.cql" >/dev/null 2>"$T/err"
expect_same "hard link: both names see the output" "$T/hard1.pgn" "$T/want.pgn"
expect_eq "hard link: still two links" "$(stat -c %h "$T/hard2.pgn")" 2
no_temporary_left "links"
# a run that fails (the query's assert) leaves a hard-linked file as it was (it was truncated)
printf 'old\n' >"$T/hard1.pgn"
"$CQL" -i "$GAMES" -o "$T/hard2.pgn" -cql 'assert btm' >/dev/null 2>&1
expect_eq "hard link, failed run: exit" $? 1
expect_eq "hard link, failed run: the old content stays" "$(cat "$T/hard1.pgn")" old
no_temporary_left "hard link, failed run"

# ---- a name of 248 to 255 bytes: the temporary name is cut to fit
long=$(printf '%0250d' 0).pgn
"$CQL" -i "$GAMES" -o "$T/$long" "$T/true.cql" >"$T/out" 2>"$T/err"
expect_eq "a 254-byte name: exit" $? 0
expect_same "a 254-byte name: written" "$T/$long" "$T/want.pgn"
no_temporary_left "a 254-byte name"

# ---- modes: an existing file keeps its mode; a new file gets 0666 & ~umask -----
( umask 077; "$CQL" -i "$GAMES" -o "$T/new077.pgn" "$T/true.cql" >/dev/null 2>&1 )
expect_eq "new file under umask 077" "$(stat -c %a "$T/new077.pgn")" 600
( umask 002; "$CQL" -i "$GAMES" -o "$T/new002.pgn" "$T/true.cql" >/dev/null 2>&1 )
expect_eq "new file under umask 002" "$(stat -c %a "$T/new002.pgn")" 664
printf 'old\n' >"$T/private.pgn"
chmod 600 "$T/private.pgn"
( umask 022; "$CQL" -i "$GAMES" -o "$T/private.pgn" "$T/true.cql" >/dev/null 2>&1 )
expect_eq "existing 0600 file keeps its mode" "$(stat -c %a "$T/private.pgn")" 600
expect_same "existing 0600 file is replaced" "$T/private.pgn" "$T/want.pgn"
printf 'old\n' >"$T/group.pgn"
chmod 640 "$T/group.pgn"
( umask 077; "$CQL" -i "$GAMES" -o "$T/group.pgn" "$T/true.cql" >/dev/null 2>&1 )
expect_eq "existing 0640 file keeps its mode" "$(stat -c %a "$T/group.pgn")" 640

# ---- the input is never overwritten, by any name -------------------------------
cp "$GAMES" "$T/input.pgn"
"$CQL" -i - -o "$T/input.pgn" "$T/true.cql" <"$T/input.pgn" >"$T/out" 2>"$T/err"
expect_eq "standard input as output: exit" $? 2
expect_grep "standard input as output: message" "$T/err" "refusing to write the output over the input"
expect_same "standard input as output: input kept" "$T/input.pgn" "$GAMES"
ln -s input.pgn "$T/input-link.pgn"
"$CQL" -i "$T/input.pgn" -o "$T/input-link.pgn" "$T/true.cql" >"$T/out" 2>"$T/err"
expect_eq "input through a symlink: exit" $? 2
expect_same "input through a symlink: input kept" "$T/input.pgn" "$GAMES"
"$CQL" -i "$T/input.pgn" -o - "$T/true.cql" >>"$T/input.pgn" 2>"$T/err"
expect_eq "standard output appending to the input: exit" $? 2
expect_same "standard output appending to the input: input kept" "$T/input.pgn" "$GAMES"

# ---- an interrupted run leaves nothing behind and keeps the old output ---------
# The input is a FIFO that stays open, so the run is still going when the
# signal comes. The temporary file is beside the output, or in $TMPDIR for
# an output copied into place at the end: both are looked at.
mkdir "$T/tmp"
chmod 1777 "$T/tmp"
# as root, a directory cql may not create files in needs another user
AS_USER=
if $is_root && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
    AS_USER="setpriv --reuid=65534 --regid=65534 --clear-groups"
    chmod 755 "$T"
fi
interrupt_run() {   # SIGNAL STATUS OUTPUT [RUN-AS]: the run stopped by the signal, nothing left
    rm -f "$T/in.fifo"
    mkfifo "$T/in.fifo"
    ( cat "$GAMES"; exec sleep 60 ) >"$T/in.fifo" &
    writer=$!
    # no core file from SIGQUIT or SIGXCPU
    ( ulimit -c 0; TMPDIR=$T/tmp exec $DEFAULT_SIGNALS ${4:-} "$CQL" -threads 1 -i "$T/in.fifo" -o "$3" \
        "$T/true.cql" >/dev/null 2>&1 ) &
    cql=$!
    tries=0
    until ls -a "$T" "$T/tmp" | grep -q "^\.$(basename "$3")\." || [ $tries -ge 100 ]; do
        sleep 0.05
        tries=$((tries + 1))
    done
    sleep 0.2
    kill "-$1" $cql
    wait $cql 2>/dev/null
    expect_eq "SIG$1 ($3): exit status" $? "$2"
    kill $writer 2>/dev/null
    wait $writer 2>/dev/null
    no_temporary_left "SIG$1"
    expect_eq "SIG$1 ($3): no temporary file in TMPDIR" "$(ls -A "$T/tmp")" ""
}
run_interrupted() {   # SIGNAL STATUS [OUTPUT [RUN-AS]]: and the old output stays
    out=${3:-$T/kept.pgn}
    printf 'old\n' >"$out"
    interrupt_run "$1" "$2" "$out" "${4:-}"
    expect_eq "SIG$1 ($out): the old output stays" "$(cat "$out")" old
}
# a background job of a non-interactive shell starts with SIGINT and SIGQUIT ignored, and
# under nohup SIGHUP is ignored too (cql keeps an ignored signal ignored); env
# --default-signal gives them back for the test
DEFAULT_SIGNALS=
if env --default-signal=INT,QUIT,HUP true 2>/dev/null; then DEFAULT_SIGNALS="env --default-signal=INT,QUIT,HUP"; fi
run_interrupted TERM 143
run_interrupted HUP 129
if [ -n "$DEFAULT_SIGNALS" ]; then run_interrupted INT 130; fi
# every other signal that ends a process and that a handler sees
if [ -n "$DEFAULT_SIGNALS" ]; then run_interrupted QUIT 131; fi
run_interrupted USR1 138
run_interrupted USR2 140
run_interrupted ALRM 142
run_interrupted XCPU 152
# a file with several hard links is written into a temporary file and copied
# into place at the end (it was written in place: SIGTERM left half a file)
printf 'old\n' >"$T/kept.pgn"
ln "$T/kept.pgn" "$T/kept-link.pgn"
run_interrupted TERM 143 "$T/kept.pgn"
expect_eq "SIGTERM, hard link: the other name keeps the old output" "$(cat "$T/kept-link.pgn")" old
expect_eq "SIGTERM, hard link: still two links" "$(stat -c %h "$T/kept.pgn")" 2
rm -f "$T/kept-link.pgn"
# a dangling symlink: its target is created at the end, not when interrupted
ln -s new-kept.pgn "$T/dangling-kept.pgn"
interrupt_run TERM 143 "$T/dangling-kept.pgn"
if [ -e "$T/new-kept.pgn" ]; then bad "SIGTERM, dangling symlink: its target was created"; else ok; fi
# a directory cql may not create files in: the temporary file goes to $TMPDIR
mkdir "$T/locked"
printf 'old\n' >"$T/locked/out.pgn"
chmod 666 "$T/locked/out.pgn"
if [ -n "$AS_USER" ] || ! $is_root; then
    chmod 555 "$T/locked"
    run_interrupted TERM 143 "$T/locked/out.pgn" "$AS_USER"
    ( TMPDIR=$T/tmp exec $AS_USER "$CQL" -i "$GAMES" -o "$T/locked/out.pgn" "$T/true.cql" >"$T/out" 2>"$T/err" )
    expect_eq "a directory cql may not create in: exit" $? 0
    expect_same "a directory cql may not create in: written" "$T/locked/out.pgn" "$T/want.pgn"
    expect_eq "a directory cql may not create in: no temporary file in TMPDIR" "$(ls -A "$T/tmp")" ""
    chmod 755 "$T/locked"
else
    echo "note: no other user to run as; the test of a directory cql may not create in is skipped" >&2
fi
# the copy at the end does not fit (a small disk, mounted where root may): the file is as it was
if [ -n "$AS_USER" ] && mkdir "$T/small" && mount -t tmpfs -o size=64k,mode=755 tmpfs "$T/small" 2>/dev/null; then
    printf 'old\n' >"$T/small/out.pgn"
    chmod 666 "$T/small/out.pgn"
    ( TMPDIR=$T/tmp exec $AS_USER "$CQL" -i "$BIG" -o "$T/small/out.pgn" "$T/true.cql" >"$T/out" 2>"$T/err" )
    expect_eq "the copy does not fit: exit" $? 2
    expect_grep "the copy does not fit: message" "$T/err" "cannot write output file '$T/small/out.pgn': No space left on device; it is as it was"
    expect_eq "the copy does not fit: the old output stays" "$(cat "$T/small/out.pgn")" old
    expect_eq "the copy does not fit: no temporary file in TMPDIR" "$(ls -A "$T/tmp")" ""
    umount "$T/small"
else
    echo "note: no small disk could be mounted; the test of a copy that does not fit is skipped" >&2
fi

# ---- the output thread: a regular file is written by a thread of its own --------
# The same bytes, in the same order, as through a pipe (written on the main
# thread, which hands the games over): the PGN output, the -matches
# records and the -report page (but for its time), on 1, 2 and 3 threads, with the default chunks and with small
# ones (many batches held by the output thread at once, more than the ring
# has slots), the 2.3 MB of output over several of its 256 KB blocks.
"$CQL" -threads 1 -i "$BIG" -o - "$T/true.cql" 2>"$T/err" | cat >"$T/big-want.pgn"
ln -s /proc/self/fd/1 "$T/stdout.jsonl"
ln -s /proc/self/fd/1 "$T/stdout.html"
"$CQL" -threads 1 -i "$BIG" -o /dev/null -matches "$T/stdout.jsonl" "$T/true.cql" 2>"$T/err" | cat >"$T/big-want.jsonl"
"$CQL" -threads 1 -i "$BIG" -o "$T/big.pgn" -report "$T/stdout.html" "$T/true.cql" 2>"$T/err" |
    sed '/<th>time<\/th>/d' >"$T/big-want.html"   # (the page names the PGN output)
expect_eq "output thread: the reference has every game" "$(grep -c '^\[Event ' "$T/big-want.pgn")" 713
for threads in 1 2 3; do
    for chunk in 0 3000; do
        rm -f "$T/big.pgn" "$T/big.jsonl" "$T/big.html"
        CQL_CHUNK_BYTES=$chunk "$CQL" -threads $threads -i "$BIG" -o "$T/big.pgn" -matches "$T/big.jsonl" \
            -report "$T/big.html" "$T/true.cql" >"$T/out" 2>"$T/err"
        expect_eq "output thread, $threads threads, chunks $chunk: exit" $? 0
        expect_same "output thread, $threads threads, chunks $chunk: the PGN output" "$T/big.pgn" "$T/big-want.pgn"
        expect_same "output thread, $threads threads, chunks $chunk: the -matches file" "$T/big.jsonl" \
            "$T/big-want.jsonl"
        sed '/<th>time<\/th>/d' "$T/big.html" >"$T/big.untimed"
        expect_same "output thread, $threads threads, chunks $chunk: the -report page" "$T/big.untimed" \
            "$T/big-want.html"
    done
done
no_temporary_left "output thread"

# A failed write on the output thread (a file size limit, SIGXFSZ ignored:
# EFBIG): said with the file's name, the run stopped, the old file kept.
printf 'old\n' >"$T/limited.pgn"
( trap '' XFSZ; ulimit -f 64; CQL_CHUNK_BYTES=4096 exec "$CQL" -threads 2 -i "$BIG" -o "$T/limited.pgn" \
    "$T/true.cql" >"$T/out" 2>"$T/err" )
expect_eq "file size limit: exit" $? 2
expect_grep "file size limit: message" "$T/err" "cannot write output file '$T/limited.pgn': File too large"
if grep -q ' matches of ' "$T/out"; then bad "file size limit: the summary line claims success"; else ok; fi
stopped_early "file size limit"
expect_eq "file size limit: the old output stays" "$(cat "$T/limited.pgn")" old
no_temporary_left "file size limit"
# the same with SIGXFSZ as it is: the process dies of it (on the output
# thread), and its handler removes the temporary file first
( ( ulimit -c 0; ulimit -f 64; exec "$CQL" -threads 2 -i "$BIG" -o "$T/limited.pgn" "$T/true.cql" >"$T/out" \
    2>"$T/err" ); exit $? ) 2>/dev/null   # without the shell's "File size limit exceeded"
expect_eq "SIGXFSZ on the output thread: exit status" $? 153
expect_eq "SIGXFSZ on the output thread: the old output stays" "$(cat "$T/limited.pgn")" old
no_temporary_left "SIGXFSZ on the output thread"
# a disk that fills up (a small disk, mounted where root may): ENOSPC
if mkdir "$T/tiny" && mount -t tmpfs -o size=64k tmpfs "$T/tiny" 2>/dev/null; then
    printf 'old\n' >"$T/tiny/out.pgn"
    "$CQL" -threads 2 -i "$BIG" -o "$T/tiny/out.pgn" "$T/true.cql" >"$T/out" 2>"$T/err"
    expect_eq "a full disk: exit" $? 2
    expect_grep "a full disk: message" "$T/err" "cannot write output file '$T/tiny/out.pgn': No space left on device"
    expect_eq "a full disk: the old output stays" "$(cat "$T/tiny/out.pgn")" old
    expect_eq "a full disk: no temporary file" "$(ls -A "$T/tiny")" out.pgn
    umount "$T/tiny"
else
    echo "note: no small disk could be mounted; the test of a disk that fills up is skipped" >&2
fi

# ---- a failed write stops the run at once, says why, and claims nothing --------
full=
if $is_root; then mknod "$T/full" c 1 7 2>/dev/null && full=$T/full
elif [ -c /dev/full ]; then full=/dev/full; fi
if [ -n "$full" ]; then
    "$CQL" -threads 2 -i "$BIG" -o "$full" "$T/true.cql" >"$T/out" 2>"$T/err"
    expect_eq "full device: exit" $? 2
    expect_grep "full device: message" "$T/err" "cannot write output file '$full': No space left on device"
    if grep -q ' matches of ' "$T/out"; then bad "full device: the summary line claims success"; else ok; fi
    stopped_early "full device"
    if [ -c "$full" ]; then ok; else bad "the full device was replaced"; fi
else
    echo "note: no full device (c 1 7) here; disk-full test skipped" >&2
fi

# EPIPE with SIGPIPE ignored: reported, exit 2, the rest of the input is not read
( trap '' PIPE; "$CQL" -threads 1 -i "$BIG" -o - "$T/true.cql" 2>"$T/err"; echo $? >"$T/rc" ) | head -c 100 >/dev/null
expect_eq "broken pipe: exit" "$(cat "$T/rc")" 2
expect_grep "broken pipe: message" "$T/err" "cannot write output file 'standard output': Broken pipe"
stopped_early "broken pipe"

echo "output tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
