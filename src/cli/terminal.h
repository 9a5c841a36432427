/*
 * src/cli/terminal.h — text that comes from the query and the games (what
 * `message` prints, runtime errors, persistent variables), written where
 * a person may be reading it.
 *
 * On a terminal a byte that would control it is shown, not obeyed: a tag
 * holding ESC [ 2 J cannot clear the screen, recolour it or retitle the
 * window. Written to a file or a pipe, the text is as the query made it,
 * byte for byte (as CQL 6.2 writes it), so that scripts read it unchanged.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_TERMINAL_H
#define CQL_TERMINAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Writes len bytes of text to fp. When fp is a terminal, every byte of a
 * control character but newline and tab (C0, DEL, and C1 as UTF-8
 * U+0080..U+009F) and every byte that is not part of UTF-8 is written as
 * \xHH. */
void terminal_write(FILE *fp, const char *text, size_t len);

#endif
