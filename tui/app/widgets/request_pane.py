"""The request pane: the request that produced message N, drawn lazily with the Line API.

Params, System and Tools (folded to a line each; ``s``/``t`` or Enter open them), then
messages 0..N-1 — the older ones one summary row each, the last two open — then message N
marked as the model's output or the loop's, with its findings. Enter on a row opens or
folds what it belongs to. A prefix of 20,000 messages is one part per run of folded rows,
so a step costs the same at the last index as at the first.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.cache import LRUCache
from textual.worker import get_current_worker
from textual.message import Message

from tui.app import keys
from tui.app.app_messages import IndexMessage
from tui.app.render import sections
from tui.app.render import styles as palette
from tui.app.render.blocks import FOLD_ROWS, OUTPUT_ROWS, message_parts
from tui.app.render.lines import Mark, Part, Rows, Target
from tui.app.render.traceparts import trace_parts
from tui.app.widgets.lineview import LineView
from tui.core.client_added import added_blocks
from tui.core.grammar.recorded import returned_differs
from tui.core.prefix import request_at
from tui.core.provenance import Value, source_text
from tui.core.view.analyses import Stopped, has_tool_use
from tui.core.view.run_view import RunView, summary_of

#: Prefix messages open by default, counting back from N.
RECENT = 2


def in_block(target: Target, block: Target) -> bool:
    """``target`` is ``block`` or a field inside it (``("field", i, b, path)`` inside ``("block", i, b)``)."""
    if target == block:
        return True
    return bool(target and block and target[0] == "field" and block[0] == "block" and target[1:3] == block[1:3])


def _of_message(entry: tuple) -> int:
    """The message an entry of ``blocks_open`` belongs to: ``(i, b)``, or ``("fold", i, b, path)``."""
    return entry[1] if entry[0] == "fold" else entry[0]


class FoldedRange(Part):
    """Messages a..b-1 of the request, one summary row each, drawn only when on screen."""

    def __init__(self, pane: RequestPane, a: int, b: int, messages: list):
        self.pane, self.a, self.b, self.messages = pane, a, b, messages

    def count(self, width: int) -> int:
        return self.b - self.a

    def row(self, k: int, width: int) -> Text:
        text = self.pane.folded_row(self.a + k, self.messages[self.a + k])
        text.truncate(width, overflow="ellipsis")
        return text

    def target_at(self, k: int) -> Target:
        return ("message", self.a + k)

    def row_of(self, target: Target) -> int | None:
        if target and target[0] == "message" and self.a <= target[1] < self.b:
            return target[1] - self.a
        return None


class RequestPane(LineView):
    """The request that produced message N."""

    HELP = ("The request that produced message N: params, the System prompt and Tools (s, t), messages "
            "0..N-1 (older ones folded), and message N marked as the model's or the loop's output. "
            "Enter opens or folds the message, block, section or schema under the cursor; z folds all. "
            "Under a turn with tool calls, each input value is listed with where it came from: Enter on "
            "one goes to that message with the value marked.")
    BINDINGS = keys.REQUEST

    class Traced(IndexMessage):
        """The provenance of message ``index``'s tool inputs is traced (in a worker)."""

    class SourceChosen(Message):
        """Enter on a traced value: go to where it came from and mark ``text`` there."""

        def __init__(self, value: Value, text: str | None) -> None:
            super().__init__()
            self.value = value
            self.text = text

    def __init__(self, view: RunView, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view
        self.index = 0
        self.system_open = False
        self.tools_open = False
        self.schemas: set[int] = set()
        self.messages_open: dict[int, bool] = {}
        #: ``(i, b)``: block b of message i opened; ``("fold", i, b, path)``: a field in it flipped.
        self.blocks_open: set[tuple] = set()
        self._cache: LRUCache[tuple, list[Part]] = LRUCache(256)
        #: ``(index, target, text)``: a traced value marked at its source while ``index`` is shown.
        self.source_mark: tuple[int, Target, str] | None = None

    # -- building ------------------------------------------------------------------------

    def show(self, index: int, follow: bool = True) -> None:
        """Attributes down: draw the request for ``index``."""
        if self.source_mark is not None and self.source_mark[0] != index:
            self.source_mark = None
            self._strips.clear()
        self.index = index
        self._build(None, follow)

    def _build(self, keep: Target, follow: bool = False) -> None:
        view, n = self.view, self.index
        req = request_at(view.run, n)
        messages = req.body["messages"]
        headers = sections.headers_part(view.run)
        parts: list[Part] = [sections.params_part(req), *([headers] if headers else []),
                             *sections.system_parts(req, self.system_open),
                             *sections.tools_parts(req, self.tools_open, self.schemas)]
        count = len(messages)
        title = f"Messages 0..{count - 1} ({count:,}) sent with this request" if count else "Messages: none"
        parts.append(Rows([Text(title, palette.HEADING)]))
        opened = sorted(i for i in {*range(max(count - RECENT, 0), count), *self.messages_open}
                        if i < count and self.messages_open.get(i, i >= count - RECENT))
        start = 0
        for i in opened:
            if i > start:
                parts.append(FoldedRange(self, start, i, messages))
            parts += self._open_message(i, messages[i])
            start = i + 1
        if start < count:
            parts.append(FoldedRange(self, start, count, messages))
        parts += self._output(n)
        self._parts = parts
        self._layout()
        top_row = None
        if follow:
            anchor = self.document.first_row_of(("message", count - 1)) if count else 0
            fits = len(self.document) <= self.scrollable_content_region.height
            top_row = 0 if fits or anchor is None else anchor
        self.place_cursor(keep, top_row)

    def _open_message(self, i: int, message) -> list[Part]:
        view = self.view
        is_run_message = i < view.total and message is view.run.messages[i]
        role = view.role(i) if is_run_message else str(message.get("role") if isinstance(message, dict) else "?")
        mark = palette.MARK.get(view.severity(i)) if is_run_message else None
        head = sections.message_head(i, role, view.producers[i], view.stop_reason(i), True, mark)
        return [Rows([head], ("message", i)), *self._body(i, message, is_run_message)]

    def _body(self, i: int, message, is_run_message: bool, rows: int = FOLD_ROWS) -> list[Part]:
        """Message ``i``'s block parts (``rows``: the rows a folded block shows; the output's are more),
        kept by what they show: a step draws message N as the output and, next, as the last message open."""
        key = (i, id(message), rows, tuple(sorted((x for x in self.blocks_open if _of_message(x) == i), key=repr)))
        body = self._cache.get(key)
        if body is None:
            marks = added_blocks(self.view.run, i) if is_run_message else None
            body = self._cache[key] = message_parts(i, message, self.blocks_open, rows, marks)
        return body

    def _output(self, n: int) -> list[Part]:
        view = self.view
        if n >= view.total:
            return [Rows([sections.output_head(n, view.total, "", None, None)])]
        head = sections.output_head(n, view.total, view.role(n), view.producers[n], view.stop_reason(n))
        parts: list[Part] = [Rows([head], ("output", n))]
        found = view.findings_at(n)
        if found:
            parts.append(Rows(sections.finding_rows(found)))
        parts += self._body(n, view.run.messages[n], True, OUTPUT_ROWS)
        call = view.run.call_for(n)
        if call is not None and returned_differs(call, view.run.messages[n]):  # the seeds' rewritten turn
            parts.append(Rows([Text(f" what model call {view.run.call_index(n) + 1} returned (differs from the "
                                    f"stored message {n}) ", "bold reverse")]))
            parts += message_parts(-1 - n, {"role": "assistant", "content": call.response}, self.blocks_open,
                                   OUTPUT_ROWS)
        if has_tool_use(view.run.messages[n]):
            trace = view.analyses.trace(n)
            if trace is None:
                self._trace(n)
            parts += trace_parts(view, n, trace)
        return parts

    def folded_row(self, i: int, message) -> Text:
        view = self.view
        is_run_message = i < view.total and message is view.run.messages[i]
        role = view.role(i) if is_run_message else str(message.get("role") if isinstance(message, dict) else "?")
        text = sections.message_head(i, role, view.producers[i], None, False,
                                     palette.MARK.get(view.severity(i)) if is_run_message else None)
        summary = view.summary(i) if is_run_message else summary_of(message)
        return text + Text("  " + summary, palette.DIM)

    # -- folding -------------------------------------------------------------------------

    def toggle(self, target: Target) -> None:
        if not target:
            return
        kind = target[0]
        if kind == "system":
            self.system_open = not self.system_open
        elif kind == "tools":
            self.tools_open = not self.tools_open
        elif kind == "schema":
            self.schemas ^= {target[1]}
        elif kind == "message":
            i = target[1]
            count = min(self.index, self.view.total)
            self.messages_open[i] = not self.messages_open.get(i, i >= count - RECENT)
        elif kind == "block":
            self.blocks_open ^= {(target[1], target[2])}
        elif kind == "field":  # a nested object folded, or a payload opened, inside a block
            self.blocks_open ^= {("fold", *target[1:])}
        else:
            return
        self._build(target)

    def action_activate(self) -> None:
        target = self.target()
        if target and target[0] == "source":
            self._choose_source(target)
            return
        self.toggle(target)

    def action_fold_all(self) -> None:
        self.system_open = self.tools_open = False
        self.schemas.clear()
        self.blocks_open.clear()
        self.messages_open = {i: False for i in range(max(self.index - RECENT, 0), self.index)}
        self._build(None, follow=True)

    # -- provenance: tracing message N's tool inputs, and Enter on a value ---------------
    # The first trace of a run builds the value index in a worker that yields to the keys
    # (``RunAnalyses.ticker``); Enter on a traced value posts ``SourceChosen`` and the screen
    # moves to the source, where ``show_source`` opens what holds the value, marks it (reverse
    # video, so it reads without colour) and puts the cursor on it.

    @work(thread=True, exclusive=True, group="request-trace")
    def _trace(self, n: int) -> None:
        worker = get_current_worker()
        analyses = self.view.analyses
        try:  # the first trace builds the run's value index: it yields to the keys like the other analyses
            analyses.compute_trace(n, analyses.ticker(lambda: worker.is_cancelled))
        except Stopped:
            return
        self.post_message(self.Traced(n))

    def on_request_pane_traced(self, message: RequestPane.Traced) -> None:
        if message.index == self.index:
            self._build(self.target())

    def _choose_source(self, target: Target) -> None:
        _, n, k = target
        trace = self.view.analyses.trace(n)
        if trace is None or not 0 <= k < len(trace.values):
            return
        value = trace.values[k]
        self.post_message(self.SourceChosen(value, source_text(self.view.run, value)))

    def show_source(self, value: Value, text: str | None) -> None:
        """Mark ``text`` where ``value`` came from (message N is the source, or the system prompt or a tool
        schema of this request), opening what holds it, and put the cursor on it."""
        place = value.source
        if place is None:
            return
        if place.index == "system":
            target: Target = ("system",)
            self.system_open = True
        elif place.index == "tools":
            target = ("schema", place.block)
            self.tools_open = True
            self.schemas.add(place.block)
        else:
            target = ("block", place.index, place.block)
            if not self._row_with(target, text):
                self.blocks_open.add((place.index, place.block))
        self.source_mark = (self.index, target, text or "")
        self._strips.clear()
        self._build(target)
        row = self._row_with(target, text)
        if row is not None:
            self.cursor = row
        self.scroll_to(y=max(self.cursor - 2, 0), animate=False, immediate=True)
        self.refresh()

    def _row_with(self, target: Target, text: str | None) -> int | None:
        """The first row of ``target`` that holds ``text``."""
        doc = self.document
        row = doc.first_row_of(target)
        if row is None or not text:
            return None
        for y in range(row, min(len(doc), row + 100_000)):
            if not in_block(doc.target(y), target):
                return None
            if text in doc.row(y).plain:
                return y
        return None

    def row_marks(self, row: int) -> list[Mark]:
        marks = super().row_marks(row)
        mark = self.source_mark
        if mark is None or not mark[2] or mark[0] != self.index or not in_block(self.document.target(row), mark[1]):
            return marks
        return [*marks, (mark[2], palette.SOURCE, True)]
