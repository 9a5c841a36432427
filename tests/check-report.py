#!/usr/bin/env python3
# tests/check-report.py — checks a page of `cql -report` with Python's
# html.parser: the elements nest and close (void elements aside), it holds
# the number of boards expected (<svg class="board">, one per matched
# position shown) and a link target for every highlighted move, nothing
# that runs or loads (no script, link, img, iframe, object, embed, no on*
# attribute, no url() or @import in CSS, no http: or https: anywhere in an
# attribute or in CSS), and, when given, the text TEXT shown as text (a tag
# value such as "<script>" escaped).
#
# Usage: check-report.py REPORT.html BOARDS [TEXT]
# SPDX-License-Identifier: GPL-3.0-or-later
import re
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SVG_SELF_CLOSED = {"use", "rect", "path", "circle", "stop"}
FORBIDDEN = {"script", "link", "img", "iframe", "object", "embed", "frame", "frameset", "audio", "video",
             "source", "base", "form"}
NETWORK = re.compile(r"https?:|url\s*\(|@import|//[a-z0-9.-]+\.[a-z]", re.I)


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.problems, self.ids, self.links = [], [], set(), []
        self.boards = 0
        self.text = []
        self.in_style = False

    def problem(self, text):
        self.problems.append("line %d: %s" % (self.getpos()[0], text))

    def check_attrs(self, tag, attrs):
        for name, value in attrs:
            if name.startswith("on"):
                self.problem("<%s %s=...>: an event handler" % (tag, name))
            if value and NETWORK.search(value):
                self.problem("<%s %s=%r>: a reference out of the page" % (tag, name, value))
            if name == "id":
                self.ids.add(value)
            if name == "href":
                if not value.startswith("#"):
                    self.problem("<%s href=%r>: a link out of the page" % (tag, value))
                elif tag == "a":
                    self.links.append(value[1:])
        if tag in FORBIDDEN:
            self.problem("<%s>: not allowed in the report" % tag)
        if tag == "svg" and ("class", "board") in attrs:
            self.boards += 1

    def handle_starttag(self, tag, attrs):
        self.check_attrs(tag, attrs)
        if tag == "style":
            self.in_style = True
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.check_attrs(tag, attrs)
        if tag not in VOID and tag not in SVG_SELF_CLOSED:
            self.problem("<%s/>: self-closed" % tag)

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problem("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()

    def handle_data(self, data):
        if self.in_style and NETWORK.search(data):
            self.problem("CSS with a reference out of the page: %r" % NETWORK.search(data).group(0))
        self.text.append(data)


def main():
    path, boards = sys.argv[1], int(sys.argv[2])
    shown = sys.argv[3] if len(sys.argv) > 3 else None
    with open(path, "rb") as f:
        html = f.read().decode("utf-8")   # strict: the page is UTF-8
    page = Page()
    page.feed(html)
    page.close()
    if page.stack:
        page.problem("unclosed at the end: %s" % page.stack)
    if not html.startswith("<!DOCTYPE html>"):
        page.problem("no <!DOCTYPE html> first")
    if page.boards != boards:
        page.problem("%d boards, expected %d" % (page.boards, boards))
    for target in page.links:
        if target not in page.ids:
            page.problem("a link to #%s, which is not on the page" % target)
    if shown is not None and shown not in "".join(page.text):
        page.problem("the text %r is not shown as text" % shown)
    for p in page.problems[:20]:
        print("FAIL: %s: %s" % (path, p), file=sys.stderr)
    print("%s: %d boards, %d links, %d problems" % (path, page.boards, len(page.links), len(page.problems)))
    sys.exit(1 if page.problems else 0)


main()
