"""Provenance in the request pane: tracing message N's tool inputs, and Enter on a value.

A mixin for ``RequestPane`` (its messages ``Traced`` and ``SourceChosen`` are declared there,
so their handler names stay ``on_request_pane_*``). The first trace of a run builds the value
index in a worker that yields to the keys (``RunAnalyses.ticker``); Enter on a traced value
posts ``SourceChosen`` and the screen moves to the source, where ``show_source`` opens what
holds the value, marks it (reverse video, so it reads without colour) and puts the cursor on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.worker import get_current_worker

from tui.app.render import styles as palette
from tui.core.view.analyses import Stopped
from tui.app.render.lines import Target
from tui.core.provenance import Value, source_text

if TYPE_CHECKING:  # pragma: no cover
    from tui.app.widgets.request_pane import RequestPane


class SourceMarks:
    """Traces in a worker; Enter on a value; the mark at its source."""

    @work(thread=True, exclusive=True, group="request-trace")
    def _trace(self: RequestPane, n: int) -> None:
        worker = get_current_worker()
        analyses = self.view.analyses
        try:  # the first trace builds the run's value index: it yields to the keys like the other analyses
            analyses.compute_trace(n, analyses.ticker(lambda: worker.is_cancelled))
        except Stopped:
            return
        self.post_message(self.Traced(n))

    def on_request_pane_traced(self: RequestPane, message: RequestPane.Traced) -> None:
        if message.index == self.index:
            self._build(self.target())

    def _choose_source(self: RequestPane, target: Target) -> None:
        _, n, k = target
        trace = self.view.analyses.trace(n)
        if trace is None or not 0 <= k < len(trace.values):
            return
        value = trace.values[k]
        self.post_message(self.SourceChosen(value, source_text(self.view.run, value)))

    def show_source(self: RequestPane, value: Value, text: str | None) -> None:
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

    def _row_with(self: RequestPane, target: Target, text: str | None) -> int | None:
        """The first row of ``target`` that holds ``text``."""
        doc = self.document
        row = doc.first_row_of(target)
        if row is None or not text:
            return None
        for y in range(row, min(len(doc), row + 100_000)):
            if doc.target(y) != target:
                return None
            if text in doc.row(y).plain:
                return y
        return None

    def style_row(self: RequestPane, row: int, text: Text) -> Text:
        mark = self.source_mark
        if mark is None or not mark[2] or mark[0] != self.index or self.document.target(row) != mark[1]:
            return text
        text = text.copy()
        text.highlight_words([mark[2]], palette.SOURCE, case_sensitive=True)
        return text
