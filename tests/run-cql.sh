#!/bin/sh
# tests/run-cql.sh — the data-driven query tests, tests/cql/*.test (format: see
# tests/tools/tool_cqltest.c). Usage: sh tests/run-cql.sh build/MODE
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
exec "$BUILD/tests/tool_cqltest" tests/cql/*.test
