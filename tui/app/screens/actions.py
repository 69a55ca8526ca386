"""The stepper's keys and actions, and the workers behind the slow ones (check, search, copy).

Keys are data: every binding has an id, so a keymap file can move it — ``keymap.json`` in
turnscope's config directory, for example ``{"stepper.next_match": "ctrl+n"}``. Vim-style
aliases are hidden from the footer; ``?`` lists them all. ``StepperActions`` is a mixin for
``StepperScreen`` so the screen module stays about layout and routing. Each worker posts a
typed message (``tui.app.app_messages``) that the screen handles on the UI thread; nothing here
touches a widget from a worker thread.
"""


from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.worker import get_current_worker

from tui.app import app_messages as events
from tui.app.footer_fit import FittedFooter
from tui.app.screens.dialogs import PromptScreen
from tui.core.search import Matches, search
from tui.core.grammar import check_run
from tui.core.prefix import request_at, request_json
from tui.core.safe import one_line

if TYPE_CHECKING:  # pragma: no cover
    from tui.app.screens.stepper import StepperScreen


CALL = Binding.Group("Call")
MATCH = Binding.Group("Match")
FINDING = Binding.Group("Finding")
VIEW = Binding.Group("View", compact=True)

STEPPER_BINDINGS = [
    Binding("n", "call(1)", "Next model call", id="stepper.next_call", group=CALL),
    Binding("p", "call(-1)", "Previous model call", id="stepper.prev_call", group=CALL),
    Binding("g", "edge(-1)", "First message", show=False, id="stepper.first"),
    Binding("G", "edge(1)", "Last message", show=False, id="stepper.last"),
    Binding("colon", "goto", "Go to index", show=False, id="stepper.goto"),
    Binding("slash", "search", "Search", id="stepper.search"),
    Binding("greater_than_sign", "match(1)", "Next match", id="stepper.next_match", group=MATCH),
    Binding("less_than_sign", "match(-1)", "Previous match", id="stepper.prev_match", group=MATCH),
    Binding("right_square_bracket", "finding(1)", "Next finding", id="stepper.next_finding", group=FINDING),
    Binding("left_square_bracket", "finding(-1)", "Previous finding", id="stepper.prev_finding", group=FINDING),
    Binding("s", "toggle('system')", "System prompt", show=False, id="stepper.system"),
    Binding("t", "toggle('tools')", "Tools", show=False, id="stepper.tools"),
    Binding("1", "view('request')", "Request view", id="stepper.view_request", group=VIEW),
    Binding("2", "view('raw')", "Raw view", id="stepper.view_raw", group=VIEW),
    Binding("3", "view('account')", "Account view", id="stepper.view_account", group=VIEW),
    Binding("4", "view('problems')", "Problems view", id="stepper.view_problems", group=VIEW),
    Binding("y", "copy", "Copy", id="stepper.copy"),
    Binding("c", "copy", "Copy", show=False, id="stepper.copy.alt"),
    Binding("escape", "back", "Back to the list", show=False, id="stepper.back"),
]


#: What leaves the stepper's footer when it does not fit, first entry first (``tui.app.footer_fit``).
#: Always there: / Search, 12345 View, b Branch, q Quit, ? Keys. At 80 columns on a clean run the
#: footer is ↑↓ Step, n p Call, / Search, 12345 View, b Branch, q Quit, ? Keys; a run with findings
#: swaps Step and Call for ] [ Finding, an active search for > < Match; a focused view's own keys
#: (enter, w, x) go before Call does. ``?`` lists every key.
STEPPER_FOOTER_DROP = (
    ("stepper.diff",),
    ("stepper.copy",),
    ("stepper.branches",),
    ("tokens.go",),  # enter: the Tokens view's heading says so
    ("request.toggle",),  # enter: the request pane's heading says so
    ("list.next", "list.prev"),
    ("stepper.next_call", "stepper.prev_call"),
    ("raw.exact",),
    ("tokens.exact",),
    ("stepper.next_finding", "stepper.prev_finding"),
    ("stepper.next_match", "stepper.prev_match"),
)


class StepperActions(FittedFooter):
    """Actions bound in ``STEPPER_BINDINGS``."""

    FOOTER_DROP = STEPPER_FOOTER_DROP

    # -- workers -------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="findings")
    def check_run(self: StepperScreen) -> None:
        self.post_message(events.FindingsReady(check_run(self.view.run)))

    @work(thread=True, exclusive=True, group="search")
    def run_search(self: StepperScreen, query: str, origin: int) -> None:
        worker = get_current_worker()
        hits = search(self.view.run, query, lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(events.SearchDone(Matches(query, hits), origin))

    @work(thread=True, exclusive=True, group="copy")
    def copy_request(self: StepperScreen, index: int) -> None:
        body = request_json(self.view.run, index)
        self.post_message(events.CopyReady(index, body.decode("utf-8", "surrogateescape")))

    def on_copy_ready(self: StepperScreen, event: events.CopyReady) -> None:
        self.app.copy_to_clipboard(event.text)
        size = len(event.text.encode("utf-8", "surrogatepass"))
        note = " (many terminals refuse OSC 52 payloads this large)" if size > 1_000_000 else ""
        wording = request_at(self.view.run, event.index).wording
        self.notify(f"Copied the request body for message {event.index} ({wording}): {size:,} bytes, via OSC 52{note}",
                    title="Copied", markup=False)

    # -- actions -------------------------------------------------------------------------

    def check_action(self: StepperScreen, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "match":
            return self.matches is not None and bool(self.matches.rows)
        if action == "finding":
            return bool(self.view.findings) or bool(self.view.analyses.unsourced)
        if action == "back":
            return len(self.app.screen_stack) > 2
        return True

    def _go_or_say(self: StepperScreen, found: int | None, step: int, what: str) -> None:
        """Go to ``found``, or say there is no later (earlier) ``what``."""
        if found is None:
            self.notify(f"No {'later' if step > 0 else 'earlier'} {what}.", timeout=2)
        else:
            self.go_to(found)

    def action_call(self: StepperScreen, step: int) -> None:
        self._go_or_say(self.view.next_call(self.index, step), step, "model call")

    def action_edge(self: StepperScreen, step: int) -> None:
        self.go_to(0 if step < 0 else max(self.view.total - 1, 0))

    def action_finding(self: StepperScreen, step: int) -> None:
        self._go_or_say(self.view.next_finding(self.index, step), step, "finding")

    def action_match(self: StepperScreen, step: int) -> None:
        if self.matches is None:
            return
        found = self.matches.step(self.index, step)
        if found is not None:
            self.go_to(found)
        self.describe_status()

    def action_goto(self: StepperScreen) -> None:
        last = self.view.total

        def answer(value: str | None) -> None:
            if value is None or not value.strip():
                return
            try:
                n = int(value.strip())
            except ValueError:
                self.notify(f"Not an index: {value[:40]!r}", severity="error", markup=False)
                return
            n = n + last if n < 0 else n
            if not 0 <= n <= last:
                self.notify(f"No message {value.strip()[:20]}: the run has 0..{last - 1} (and {last}, the next request)",
                            severity="error", markup=False)
                return
            self.go_to(n)

        self.app.push_screen(PromptScreen(f"Go to message (0..{last - 1}, {last} is the next request)",
                                          placeholder="index"), answer)

    def action_search(self: StepperScreen) -> None:
        def answer(value: str | None) -> None:
            if value:
                self.status.update(Text(f"searching every block for {one_line(value[:60])!r} …", "italic"))
                self.run_search(value, self.index)

        previous = self.matches.query if self.matches is not None else ""
        self.app.push_screen(PromptScreen("Search every block (text, thinking, tool names, inputs and results)",
                                          placeholder="words", value=previous), answer)

    def action_toggle(self: StepperScreen, section: str) -> None:
        if self.view_name != "request":
            self.show_view("request")
        self.request.toggle((section,))

    def action_view(self: StepperScreen, name: str) -> None:
        self.show_view(name)

    def action_copy(self: StepperScreen) -> None:
        self.copy_request(self.index)

    def action_back(self: StepperScreen) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
