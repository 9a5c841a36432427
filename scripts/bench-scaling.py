#!/usr/bin/env python3
# scripts/bench-scaling.py — how `cql` scales with threads on a many-core machine
# (issue 32: the speed-up at 1, 2, 4, 8 and 16 threads for `check` on 1M games).
#
# Builds a corpus by repeating a PGN file until it holds GAMES games (under
# build/bench/, never in the repository), then runs one query at each thread
# count and prints, per run: wall time, CPU time (user + system of all
# threads), the speed-up over one thread (wall), the efficiency (speed-up /
# threads), and the main thread's share of the run's CPU, read from
# /proc/PID/task/PID/stat while the run goes (sampled every 20 ms, so the last
# few milliseconds of a thread are missed; a figure to within a percent).
#
# Usage: python3 scripts/bench-scaling.py [--cql build/release/cql] [--games 1000000]
#            [--threads 1,2,4,8,16] [--query 'check'] [--pgn FILE] [--runs 1]
# This is a benchmark, not a test: it never fails on a slow machine.
# SPDX-License-Identifier: GPL-3.0-or-later
import argparse
import os
import subprocess
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")


def build_corpus(pgn, games, path):
    with open(pgn, "rb") as f:
        text = f.read()
    per_copy = text.count(b"\n[Event ") + (1 if text.startswith(b"[Event ") else 0)
    copies = max(1, -(-games // max(per_copy, 1)))
    if os.path.exists(path) and os.path.getsize(path) == len(text) * copies:
        return per_copy * copies
    with open(path + ".tmp", "wb") as out:
        for _ in range(copies):
            out.write(text)
    os.replace(path + ".tmp", path)
    return per_copy * copies


def thread_cpu(pid, tid):
    """user + system seconds of one thread, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/task/{tid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS
    except (OSError, IndexError, ValueError):
        return None


def run(cmd):
    start = time.monotonic()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    main_cpu = 0.0
    while child.poll() is None:
        cpu = thread_cpu(child.pid, child.pid)
        if cpu is not None:
            main_cpu = cpu
        time.sleep(0.02)
    # poll() reaped the child: take its resource usage from the os.wait4 record
    wall = time.monotonic() - start
    return wall, main_cpu, child


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cql", default="build/release/cql")
    ap.add_argument("--games", type=int, default=1000000)
    ap.add_argument("--threads", default="1,2,4,8,16")
    ap.add_argument("--query", default="check")
    ap.add_argument("--pgn", default="tests/data/pgn/generated/engine-games-2000.pgn")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--dir", default="build/bench")
    args = ap.parse_args()

    os.makedirs(args.dir, exist_ok=True)
    corpus = os.path.join(args.dir, f"scaling-{args.games}.pgn")
    games = build_corpus(args.pgn, args.games, corpus)
    query = os.path.join(args.dir, "scaling.cql")
    with open(query, "w") as f:
        f.write("cql() " + args.query + "\n")
    out = os.path.join(args.dir, "scaling-out.pgn")
    print(f"scaling: `{args.query}` on {games} games ({os.path.getsize(corpus) / 1e6:.0f} MB), "
          f"{os.cpu_count()} CPUs, best wall of {args.runs} run(s)")
    print(f"{'threads':>7} {'wall s':>8} {'cpu s':>8} {'speed-up':>9} {'efficiency':>10} {'main thread':>12}")
    first_wall = None
    for n in [int(t) for t in args.threads.split(",")]:
        best = None
        for _ in range(args.runs):
            before = os.times()
            wall, main_cpu, child = run([args.cql, "-threads", str(n), "-i", corpus, "-o", out, query])
            after = os.times()
            if child.returncode != 0:
                sys.stderr.write(child.stderr.read().decode(errors="replace"))
                sys.exit(f"scaling: cql failed with status {child.returncode}")
            cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
            if best is None or wall < best[0]:
                best = (wall, cpu, main_cpu)
        wall, cpu, main_cpu = best
        if first_wall is None:
            first_wall = wall * n  # normally n == 1
        speedup = first_wall / wall
        share = 100 * main_cpu / cpu if cpu > 0 else 0
        print(f"{n:>7} {wall:>8.2f} {cpu:>8.2f} {speedup:>9.2f} {speedup / n:>10.2f} {share:>11.1f}%")


if __name__ == "__main__":
    main()
