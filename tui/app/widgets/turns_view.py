"""The turns of a branch as they arrive: saved messages, and the assistant turn still streaming in.

A Line API view (``LineView``): each message is a header row (index, role, who produced it)
and its blocks as the request pane draws them (``tui.app.render.blocks``: folded past a few
rows, Enter opens); the turn being streamed is rebuilt from the runner's ``BlockStarted``
and ``Delta`` events, with a tool_use's input shown as the partial JSON received so far.
Redraws while streaming are batched (one per ``FRAME`` seconds), so a fast stream costs a
few layouts a second, not one per delta. All run text passes through ``tui.core.safe``.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tui.app import keys
from tui.app.render import styles as palette
from tui.app.render.blocks import OUTPUT_ROWS, _head, _pad, message_parts, text_part
from tui.app.render.lines import Part, Rows
from tui.app.widgets.lineview import LineView
from tui.core.branch.events import BlockStarted, Delta
from tui.core.safe import one_line

FRAME = 0.05


def header(i: int, message: Any, note: str, style: str = "") -> Text:
    role = one_line(str(message.get("role"))) if isinstance(message, dict) else "?"
    text = Text.assemble((f"[{i}] ", "bold"), (role, palette.ROLE.get(role, "bold")))
    if note:
        text.append(" · " + one_line(note), style or palette.DIM)
    return text


def turn_parts(i: int, message: Any, note: str, opened: set, rows: int = OUTPUT_ROWS, style: str = "") -> list[Part]:
    """A header row and the blocks of message ``i``."""
    return [Rows([header(i, message, note, style)], ("message", i)), *message_parts(i, message, opened, rows)]


class StreamingTurn:
    """An assistant turn put together from stream events (shown only until the saved turn replaces it)."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.blocks: dict[int, dict[str, Any]] = {}

    def add(self, event: BlockStarted | Delta) -> None:
        if isinstance(event, BlockStarted):
            self.blocks[event.block] = {"type": event.type, "name": event.name, "text": ""}
        else:
            block = self.blocks.setdefault(event.block, {"type": event.kind, "name": None, "text": ""})
            block["text"] += event.text

    def parts(self) -> list[Part]:
        head = Text.assemble((f"[{self.index}] ", "bold"), ("assistant", palette.ROLE["assistant"]),
                             (" · streaming …", palette.NOTE))
        out: list[Part] = [Rows([head], ("message", self.index))]
        for b in sorted(self.blocks):
            block = self.blocks[b]
            target = ("stream", self.index, b)
            kind = one_line(str(block["type"]))
            if kind == "tool_use":
                out.append(Rows([Text.assemble(_head(kind), (one_line(str(block["name"])), "bold"))], target))
                out.append(text_part(block["text"] or "…", _pad(), target, True, OUTPUT_ROWS, palette.CODE))
            elif kind == "thinking":
                out.append(text_part(block["text"] or "…", _head("thinking"), target, True, OUTPUT_ROWS, palette.NOTE))
            else:
                out.append(text_part(block["text"] or "…", _head(kind), target, True, OUTPUT_ROWS))
        return out


class TurnsView(LineView):
    """Messages from the branch index on, the streaming turn, and notes (who answered each tool call)."""

    HELP = ("The branch: message N as edited, then each new turn as it arrives (the one being streamed is "
            "marked). Up/Down (j/k), PgUp/PgDn, Home/End scroll; Enter opens or folds the block under the cursor.")
    BINDINGS = keys.TURNS

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[tuple[int, Any, str, str]] = []  # (index, message, note, note style)
        self.notes: dict[int, list[Text]] = {}  # rows shown after message i
        self.streaming: StreamingTurn | None = None
        self.opened: set = set()
        self.follow = True
        self._pending = False

    def add_message(self, index: int, message: Any, note: str, style: str = "") -> None:
        self.streaming = None if self.streaming is not None and self.streaming.index == index else self.streaming
        self.entries.append((index, message, note, style))
        self.rebuild()

    def add_note(self, index: int, text: Text) -> None:
        self.notes.setdefault(index, []).append(text)
        self.rebuild()

    def stream(self, event: BlockStarted | Delta) -> None:
        if self.streaming is None or self.streaming.index != event.index:
            self.streaming = StreamingTurn(event.index)
        self.streaming.add(event)
        if not self._pending:
            self._pending = True
            self.set_timer(FRAME, self._frame)

    def start_stream(self, index: int) -> None:
        self.streaming = StreamingTurn(index)
        self.rebuild()

    def drop_stream(self) -> None:
        if self.streaming is not None:
            self.streaming = None
            self.rebuild()

    def _frame(self) -> None:
        self._pending = False
        self.rebuild()

    def rebuild(self) -> None:
        parts: list[Part] = []
        for index, message, note, style in self.entries:
            parts += turn_parts(index, message, note, self.opened, style=style)
            if index in self.notes:
                parts.append(Rows(self.notes[index]))
        if self.streaming is not None:
            parts += self.streaming.parts()
        at_end = self.follow and (not len(self.document) or self.cursor >= len(self.document) - 1)
        self.set_parts(parts)
        if at_end:
            self.move_cursor(len(self.document) - 1)

    def action_toggle(self) -> None:
        target = self.target()
        if target and target[0] == "block":
            key = (target[1], target[2])
            self.opened.symmetric_difference_update({key})
            self.rebuild()
