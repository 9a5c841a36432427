#!/usr/bin/env python3
# tests/check-screenshot.py — checks Chromium's screenshot of a page of
# `cql -report` (tests/run-browser.sh): finds the first board (the first
# pixel row, from the top, with a run of square colours as wide as a board),
# then checks that its 64 squares are drawn in the two colours of the board
# in the order of a chess board (a8 light), the two squares of the move into
# the position tinted, and on each square that holds a piece in the FEN the
# pixels of that piece's colour, on no other square. The colours are
# src/cli/report.c's. A PNG reader of its own (zlib, the five filters),
# since the test may use nothing but Python's standard library.
#
# With --palette, writes the screenshot again with a palette of its 256
# commonest colours (each other colour as the nearest of them): a third of
# the bytes, for the picture in the documents (docs/report.png).
#
# Usage: check-screenshot.py SHOT.png FEN FROM TO     (FROM, TO: squares, e2 e4, or - -)
#        check-screenshot.py --palette SHOT.png OUT.png
# SPDX-License-Identifier: GPL-3.0-or-later
import struct
import sys
import zlib

LIGHT, DARK = (0xf0, 0xd9, 0xb5), (0xb5, 0x88, 0x63)
LIGHT_MARKED, DARK_MARKED = (0xcd, 0xd2, 0x6a), (0xaa, 0xa2, 0x3a)
WHITE_PIECE, BLACK_PIECE = (0xff, 0xff, 0xff), (0x1e, 0x1e, 0x1e)
SQUARE_COLOURS = {LIGHT, DARK, LIGHT_MARKED, DARK_MARKED}


def read_png(path):
    """(width, height, rows): rows[y] is a bytes of width * channels, with channels 3 or 4"""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    at, idat = 8, []
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError("a PNG of 8-bit RGB or RGBA without interlacing is expected")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        at += 12 + length
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(channels, stride):
                row[i] = (row[i] + row[i - channels]) & 255
        elif kind == 2:
            row = bytearray((a + b) & 255 for a, b in zip(row, prev))
        elif kind == 3:
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                row[i] = (row[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = row[i - channels] if i >= channels else 0
                b, c = prev[i], prev[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(row))
        prev = row
    return width, height, channels, rows


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def write_palette_png(path, width, height, channels, rows):
    counts = {}
    for row in rows:
        for i in range(0, len(row), channels):
            c = row[i:i + 3]
            counts[c] = counts.get(c, 0) + 1
    palette = sorted(counts, key=counts.get, reverse=True)[:256]
    index = {c: i for i, c in enumerate(palette)}
    for c in counts:
        if c not in index:
            index[c] = min(range(len(palette)), key=lambda i: sum((a - b) ** 2 for a, b in zip(c, palette[i])))
    raw = bytearray()
    for row in rows:
        raw.append(0)
        raw.extend(index[row[i:i + 3]] for i in range(0, len(row), channels))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)) +
                chunk(b"PLTE", b"".join(palette)) + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


def main():
    if sys.argv[1] == "--palette":
        write_palette_png(sys.argv[3], *read_png(sys.argv[2]))
        return
    path, fen, move_from, move_to = sys.argv[1:5]
    width, height, channels, rows = read_png(path)

    def pixel(x, y):
        i = x * channels
        return tuple(rows[y][i:i + 3])

    problems = []
    # the first board: the first row with a run of square colours at least 160 pixels wide
    board = None
    for y in range(height):
        run = 0
        for x in range(width):
            run = run + 1 if pixel(x, y) in SQUARE_COLOURS else 0
            if run >= 160 and (x + 1 == width or pixel(x + 1, y) not in SQUARE_COLOURS):
                board = (x + 1 - run, y, run)
                break
        if board:
            break
    if not board:
        print("FAIL: %s: no board found (no row of square colours 160 pixels wide)" % path, file=sys.stderr)
        sys.exit(1)
    x0, y0, size = board
    if y0 + size > height:
        print("FAIL: %s: the first board (at %d, %d) runs past the bottom" % (path, x0, y0), file=sys.stderr)
        sys.exit(1)
    side = size / 8.0
    # the FEN's pieces by square, row 0 = rank 8
    pieces = {}
    for r, rank in enumerate(fen.split(" ")[0].split("/")):
        c = 0
        for ch in rank:
            if ch.isdigit():
                c += int(ch)
            else:
                pieces[(c, r)] = "white" if ch.isupper() else "black"
                c += 1

    def square_name(c, r):
        return "abcdefgh"[c] + str(8 - r)

    marked = {move_from, move_to} - {"-"}
    counts = {"light": 0, "dark": 0}
    for r in range(8):
        for c in range(8):
            name = square_name(c, r)
            # the square's own colour, near its top right corner, where no piece and no coordinate is drawn
            colour = pixel(int(x0 + (c + 0.92) * side), int(y0 + (r + 0.07) * side))
            light = (c + r) % 2 == 0
            want = (LIGHT_MARKED if light else DARK_MARKED) if name in marked else (LIGHT if light else DARK)
            if colour != want:
                problems.append("square %s is drawn %s, expected %s" % (name, colour, want))
            elif name not in marked:
                counts["light" if light else "dark"] += 1
            # the piece's pixels, inside the square
            white = black = 0
            for y in range(int(y0 + (r + 0.1) * side), int(y0 + (r + 0.9) * side)):
                for x in range(int(x0 + (c + 0.1) * side), int(x0 + (c + 0.9) * side)):
                    p = pixel(x, y)
                    white += p == WHITE_PIECE
                    black += p == BLACK_PIECE
            piece = pieces.get((c, r))
            if piece == "white" and white < side:
                problems.append("square %s: a white piece, but %d white pixels" % (name, white))
            elif piece == "black" and (black < side or white >= black):
                problems.append("square %s: a black piece, but %d black and %d white pixels" % (name, black, white))
            elif piece is None and (white or black):
                problems.append("square %s: empty, but %d white and %d black pixels" % (name, white, black))
    if counts["light"] < 28 or counts["dark"] < 28:
        problems.append("the squares' colours: %s" % counts)
    for p in problems[:20]:
        print("FAIL: %s: %s" % (path, p), file=sys.stderr)
    print("%s: the first board at (%d, %d), %d pixels wide: %d light and %d dark squares, %d pieces, %d problems"
          % (path, x0, y0, size, counts["light"], counts["dark"], len(pieces), len(problems)))
    sys.exit(1 if problems else 0)


main()
