"""bindings/python/test_cql.py — the Python binding (cql.py) against the cql
program and the library's own step-by-step calls: the same matching games,
byte for byte, and the same matched positions (the SAN and move number of
each {CQL} the program writes; the ply and FEN the library gives the same
position when it reads the game alone) on 1 and 2 threads, for `check`,
`mate` and examples/knight-fork.cql on the Kasparov-Deep Blue games and the
2000 engine games; a query error as QueryError with the program's line and
column; a callback that raises (the exception reaches the caller, no
callback after it, the process exits cleanly, the next run is whole); a
run the query stops; the limit; the generator; the library found through
CQL_LIBRARY; the example of README.md.

    CQL_LIBRARY=build/release/libcql.so CQL=build/release/cql python3 bindings/python/test_cql.py

(tests/run-python.sh, in `make test`). Run from the repository's root.

SPDX-License-Identifier: GPL-3.0-or-later
"""
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cql  # noqa: E402

CQL = os.environ.get("CQL", os.path.join(ROOT, "build", "release", "cql"))
PGN = os.path.join(ROOT, "tests", "data", "pgn")
KASPAROV = os.path.join(PGN, "python-chess", "kasparov-deep-blue-1997.pgn")
ENGINE = os.path.join(PGN, "generated", "engine-games-2000.pgn")
KNIGHT_FORK = os.path.join(ROOT, "examples", "knight-fork.cql")
QUERIES = {"check": "cql()\ncheck\n", "mate": "cql()\nmate\n"}


def run_program(args, **kwargs):
    return subprocess.run([CQL] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


# ---- the program's output, read back --------------------------------------------------

GAME_NUMBER = re.compile(r"Game\s+number\s+(\d+)")
TOKEN = re.compile(r"\{[^}]*\}|\d+\.(?:\.\.)?|[^\s{}]+")


def marked_positions(game_text):
    """The positions a game written by cql marks with {CQL}, in the order
    written: (move number, white moved, SAN of the move into it)."""
    moves = "\n".join(line for line in game_text.split("\n") if not line.startswith("["))
    number, white, last = 1, True, None
    found = []
    for token in TOKEN.findall(moves):
        if token.startswith("{"):
            if "CQL" in token[1:-1].split():
                found.append(last if last else (0, False, ""))
        elif re.fullmatch(r"\d+\.", token):
            number, white = int(token[:-1]), True
        elif re.fullmatch(r"\d+\.\.\.", token):
            number, white = int(token[:-3]), False
        elif token in ("1-0", "0-1", "1/2-1/2", "*"):
            pass
        else:
            last = (number, white, token)
            if not white:
                number += 1
            white = not white
    return found


def program_matches(query_file, pgn, extra=()):
    """The games cql writes for query_file on pgn: the whole text and, per
    game number, its text."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.pgn")
        done = run_program(["-threads", "1", "-i", pgn, "-o", out] + list(extra) + [query_file])
        if done.returncode != 0:
            raise AssertionError("cql failed: %s" % done.stderr.decode())
        with open(out, encoding="utf-8", errors="replace") as f:
            text = f.read()
    games = {}
    for piece in re.split(r"\n(?=\[Event )", text):
        m = GAME_NUMBER.search(piece)
        if m:
            games[int(m.group(1))] = piece
    return text, games


# ---- the library's own reading of a game ------------------------------------------------

class StepReader:
    """The library's step-by-step calls (cql_reader_*, cql_game_*) on the
    library the binding loaded: the ply, main line and FEN of a position of
    game `index` of a file."""

    def __init__(self):
        self.dll = ctypes.CDLL(cql._lib().path)
        P = ctypes.c_void_p
        for name, restype, argtypes in [
            ("cql_reader_open", P, [ctypes.c_char_p, P]),
            ("cql_reader_next", ctypes.c_bool, [P, P, P]),
            ("cql_reader_name", ctypes.c_char_p, [P]),
            ("cql_reader_close", None, [P]),
            ("cql_game_text_new", P, []),
            ("cql_game_text_free", None, [P]),
            ("cql_game_new", P, []),
            ("cql_game_free", None, [P]),
            ("cql_game_parse", ctypes.c_int, [P, P, ctypes.c_char_p, P]),
            ("cql_game_positions", ctypes.c_int, [P]),
            ("cql_game_position", None, [P, ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                                         ctypes.POINTER(ctypes.c_bool)]),
            ("cql_game_fen", None, [P, ctypes.c_int, ctypes.POINTER(cql._Text)]),
            ("cql_text_free", None, [ctypes.POINTER(cql._Text)]),
        ]:
            fn = getattr(self.dll, name)
            fn.restype, fn.argtypes = restype, argtypes
        self.cache = {}

    def games(self, path):
        """Every game of path: {index: [(ply, main line, FEN) of each position id]}."""
        if path in self.cache:
            return self.cache[path]
        d = self.dll
        reader = d.cql_reader_open(os.fsencode(path), None)
        text, game = d.cql_game_text_new(), d.cql_game_new()
        games, index = {}, 0
        try:
            while d.cql_reader_next(reader, text, None):
                index += 1
                if d.cql_game_parse(game, text, d.cql_reader_name(reader), None) == 2:   # CQL_GAME_UNUSABLE
                    continue
                positions = []
                for id in range(d.cql_game_positions(game)):
                    ply, mainline = ctypes.c_int(), ctypes.c_bool()
                    d.cql_game_position(game, id, ctypes.byref(ply), ctypes.byref(mainline))
                    fen = cql._Text()
                    d.cql_game_fen(game, id, ctypes.byref(fen))
                    positions.append((ply.value, mainline.value, ctypes.string_at(fen.data, fen.len).decode()))
                    d.cql_text_free(ctypes.byref(fen))
                games[index] = positions
        finally:
            d.cql_game_free(game)
            d.cql_game_text_free(text)
            d.cql_reader_close(reader)
        self.cache[path] = games
        return games


# ---- the tests ---------------------------------------------------------------------------


class SameAsTheProgram(unittest.TestCase):
    """The binding finds what the cql program finds."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.query_files = {}
        for name, text in QUERIES.items():
            path = os.path.join(cls.tmp, name + ".cql")
            with open(path, "w") as f:
                f.write(text)
            cls.query_files[name] = path
        cls.query_files["knight-fork"] = KNIGHT_FORK
        cls.steps = StepReader()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def compare(self, query_name, pgn):
        query_file = self.query_files[query_name]
        want_text, want_games = program_matches(query_file, pgn)
        self.assertTrue(want_games, "%s finds nothing in %s: the test could not fail" % (query_name, pgn))
        library_games = self.steps.games(pgn)
        query = cql.Query.from_file(query_file)
        results = {}
        for threads in (1, 2):
            matches = []
            totals = query.run(pgn, threads=threads, on_match=matches.append)
            where = "%s on %s, %d threads" % (query_name, os.path.basename(pgn), threads)
            self.assertEqual(totals.threads, threads, where)
            self.assertEqual(totals.matches, len(want_games), where)
            self.assertEqual([m.number for m in matches], sorted(want_games), where)
            self.assertEqual("".join(m.pgn for m in matches), want_text, where + ": the PGN text")
            for m in matches:
                self.assertEqual(m.input, pgn)
                self.assertEqual(m.index, m.number)   # one input
                marked = marked_positions(want_games[m.number])
                got = [(p.move_number, not p.white_to_move, p.san) for p in m.positions]
                self.assertEqual(got, marked, "%s: game %d" % (where, m.number))
                for p in m.positions:
                    ply, mainline, fen = library_games[m.index][p.id]
                    self.assertEqual((p.ply, not p.in_variation, p.fen), (ply, mainline, fen),
                                     "%s: game %d position %d" % (where, m.number, p.id))
                    fields = p.fen.split()
                    self.assertEqual(fields[1], "w" if p.white_to_move else "b")
                    self.assertEqual(int(fields[5]), p.move_number + (1 if p.white_to_move else 0))
                    self.assertTrue(p.comments.endswith("CQL"), "%s: comments %r" % (where, p.comments))
                    self.assertEqual(p.variation == "", not p.in_variation)
                    self.assertTrue(0 <= p.from_square < 64 and 0 <= p.to_square < 64 and p.from_square != p.to_square
                                    or p.from_square == p.to_square == -1, "%s: %r" % (where, p))
                self.assertIn(("Event", re.search(r'\[Event "([^"]*)"\]', m.pgn).group(1)), m.tags)
            results[threads] = matches
        self.assertEqual(results[1], results[2], "%s: 1 and 2 threads" % query_name)
        return results[2]

    def test_check_kasparov(self):
        self.compare("check", KASPAROV)

    def test_check_engine_games(self):
        matches = self.compare("check", ENGINE)
        self.assertGreater(len(matches), 1000)

    def test_mate_engine_games(self):
        self.compare("mate", ENGINE)

    def test_knight_fork_engine_games(self):
        self.compare("knight-fork", ENGINE)

    def test_search_generator_gives_the_same(self):
        query = cql.Query.from_file(self.query_files["check"])
        collected = []
        query.run(ENGINE, threads=2, on_match=collected.append)
        self.assertEqual(list(query.search(ENGINE, threads=2)), collected)

    def test_limit_is_the_programs(self):
        _, want = program_matches(self.query_files["check"], ENGINE, ["-limit", "3"])
        query = cql.Query("cql() check")
        matches = []
        totals = query.run(ENGINE, threads=2, limit=3, on_match=matches.append)
        self.assertEqual([m.number for m in matches], sorted(want))
        self.assertEqual(len(matches), 3)
        self.assertTrue(totals.limit_reached)
        self.assertEqual([m.number for m in cql.Query("cql() check", limit=3).search(ENGINE)], sorted(want))


class Errors(unittest.TestCase):

    def program_place(self, text):
        """The LINE and COL of the program's first error on the query file text."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.cql")
            with open(path, "w") as f:
                f.write(text)
            done = run_program(["-i", KASPAROV, "-o", os.path.join(tmp, "out.pgn"), path])
        self.assertEqual(done.returncode, 1)
        m = re.match(re.escape(path) + r":(\d+):(\d+): error: (.*)", done.stderr.decode())
        self.assertIsNotNone(m, done.stderr.decode())
        return int(m.group(1)), int(m.group(2)), m.group(3)

    def test_query_error_has_line_and_column(self):
        for text in ("cql()\ncheck\nattacks k\n", "cql()\n  check  {\n  Ka1 ] }\n", "cql()\n\tcheck ]\n", "cql(gamenumber 5 2)\ncheck\n"):
            line, column, message = self.program_place(text)
            with self.assertRaises(cql.QueryError) as caught:
                cql.Query(text)
            e = caught.exception
            self.assertEqual((e.line, e.column, e.message), (line, column, message), text)
            self.assertTrue(e.messages[0].startswith("<query>:%d:%d: error: " % (line, column)))
            self.assertIn("^", e.messages[0])   # the caret line
            self.assertIsInstance(e, cql.Error)
        with self.assertRaises(cql.QueryError) as caught:
            cql.Query("cql()\nattacks k\n", name="mine.cql")
        self.assertEqual((caught.exception.line, caught.exception.column), (2, 1))
        self.assertTrue(caught.exception.messages[0].startswith("mine.cql:2:1: error: "))

    def test_runtime_error_stops_the_run(self):
        matches = []
        with self.assertRaises(cql.RunStopped) as caught:
            cql.Query("cql() check assert gamenumber < 3").run(KASPAROV, threads=2, on_match=matches.append)
        self.assertEqual(caught.exception.game, 3)
        self.assertIn("assert filter", str(caught.exception))
        self.assertEqual([m.number for m in matches], [1, 2])   # the matches before it
        with self.assertRaises(cql.RunStopped) as caught:
            list(cql.Query("cql() check assert gamenumber < 3").search(KASPAROV))
        self.assertEqual(caught.exception.game, 3)

    def test_value_only_filter_stops_the_run(self):
        compiled, ran = [], []
        query = cql.Query("cql() check piecename e1", on_message=lambda s, t: compiled.append((s, t)))
        self.assertEqual(len(compiled), 1)
        self.assertEqual(compiled[0][0], "warning")
        self.assertTrue(compiled[0][1].startswith("<query>:1:13: warning: the value-only filter"))
        with self.assertRaises(cql.RunStopped) as caught:
            query.run(KASPAROV, on_message=lambda s, t: ran.append(s))
        self.assertEqual(caught.exception.game, 1)
        self.assertIn("evaluated as a position filter", str(caught.exception))
        self.assertEqual(ran, ["error"])

    def test_unreadable_input_fails_the_run(self):
        with self.assertRaises(cql.RunFailed) as caught:
            cql.Query("cql() check").run(os.path.join(ROOT, "no-such-file.pgn"))
        self.assertIn("no-such-file.pgn", str(caught.exception))

    def test_lastgamenumber_counts_the_games_first(self):
        matches = list(cql.Query("cql() gamenumber == lastgamenumber").search([KASPAROV, ENGINE]))
        self.assertEqual([(m.input, m.index, m.number) for m in matches], [(ENGINE, 2000, 2006)])

    def test_settings_by_name(self):
        query = cql.Query("cql() check", gamenumber=(2, 4), variations=True, matchstring="HERE")
        matches = []
        query.run(KASPAROV, on_match=matches.append)
        self.assertEqual([m.number for m in matches], [2, 3, 4])
        self.assertIn("{HERE}", matches[0].pgn)
        self.assertEqual([m.number for m in cql.Query("cql() check", g=5).search(KASPAROV)], [5])
        with self.assertRaises(TypeError):
            cql.Query("cql() check", nosuchsetting=True)
        with self.assertRaises(TypeError):
            cql.Query("cql() check", variations=1)
        with self.assertRaises(ValueError):
            cql.Query("cql() check", threads=0)
        names = [s.name for s in cql.settings()]
        self.assertIn("variations", names)
        self.assertIn("threads", names)


class Callbacks(unittest.TestCase):

    def test_raising_callback_reaches_the_caller(self):
        calls = []

        class Boom(Exception):
            pass

        def on_match(match):
            calls.append(("match", match.number))
            if len([c for c in calls if c[0] == "match"]) == 3:
                raise Boom("third")

        query = cql.Query("cql() check")
        for threads in (1, 2):
            calls.clear()
            try:
                query.run(ENGINE, threads=threads, on_match=on_match,
                          on_game=lambda g: calls.append(("game", g.number)),
                          on_progress=lambda p: calls.append(("progress", p.games)))
                self.fail("the exception of the callback did not reach the caller")
            except Boom as e:
                caught = e
            self.assertEqual(str(caught), "third")
            self.assertEqual(calls[-1][0], "match", "a callback after the exception: %s" % calls[-3:])
            self.assertEqual([c for c in calls if c[0] == "match"], [("match", 1), ("match", 2), ("match", 3)])
            # the traceback reaches into the callback
            tb = caught.__traceback__
            while tb.tb_next:
                tb = tb.tb_next
            self.assertEqual(tb.tb_frame.f_code.co_name, "on_match")
        totals = query.run(ENGINE, threads=2)   # the next run is whole
        self.assertEqual(totals.games, 2000)

    def test_raising_callback_leaves_the_process_clean(self):
        script = (
            "import sys, gc; sys.path.insert(0, %r); import cql\n"
            "q = cql.Query('cql() check')\n"
            "n = [0]\n"
            "def cb(m):\n"
            "    n[0] += 1; gc.collect()\n"
            "    if n[0] == 3: raise KeyError('third')\n"
            "try:\n"
            "    q.run(%r, threads=2, on_match=cb)\n"
            "except KeyError:\n"
            "    pass\n"
            "print(n[0], q.run(%r, threads=2).matches)\n" % (HERE, ENGINE, ENGINE))
        done = subprocess.run([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=300)
        self.assertEqual(done.returncode, 0, done.stderr.decode())
        self.assertEqual(done.stderr.decode(), "")
        self.assertEqual(done.stdout.decode().split(), ["3", "1970"])

    def test_ctrl_c_cancels_the_run(self):
        # a slow query (seconds over the engine games), interrupted after 0.3 s
        script = (
            "import os, signal, sys, threading; sys.path.insert(0, %r); import cql\n"
            "q = cql.Query('cql() piece y in Pa-h2 find y--=B')\n"
            "games = []\n"
            "threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()\n"
            "try:\n"
            "    q.run(%r, threads=2, on_game=lambda g: games.append(g.number))\n"
            "    print('not interrupted')\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted', len(games) < 2000)\n" % (HERE, ENGINE))
        done = subprocess.run([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=300)
        self.assertEqual(done.returncode, 0, done.stderr.decode())
        self.assertEqual(done.stderr.decode(), "")
        self.assertEqual(done.stdout.decode().split(), ["interrupted", "True"])

    def test_stop_run_ends_quietly(self):
        def stop(match):
            raise cql.StopRun()
        totals = cql.Query("cql() check").run(ENGINE, threads=2, on_match=stop)
        self.assertTrue(totals.cancelled)
        self.assertEqual(totals.matches, 1)

    def test_callbacks_on_the_calling_thread_in_order(self):
        threads, numbers, progress = set(), [], []

        def on_game(game):
            threads.add(threading.get_ident())
            numbers.append(game.number)
        totals = cql.Query("cql() check").run(ENGINE, threads=2, on_game=on_game, on_progress=progress.append)
        self.assertEqual(threads, {threading.get_ident()})
        self.assertEqual(numbers, list(range(1, 2001)))
        self.assertEqual(progress[-1], cql.Progress(totals.games, totals.matches, totals.bytes))

    def test_game_callback_has_what_message_printed(self):
        games = []
        cql.Query('cql() gamenumber < 3 message "hello"').run(KASPAROV, on_game=games.append)
        self.assertEqual(len(games), 6)
        self.assertIn("hello", games[0].printed)
        self.assertEqual(games[3].printed, "")

    def test_generator_closed_early_cancels(self):
        query = cql.Query("cql() check")
        got = []
        for match in query.search(ENGINE, threads=2, buffer=2):
            got.append(match.number)
            if len(got) == 5:
                break
        self.assertEqual(got, [1, 2, 3, 4, 5])
        self.assertEqual(threading.active_count(), 1)   # the run's thread is gone


class Library(unittest.TestCase):

    def test_version_is_the_headers(self):
        with open(os.path.join(ROOT, "include", "cql.h")) as f:
            header = f.read()
        parts = [re.search(r"#define CQL_VERSION_%s (\d+)" % p, header).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
        self.assertEqual(cql.version(), ".".join(parts))

    def run_python(self, code, env):
        return subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); import cql\n%s" % (HERE, code)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tempfile.gettempdir(),
                              timeout=120)

    def test_found_through_cql_library(self):
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "libcql-copy.so")
            shutil.copy(cql._lib().path, copy)
            env = dict(os.environ, CQL_LIBRARY=copy)
            done = self.run_python("print(cql.load()); print(len(list(cql.Query('cql() check').search(%r))))"
                                   % KASPAROV, env)
            self.assertEqual(done.returncode, 0, done.stderr.decode())
            self.assertEqual(done.stdout.decode().split(), [copy, "6"])
            env["CQL_LIBRARY"] = os.path.join(tmp, "none.so")
            done = self.run_python("cql.version()", env)
            self.assertNotEqual(done.returncode, 0)
            self.assertIn("cannot load libcql", done.stderr.decode())
            self.assertIn("none.so", done.stderr.decode())

    def test_readme_example(self):
        with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        example = re.search(r"```python\n(#!/usr/bin/env python3.*?)```", readme, re.S).group(1)
        shown = re.search(r"```\n\n((?:    game .*\n)+)", readme).group(1)
        done = subprocess.run([sys.executable, "-c", example], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              cwd=ROOT, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr.decode())
        lines = done.stdout.decode().splitlines()
        self.assertEqual(lines[:3], [line[4:] for line in shown.splitlines()])
        self.assertEqual(len({line.split(":")[0] for line in lines}), 5)   # limit=5 games

    def test_explicit_path(self):
        env = {k: v for k, v in os.environ.items() if k != "CQL_LIBRARY"}
        path = cql._lib().path
        done = self.run_python("print(cql.load(%r)); print(cql.version())" % path, env)
        self.assertEqual(done.returncode, 0, done.stderr.decode())
        self.assertEqual(done.stdout.decode().split()[0], path)


if __name__ == "__main__":
    unittest.main(verbosity=2)
