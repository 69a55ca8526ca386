"""The message list: one row per message, drawn with the Line API (a 20,000-message run costs its visible rows).

Each row shows the index, role, producer (caller, call k, loop), the blocks in brief,
the stop_reason (one read from the blocks, in parentheses, gives way to the summary when the row is
short) and a mark where the grammar check found something (✗ error, △ warning, ◦ provenance note).
The last row is the next request: what the loop holds after the final message. The list
owns the cursor keys and posts ``MessageList.Moved``; the screen's ``run_state`` (bound in its
``compose``) sets the cursor back and redraws the marks when an analysis arrives.
"""

from __future__ import annotations

from bisect import bisect_right

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.reactive import var
from textual.strip import Strip

from tui.app import keys
from tui.app.app_messages import IndexMessage
from tui.app.render import styles as palette
from tui.app.render.lines import fit, segments
from tui.app.run_state import RunState
from tui.app.widgets.cursor_rows import CursorRows
from tui.core.timing import duration
from tui.core.view.run_view import RunView

#: The token column: ``~1.4k``, ``=14k``, ``123k``.
TOKENS_WIDTH = 6
#: The latency column (``L``): ``840ms``, ``12.4s``, ``3m05s``; ``~`` before it where derived from transcript times.
LATENCY_WIDTH = 7


def latency_label(ms: float | None, derived: bool) -> str:
    """The latency column's text: ``840ms``, ``12.4s``, ``3m05s``, ``2h04m``, ``3d07h``, ``~`` first where derived."""
    return "" if ms is None else ("~" if derived else "") + duration(ms, compact=True)


class MessageList(CursorRows):
    """Rows of the run; the cursor is the index N the other views show."""

    HELP = ("The message list: index, role, producer (caller, model call k, loop), the blocks of each "
            "message (a tool call as the tool and its telling argument, a result as the tool it answers), its "
            "stop_reason, and ✗ (error) or △ (warning) where the grammar check found something, ◦ a "
            "provenance note. In a branch file, * marks the edited message N and + each message the branch "
            "added. Once counted, each row a model call produced shows the input tokens of its request "
            "(~ marks an offline estimate, = a count_tokens count, a plain number the usage the provider "
            "recorded). L adds each model call's time as recorded (~ where derived from a transcript's line times). The last "
            "row is the next request. Down/Up (j/k) step one message; Enter moves into the view beside the list.")
    COMPONENT_CLASSES = {"message-list--cursor"}
    CURSOR_CLASS = "message-list--cursor"
    BINDINGS = keys.MESSAGE_LIST

    class Moved(IndexMessage):
        """The user moved the cursor to ``index``. A newer move replaces one not yet handled, so a held
        key is one step per frame the screen draws, not one per key repeat."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, MessageList.Moved)

    #: Bound to the stepper's: the index to put the cursor on, and the analyses that mark rows.
    run_state: var[RunState] = var(RunState(), init=False)

    def __init__(self, view: RunView, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view
        self.virtual_size = Size(0, view.rows)
        #: The latency column (``L``): each model call's time as the source recorded it.
        self.show_latency = False
        #: The message indices shown while a filter is on (``&``), in order; None: every row.
        self.shown: list[int] | None = None
        #: The cursor's ``▶`` drawn once (by the console it was drawn for).
        self._arrow: tuple[object, list] | None = None

    # -- attributes down -----------------------------------------------------------------

    def watch_run_state(self, old: RunState, new: RunState) -> None:
        changed = new.changed(old)
        if "step" in changed:
            self.set_cursor(new.index)
        if changed & {"findings", "tokens", "unsourced"}:  # the marks and the token column
            self.marks_changed()

    def set_cursor(self, index: int) -> None:
        self.move_cursor(self.row_of(index))

    def set_shown(self, shown: list[int] | None, index: int) -> None:
        """A filter on (the message indices to show) or off (None); the cursor on ``index`` or the row
        nearest before it."""
        self.shown = shown
        self.virtual_size = Size(0, self.row_count())
        self._strips.clear()
        self.refresh()
        self.set_cursor(index)

    def row_of(self, index: int) -> int:
        """The row showing message ``index`` (hidden by the filter: the shown row before it)."""
        if self.shown is None:
            return index
        return max(bisect_right(self.shown, index) - 1, 0)

    def index_of(self, row: int) -> int:
        return row if self.shown is None else self.shown[row]

    def on_resize(self) -> None:
        # The cursor placed before the first layout (``--at N``) had no height to scroll by, and a
        # smaller terminal can leave it below the list: keep the current message in view.
        self.follow_cursor()

    def rows_changed(self) -> None:
        """The run grew or was loaded again (follow mode): its rows now, drawn again."""
        self.virtual_size = Size(0, self.row_count())
        self._strips.clear()
        self.refresh()

    def marks_changed(self) -> None:
        """Findings arrived: redraw the marks."""
        self._strips.clear()
        self.refresh()

    # -- drawing -------------------------------------------------------------------------

    def row_count(self) -> int:
        return self.view.rows if self.shown is None else len(self.shown)

    def row_text(self, i: int, width: int) -> Text:
        view = self.view
        digits = len(str(view.total))
        if i >= view.total:
            row = Text.assemble("  ", (str(i).rjust(digits), palette.DIM), " ", ("next request", "italic"))
            cut = view.run.meta.get("cut_off")
            if isinstance(cut, dict):  # the file ends inside a line: the turn in flight when the run stopped
                row.append(f" · line {cut.get('line')}: cut off, {cut.get('bytes'):,} bytes", palette.WARNING)
            row.append(" · the state after the last message", palette.DIM)
            return row
        severity = view.severity(i)
        mark, mark_style = palette.MARK.get(severity, (" ", ""))
        role = view.role(i)
        producer = view.producers[i]
        label_width = len(f"call {len(view.run.calls)}")
        stop = view.stop_reason(i) or ""
        new = view.branch_mark(i)  # a branch file: + on the rows the branch added, * on the edited message
        head = Text.assemble((mark, mark_style), (new, palette.WARNING if new != " " else ""),
                             (str(i).rjust(digits), palette.DIM), " ",
                             (role.ljust(9), palette.ROLE.get(role, "")), " ",
                             (producer.label.ljust(label_width), palette.PRODUCER.get(producer.kind, palette.DIM)), " ")
        if view.analyses.report is not None:  # the input tokens of the request that produced i
            head.append(view.analyses.input_label(i).rjust(TOKENS_WIDTH) + " ", palette.DIM)
        if self.show_latency:
            call = view.run.call_for(i)
            label = latency_label(call.duration_ms, call.derived_timing) if call is not None else ""
            head.append(label.rjust(LATENCY_WIDTH) + " ", palette.DIM)
        room = width - head.cell_len - (len(stop) + 1 if stop else 0) - 1
        if stop.startswith("(") and cell_len(view.summary(i)) > room:
            # a stop_reason read from the blocks says what the row already shows: the summary gets its room
            room, stop = room + len(stop) + 1, ""
        summary = fit(view.summary(i), room)  # by terminal cells: CJK and emoji take two
        text = head + Text(summary + " " * max(room - cell_len(summary), 0))
        if stop:
            text.append(" " + stop, palette.WARNING if stop == "max_tokens" else palette.DIM)
        return text

    def line_text(self, row: int, width: int) -> Text:
        text = Text(" ") + self.row_text(self.index_of(row), width - 1)
        if text.cell_len > width:  # a list narrower than its columns: the row ends in an ellipsis, not mid-glyph
            text.truncate(width, overflow="ellipsis")
        return text

    def cursor_strip(self, strip: Strip) -> Strip:
        """The cursor row: ``▶`` in its first cell (it reads without colour)."""
        console = self.app.console
        if self._arrow is None or self._arrow[0] is not console:
            self._arrow = (console, segments(Text("▶", "bold"), console))
        return super().cursor_strip(Strip([*self._arrow[1], *strip.crop(1)]))

    # -- keys and clicks (messages up) ---------------------------------------------------

    def user_move(self, row: int) -> None:
        # The cursor moves now (the next key steps on from it) but is drawn when the screen sets it
        # (``set_cursor``, with the header and the request): one frame per step, not a frame of the
        # list alone first, which the screen's frame waited behind.
        self.cursor = self.clamp(row)
        self.post_message(self.Moved(self.index_of(self.cursor)))

    def on_click(self, event: events.Click) -> None:
        self.user_move(self.scroll_offset.y + event.y)
