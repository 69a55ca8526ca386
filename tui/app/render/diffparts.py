"""The rows of the diff screen: two runs from their first divergence, message beside message.

Messages are paired as ``tui.core.diff.aligned`` pairs them, so an inserted message is a row
with nothing opposite, not a shift of everything after it. A run of equal pairs is one
summary row per pair, built only when drawn (``EqualRange``); a pair that differs shows both
messages' blocks (``PairPart``) — side by side, or A above B when the screen is narrow
(``stacked``) — then its changes, one line each, with the changed values marked on each side.
Past ``OPEN_LIMIT`` differing pairs a pair is one row until Enter opens it, so two long runs
that differ everywhere still cost the rows on screen. Run text arrives through
``tui.app.render.blocks`` (made visible by ``tui.core.safe``) and is never read as markup.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tui.app.render import styles as palette
from tui.app.render.blocks import message_parts
from tui.app.render.lines import PartLayout, Part, Rows, Target, wrap_text
from tui.core.diff import Change
from tui.core.safe import one_line
from tui.core.view.run_view import summary_of

SIDE, STACKED = "side", "stacked"
#: Differing pairs shown open; the rest are one row each until opened.
OPEN_LIMIT = 60
#: Rows a block of a differing message shows before it folds.
BLOCK_ROWS = 8
#: Kinds whose before/after values are marked in the blocks (short scalars only).
MARKED = ("tool_input_changed", "tool_result_changed", "tool_name_changed", "tool_id_changed")
SEPARATOR = " │ "


def _role(message: Any) -> str:
    return one_line(str(message.get("role"))) if isinstance(message, dict) else "?"


def needle(value: Any) -> str | None:
    """The text a changed scalar shows as in a block, when short enough to mark."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str) and 0 < len(value) <= 60 and "\n" not in value:
        return one_line(value)
    return None


def side_parts(index: int | None, message: Any, sign: str, other: str) -> list[Part]:
    """One side of a pair: its head and blocks, or a line saying it has nothing here."""
    if index is None:
        return [Rows([Text(f"  (no message here: only in {other})", palette.NOTE)])]
    head = Text.assemble((sign + " ", palette.WARNING), (f"[{index}]", "bold"), " ",
                         (_role(message), palette.ROLE.get(_role(message), "")))
    return [Rows([head]), *message_parts(index, message, set(), BLOCK_ROWS)]


class EqualRange(Part):
    """Pairs that are the same on both sides: one summary row each, drawn only when on screen."""

    def __init__(self, pairs: list[tuple[int, int]], messages: list[Any], first: int):
        self.pairs, self.messages, self.first = pairs, messages, first

    def count(self, width: int) -> int:
        return len(self.pairs)

    def row(self, k: int, width: int) -> Text:
        i, j = self.pairs[k]
        where = f"[{i}]" if i == j else f"[{i}] (B [{j}])"
        text = Text.assemble("  = ", (where, palette.DIM), " ", (_role(self.messages[i]), palette.DIM), "  ",
                             (summary_of(self.messages[i]), palette.DIM))
        text.truncate(width, overflow="ellipsis")
        return text

    def target_at(self, k: int) -> Target:
        return ("pair", self.first + k)

    def row_of(self, target: Target) -> int | None:
        if target and target[0] == "pair" and self.first <= target[1] < self.first + len(self.pairs):
            return target[1] - self.first
        return None


class PairPart(Part):
    """A differing pair: both messages and their changes; one row when folded."""

    def __init__(self, number: int, a: tuple[int | None, Any], b: tuple[int | None, Any], changes: list[Change],
                 mode: str, open_: bool):
        self.number, self.a, self.b, self.changes = number, a, b, changes
        self.mode, self.open = mode, open_
        self.target = ("pair", number)
        self.needles_a = {n for c in changes if c.kind in MARKED and (n := needle(c.before))}
        self.needles_b = {n for c in changes if c.kind in MARKED and (n := needle(c.after))}
        self._width = -1
        self._rows: list[Text] = []

    def _sign(self) -> str:
        return "+" if self.a[0] is None else "−" if self.b[0] is None else "≠"

    def _layout(self, width: int) -> list[Text]:
        if width == self._width:
            return self._rows
        (i, x), (k, y) = self.a, self.b
        sign = self._sign()
        if not self.open:
            where = f"[{i if i is not None else '–'}] | B [{k if k is not None else '–'}]"
            message = x if i is not None else y
            row = Text.assemble((sign + " ", palette.WARNING), (where, "bold"), " ", _role(message), "  ",
                                (f"{len(self.changes)} change{'s' * (len(self.changes) != 1)} · enter: open",
                                 palette.DIM))
            row.truncate(width, overflow="ellipsis")
            rows = [row]
        elif self.mode == SIDE:
            half = max((width - len(SEPARATOR)) // 2, 2)
            left = PartLayout(side_parts(i, x, sign, "B"), half)
            right = PartLayout(side_parts(k, y, sign, "A"), half)
            rows = []
            for r in range(max(len(left), len(right))):
                rows.append(Text.assemble(self._cell(left, r, half, self.needles_a), (SEPARATOR, palette.DIM),
                                          self._cell(right, r, half, self.needles_b)))
        else:
            rows = []
            for label, doc_parts, needles in (("A", side_parts(i, x, sign, "B"), self.needles_a),
                                              ("B", side_parts(k, y, sign, "A"), self.needles_b)):
                doc = PartLayout(doc_parts, max(width - 5, 2))  # " A │ " takes 5 cells
                for r in range(len(doc)):
                    rows.append(Text.assemble((f" {label} │ " if r == 0 else "   │ ", palette.DIM),
                                              self._cell(doc, r, None, needles)))
        if self.open:
            for c in self.changes:  # each change whole, wrapped at words under its text
                row = Text.assemble(("  " + sign + " ", palette.WARNING), c.describe(60))
                rows += [piece for piece, *_ in wrap_text(row, width, 4)]
        self._width, self._rows = width, rows
        return rows

    @staticmethod
    def _cell(doc: PartLayout, r: int, width: int | None, needles: set[str]) -> Text:
        """Row ``r`` of one side, the changed values marked (on every row a wrap spread them over), padded to
        ``width``: the side was laid out at that width, so nothing is cut."""
        text = doc.marked(r, [(n, palette.SOURCE, True) for n in sorted(needles)]) if r < len(doc) else Text("")
        if width is not None:
            text.pad_right(width - text.cell_len)
        return text

    def count(self, width: int) -> int:
        return len(self._layout(width))

    def row(self, k: int, width: int) -> Text:
        return self._layout(width)[k]

    def row_of(self, target: Target) -> int | None:
        return 0 if target == self.target else None
