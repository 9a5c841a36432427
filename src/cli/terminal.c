/*
 * src/cli/terminal.c — text from the query shown safely on a terminal
 * (see terminal.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/terminal.h"

#include <unistd.h>

/* The length of the UTF-8 sequence at s (n bytes left) when it is well
 * formed and not a C1 control (U+0080..U+009F); 0 otherwise. */
static size_t printable_utf8(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;   /* the range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        if (c == 0xC2) lo = 0xA0;         /* C2 80..9F: the C1 controls */
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;         /* no overlong form */
        if (c == 0xED) hi = 0x9F;         /* no surrogate */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;         /* no code point past U+10FFFF */
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return len;
}

void terminal_write(FILE *fp, const char *text, size_t len)
{
    if (!isatty(fileno(fp))) {
        fwrite(text, 1, len, fp);
        return;
    }
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0, shown = 0;   /* text[shown .. i) is still to write as it is */
    while (i < len) {
        size_t n = s[i] >= 0x80 ? printable_utf8(s + i, len - i)
                   : (s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') || s[i] == 0x7F ? 0 : 1;
        if (n) {
            i += n;
            continue;
        }
        fwrite(text + shown, 1, i - shown, fp);
        fprintf(fp, "\\x%02x", s[i]);
        shown = ++i;
    }
    fwrite(text + shown, 1, len - shown, fp);
}
