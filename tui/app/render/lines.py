"""Lazily wrapped rows for the Line API views: a document is a list of parts, each counting its rows.

A part knows how many rows it takes at a width and builds one row (a ``rich.text.Text``)
only when it is drawn, so a 10 MB tool result costs nothing until it is shown, and a
folded one costs its first few rows. Every string that reaches a part has already passed
through ``tui.core.safe``; parts build ``Text`` from plain strings, never markup.
A row can carry a target: what Enter on that row opens or folds.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from typing import Any, Sequence

from rich.cells import cell_len, get_character_cell_size, split_graphemes
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from tui.core.safe import visible

Target = tuple[Any, ...] | None
#: A block bigger than this is wrapped in a worker when expanded.
BIG = 1 << 20


_NULL = Style.null()


def segments(text: Text, console: Console) -> list[Segment]:
    """``text`` rendered on one line. ``Text.render`` drops the base style of a text without spans and
    leaves such segments unstyled; give them the base style (NO_COLOR's filter reads every style)."""
    base = console.get_style(text.style, default=_NULL) if text.style else _NULL
    return [s if s.style is not None else Segment(s.text, base, s.control) for s in text.render(console)]


def display(text: str) -> str:
    """Run text as it is drawn: ``\\r\\n`` a line end, control characters (a lone ``\\r`` too) visible,
    tabs as spaces."""
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return visible(text).replace("\t", "    ")


def fit(text: str, cells: int) -> str:
    """``text`` in at most ``cells`` terminal cells: whole, or cut at a grapheme boundary with ``…`` (for
    one-row summaries; a wide character or an emoji never half drawn)."""
    if cell_len(text) <= cells:
        return text
    if cells <= 0:
        return ""
    spans, _ = split_graphemes(text[: cells * 4 + 8])
    used, end = 0, 0
    for _, stop, size in spans:
        if used + size > cells - 1:
            break
        used, end = used + size, stop
    return text[:end] + ("" if text[:end].endswith("…") else "…")


#: A row may end just after one of these when no space is near (``src/app/`` ``main.py``, ``a,`` ``b``);
#: not after a backslash, which starts the escapes of control characters.
BREAK_AFTER = frozenset("-/,;:!?)]}>|&=+")


def _fits(line: str, pos: int, width: int, ascii_: bool) -> int:
    """The end of the longest run of whole graphemes of ``line`` from ``pos`` that fits in ``width`` cells
    (at least one grapheme, so a row always moves on)."""
    if ascii_:
        return min(pos + width, len(line))
    size = width * 4 + 8
    while True:
        spans, _ = split_graphemes(line[pos:pos + size])
        whole = pos + size >= len(line)
        used, end = 0, pos
        for k, (_, stop, cells) in enumerate(spans):
            if used + cells > width and end > pos:
                return end
            if not whole and k == len(spans) - 1:
                break  # the piece's last grapheme may go on past it
            used += cells
            end = pos + stop
        if whole:
            return end
        size *= 4


def _break(line: str, pos: int, end: int) -> tuple[int, int]:
    """Where a row of ``line`` from ``pos`` that may reach ``end`` ends, and where the next row starts: at the
    last space (the spaces go between the rows), else just after the last punctuation (not inside a number
    like ``8,900``), else at ``end`` (a token longer than the row is split there)."""
    for k in range(end, pos, -1):
        char = line[k]
        if char == " ":
            cut = k
            while cut > pos and line[cut - 1] == " ":
                cut -= 1
            if cut == pos:
                continue  # only spaces before it: breaking there would not move on
            nxt = k
            while nxt < len(line) and line[nxt] == " ":
                nxt += 1
            if nxt < len(line) and not get_character_cell_size(line[nxt]):
                nxt -= 1  # a mark on the last space stays with it
            return cut, nxt
        before = line[k - 1]
        if before in BREAK_AFTER and char.isalnum() and get_character_cell_size(char):  # before a word
            if before in ",." and char.isdigit() and k >= 2 and line[k - 2].isdigit():
                continue  # 8,900 and 3.14 are one token
            return k, k
    return end, end


def wrap_offsets(text: str, width: int, limit: int | None = None, first: int | None = None) -> list[tuple[int, int]]:
    """Row spans of ``text`` at ``width`` terminal cells: split at newlines, then at word boundaries.

    Cells, not characters: a CJK character or an emoji takes two, a combining mark none, and a grapheme
    (an emoji with its joiners and skin tone, a letter with its accents) is never split. Between two rows
    there is a newline, the spaces a row broke at, or nothing (a token longer than the row); every other
    character is on exactly one row, so the rows joined with those gaps give back ``text``. ``first``, when
    given, is the width of the very first row (a hanging indent: the rows after it are ``width`` wide).
    """
    width = max(width, 1)  # a grapheme wider than the row still gets a row of its own
    row_width = max(first, 1) if first is not None else width
    rows: list[tuple[int, int]] = []
    start, end_all = 0, len(text)
    while start <= end_all:
        end = text.find("\n", start)
        end = end_all if end < 0 else end
        line = text[start:end] if start or end != end_all else text
        pos, ascii_ = 0, line.isascii()
        while pos < len(line) and (len(line) - pos > row_width
                                   or (not ascii_ and cell_len(line[pos:]) > row_width)):
            fit = _fits(line, pos, row_width, ascii_)
            if fit >= len(line):
                break
            cut, nxt = _break(line, pos, fit)
            rows.append((start + pos, start + cut))
            row_width = width
            pos = nxt
            if limit is not None and len(rows) >= limit:
                return rows
        rows.append((start + pos, end))
        row_width = width
        if limit is not None and len(rows) >= limit:
            return rows
        start = end + 1
    return rows


#: A mark drawn over a document's rows: (the text to mark, its style, whether case counts).
Mark = tuple[str, "Style | str", bool]


def mark_rows(text: Text, marks: Sequence[Mark]) -> Text:
    """``text`` with every occurrence of each mark's text styled (for rows that are whole in themselves)."""
    for needle, style, case_sensitive in marks:
        if needle:
            text.highlight_words([needle], style, case_sensitive=case_sensitive)
    return text


def mark_piece(row: Text, source: str, start: int, end: int, offset: int, marks: Sequence[Mark]) -> Text:
    """Style, in ``row`` (which shows ``source[start:end]`` from character ``offset`` on), every part of a
    mark's occurrence in ``source`` that falls on this row: a value split over two rows is marked on both."""
    for needle, style, case_sensitive in marks:
        if not needle:
            continue
        lo, hi = max(start - len(needle) + 1, 0), min(end + len(needle) - 1, len(source))
        flags = 0 if case_sensitive else re.IGNORECASE
        for found in re.finditer(re.escape(needle), source[lo:hi], flags):
            s, e = max(lo + found.start(), start), min(lo + found.end(), end)
            if s < e:
                row.stylize(style, offset + s - start, offset + e - start)
    return row


class Part:
    """Some rows of a document."""

    target: Target = None

    def count(self, width: int) -> int:
        raise NotImplementedError

    def row(self, k: int, width: int) -> Text:
        raise NotImplementedError

    def marked(self, k: int, width: int, marks: Sequence[Mark]) -> Text:
        """Row ``k`` with ``marks`` drawn (a copy: the row as laid out is kept)."""
        return mark_rows(self.row(k, width).copy(), marks)

    def target_at(self, k: int) -> Target:
        return self.target

    def row_of(self, target: Target) -> int | None:
        """The first row of this part with ``target``, or None."""
        return 0 if target is not None and target == self.target else None


class Rows(Part):
    """Fixed rows (headers, one-line summaries); each is wrapped to the width when it is longer (at word
    boundaries, never cropped), unless ``wrap`` is False (a folded summary: cut with an ellipsis)."""

    def __init__(self, rows: Sequence[Text], target: Target = None, targets: Sequence[Target] | None = None,
                 wrap: bool = True, breaks: Sequence[tuple[int, int] | None] | None = None):
        self.rows = list(rows)
        self.wrap = wrap
        #: per row, ``(offset, indent)``: a row too long for the width breaks at ``offset`` first, and what
        #: follows goes on rows of its own, ``indent`` columns in (so a wrapped tail stays under its head).
        self.breaks = breaks
        self.target = target
        self.targets = targets
        self._width = -1
        #: per row drawn: (the row it comes from, the text, its span in that row, the indent put before it)
        self._wrapped: list[tuple[int, Text, int, int, int]] = []

    def _layout(self, width: int) -> list[tuple[int, Text, int, int, int]]:
        if width != self._width:
            self._width, out = width, []
            for n, text in enumerate(self.rows):
                if text.cell_len <= width and "\n" not in text.plain:
                    out.append((n, text, 0, len(text), 0))
                elif not self.wrap:
                    cropped = text.copy()
                    cropped.truncate(width, overflow="ellipsis")
                    out.append((n, cropped, 0, len(cropped), 0))
                elif self.breaks is not None and self.breaks[n] is not None:
                    offset, indent = self.breaks[n]
                    indent = min(indent, width // 2)
                    out.extend((n, *piece) for piece in wrap_text(text[:offset], width, indent))
                    rest = text[offset:]
                    out.extend((n, piece, s + offset, e + offset, pad + indent) for piece, s, e, pad in
                               wrap_text(rest, width - indent, 0, prefix=indent))
                else:
                    out.extend((n, *piece) for piece in wrap_text(text, width, min(2, width // 4)))
            self._wrapped = out
        return self._wrapped

    def count(self, width: int) -> int:
        return len(self._layout(width))

    def row(self, k: int, width: int) -> Text:
        return self._layout(width)[k][1]

    def marked(self, k: int, width: int, marks: Sequence[Mark]) -> Text:
        n, text, start, end, pad = self._layout(width)[k]
        return mark_piece(text.copy(), self.rows[n].plain, start, end, pad, marks)

    def target_at(self, k: int) -> Target:
        if self.targets is None:
            return self.target
        return self.targets[self._layout(self._width)[k][0]]

    def row_of(self, target: Target) -> int | None:
        if self.targets is None:
            return super().row_of(target)
        for k, (n, *_) in enumerate(self._layout(self._width)):
            if self.targets[n] == target:
                return k
        return None


def wrap_text(text: Text, width: int, indent: int, prefix: int = 0) -> list[tuple[Text, int, int, int]]:
    """``text`` wrapped at ``width`` cells at word boundaries, every row after the first ``indent`` cells in
    (the first row is ``prefix`` cells in). Each row: (its text with its styles, its span in ``text``, the
    cells of indent before it)."""
    spans = wrap_offsets(text.plain, width - indent, first=width)
    out = []
    for m, (start, end) in enumerate(spans):
        piece = text[start:end]
        pad = prefix if m == 0 else prefix + indent
        out.append((Text(" " * pad) + piece if pad else piece, start, end, pad))
    return out


#: Below this many cells beside the head, a block's text goes on rows of its own, under the head.
MIN_BODY = 12


class Wrapped(Part):
    """A long text, wrapped lazily under a head (``text  ``, ``tool_result …``) and an indent.

    With ``limit`` it shows that many rows, then a fold row with ``note`` (the block's size)
    when there is more. ``text`` may be the start of a longer block (``cut``: it was cut).
    When the width leaves less than ``MIN_BODY`` cells beside the head, the head takes rows of its own
    and the text is two cells in.
    """

    def __init__(self, text: str, *, head: Text, indent: int, style: Style | str = "",
                 limit: int | None = None, cut: bool = False, note: str = "", target: Target = None,
                 raw: bool = False):
        self.text = text
        self.raw = raw  # not yet passed through ``display`` (done off the UI thread for big blocks)
        self.head = head
        self.indent = indent
        self.style = style
        self.limit = limit
        self.cut = cut
        self.note = note
        self.target = target
        self._width = -1
        self._spans: list[tuple[int, int]] = []
        self._heads: list[Text] = []
        self._pad = indent
        self._folded = False

    def pending(self, width: int) -> bool:
        """True while a big expanded block has not been wrapped at this width (see ``prepare``)."""
        return self.limit is None and len(self.text) > BIG and width != self._width

    def prepare(self, width: int) -> None:
        """Escape and wrap at ``width``; the slow part of a big block, run from a worker."""
        self._layout(width)

    def _layout(self, width: int) -> list[tuple[int, int]]:
        if width != self._width:
            if self.raw:
                self.text, self.raw = display(self.text), False
            blank = not self.head.plain.strip()
            if width - self.indent >= MIN_BODY and self.head.cell_len <= self.indent:
                self._heads, self._pad = [], self.indent
            elif blank:
                self._heads, self._pad = [], min(self.indent, max(width - MIN_BODY, min(2, width // 4)))
            else:
                head = self.head.copy()
                head.rstrip()
                self._heads, self._pad = [piece for piece, *_ in wrap_text(head, width, 2)], min(2, width // 4)
            avail = max(width - self._pad, 1)
            probe = None if self.limit is None else self.limit + 1
            spans = wrap_offsets(self.text, avail, probe)
            self._folded = self.cut
            if self.limit is not None and len(spans) > self.limit:
                spans, self._folded = spans[: self.limit], True
            self._spans, self._width = spans, width
        return self._spans

    def count(self, width: int) -> int:
        if self.pending(width):
            return 1
        spans = self._layout(width)
        return len(self._heads) + len(spans) + (1 if self._folded else 0)

    def _body(self, k: int, width: int) -> tuple[Text, int]:
        """Row ``k`` and the character where its body text starts (-1: not a row of the text)."""
        if self.pending(width):
            return Text(fit(self.head.plain + f"expanding {len(self.text):,} characters …", width), "dim italic"), -1
        spans = self._layout(width)
        heads = len(self._heads)
        if k < heads:
            return self._heads[k], -1
        k -= heads
        pad = Text(" " * self._pad)
        if k >= len(spans):
            room = width - self._pad
            note = next((n for n in (f"… {self.note} · enter: expand", f"… {self.note}", "… more") if cell_len(n) <= room),
                        "…")
            return Text.assemble(pad, (fit(note, room), "dim italic")), -1
        start, end = spans[k]
        lead = pad
        if k == 0 and not heads and self.head.plain.strip():
            lead = self.head.copy()
            lead.pad_right(self._pad - lead.cell_len)
        return lead + Text(self.text[start:end], style=self.style), len(lead)

    def row(self, k: int, width: int) -> Text:
        return self._body(k, width)[0]

    def marked(self, k: int, width: int, marks: Sequence[Mark]) -> Text:
        text, offset = self._body(k, width)
        if offset < 0:
            return mark_rows(text.copy(), marks)
        start, end = self._spans[k - len(self._heads)]
        return mark_piece(text, self.text, start, end, offset, marks)


class PartLayout:
    """Parts laid out at one width: row ``y`` maps to (part, row within it) by bisection."""

    def __init__(self, parts: list[Part], width: int):
        self.parts = parts
        self.width = width
        self.ends = list(accumulate(part.count(width) for part in parts))

    def __len__(self) -> int:
        return self.ends[-1] if self.ends else 0

    def locate(self, y: int) -> tuple[Part, int] | None:
        if y < 0 or y >= len(self):
            return None
        p = bisect_right(self.ends, y)
        start = self.ends[p - 1] if p else 0
        return self.parts[p], y - start

    def row(self, y: int) -> Text:
        found = self.locate(y)
        return found[0].row(found[1], self.width) if found else Text("")

    def marked(self, y: int, marks: Sequence[Mark]) -> Text:
        """Row ``y`` with ``marks`` drawn on it, a mark split over rows marked on each (a copy)."""
        if not marks:
            return self.row(y).copy()
        found = self.locate(y)
        return found[0].marked(found[1], self.width, marks) if found else Text("")

    def target(self, y: int) -> Target:
        found = self.locate(y)
        return found[0].target_at(found[1]) if found else None

    def first_row_of(self, target: Target) -> int | None:
        start = 0
        for part, end in zip(self.parts, self.ends):
            row = part.row_of(target)
            if row is not None:
                return start + row
            start = end
        return None
