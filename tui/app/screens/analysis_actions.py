"""The stepper's review analyses: the Tokens view, provenance warnings, exact counts and the diff screen.

A mixin for ``StepperScreen`` beside ``StepperActions``. After the grammar check is on
screen, one worker computes the token report and then traces the tool inputs of every turn;
each result comes back as a typed message (``TokensReady``, ``UnsourcedReady``) and is handed
down to the message list (token column, marks), the Tokens view and the Problems view.
``D`` (or the command palette) asks for a file and opens the diff screen on it; the file is
loaded in a worker, and a file that cannot be loaded is one line, never a crash.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.worker import get_current_worker

from tui.app import app_messages as events
from tui.core.view.analyses import Stopped
from tui.app.screens.actions import VIEW
from tui.app.screens.dialogs import PromptScreen
from tui.app.widgets.request_pane import RequestPane
from tui.app.widgets.tokens_view import TokensView
from tui.core.errors import LoadError, UsageError
from tui.core.safe import one_line

if TYPE_CHECKING:  # pragma: no cover
    from tui.app.screens.stepper import StepperScreen

#: Seconds without a step before the background analyses go on.
IDLE = 0.3

TOKENS_VIEW = Binding("5", "view('tokens')", "Tokens view", id="stepper.view_tokens", group=VIEW)
DIFF = Binding("D", "diff", "Diff against a file", id="stepper.diff")  # in the footer when there is room


def with_analysis_bindings(bindings: list[Binding]) -> list[Binding]:
    """``bindings`` plus ``5`` (next to the other views, so the footer shows ``12345 View``) and ``D``."""
    out = list(bindings)
    at = next((k + 1 for k, b in enumerate(out) if b.group is VIEW and b.id == "stepper.view_problems"), len(out))
    out.insert(at, TOKENS_VIEW)
    return out + [DIFF]


class AnalysisActions:
    """Workers and handlers for the token report, provenance and the diff screen."""

    analyses_started = False

    def start_analyses(self: StepperScreen) -> None:
        if not self.analyses_started:
            self.analyses_started = True
            self.analyse_run()

    @work(thread=True, exclusive=True, group="analyses")
    def analyse_run(self: StepperScreen) -> None:
        worker = get_current_worker()
        analyses = self.view.analyses
        tick = analyses.ticker(lambda: worker.is_cancelled)
        try:
            self.post_message(events.TokensReady(analyses.compute_tokens(tick=tick)))
            self.post_message(events.UnsourcedReady(analyses.compute_unsourced(tick)))
        except Stopped:
            return

    _resume_timer = None

    def hold_analyses(self: StepperScreen) -> None:
        """A step: background analyses wait until the keys have been quiet for ``IDLE`` seconds."""
        self.view.analyses.hold()
        if self._resume_timer is None:
            self._resume_timer = self.set_timer(IDLE, self._resume_analyses)
        else:
            self._resume_timer.reset()

    def _resume_analyses(self: StepperScreen) -> None:
        self._resume_timer = None
        self.view.analyses.resume()

    @work(thread=True, exclusive=True, group="exact")
    def count_exactly(self: StepperScreen) -> None:
        from tui.core.count_tokens import CountError, TokenCounter

        counter = TokenCounter(model=self.view.run.model)
        try:
            report = self.view.analyses.compute_tokens(counter)
        except CountError as exc:
            self.post_message(events.TokensFailed(str(exc)))
            return
        self.post_message(events.TokensReady(report, exact=True, note=f"count_tokens: {counter.sent} sent, "
                                                                       f"{counter.hits} from the cache"))

    # -- results down --------------------------------------------------------------------

    def on_tokens_ready(self: StepperScreen, event: events.TokensReady) -> None:
        self.view.analyses.set_report(event.report)
        self.message_list.marks_changed()
        self.tokens_view.fill(event.note)
        if self.view_name == "tokens":
            self.tokens_view.show(self.index)

    def on_tokens_failed(self: StepperScreen, event: events.TokensFailed) -> None:
        self.tokens_view.fill(f"exact counts failed: {event.text}")
        self.notify(event.text, title="count_tokens", severity="error", markup=False)

    def on_unsourced_ready(self: StepperScreen, event: events.UnsourcedReady) -> None:
        self.view.set_unsourced(event.unsourced)
        self.message_list.marks_changed()
        self.problems.fill()
        self.show_view(self.view_name)
        self.describe_status()
        self.refresh_bindings()

    def on_tokens_view_exact_wanted(self: StepperScreen, _: TokensView.ExactWanted) -> None:
        self.count_exactly()

    def on_request_pane_source_chosen(self: StepperScreen, event: RequestPane.SourceChosen) -> None:
        place = event.value.source
        if place is None:
            return
        if isinstance(place.index, int):
            self.go_to(place.index)
        self.request.show_source(event.value, event.text)
        self.request.focus()
        where = f"message {place.index}" if isinstance(place.index, int) else f"the {place.index}"
        self.notify(f"{event.value.path} came from {where} (marked)", timeout=3, markup=False)

    # -- the diff screen -----------------------------------------------------------------

    def action_diff(self: StepperScreen) -> None:
        def answer(value: str | None) -> None:
            if value and value.strip():
                self.load_diff(value.strip())

        self.app.push_screen(PromptScreen("Diff this run against a file (path; its first run if it holds several)",
                                          placeholder="path"), answer)

    @work(thread=True, exclusive=True, group="diff-load")
    def load_diff(self: StepperScreen, path: str) -> None:
        from tui.formats import load_runs

        try:
            runs = load_runs(path)
        except LoadError as exc:
            self.post_message(events.LoadFailed(path, exc.line_text()))
            return
        except (UsageError, OSError) as exc:
            self.post_message(events.LoadFailed(path, f"{path}: {exc}"))
            return
        note = f"{path} holds {len(runs)} runs: comparing with run 0" if len(runs) > 1 else None
        self.post_message(events.DiffLoaded(path, runs[0], note))

    def on_diff_loaded(self: StepperScreen, event: events.DiffLoaded) -> None:
        from tui.app.screens.diff import DiffScreen

        if event.note:
            self.notify(event.note, markup=False)
        self.app.push_screen(DiffScreen(self.view.run, event.run, self.view.run.source.path, event.path))

    def on_load_failed(self: StepperScreen, event: events.LoadFailed) -> None:
        """The file to diff against cannot be loaded: one line, in the status bar and as a notification."""
        event.stop()
        self.status.update(Text.assemble(("cannot diff: ", "bold"), one_line(event.text)))
        self.notify(event.text, title="Cannot diff", severity="error", markup=False)


class DiffProvider(Provider):
    """The command palette's "Diff against a file…": asks for a path, then opens the diff screen."""

    TEXT = "Diff against a file…"

    def _open(self) -> None:
        self.screen.action_diff()  # type: ignore[attr-defined]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        score = matcher.match(self.TEXT)
        if score > 0:
            yield Hit(score, matcher.highlight(self.TEXT), self._open, help="compare this run with another file (D)")

    async def discover(self) -> Hits:
        yield DiscoveryHit(Content(self.TEXT), self._open, help="compare this run with another file (D)")
