#!/usr/bin/env python3
# tests/check-matches.py — checks the records of `cql -matches` against the
# PGN output of the same run (made with -matchstring ZZMATCH): every record
# has the fields of docs/matches.md with values of their types, the records
# come game by game in the order of the PGN output, each game with as many
# records as the PGN has match strings, each record's comments hold the
# match string; writes each record's FEN (for tools/tool_fencheck) and a
# line "GAME<TAB>POSITION<TAB>FEN" per record (so that the three forms can
# be compared: their comments differ where EPD and TSV cannot hold a
# character).
#
# Usage: check-matches.py jsonl|tsv|epd RECORDS OUT.pgn FENS NORMALISED
# SPDX-License-Identifier: GPL-3.0-or-later
import json
import re
import sys

TAGS = ["white", "black", "event", "site", "date", "result", "eco", "white_elo", "black_elo"]
FIELDS = (["game", "input", "index"] + TAGS +
          ["position_id", "ply", "move_number", "to_move", "san", "fen", "in_variation", "variation", "comments"])
MATCHSTRING = "ZZMATCH"
VARIATION = re.compile(r"^(\d+:\d+(/\d+:\d+)*)?$")
EPD = re.compile(r'^(\S+ [wb] \S+ \S+) hmvc (\d+); fmvn (\d+); id "game (\d+) position (\d+)"; '
                 r'c0 "([^"]*)"; c1 "([^"]*)"; c2 "([^"]*)";(?: c3 "([^"]*)";)?$')

problems = []


def problem(text):
    if len(problems) < 20:
        print("FAIL: " + text, file=sys.stderr)
    problems.append(text)


def check_json(n, r):
    if list(r.keys()) != FIELDS:
        problem("record %d: fields %s, expected %s" % (n, list(r.keys()), FIELDS))
        return
    for k in ["game", "index", "position_id", "ply", "move_number"]:
        if type(r[k]) is not int or r[k] < 0:
            problem("record %d: %s is %r" % (n, k, r[k]))
    for k in TAGS:
        want = int if k.endswith("_elo") else str
        if r[k] is not None and type(r[k]) is not want:
            problem("record %d: %s is %r" % (n, k, r[k]))
    if r["to_move"] not in ("white", "black"):
        problem("record %d: to_move is %r" % (n, r["to_move"]))
    if (r["san"] is None) != (r["position_id"] == 0):
        problem("record %d: san %r at position %d" % (n, r["san"], r["position_id"]))
    if type(r["in_variation"]) is not bool or (r["variation"] != "") != r["in_variation"]:
        problem("record %d: in_variation %r with variation %r" % (n, r["in_variation"], r["variation"]))
    if not VARIATION.match(r["variation"]):
        problem("record %d: variation %r" % (n, r["variation"]))
    if r["fen"].split(" ")[1] != r["to_move"][0]:
        problem("record %d: to_move %s and FEN %s" % (n, r["to_move"], r["fen"]))


def records(form, path):
    """(game, position id, FEN, comments) of each record"""
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8").split("\n")   # strict: the records are UTF-8
    if lines[-1] != "":
        problem("%s does not end with a line end" % path)
    lines = lines[:-1]
    out = []
    if form == "jsonl":
        for n, line in enumerate(lines, 1):
            r = json.loads(line)
            check_json(n, r)
            out.append((r["game"], r["position_id"], r["fen"], r["comments"]))
    elif form == "tsv":
        if not lines or lines[0].split("\t") != FIELDS:
            problem("TSV header %r" % (lines[:1],))
            return out
        for n, line in enumerate(lines[1:], 1):
            v = line.split("\t")
            if len(v) != len(FIELDS):
                problem("TSV line %d has %d fields" % (n, len(v)))
                continue
            r = dict(zip(FIELDS, v))
            for k in ["white_elo", "black_elo"]:
                if r[k] and not r[k].isdigit():
                    problem("TSV line %d: %s is %r" % (n, k, r[k]))
            if r["in_variation"] not in ("true", "false") or (r["variation"] != "") != (r["in_variation"] == "true"):
                problem("TSV line %d: in_variation %r with variation %r" % (n, r["in_variation"], r["variation"]))
            out.append((int(r["game"]), int(r["position_id"]), r["fen"], r["comments"]))
    else:
        for n, line in enumerate(lines, 1):
            m = EPD.match(line)
            if not m:
                problem("EPD line %d: %r" % (n, line))
                continue
            fen = "%s %s %s" % (m.group(1), m.group(2), m.group(3))
            out.append((int(m.group(4)), int(m.group(5)), fen, m.group(9) or ""))
    return out


def pgn_counts(path):
    """(game, match strings) for each game of the PGN output, in its order"""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    parts = re.split(r"Game\s+number\s+(\d+)", text)
    counts, order = {}, []
    for i in range(1, len(parts), 2):
        g = int(parts[i])
        if g not in counts:
            order.append(g)
            counts[g] = 0
        counts[g] += parts[i + 1].count(MATCHSTRING)
    return [(g, counts[g]) for g in order]


def main():
    form, path, pgn, fens, normalised = sys.argv[1:6]
    recs = records(form, path)
    games = []
    for g, p, fen, comments in recs:
        if not games or games[-1][0] != g:
            games.append([g, 0])
        games[-1][1] += 1
        if MATCHSTRING not in comments:
            problem("game %d position %d: no match string in the comments %r" % (g, p, comments))
    want = [(g, c) for g, c in pgn_counts(pgn) if c > 0]
    got = [tuple(x) for x in games]
    if got != want:
        for i, (a, b) in enumerate(zip(got, want)):
            if a != b:
                problem("game %d of the output: %s records, the PGN %s" % (i + 1, a, b))
                break
        else:
            problem("%d games with records, %d in the PGN output" % (len(got), len(want)))
    with open(fens, "w") as f:
        for r in recs:
            f.write(r[2] + "\n")
    with open(normalised, "w", encoding="utf-8") as f:
        for r in recs:
            f.write("%d\t%d\t%s\n" % r[:3])
    print("%s: %d records of %d games" % (form, len(recs), len(games)))
    sys.exit(1 if problems else 0)


main()
