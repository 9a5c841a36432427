# Makefile for cql — an open implementation of the Chess Query Language (CQL 6.2).
#
#   make                   release build (-O2) into build/release/, copied to ./cql
#   make MODE=debug        -O0 -g, asserts on, into build/debug/
#   make MODE=asan         address + undefined sanitizers, into build/asan/
#   make CC=clang test     the same with clang, into build/release-clang/
#   make test              every test layer (installs cmocka if it is missing)
#   make test-browser      the -report page in headless Chromium (DOCS=1: also docs/report.png)
#   make check-slow        deep perft and the other long checks
#   make check-layers      the dependency rule between the areas of src/ (in make test)
#   make check-symbols     libcql.a and libcql.so define no global name but cql_* (in make test)
#   make bench             ns/ply, instructions/ply, 2-thread speed-up, RSS (docs/performance.md)
#   make fuzz              builds the libFuzzer harnesses with clang into build/fuzz/
#                          and runs each for FUZZ_SECONDS (default 60); fails on any finding
#   make install PREFIX=/usr/local [DESTDIR=...]   (cql, its man page, cql.h, libcql.a,
#                                                   libcql.so.MAJOR, cql.pc for pkg-config,
#                                                   bash and zsh completion); make uninstall
#   make V=1               show full command lines; WERROR=1 turns warnings into errors
#
# SPDX-License-Identifier: GPL-3.0-or-later

MODE    ?= release
CC      ?= cc
PREFIX  ?= /usr/local
DESTDIR ?=

ifeq ($(origin CC),default)
CC := cc
endif

# Each mode builds into its own directory; a compiler other than cc or gcc
# too (make CC=clang test builds into build/release-clang/).
CC_NAME := $(notdir $(firstword $(CC)))
ifneq ($(filter cc gcc,$(CC_NAME)),)
BUILD   := build/$(MODE)
else
BUILD   := build/$(MODE)-$(CC_NAME)
endif

WARN := -Wall -Wextra -Wshadow -Wundef -Wwrite-strings -Wstrict-prototypes \
        -Wmissing-prototypes -Wold-style-definition -Wpointer-arith -Wcast-qual \
        -Wvla -Wformat=2 -Wnull-dereference -Wimplicit-fallthrough
# The replay's hot functions (pos_make_move, pos_play_move, game_add_move,
# san_parse_usual) are defined `inline` to be always inlined, and declared
# without `inline` in their headers, which makes their definitions external
# ones (C11 6.7.4p7) that may call static functions; clang warns all the same.
ifeq ($(CC_NAME),clang)
WARN += -Wno-static-in-inline
endif
ifeq ($(WERROR),1)
WARN += -Werror
endif

# POSIX 2008, and the system's usual names beside it (_DEFAULT_SOURCE):
# madvise, for the huge pages a sidecar is read into (src/index/sidecar.c).
CPPFLAGS += -Isrc -Iinclude -MMD -MP -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
CFLAGS   += -std=c11 -pedantic $(WARN)
LDLIBS   += -lpthread -lm

ifeq ($(MODE),release)
CFLAGS   += -O2 -DNDEBUG
else ifeq ($(MODE),debug)
CFLAGS   += -O0 -g3 -DCQL_DEBUG
else ifeq ($(MODE),asan)
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
CFLAGS   += -O1 -g $(SAN) -DCQL_DEBUG
LDFLAGS  += $(SAN)
else
$(error MODE must be release, debug or asan, not '$(MODE)')
endif

# Release builds with gcc: the library is compiled as one whole program (see
# $(LIB_OBJ)), which makes link-time optimisation unneeded.
ifneq ($(shell $(CC) --version 2>/dev/null | grep -c 'Free Software Foundation'),0)
WHOLE_PROGRAM := -fwhole-program
endif
OBJCOPY ?= objcopy

# Profile-guided optimisation: on for release builds with gcc (PGO=0 turns
# it off). The program is first built instrumented in $(BUILD)/pgo and run
# on the bundled engine games with a few queries (scripts/pgo-train.sh);
# the program's objects are then compiled with the branch and call counts
# of that run: 4-6% less CPU time (docs/performance.md).
ifeq ($(MODE)$(WHOLE_PROGRAM),release-fwhole-program)
PGO ?= 1
endif
# PGO_FLAGS: -fprofile-generate in the instrumented build (set by the rule below)
CFLAGS  += $(PGO_FLAGS)
LDFLAGS += $(PGO_FLAGS)

ifeq ($(V),1)
Q :=
else
Q := @
endif

# ---- sources -----------------------------------------------------------------
# One folder per area under src/ (docs/architecture.md); objects mirror it.
# The library is every area but cli/; the program (src/cli/) uses it through
# include/cql.h alone.
SRCS      := $(wildcard src/*/*.c src/*/*/*.c)
CLI_SRCS  := $(wildcard src/cli/*.c)
LIB_SRCS  := $(filter-out $(CLI_SRCS),$(SRCS))
LIB_OBJS  := $(LIB_SRCS:src/%.c=$(BUILD)/obj/%.o)
CLI_OBJS  := $(CLI_SRCS:src/%.c=$(BUILD)/obj/%.o)
# libcql.a exports the cql_* names of include/cql.h and nothing else (see
# $(LIB_OBJ) below). The unit tests test modules, so they link the modules'
# own objects (libcql-internal.a).
LIB       := $(BUILD)/libcql.a
LIB_OBJ   := $(BUILD)/obj/libcql.o
INTERNAL  := $(BUILD)/libcql-internal.a
CQL       := $(BUILD)/cql
# The shared library: the same unit compiled -fPIC, named for the version of
# include/cql.h, with the major number in its soname (libcql.so.MAJOR).
CQL_VERSION_PART = $(shell sed -n 's/^\#define CQL_VERSION_$(1) \([0-9]*\).*/\1/p' include/cql.h)
CQL_MAJOR   := $(call CQL_VERSION_PART,MAJOR)
CQL_VERSION := $(CQL_MAJOR).$(call CQL_VERSION_PART,MINOR).$(call CQL_VERSION_PART,PATCH)
SONAME    := libcql.so.$(CQL_MAJOR)
SHLIB     := $(BUILD)/libcql.so.$(CQL_VERSION)
PIC_OBJ   := $(BUILD)/obj/libcql-pic.o
LIBDIR     = $(PREFIX)/lib
INCLUDEDIR = $(PREFIX)/include

# Unit tests: every tests/unit/test_*.c is one cmocka program.
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# Test tools that are not cmocka programs: the query and PGN tools of
# tests/tools/ (include/cql.h alone), and the perft runner (a chess-core test
# program beside the unit tests, tests/unit/, on the internal modules).
TOOL_SRCS := $(wildcard tests/tools/tool_*.c) tests/unit/tool_perft.c
TOOL_BINS := $(addprefix $(BUILD)/tests/,$(basename $(notdir $(TOOL_SRCS))))

CMOCKA_CFLAGS = $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   = $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

# Fuzz harnesses (tests/fuzz/fuzz_NAME.c): `make test` links each with a
# plain main() that replays the seed corpus and the regression files. Like
# the unit tests, they test modules, so they link the modules' own objects.
FUZZ_NAMES   := pgn fen_san query pipeline regex movecode sidecar
REPLAY_BINS  := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz_replay_%)
REPLAY_OBJS  := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/fuzz_%.o) \
                $(BUILD)/tests/fuzz/fuzz_support.o $(BUILD)/tests/fuzz/replay_main.o

DEPS := $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(LIB_OBJ:.o=.d) $(PIC_OBJ:.o=.d) \
        $(UNIT_BINS:%=%.d) $(TOOL_BINS:%=%.d) $(REPLAY_OBJS:.o=.d)

.PHONY: all test check check-slow bench install uninstall clean unity cmocka test-library test-python \
        test-matches test-browser test-unit test-tools test-perft test-cql test-cli test-oracle test-conformance test-index \
        check-layers check-symbols test-fuzz-replay fuzz fuzz-build

all: $(CQL) $(SHLIB)
ifeq ($(BUILD),build/release)
all: cql
cql: $(CQL)
	$(Q)cp $(CQL) cql
endif

$(BUILD)/obj $(BUILD)/tests $(BUILD)/tests/fuzz:
	$(Q)mkdir -p $@

$(LIB_OBJS): VISIBILITY := -fvisibility=hidden
# the compile flags live here: a change to them rebuilds everything
$(LIB_OBJS) $(CLI_OBJS): Makefile
$(BUILD)/obj/%.o: src/%.c
	@$(if $(Q),echo "  CC      $<")
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(PGO_USE) $(VISIBILITY) -c $< -o $@

ifeq ($(PGO),1)
# The program's objects (the library as one unit, and src/cli/) are compiled
# with the counts of the training run, copied beside them as gcc looks for
# them; the modules' own objects (for the unit tests) are not. Any change to
# a source, a header or the training makes a new training run.
PGO_DIR   := $(BUILD)/pgo
PGO_STAMP := $(PGO_DIR)/trained
PGO_GAMES := tests/data/pgn/generated/engine-games-2000.pgn
# The instrumented build compiles the library's unit from the same file
# (LIB_ALL), and functions are told apart by their order in it, not by a
# hash of the object's path, which differs between the two builds (with
# that hash no library function found its profile).
PGO_ID    := --param=profile-func-internal-id=1
$(LIB_OBJ) $(CLI_OBJS): PGO_USE := -fprofile-use -fprofile-correction $(PGO_ID)
$(LIB_OBJ) $(CLI_OBJS): $(PGO_STAMP)
$(PGO_STAMP): $(SRCS) $(wildcard src/*/*.h src/*/*/*.h include/*.h) Makefile scripts/pgo-train.sh \
              $(PGO_GAMES)
	@$(if $(Q),echo "  PGO     $(PGO_DIR)/cql (instrumented) on $(PGO_GAMES)")
	$(Q)rm -rf $(PGO_DIR) && mkdir -p $(dir $(LIB_ALL))
	$(Q)$(MAKE) --no-print-directory BUILD=$(PGO_DIR) LIB_ALL=$(LIB_ALL) PGO=0 PGO_FLAGS="-fprofile-generate $(PGO_ID)" \
	    WARN= $(PGO_DIR)/cql
	$(Q)sh scripts/pgo-train.sh $(PGO_DIR)/cql $(PGO_GAMES)
	$(Q)cd $(PGO_DIR)/obj && find . -name '*.gcda' | while read -r f; do \
	    mkdir -p "../../obj/$${f%/*}" && cp "$$f" "../../obj/$$f"; done
	$(Q)touch $@
endif

# The public library is one object: every library source compiled as one
# translation unit with hidden visibility (gcc: as a whole program, so that
# everything but the cql_* functions is internal and optimised as such, as
# link-time optimisation did), then its hidden names made local.
LIB_ALL := $(BUILD)/obj/libcql-all.c
$(LIB_ALL): $(LIB_SRCS) Makefile
	@mkdir -p $(@D)
	$(Q)printf '#include "%s"\n' $(LIB_SRCS) > $@
$(LIB_OBJ): $(LIB_ALL)
	@$(if $(Q),echo "  CC      $@ (the library as one unit)")
	$(Q)$(CC) $(CPPFLAGS) -I. -MF $(LIB_OBJ:.o=.d) -MT $@ $(CFLAGS) $(PGO_USE) -fvisibility=hidden \
	   $(WHOLE_PROGRAM) -c $(LIB_ALL) -o $@.tmp
	$(Q)$(OBJCOPY) --localize-hidden $@.tmp $@ && rm -f $@.tmp

# The shared library: the unit again, position-independent (without the
# profile of the program's training run), linked with a version script
# that exports the cql_* names alone.
$(PIC_OBJ): $(LIB_ALL)
	@$(if $(Q),echo "  CC      $@ (the library as one unit, -fPIC)")
	$(Q)$(CC) $(CPPFLAGS) -I. -MF $(PIC_OBJ:.o=.d) -MT $@ $(CFLAGS) -fPIC -fno-semantic-interposition \
	   -fvisibility=hidden $(WHOLE_PROGRAM) -c $(LIB_ALL) -o $@.tmp
	$(Q)$(OBJCOPY) --localize-hidden $@.tmp $@ && rm -f $@.tmp

$(SHLIB): $(PIC_OBJ) scripts/libcql.map
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script,scripts/libcql.map $(CFLAGS) $(LDFLAGS) \
	   $(PIC_OBJ) $(LDLIBS) -o $@
	$(Q)ln -sf $(notdir $@) $(BUILD)/$(SONAME) && ln -sf $(SONAME) $(BUILD)/libcql.so

$(LIB): $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(INTERNAL): $(LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(CQL): $(CLI_OBJS) $(LIB)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# ---- tests ---------------------------------------------------------------------
# `make test` first makes sure cmocka is there (installing libcmocka-dev when it can).
cmocka:
	$(Q)sh tests/ensure-cmocka.sh

$(BUILD)/tests/test_%: tests/unit/test_%.c $(INTERNAL) | $(BUILD)/tests cmocka
	@$(if $(Q),echo "  TEST-CC $<")
	$(Q)$(CC) $(CPPFLAGS) -MF $@.d -MT $@ $(CFLAGS) $(CMOCKA_CFLAGS) $< $(INTERNAL) \
	   $(LDFLAGS) $(CMOCKA_LIBS) $(LDLIBS) -o $@

# every tool is linked with what the tools share (tests/tools/support.c)
$(BUILD)/tests/tool_%: tests/tools/tool_%.c tests/tools/support.c $(LIB) | $(BUILD)/tests
	@$(if $(Q),echo "  TOOL-CC $<")
	$(Q)$(CC) $(CPPFLAGS) -MF $@.d -MT $@ $(CFLAGS) $< tests/tools/support.c $(LIB) $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/tests/tool_perft: tests/unit/tool_perft.c $(INTERNAL) | $(BUILD)/tests
	@$(if $(Q),echo "  TOOL-CC $<")
	$(Q)$(CC) $(CPPFLAGS) -MF $@.d -MT $@ $(CFLAGS) $< $(INTERNAL) $(LDFLAGS) $(LDLIBS) -o $@

# Dependency files made before the sources moved into folders may still name
# tests/test_*.c or tests/tool_*.c: such a missing file is simply out of date.
OLD_TEST_SRCS := $(patsubst tests/unit/%,tests/%,$(patsubst tests/tools/%,tests/%,$(UNIT_SRCS) $(TOOL_SRCS)))
$(OLD_TEST_SRCS):
	@:

$(BUILD)/tests/fuzz/%.o: tests/fuzz/%.c | $(BUILD)/tests/fuzz
	@$(if $(Q),echo "  FUZZ-CC $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/tests/fuzz_replay_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/fuzz_support.o \
                              $(BUILD)/tests/fuzz/replay_main.o $(INTERNAL)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

test-unit: $(UNIT_BINS)
	$(Q)sh tests/run-unit.sh $(UNIT_BINS)

test-tools: $(TOOL_BINS) $(CQL)

# Each layer below is a shell driver under tests/; every one of them compares
# something and exits non-zero on failure.
test-perft: test-tools
	$(Q)sh tests/run-perft.sh $(BUILD) fast

test-cql: test-tools
	$(Q)if [ -x tests/run-cql.sh ] || [ -f tests/run-cql.sh ]; then sh tests/run-cql.sh $(BUILD); fi
	$(Q)sh tests/run-cql1.sh $(BUILD)

test-cli: test-tools
	$(Q)sh tests/run-cli.sh $(BUILD)
	$(Q)sh tests/run-output.sh $(BUILD)
	$(Q)sh tests/run-options.sh $(BUILD)
	$(Q)sh tests/run-multiquery.sh $(BUILD)
	$(Q)sh tests/run-reading.sh $(BUILD)
	$(Q)sh tests/run-multiquery-memory.sh $(BUILD)
	$(Q)sh tests/run-across-machines.sh $(BUILD)

# -matches and -report (tests/run-matches.sh); in a real browser, headless
# Chromium (tests/run-browser.sh: installed with apt-get when missing and
# run as root, skipped with a line saying so where it cannot be had; .ci/run
# runs it). test-browser DOCS=1 also writes docs/report.png.
test-matches: test-tools
	$(Q)sh tests/run-matches.sh $(BUILD)

test-browser: $(CQL)
	$(Q)sh tests/run-browser.sh $(BUILD) $(if $(DOCS),--docs)

test-oracle: test-tools
	$(Q)if [ -f tests/run-oracle.sh ]; then sh tests/run-oracle.sh $(BUILD); fi

test-conformance: test-tools
	$(Q)if [ -f tests/run-conformance.sh ]; then sh tests/run-conformance.sh $(BUILD); fi
	$(Q)sh tests/run-repros.sh $(BUILD)

# The sidecar index changes no output, and a stale or damaged one is never used.
test-index: test-tools
	$(Q)sh tests/run-index.sh $(BUILD)
	$(Q)sh tests/run-index-skip.sh $(BUILD)
	$(Q)sh tests/run-index-treeless.sh $(BUILD)
	$(Q)sh tests/run-index-reads.sh $(BUILD)

# The library as a program uses it: installed into a scratch directory
# (DESTDIR), the example of docs/library.md (examples/search.c) built with
# `pkg-config --cflags --libs cql` and run against the cql program.
test-library: $(CQL) $(LIB) $(SHLIB)
	$(Q)sh tests/run-library.sh $(BUILD) "$(MAKE)" "$(MODE)" "$(CC)" "$(SAN)"

# The Python binding (bindings/python/, ctypes) on this build's libcql.so,
# beside the cql program (skipped, with a line saying so, without python3).
test-python: $(CQL) $(SHLIB)
	$(Q)sh tests/run-python.sh $(BUILD) "$(MODE)" "$(CC)"

# The fuzz harnesses on their seed corpus and on every input that once found
# a problem (tests/fuzz/regressions/), without libFuzzer.
test-fuzz-replay: $(REPLAY_BINS)
	$(Q)sh tests/run-fuzz-replay.sh $(BUILD) $(FUZZ_NAMES)

# The dependency rule between the areas of src/ (docs/architecture.md), read
# from the #include lines.
check-layers:
	$(Q)sh scripts/check-layers.sh

# Only cql_* names leave the library.
check-symbols: $(LIB) $(SHLIB)
	$(Q)sh scripts/check-symbols.sh $(BUILD)

test: cmocka check-layers
	$(Q)$(MAKE) --no-print-directory MODE=$(MODE) all test-tools check-symbols $(REPLAY_BINS)
	$(Q)$(MAKE) --no-print-directory MODE=$(MODE) test-unit test-perft test-cql test-cli test-matches test-oracle \
	   test-conformance test-index test-fuzz-replay test-library test-python
	@echo "all tests passed ($(MODE))"

check: test

check-slow: test-tools
	$(Q)sh tests/run-perft.sh $(BUILD) slow

bench: $(CQL) test-tools
	$(Q)sh scripts/bench.sh $(BUILD)

# ---- fuzzing -------------------------------------------------------------------
# Independent of MODE: clang, libFuzzer, address and undefined-behaviour
# sanitizers, into build/fuzz/. tests/run-fuzz.sh runs each harness for
# FUZZ_SECONDS with a scratch corpus under build/fuzz/corpus/.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# (-Wno-static-in-inline: as WARN adds for clang, whatever CC is; see WARN)
FUZZ_CFLAGS  := -std=c11 -pedantic $(WARN) -Wno-static-in-inline -O1 -g -DCQL_DEBUG $(FUZZ_SAN)
FUZZ_LIB     := $(LIB_SRCS:src/%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_BINS    := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_DICTS   := $(FUZZ_NAMES:%=$(FUZZ_DIR)/%.dict)

$(FUZZ_DIR)/obj:
	$(Q)mkdir -p $@

$(FUZZ_DIR)/obj/%.o: src/%.c | $(FUZZ_DIR)/obj
	@$(if $(Q),echo "  FUZZ-CC $<")
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/obj/%.o: tests/fuzz/%.c | $(FUZZ_DIR)/obj
	@$(if $(Q),echo "  FUZZ-CC $<")
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/fuzz_%.o $(FUZZ_DIR)/obj/fuzz_support.o $(FUZZ_LIB)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ $(LDLIBS) -o $@

# Dictionaries: the query's from the token list, so that a new keyword is
# fuzzed without anyone remembering to add it.
$(FUZZ_DIR)/tokens.dict: src/query/tokens.def src/query/filters.def | $(FUZZ_DIR)/obj
	$(Q)sed -n -E -e '/TC_(PUNCT|KEYWORD)\)/s/^TOK\([A-Z_0-9]+, *("([^"\\]|\\.)*"), *(NULL|"([^"\\]|\\.)*"),.*/\1\n\3/p' \
	   -e 's/^(SPELLING|PARAM)\([A-Z_0-9]+, *("([^"\\]|\\.)*"), *(NULL|"([^"\\]|\\.)*")[,)].*/\2\n\4/p' $^ \
	   | grep -v '^NULL$$' | sort -u | sed 's/^/kw=/' > $@
$(FUZZ_DIR)/query.dict: $(FUZZ_DIR)/tokens.dict tests/fuzz/query.dict
	$(Q)cat tests/fuzz/query.dict $(FUZZ_DIR)/tokens.dict > $@
$(FUZZ_DIR)/pgn.dict: tests/fuzz/pgn.dict | $(FUZZ_DIR)/obj
	$(Q)cp tests/fuzz/pgn.dict $@
$(FUZZ_DIR)/fen_san.dict: tests/fuzz/fen_san.dict | $(FUZZ_DIR)/obj
	$(Q)cp tests/fuzz/fen_san.dict $@
$(FUZZ_DIR)/regex.dict: tests/fuzz/regex.dict | $(FUZZ_DIR)/obj
	$(Q)cp tests/fuzz/regex.dict $@
$(FUZZ_DIR)/movecode.dict: tests/fuzz/movecode.dict | $(FUZZ_DIR)/obj
	$(Q)cp tests/fuzz/movecode.dict $@
$(FUZZ_DIR)/sidecar.dict: tests/fuzz/movecode.dict | $(FUZZ_DIR)/obj
	$(Q)cp tests/fuzz/movecode.dict $@
$(FUZZ_DIR)/pipeline.dict: $(FUZZ_DIR)/query.dict tests/fuzz/pgn.dict
	$(Q)(echo 'separator="\x0a%%pgn\x0a"'; cat $(FUZZ_DIR)/query.dict tests/fuzz/pgn.dict) > $@

# (objects made by pattern rules are kept, not deleted as intermediates)
.SECONDARY: $(FUZZ_LIB) $(FUZZ_DIR)/obj/fuzz_support.o $(FUZZ_NAMES:%=$(FUZZ_DIR)/obj/fuzz_%.o) $(REPLAY_OBJS)

fuzz-build: $(FUZZ_BINS) $(FUZZ_DICTS)

fuzz:
	$(Q)sh tests/run-fuzz.sh --check $(FUZZ_CC)
	$(Q)$(MAKE) --no-print-directory fuzz-build
	$(Q)sh tests/run-fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_NAMES)

# ---- install -------------------------------------------------------------------
install: $(CQL) $(LIB) $(SHLIB)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 755 $(CQL) $(DESTDIR)$(PREFIX)/bin/cql
	install -m 644 docs/cql.1 $(DESTDIR)$(PREFIX)/share/man/man1/cql.1
	install -m 644 include/cql.h $(DESTDIR)$(INCLUDEDIR)/cql.h
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libcql.a
	install -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/libcql.so.$(CQL_VERSION)
	ln -sf libcql.so.$(CQL_VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libcql.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(CQL_VERSION)|' scripts/cql.pc.in > $(BUILD)/cql.pc
	install -m 644 $(BUILD)/cql.pc $(DESTDIR)$(LIBDIR)/pkgconfig/cql.pc
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 644 scripts/completion/cql.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/cql
	install -m 644 scripts/completion/_cql $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_cql

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/cql $(DESTDIR)$(PREFIX)/share/man/man1/cql.1
	rm -f $(DESTDIR)$(INCLUDEDIR)/cql.h $(DESTDIR)$(LIBDIR)/libcql.a $(DESTDIR)$(LIBDIR)/pkgconfig/cql.pc
	rm -f $(DESTDIR)$(LIBDIR)/libcql.so.$(CQL_VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libcql.so
	rm -f $(DESTDIR)$(PREFIX)/share/bash-completion/completions/cql $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_cql

# One translation unit of every source: catches clashes between static names.
unity: | $(BUILD)/obj
	$(Q)(echo '#define _XOPEN_SOURCE 700   /* realpath, as src/cli/output_file.c asks */'; \
	     printf '#include "../../../%s"\n' $(SRCS)) > $(BUILD)/obj/all.c
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(BUILD)/obj/all.c $(LDFLAGS) $(LDLIBS) -o $(BUILD)/cql-unity

clean:
	rm -rf build cql

-include $(DEPS) $(wildcard $(FUZZ_DIR)/obj/*.d $(FUZZ_DIR)/obj/*/*.d $(FUZZ_DIR)/obj/*/*/*.d)
