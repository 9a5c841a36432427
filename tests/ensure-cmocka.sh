#!/bin/sh
# tests/ensure-cmocka.sh — make sure the cmocka unit-test library is installed.
# When it is missing, install Debian's libcmocka-dev with apt-get if we are root
# or have password-less sudo; otherwise stop with one line naming the package.
# SPDX-License-Identifier: GPL-3.0-or-later

have_cmocka() {
    if pkg-config --exists cmocka 2>/dev/null; then return 0; fi
    for d in /usr/include /usr/local/include; do
        [ -f "$d/cmocka.h" ] && return 0
    done
    return 1
}

have_cmocka && exit 0

if [ "$(id -u)" = 0 ]; then
    SUDO=
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "cmocka is missing: install the package libcmocka-dev (apt-get install libcmocka-dev)" >&2
    exit 1
fi

if command -v apt-get >/dev/null 2>&1; then
    echo "cmocka is missing: installing libcmocka-dev with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get install -y -q libcmocka-dev >/dev/null 2>&1 ||
        { $SUDO apt-get update -q >/dev/null 2>&1 &&
          $SUDO apt-get install -y -q libcmocka-dev >/dev/null 2>&1; }
fi

have_cmocka && exit 0
echo "cmocka is missing and could not be installed: install the package libcmocka-dev" >&2
exit 1
