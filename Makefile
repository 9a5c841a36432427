# Makefile for cql — an open implementation of the Chess Query Language (CQL 6.2).
#
#   make                   release build (-O2) into build/release/, copied to ./cql
#   make MODE=debug        -O0 -g, asserts on, into build/debug/
#   make MODE=asan         address + undefined sanitizers, into build/asan/
#   make test              every test layer (installs cmocka if it is missing)
#   make check-slow        deep perft and the other long checks
#   make bench             benchmarks on a 100,000-game corpus built at bench time
#   make fuzz              builds the libFuzzer harnesses with clang into build/fuzz/
#                          and runs each for FUZZ_SECONDS (default 60); fails on any finding
#   make install PREFIX=/usr/local [DESTDIR=...]
#   make V=1               show full command lines; WERROR=1 turns warnings into errors
#
# SPDX-License-Identifier: GPL-3.0-or-later

MODE    ?= release
CC      ?= cc
PREFIX  ?= /usr/local
DESTDIR ?=

BUILD   := build/$(MODE)

ifeq ($(origin CC),default)
CC := cc
endif

WARN := -Wall -Wextra -Wshadow -Wundef -Wwrite-strings -Wstrict-prototypes \
        -Wmissing-prototypes -Wold-style-definition -Wpointer-arith -Wcast-qual \
        -Wvla -Wformat=2 -Wnull-dereference -Wimplicit-fallthrough
ifeq ($(WERROR),1)
WARN += -Werror
endif

CPPFLAGS += -Iinclude -MMD -MP -D_POSIX_C_SOURCE=200809L
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

# Release builds with gcc are link-time optimised: cql and the benchmark tool
# link with -flto (about 5% faster). The objects are "fat" (they also hold
# ordinary code), so the test programs link them the ordinary, quicker way,
# and an `ar` without the LTO plugin still makes a usable library.
ifeq ($(MODE),release)
ifneq ($(shell $(CC) --version 2>/dev/null | grep -c 'Free Software Foundation'),0)
LTO_CFLAGS := -flto=auto -ffat-lto-objects
LTO_LINK   := -flto=auto
endif
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

# ---- sources -----------------------------------------------------------------
LIB_SRCS  := $(filter-out src/main.c,$(wildcard src/*.c))
LIB_OBJS  := $(LIB_SRCS:src/%.c=$(BUILD)/obj/%.o)
MAIN_OBJ  := $(BUILD)/obj/main.o
LIB       := $(BUILD)/libcql.a
CQL       := $(BUILD)/cql

# Unit tests: every tests/test_*.c is one cmocka program.
UNIT_SRCS := $(wildcard tests/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/%.c=$(BUILD)/tests/%)
# Test tools that are not cmocka programs (perft runner, .test runner, ...).
TOOL_SRCS := $(wildcard tests/tool_*.c)
TOOL_BINS := $(TOOL_SRCS:tests/%.c=$(BUILD)/tests/%)

CMOCKA_CFLAGS = $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   = $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

# Fuzz harnesses (tests/fuzz/fuzz_NAME.c): `make test` links each with a
# plain main() that replays the seed corpus and the regression files.
FUZZ_NAMES   := pgn fen_san query pipeline
REPLAY_BINS  := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz_replay_%)
REPLAY_OBJS  := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/fuzz_%.o) \
                $(BUILD)/tests/fuzz/fuzz_support.o $(BUILD)/tests/fuzz/replay_main.o

DEPS := $(LIB_OBJS:.o=.d) $(MAIN_OBJ:.o=.d) \
        $(UNIT_BINS:%=%.d) $(TOOL_BINS:%=%.d) $(REPLAY_OBJS:.o=.d)

.PHONY: all test check check-slow bench install uninstall clean unity cmocka \
        test-unit test-tools test-perft test-cql test-cli test-oracle test-conformance \
        test-fuzz-replay fuzz fuzz-build

all: $(CQL)
ifeq ($(MODE),release)
all: cql
cql: $(CQL)
	$(Q)cp $(CQL) cql
endif

$(BUILD)/obj $(BUILD)/tests $(BUILD)/tests/fuzz:
	$(Q)mkdir -p $@

$(BUILD)/obj/%.o: src/%.c | $(BUILD)/obj
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LTO_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(CQL): $(MAIN_OBJ) $(LIB)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) $(LTO_LINK) $(LDFLAGS) $^ $(LDLIBS) -o $@

# ---- tests ---------------------------------------------------------------------
# `make test` first makes sure cmocka is there (installing libcmocka-dev when it can).
cmocka:
	$(Q)sh tests/ensure-cmocka.sh

$(BUILD)/tests/test_%: tests/test_%.c $(LIB) | $(BUILD)/tests cmocka
	@$(if $(Q),echo "  TEST-CC $<")
	$(Q)$(CC) $(CPPFLAGS) -MF $@.d -MT $@ $(CFLAGS) $(CMOCKA_CFLAGS) $< $(LIB) \
	   $(LDFLAGS) $(CMOCKA_LIBS) $(LDLIBS) -o $@

# the benchmark's replay tool is built like cql itself
$(BUILD)/tests/tool_replay: LTO_TOOL := $(LTO_LINK)
$(BUILD)/tests/tool_%: tests/tool_%.c $(LIB) | $(BUILD)/tests
	@$(if $(Q),echo "  TOOL-CC $<")
	$(Q)$(CC) $(CPPFLAGS) -MF $@.d -MT $@ $(CFLAGS) $(LTO_TOOL) $< $(LIB) $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/tests/fuzz/%.o: tests/fuzz/%.c | $(BUILD)/tests/fuzz
	@$(if $(Q),echo "  FUZZ-CC $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/tests/fuzz_replay_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/fuzz_support.o \
                              $(BUILD)/tests/fuzz/replay_main.o $(LIB)
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

test-cli: test-tools
	$(Q)if [ -f tests/run-cli.sh ]; then sh tests/run-cli.sh $(BUILD); fi

test-oracle: test-tools
	$(Q)if [ -f tests/run-oracle.sh ]; then sh tests/run-oracle.sh $(BUILD); fi

test-conformance: test-tools
	$(Q)if [ -f tests/run-conformance.sh ]; then sh tests/run-conformance.sh $(BUILD); fi

# The fuzz harnesses on their seed corpus and on every input that once found
# a problem (tests/fuzz/regressions/), without libFuzzer.
test-fuzz-replay: $(REPLAY_BINS)
	$(Q)sh tests/run-fuzz-replay.sh $(BUILD) $(FUZZ_NAMES)

test: cmocka
	$(Q)$(MAKE) --no-print-directory MODE=$(MODE) all test-tools $(REPLAY_BINS)
	$(Q)$(MAKE) --no-print-directory MODE=$(MODE) test-unit test-perft test-cql test-cli test-oracle test-conformance test-fuzz-replay
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
FUZZ_CFLAGS  := -std=c11 -pedantic $(WARN) -O1 -g -DCQL_DEBUG $(FUZZ_SAN)
# FUZZ_SKIP_KNOWN=1: step around the known problems of tests/fuzz/known/ (a
# separate build, build/fuzz-skip-known/), to look for new ones meanwhile
ifeq ($(FUZZ_SKIP_KNOWN),1)
FUZZ_DIR     := build/fuzz-skip-known
FUZZ_CFLAGS  += -DFUZZ_SKIP_KNOWN -fno-sanitize=nonnull-attribute
endif
FUZZ_LIB     := $(LIB_SRCS:src/%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_BINS    := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_DICTS   := $(FUZZ_NAMES:%=$(FUZZ_DIR)/%.dict)

$(FUZZ_DIR)/obj:
	$(Q)mkdir -p $@

$(FUZZ_DIR)/obj/%.o: src/%.c | $(FUZZ_DIR)/obj
	@$(if $(Q),echo "  FUZZ-CC $<")
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/obj/%.o: tests/fuzz/%.c | $(FUZZ_DIR)/obj
	@$(if $(Q),echo "  FUZZ-CC $<")
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/fuzz_%.o $(FUZZ_DIR)/obj/fuzz_support.o $(FUZZ_LIB)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ $(LDLIBS) -o $@

# Dictionaries: the query's from the token list, so that a new keyword is
# fuzzed without anyone remembering to add it.
$(FUZZ_DIR)/tokens.dict: include/cql_tokens.def | $(FUZZ_DIR)/obj
	$(Q)sed -n -E '/TC_(PUNCT|KEYWORD)\)/s/^TOK\([A-Z_0-9]+, *("([^"\\]|\\.)*"), *(NULL|"([^"\\]|\\.)*"),.*/\1\n\3/p' $< \
	   | grep -v '^NULL$$' | sed 's/^/kw=/' > $@
$(FUZZ_DIR)/query.dict: $(FUZZ_DIR)/tokens.dict tests/fuzz/query.dict
	$(Q)cat tests/fuzz/query.dict $(FUZZ_DIR)/tokens.dict > $@
$(FUZZ_DIR)/pgn.dict: tests/fuzz/pgn.dict | $(FUZZ_DIR)/obj
	$(Q)cp tests/fuzz/pgn.dict $@
$(FUZZ_DIR)/fen_san.dict: tests/fuzz/fen_san.dict | $(FUZZ_DIR)/obj
	$(Q)cp tests/fuzz/fen_san.dict $@
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
install: $(CQL)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(CQL) $(DESTDIR)$(PREFIX)/bin/cql
	install -m 644 docs/cql.1 $(DESTDIR)$(PREFIX)/share/man/man1/cql.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/cql $(DESTDIR)$(PREFIX)/share/man/man1/cql.1

# One translation unit of every source: catches clashes between static names.
unity: | $(BUILD)/obj
	$(Q)printf '#include "../../../src/%s"\n' $(notdir $(LIB_SRCS)) main.c > $(BUILD)/obj/all.c
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(BUILD)/obj/all.c $(LDFLAGS) $(LDLIBS) -o $(BUILD)/cql-unity

clean:
	rm -rf build cql

-include $(DEPS) $(wildcard $(FUZZ_DIR)/obj/*.d)
