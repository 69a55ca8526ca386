"""The Response view: what message N's model call returned and when, drawn with the Line API.

The rows come from ``tui.app.render.response``; this holds the index shown, the call times
(``tui.core.timing``, computed once per run) and whether a stream's events are open. Enter on the
events row opens or folds them; a body too big to wrap on the UI thread is wrapped in a worker.
"""

from __future__ import annotations


from tui.app import keys
from tui.app.render.response import EVENTS, response_parts
from tui.app.widgets.lineview import LineView
from tui.core.timing import CallTiming, call_timings
from tui.core.view.run_view import RunView


class ResponseView(LineView):
    """Status, request id, model, stop reason, usage, timing and the response body of message N's call."""

    HELP = ("Response: what message N's model call returned. Status, request id, model, stop reason and "
            "usage as the source recorded them; when it was sent, its first byte, when it was done and the "
            "loop's time before the next request (marked where derived from a transcript's line timestamps); "
            "for recorded exchanges the answer's body as the recorder kept it. Enter on the events row opens "
            "a stream's server-sent events (Enter anywhere in the view).")
    BINDINGS = keys.RESPONSE

    def __init__(self, view: RunView, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view
        self.index: int | None = None
        self.events_open = False
        self._timings: list[CallTiming] | None = None
        self._calls = -1

    def timings(self) -> list[CallTiming]:
        """The call times, again when the run has grown (follow mode)."""
        if self._timings is None or self._calls != len(self.view.run.calls):
            self._timings, self._calls = call_timings(self.view.run), len(self.view.run.calls)
        return self._timings

    def show(self, index: int) -> None:
        """Attributes down: the response of ``index``."""
        if index == self.index and self._calls == len(self.view.run.calls):
            return
        self.index = index
        self._fill(top=True)

    def _fill(self, top: bool = False) -> None:
        if self.index is None:
            return
        keep = None if top else self.target()
        self.set_parts(response_parts(self.view, self.index, self.timings(), self.events_open), keep, top=top)

    def action_toggle(self) -> None:
        """Enter (anywhere in the view: it has one fold): open or fold the stream's events."""
        if self.document.first_row_of(EVENTS) is not None:
            self.events_open = not self.events_open
            self._fill()
            row = self.document.first_row_of(EVENTS)
            if row is not None:
                self.move_cursor(row)
