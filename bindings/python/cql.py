"""cql: the Chess Query Language library (libcql) from Python.

A thin binding of include/cql.h with ctypes, from Python's standard library
alone: compile a query with its settings, run it over PGN files on worker
threads, and receive each matching game (its number, input, PGN text and
the positions where it matched) in input order, through a callback or a
generator.

    import cql
    query = cql.Query("cql() check", variations=True)
    for match in query.search("games.pgn", threads=2):
        print(match.number, [p.san for p in match.positions])

The library is found, in this order: the path given to cql.load(), the
environment variable CQL_LIBRARY, the repository's build folder
(build/release/libcql.so, build/debug/libcql.so beside this file's
bindings/python/), then ctypes.util.find_library("cql") (an installed
libcql.so). bindings/python/README.md tells more.

SPDX-License-Identifier: GPL-3.0-or-later
"""
import ctypes
import ctypes.util
import os
import queue
import re
import signal
import sys
import threading
from typing import NamedTuple, Optional, Tuple

__all__ = [
    "Error", "QueryError", "RunStopped", "RunFailed", "StopRun",
    "Query", "Match", "Position", "Game", "Progress", "Totals", "SettingInfo",
    "load", "version", "settings",
]

# The major version of the library this binding is written for: the ABI of
# include/cql.h (libcql.so.MAJOR).
ABI_MAJOR = 0

# ---- errors ------------------------------------------------------------------


class Error(Exception):
    """Something cql refused or could not do; `messages` holds what the
    library reported (each a complete message, as the `cql` program prints
    it)."""

    def __init__(self, message, messages=()):
        super().__init__(message)
        self.message = message
        self.messages = list(messages)


class QueryError(Error):
    """The query does not compile. `line` and `column` are where (1-based;
    None when the message names no place in the query text), `message` the
    error without its place, `messages` every message as reported
    (FILE:LINE:COL: error: ..., the source line and a caret)."""

    def __init__(self, message, line, column, messages=()):
        super().__init__(message, messages)
        self.line = line
        self.column = column

    def __str__(self):
        if self.line is None:
            return self.message
        return "%d:%d: %s" % (self.line, self.column, self.message)


class RunStopped(Error):
    """The query stopped the run (a failed `assert`, a value-only filter
    evaluated as a position filter ...), where the `cql` program exits with
    status 1. `game` is the number of the game it stopped at (None when
    unknown); the matches before it were delivered."""

    def __init__(self, message, game, messages=()):
        super().__init__(message, messages)
        self.game = game


class RunFailed(Error):
    """An input could not be opened or read to its end, or the settings do
    not fit the inputs (`part` wants one plain file ...)."""


class StopRun(Exception):
    """Raised by a callback to end the run there, quietly: run() returns
    with Totals.cancelled set."""


# ---- the library ---------------------------------------------------------------

_MESSAGE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)


class _Messages(ctypes.Structure):
    _fields_ = [("fn", _MESSAGE_FN), ("ctx", ctypes.c_void_p),
                ("errors", ctypes.c_uint), ("warnings", ctypes.c_uint)]


class _SettingInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("alias", ctypes.c_char_p), ("kind", ctypes.c_int),
                ("min", ctypes.c_longlong), ("header", ctypes.c_bool), ("option", ctypes.c_bool),
                ("listed", ctypes.c_bool), ("help", ctypes.c_char_p)]


class _Position(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("ply", ctypes.c_int), ("move_number", ctypes.c_int),
                ("white_to_move", ctypes.c_bool), ("in_variation", ctypes.c_bool),
                ("san", ctypes.c_char_p), ("fen", ctypes.c_char_p),
                ("from_square", ctypes.c_int), ("to_square", ctypes.c_int),
                ("variation", ctypes.c_char_p), ("comments", ctypes.c_char_p)]


class _Tag(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_char_p)]


class _RunGame(ctypes.Structure):
    _fields_ = [("number", ctypes.c_long), ("input", ctypes.c_char_p), ("index", ctypes.c_long),
                ("examined", ctypes.c_bool), ("damaged", ctypes.c_bool), ("matched", ctypes.c_bool),
                ("printed", ctypes.c_void_p), ("printed_len", ctypes.c_size_t),
                ("error", ctypes.c_char_p),
                ("pgn", ctypes.c_void_p), ("pgn_len", ctypes.c_size_t),
                ("positions", ctypes.POINTER(_Position)), ("npositions", ctypes.c_int),
                ("tags", ctypes.POINTER(_Tag)), ("ntags", ctypes.c_int)]


class _RunProgress(ctypes.Structure):
    _fields_ = [("games", ctypes.c_long), ("matches", ctypes.c_long), ("bytes", ctypes.c_uint64)]


class _RunTotals(ctypes.Structure):
    _fields_ = [("games", ctypes.c_long), ("matches", ctypes.c_long), ("pgn_errors", ctypes.c_long),
                ("bytes", ctypes.c_uint64), ("threads", ctypes.c_long),
                ("limit_reached", ctypes.c_bool), ("cancelled", ctypes.c_bool),
                ("stopped_at", ctypes.c_long), ("error", ctypes.c_char_p)]


class _Text(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("len", ctypes.c_size_t), ("cap", ctypes.c_size_t)]


_GAME_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(_RunGame))
_PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(_RunProgress))

# CqlSettingKind, CqlCompileStage, CqlRunStatus, CqlSeverity
_KIND_NAMES = ("flag", "text", "result", "count", "size", "range", "part")
_COMPILE_RUN = 0
_RUN_DONE, _RUN_STOPPED, _RUN_FAILED = range(3)
_SEVERITIES = ("error", "warning", "note")

_P = ctypes.c_void_p
# name: (result type, argument types)
_PROTOTYPES = {
    "cql_version": (ctypes.c_char_p, []),
    "cql_setting_info": (ctypes.POINTER(_SettingInfo), [ctypes.c_size_t]),
    "cql_settings_new": (_P, []),
    "cql_settings_free": (None, [_P]),
    "cql_settings_set_flag": (ctypes.c_bool, [_P, ctypes.c_char_p, ctypes.c_bool]),
    "cql_settings_set_number": (ctypes.c_bool, [_P, ctypes.c_char_p, ctypes.c_longlong]),
    "cql_settings_set_pair": (ctypes.c_bool, [_P, ctypes.c_char_p, ctypes.c_longlong, ctypes.c_longlong]),
    "cql_settings_set_text": (ctypes.c_bool, [_P, ctypes.c_char_p, ctypes.c_char_p]),
    "cql_compile": (_P, [ctypes.c_char_p, ctypes.c_size_t, _P, ctypes.c_int, ctypes.POINTER(_Messages)]),
    "cql_query_free": (None, [_P]),
    "cql_query_needs_game_count": (ctypes.c_bool, [_P]),
    "cql_query_set_game_count": (None, [_P, ctypes.c_long]),
    "cql_query_reads_files": (ctypes.c_bool, [_P]),
    "cql_query_read_files": (ctypes.c_bool, [_P, ctypes.POINTER(_Text), ctypes.POINTER(_Messages)]),
    "cql_text_free": (None, [ctypes.POINTER(_Text)]),
    "cql_run_new": (_P, [_P, _P, ctypes.POINTER(_Messages)]),
    "cql_run_free": (None, [_P]),
    "cql_run_add_path": (None, [_P, ctypes.c_char_p]),
    "cql_run_on_game": (None, [_P, _GAME_FN, _P]),
    "cql_run_on_match": (None, [_P, _GAME_FN, _P, ctypes.c_bool]),
    "cql_run_on_progress": (None, [_P, _PROGRESS_FN, _P]),
    "cql_run_start": (ctypes.c_int, [_P]),
    "cql_run_cancel": (None, [_P]),
    "cql_run_totals": (ctypes.POINTER(_RunTotals), [_P]),
}


def _repository_libraries():
    """libcql.so in the repository's build folder, release first."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return [os.path.join(root, "build", mode, "libcql.so") for mode in ("release", "debug")]


def _candidates():
    env = os.environ.get("CQL_LIBRARY")
    if env:
        return [env]   # named: that one or none
    found = [p for p in _repository_libraries() if os.path.exists(p)]
    installed = ctypes.util.find_library("cql")
    return found + ([installed] if installed else [])


class _Library:
    """libcql.so loaded, with the prototypes of the functions used."""

    def __init__(self, path):
        # a path (not a bare name the loader searches for): made absolute
        self.path = os.path.abspath(path) if os.sep in path else path
        self.dll = ctypes.CDLL(self.path)
        for name, (restype, argtypes) in _PROTOTYPES.items():
            fn = getattr(self.dll, name)
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name[4:], fn)   # cql_run_start -> self.run_start
        self.version_text = self.version().decode()
        major = int(self.version_text.split(".")[0])
        if major != ABI_MAJOR:
            raise ImportError("%s is libcql %s; this binding is written for libcql %d.x"
                              % (path, self.version_text, ABI_MAJOR))
        self.setting_infos = {}
        i = 0
        while True:
            info = self.setting_info(i)
            if not info:
                break
            info = info.contents
            entry = SettingInfo(info.name.decode(), info.alias.decode() if info.alias else None,
                                _KIND_NAMES[info.kind], info.min, info.help.decode() if info.help else "")
            self.setting_infos[entry.name] = entry
            if entry.alias:
                self.setting_infos[entry.alias] = entry
            i += 1


_library = None
_library_lock = threading.Lock()


def load(path=None):
    """Loads libcql from `path`, or finds it (CQL_LIBRARY, the repository's
    build folder, the installed library), and makes it the library of what
    follows. Returns its path. Raises OSError when there is none."""
    global _library
    with _library_lock:
        tried = [path] if path else _candidates()
        errors = []
        for candidate in tried:
            try:
                _library = _Library(candidate)
                return _library.path
            except OSError as e:
                errors.append(str(e))
        raise OSError("cannot load libcql (%s); build it with `make`, or name it with CQL_LIBRARY"
                      % ("; ".join(errors) or "no libcql.so found"))


def _lib():
    if _library is None:
        load()
    return _library


def version():
    """The library's version, "MAJOR.MINOR.PATCH"."""
    return _lib().version_text


class SettingInfo(NamedTuple):
    """A setting, as Query(**settings) takes it by name (or alias)."""
    name: str
    alias: Optional[str]
    kind: str        # flag, text, result, count, size, range, part
    min: int
    help: str


def settings():
    """Every setting the library knows, in the order of its rows."""
    seen = []
    for info in _lib().setting_infos.values():
        if info not in seen:
            seen.append(info)
    return seen


# ---- what a run hands over ---------------------------------------------------------


class Position(NamedTuple):
    """A position where the query matched."""
    id: int                 # preorder id in the game: 0 the start, the main line first
    ply: int                # plies from the start
    move_number: int        # of the move into it (1. e4 and 1... e5 are both 1)
    white_to_move: bool
    in_variation: bool      # off the main line
    san: str                # the move into it, with + or # ("" at the start)
    fen: str
    from_square: int        # the squares of the move into it, 0 (a1) ... 63 (h8); castling: the king's;
    to_square: int          # -1 at the start and for a null move
    variation: str          # where it lies off the main line ("2:1/5:2"; "" on it): docs/matches.md
    comments: str           # what the query wrote there, with the match string ("check here CQL")


class Match(NamedTuple):
    """A matching game."""
    number: int             # in the run: numbered on across the inputs, from 1
    input: str              # the name of its input (the path)
    index: int              # its number within that input, from 1
    pgn: str                # the game as cql writes a match (UTF-8; bytes that are not: U+FFFD)
    positions: Tuple[Position, ...]   # where it matched, in id order (empty unless asked for)
    tags: Tuple[Tuple[str, str], ...]  # (name, value) as the match writes them (with the positions)


class Game(NamedTuple):
    """A game read (on_game)."""
    number: int
    input: str
    index: int
    examined: bool          # inside the game-number range: searched
    damaged: bool           # its PGN had a problem (reported as a message)
    matched: bool
    printed: str            # what the query's `message` filters printed ("" when nothing)
    error: Optional[str]    # the runtime error that stopped the run at this game


class Progress(NamedTuple):
    games: int              # games read
    matches: int            # matching games
    bytes: int              # game text read


class Totals(NamedTuple):
    """What a run did."""
    games: int
    matches: int
    pgn_errors: int         # games whose PGN had a problem
    bytes: int
    threads: int            # the worker threads that ran
    limit_reached: bool
    cancelled: bool         # a callback raised StopRun, or the generator was closed


def _first_line(message):
    """A message as an exception's text: its first line, without "cql: error: "."""
    line = message.split("\n", 1)[0]
    return line[len("cql: error: "):] if line.startswith("cql: error: ") else line


def _text(data, length):
    return ctypes.string_at(data, length).decode("utf-8", "replace") if data else ""


def _string(p):
    return p.decode("utf-8", "replace") if p is not None else None


def _position(p):
    return Position(p.id, p.ply, p.move_number, p.white_to_move, p.in_variation,
                    p.san.decode("utf-8", "replace"), p.fen.decode("ascii"), p.from_square, p.to_square,
                    p.variation.decode("ascii"), p.comments.decode("utf-8", "replace"))


def _tag(t):
    return (t.name.decode("utf-8", "replace"), t.value.decode("utf-8", "replace"))


# ---- messages ------------------------------------------------------------------------


class _Sink:
    """A CqlMessages sink: keeps the errors (for the exception) and passes
    every message on to `on_message(severity, text)`; without one, the
    warnings and notes go to sys.stderr (the errors are the exception's).
    A callback that raises stops the run (see _Callbacks)."""

    def __init__(self, on_message, guard=None):
        self.errors = []
        self.on_message = on_message
        self.guard = guard
        self.fn = _MESSAGE_FN(self._receive)
        self.struct = _Messages(self.fn, None, 0, 0)

    def _receive(self, ctx, severity, text):
        text = text.decode("utf-8", "replace")
        name = _SEVERITIES[severity] if 0 <= severity < len(_SEVERITIES) else "note"
        if name == "error":
            self.errors.append(text)
        if self.guard is not None:
            self.guard.call(self._pass_on, name, text)
        else:
            self._pass_on(name, text)

    def _pass_on(self, severity, text):
        if self.on_message is not None:
            self.on_message(severity, text)
        elif severity != "error":
            sys.stderr.write(text)


# ---- settings ------------------------------------------------------------------------


class _Settings:
    """A CqlSettings made from keyword settings."""

    def __init__(self, lib, values):
        self.lib = lib
        self.handle = lib.settings_new()
        try:
            for name, value in values.items():
                self._set(name, value)
        except BaseException:
            self.free()
            raise

    def _set(self, name, value):
        info = self.lib.setting_infos.get(name.lower())
        if info is None:
            raise TypeError("no setting %r (cql.settings() lists them)" % name)
        key = name.encode()
        if value is None:
            return
        if info.kind == "flag":
            if not isinstance(value, bool):
                raise TypeError("setting %s is on or off (True or False), not %r" % (name, value))
            ok = self.lib.settings_set_flag(self.handle, key, value)
        elif info.kind in ("text", "result"):
            if not isinstance(value, str):
                raise TypeError("setting %s is a string, not %r" % (name, value))
            ok = self.lib.settings_set_text(self.handle, key, value.encode())
        elif info.kind in ("count", "size"):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError("setting %s is a whole number, not %r" % (name, value))
            ok = self.lib.settings_set_number(self.handle, key, value)
        else:   # range, part: two numbers; a range also takes one (N to N)
            if info.kind == "range" and isinstance(value, int) and not isinstance(value, bool):
                value = (value, value)
            if (not isinstance(value, (tuple, list)) or len(value) != 2
                    or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
                raise TypeError("setting %s is two whole numbers, (%s), not %r"
                                % (name, "min, max" if info.kind == "range" else "part, of", value))
            ok = self.lib.settings_set_pair(self.handle, key, value[0], value[1])
        if not ok:
            raise ValueError("setting %s cannot be %r%s" % (
                name, value, " (at least %d)" % info.min if info.kind in ("count", "range") else ""))

    def free(self):
        if self.handle:
            self.lib.settings_free(self.handle)
            self.handle = None


# ---- queries -------------------------------------------------------------------------

_PLACE = re.compile(r"(\d+):(\d+): error: (.*)")


def _query_error(name, messages):
    """The QueryError of a failed compile: the first error's place, read
    from its FILE:LINE:COL when FILE is the name the query was given."""
    message = _first_line(messages[0]) if messages else "the query does not compile"
    line = column = None
    prefix = name + ":"
    if message.startswith(prefix):
        m = _PLACE.fullmatch(message[len(prefix):])
        if m:
            line, column, message = int(m.group(1)), int(m.group(2)), m.group(3)
    return QueryError(message, line, column, messages)


def _paths(inputs):
    if isinstance(inputs, (str, bytes, os.PathLike)):
        inputs = [inputs]
    return [os.fsencode(p) for p in inputs]


class Query:
    """A compiled query, ready to run over PGN files; read-only, so any
    number of runs (one at a time or at once, on several Python threads)
    may use it.

    Query(text, **settings): `text` is the query (str or bytes; a whole
    query file with its cql(...) header, or with bodyonly=True a body
    alone); each keyword is a setting by the name the command line gives
    its option (cql.settings() lists them): flags are True or False,
    counts and sizes whole numbers, texts strings, ranges and parts pairs
    (gamenumber=(1, 100), part=(0, 4)). A setting given overrides the
    query's header, as on the command line. `name` names the query in
    messages (default "<query>"). on_message(severity, text) receives the
    warnings and notes of the compile (default: sys.stderr).

    Raises QueryError when the query does not compile, and RunFailed when
    a file it reads before the run (similarposition's) cannot be read."""

    _handle = None

    def __init__(self, text, *, on_message=None, **settings):
        lib = _lib()
        self._lib = lib
        self._runs = 0   # runs going on: the query cannot be closed under them
        self._runs_lock = threading.Lock()
        self.notes = ""   # what reading similarposition's files printed
        settings.setdefault("name", "<query>")
        self.name = settings["name"]
        self.settings = dict(settings)
        data = text.encode() if isinstance(text, str) else bytes(text)
        compiled = _Settings(lib, settings)
        try:
            sink = _Sink(on_message)
            self._handle = lib.compile(data, len(data), compiled.handle, _COMPILE_RUN, ctypes.byref(sink.struct))
            if not self._handle:
                raise _query_error(self.name, sink.errors)
            if lib.query_reads_files(self._handle):
                printed = _Text()
                ok = lib.query_read_files(self._handle, ctypes.byref(printed), ctypes.byref(sink.struct))
                self.notes = _text(printed.data, printed.len)
                lib.text_free(ctypes.byref(printed))
                if not ok:
                    raise RunFailed(_first_line(sink.errors[0]) if sink.errors else "cannot read a file",
                                    sink.errors)
        except BaseException:
            self.close()
            raise
        finally:
            compiled.free()

    @classmethod
    def from_file(cls, path, **settings):
        """The query of a file (CQL 6, or CQL 1.0), named by its path in
        messages."""
        with open(path, "rb") as f:
            text = f.read()
        settings.setdefault("name", os.fsdecode(path))
        settings.setdefault("queryfile", os.fsdecode(path))
        return cls(text, **settings)

    def close(self):
        """Frees the compiled query (also done when it is collected);
        RuntimeError while a run of it is going on."""
        if not self._handle:
            return
        with self._runs_lock:
            if self._runs:
                raise RuntimeError("the query is being run")
            self._lib.query_free(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if self._handle:   # no run holds it: a run keeps its query alive
            self._lib.query_free(self._handle)

    def run(self, inputs, *, threads=None, limit=None, on_match=None, on_game=None, on_progress=None,
            on_message=None, positions=True):
        """Runs the query over `inputs` (a path or a list of paths; "-":
        standard input) and returns its Totals. The callbacks, each
        optional, are called on this thread, one at a time, in input
        order whatever the number of threads:

          on_match(Match)        each matching game (with its matched
                                 positions unless positions=False)
          on_game(Game)          every game read
          on_progress(Progress)  after each game
          on_message(severity, text)  each message about the games and
                                 the run ("error", "warning" or "note";
                                 default: written to sys.stderr)

        threads: worker threads (default: the query's setting, else one
        per core); limit: stop after this many matching games.

        A callback that raises StopRun ends the run quietly; any other
        exception ends the run and is raised here once the run is over (no
        callback is called after it). Raises RunStopped when the query
        stopped the run, RunFailed when an input could not be read."""
        with _Run(self, inputs, threads, limit, on_message) as run:
            return run.execute(on_match, on_game, on_progress, positions)

    def search(self, inputs, *, threads=None, limit=None, on_message=None, positions=True, buffer=64):
        """The matching games of `inputs`, one Match at a time, in input
        order: a generator over run(), which goes on in a thread of its
        own up to `buffer` matches ahead. Leaving the loop early (break,
        an exception, closing the generator) cancels the run. Raises
        RunStopped or RunFailed at the end, after the matches before."""
        matches = queue.Queue(maxsize=buffer)
        end = object()
        outcome = {}
        closing = threading.Event()
        run = _Run(self, inputs, threads, limit, on_message)   # here, so that closing can cancel it

        def on_match(match):
            while not closing.is_set():
                try:
                    matches.put(match, timeout=0.1)
                    return
                except queue.Full:
                    pass
            raise StopRun()

        def produce():
            try:
                with run:
                    outcome["totals"] = run.execute(on_match, None, None, positions)
            except BaseException as e:   # handed over to the consumer
                outcome["error"] = e
            finally:
                matches.put(end)

        producer = threading.Thread(target=produce, name="cql-search", daemon=True)
        try:
            producer.start()
        except BaseException:
            run.__exit__(None, None, None)
            raise
        try:
            while True:
                item = matches.get()
                if item is end:
                    break
                yield item
        finally:
            closing.set()
            run.cancel()   # a run that finds no more matches stops too
            while producer.is_alive():   # frees a producer waiting on a full queue
                try:
                    matches.get(timeout=0.1)
                except queue.Empty:
                    pass
            producer.join()
        if "error" in outcome:
            raise outcome["error"]


# ---- runs ------------------------------------------------------------------------------


class _Callbacks:
    """Calls the user's callbacks; the first exception cancels the run and
    is kept, and no callback is called after it."""

    def __init__(self):
        self.run = None
        self.lib = None
        self.error = None
        self.stopped = False   # StopRun, or an exception: the run is cancelled

    def call(self, fn, *args):
        if self.stopped:
            return
        try:
            fn(*args)
        except StopRun:
            self._stop()
        except BaseException as e:   # KeyboardInterrupt too: raised in the caller after the run
            self.error = e
            self._stop()

    def _stop(self):
        self.stopped = True
        self.lib.run_cancel(self.run)

    def interrupt(self, signum, frame):
        """Ctrl-C during the run: a KeyboardInterrupt raised where Python
        code runs could fall between a callback's lines, outside its try,
        and be lost; kept here instead, it is raised after the run."""
        if self.error is None:
            self.error = KeyboardInterrupt()
        self._stop()


class _interrupt_cancels:
    """While a run goes on in the main thread, Ctrl-C (SIGINT with Python's
    own handler) cancels it, and run() raises KeyboardInterrupt."""

    def __init__(self, guard):
        self.guard = guard
        self.previous = None

    def __enter__(self):
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self.previous = signal.signal(signal.SIGINT, self.guard.interrupt)

    def __exit__(self, *exc):
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


class _Run:
    """One CqlRun, with what must live as long as it: the settings, the
    message sink and the ctypes callback objects."""

    def __init__(self, query, inputs, threads, limit, on_message):
        self.lib = query._lib
        self.query = query
        self.lock = threading.Lock()   # the handle, between the run's thread and cancel()
        self.cancelled = False
        self.handle = None
        self.callbacks = []   # the ctypes function objects: alive until the run is freed
        self.paths = _paths(inputs)
        run_settings = dict(query.settings)
        if threads is not None:
            run_settings["threads"] = threads
        if limit is not None:
            run_settings["limit"] = limit
        self.guard = _Callbacks()
        self.sink = _Sink(on_message, self.guard)
        self.settings = _Settings(self.lib, run_settings)
        with query._runs_lock:   # last: from here on __exit__ must be called
            if not query._handle:
                self.settings.free()
                raise ValueError("the query is closed")
            query._runs += 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        with self.lock:
            if self.handle:
                self.lib.run_free(self.handle)
                self.handle = None
        self.settings.free()
        self.callbacks = []
        with self.query._runs_lock:
            self.query._runs -= 1

    def cancel(self):
        """Stops the run soon, from any thread; before it starts: at once."""
        with self.lock:
            self.cancelled = True
            if self.handle:
                self.lib.run_cancel(self.handle)

    def _count_games(self):
        """`lastgamenumber`: the games counted before the run, as cql
        counts them (the occurrences of "[White ")."""
        count = 0
        for path in self.paths:
            if path == b"-":
                raise RunFailed("'lastgamenumber' needs input files it can read twice, not standard input")
            try:
                with open(path, "rb") as f:
                    tail = b""
                    for block in iter(lambda: f.read(1 << 20), b""):
                        chunk = tail + block
                        count += chunk.count(b"[White ")
                        tail = chunk[-6:]   # may begin a match the next block ends
            except OSError as e:
                raise RunFailed("cannot open %s to count its games: %s" % (os.fsdecode(path), e)) from None
        self.lib.query_set_game_count(self.query._handle, count)

    def execute(self, on_match, on_game, on_progress, positions):
        lib, guard = self.lib, self.guard
        if lib.query_needs_game_count(self.query._handle):
            self._count_games()
        with self.lock:
            self.handle = lib.run_new(self.query._handle, self.settings.handle, ctypes.byref(self.sink.struct))
            if self.cancelled:
                lib.run_cancel(self.handle)
        guard.run, guard.lib = self.handle, lib
        for path in self.paths:
            lib.run_add_path(self.handle, path)

        def game_received(ctx, run, g):
            if guard.stopped:
                return
            g = g.contents
            guard.call(on_game, Game(g.number, os.fsdecode(g.input), g.index, g.examined, g.damaged, g.matched,
                                     _text(g.printed, g.printed_len), _string(g.error)))

        def match_received(ctx, run, g):
            if guard.stopped:
                return
            g = g.contents
            found = tuple(_position(g.positions[i]) for i in range(g.npositions)) if positions else ()
            tags = tuple(_tag(g.tags[i]) for i in range(g.ntags)) if positions else ()
            guard.call(on_match, Match(g.number, os.fsdecode(g.input), g.index, _text(g.pgn, g.pgn_len), found,
                                       tags))

        def progress_received(ctx, p):
            p = p.contents
            guard.call(on_progress, Progress(p.games, p.matches, p.bytes))

        if on_game is not None:
            game_fn = _GAME_FN(game_received)
            self.callbacks.append(game_fn)
            lib.run_on_game(self.handle, game_fn, None)
        if on_match is not None:
            match_fn = _GAME_FN(match_received)
            self.callbacks.append(match_fn)
            lib.run_on_match(self.handle, match_fn, None, positions)
        if on_progress is not None:
            progress_fn = _PROGRESS_FN(progress_received)
            self.callbacks.append(progress_fn)
            lib.run_on_progress(self.handle, progress_fn, None)

        with _interrupt_cancels(guard):
            status = lib.run_start(self.handle)   # the callbacks come on this thread, until it returns

        if guard.error is not None:
            error, guard.error = guard.error, None
            raise error
        t = lib.run_totals(self.handle).contents
        totals = Totals(t.games, t.matches, t.pgn_errors, t.bytes, t.threads, t.limit_reached, t.cancelled)
        errors = self.sink.errors
        if status == _RUN_STOPPED:
            message = _string(t.error) or (errors[-1] if errors else "the query stopped the run")
            raise RunStopped(_first_line(message), t.stopped_at or None, errors)
        if status == _RUN_FAILED:
            raise RunFailed(_first_line(errors[0]) if errors else "the run failed", errors)
        if self.sink.on_message is None:   # errors that did not fail the run: not lost
            sys.stderr.write("".join(errors))
        return totals
