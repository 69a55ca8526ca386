"""Lazily wrapped rows for the Line API views: a document is a list of parts, each counting its rows.

A part knows how many rows it takes at a width and builds one row (a ``rich.text.Text``)
only when it is drawn, so a 10 MB tool result costs nothing until it is shown, and a
folded one costs its first few rows. Every string that reaches a part has already passed
through ``tui.core.safe``; parts build ``Text`` from plain strings, never markup.
A row can carry a target: what Enter on that row opens or folds.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from typing import Any, Sequence

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
    """Run text as it is drawn: control characters visible, tabs as spaces."""
    return visible(text).replace("\t", "    ")


def wrap_offsets(text: str, width: int, limit: int | None = None) -> list[tuple[int, int]]:
    """Row spans of ``text`` at ``width`` columns: split at newlines, then at a space when one is near."""
    width = max(width, 8)
    rows: list[tuple[int, int]] = []
    start, end_all = 0, len(text)
    while start <= end_all:
        end = text.find("\n", start)
        end = end_all if end < 0 else end
        pos = start
        while end - pos > width:
            cut = text.rfind(" ", pos + width // 2, pos + width + 1)
            nxt = cut + 1 if cut > 0 else pos + width
            cut = cut if cut > 0 else pos + width
            rows.append((pos, cut))
            pos = nxt
            if limit is not None and len(rows) >= limit:
                return rows
        rows.append((pos, end))
        if limit is not None and len(rows) >= limit:
            return rows
        start = end + 1
    return rows


class Part:
    """Some rows of a document."""

    target: Target = None

    def count(self, width: int) -> int:
        raise NotImplementedError

    def row(self, k: int, width: int) -> Text:
        raise NotImplementedError

    def target_at(self, k: int) -> Target:
        return self.target

    def row_of(self, target: Target) -> int | None:
        """The first row of this part with ``target``, or None."""
        return 0 if target is not None and target == self.target else None


class Rows(Part):
    """Fixed rows (headers, one-line summaries); each is wrapped to the width when it is longer."""

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
        self._wrapped: list[tuple[int, Text]] = []

    def _layout(self, width: int) -> list[tuple[int, Text]]:
        if width != self._width:
            self._width, out = width, []
            for n, text in enumerate(self.rows):
                if text.cell_len <= width:
                    out.append((n, text))
                elif not self.wrap:
                    cropped = text.copy()
                    cropped.truncate(width, overflow="ellipsis")
                    out.append((n, cropped))
                elif self.breaks is not None and self.breaks[n] is not None:
                    offset, indent = self.breaks[n]
                    out.extend((n, piece) for piece in _wrap(text[:offset], width, indent))
                    pad = Text(" " * indent)
                    out.extend((n, pad + piece) for piece in _wrap(text[offset:], width - indent, 0))
                else:
                    out.extend((n, piece) for piece in _wrap(text, width, 2))
            self._wrapped = out
        return self._wrapped

    def count(self, width: int) -> int:
        return len(self._layout(width))

    def row(self, k: int, width: int) -> Text:
        return self._layout(width)[k][1]

    def target_at(self, k: int) -> Target:
        if self.targets is None:
            return self.target
        return self.targets[self._layout(self._width)[k][0]]

    def row_of(self, target: Target) -> int | None:
        if self.targets is None:
            return super().row_of(target)
        for k, (n, _) in enumerate(self._layout(self._width)):
            if self.targets[n] == target:
                return k
        return None


def _wrap(text: Text, width: int, indent: int) -> list[Text]:
    """``text`` wrapped at ``width`` columns, every row after the first ``indent`` columns in."""
    spans = wrap_offsets(text.plain, width - indent)
    pieces = text.divide([e for _, e in spans[:-1]])
    out = []
    for m, piece in enumerate(pieces):
        piece = piece.copy()
        piece.rstrip()
        out.append(piece if m == 0 else Text(" " * indent) + _lstrip1(piece))
    return out


def _lstrip1(text: Text) -> Text:
    return text[1:] if text.plain.startswith(" ") else text


class Wrapped(Part):
    """A long text, wrapped lazily under a head (``text  ``, ``tool_result …``) and an indent.

    With ``limit`` it shows that many rows, then a fold row with ``note`` (the block's size)
    when there is more. ``text`` may be the start of a longer block (``cut``: it was cut).
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
            avail = max(width - self.indent, 8)
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
        return len(self._layout(width)) + (1 if self._folded else 0)

    def row(self, k: int, width: int) -> Text:
        pad = Text(" " * self.indent)
        if self.pending(width):
            return self.head.copy() + Text(f"expanding {len(self.text):,} characters …", "dim italic")
        spans = self._layout(width)
        if k >= len(spans):
            return Text.assemble(pad, (f"… {self.note} · enter: expand", "dim italic"))
        start, end = spans[k]
        body = Text(self.text[start:end], style=self.style)
        return (self.head.copy() if k == 0 else pad) + body


class Document:
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
