"""Review a branch before it is sent: the patch, the model, the step limit, and who answers tool calls.

``ReviewScreen`` shows what will be sent — the parent, the index, the model, the step
limit, the messages dropped, every warning and the RFC 6902 patch itself — and lets the
user choose the resolver (``r`` cycles through them):

- ``recorded`` (the default): the parent run's own result for the same tool name and
  input; a call it never made is asked of the user (the manual resolver);
- ``manual``: every call is asked of the user;
- ``stop``: the branch stops at the first tool call and leaves it unanswered
  (``turnscope branch --resume`` can answer it later);
- ``python``: ``FUNCTION(name, input)`` from the user's module, typed as
  ``MODULE:FUNCTION`` or ``path/to/file.py:FUNCTION`` (built with ``make_resolver``, so
  the app and ``--resolver python:...`` take the same specs). A module that cannot be
  imported, or has no such function, is said inline and nothing is sent.

It also makes the branch an experiment: ``s``/``S`` set the samples K (default 1), ``c``
toggles "with a control" (the same request unedited, sampled K times too; on by default once
K > 1), ``e`` names the event to count in each sample (a tool name, ``TOOL:PATH=VALUE`` or
``text:WORDS``, as ``--event``). With K > 1 the dialog shows the estimated input tokens of
the first calls (K x the edited request, x2 with the control: recorded usage or the offline
estimate, said which; ``tui.core.branch.experiment.request_estimate``), says when the request
sets temperature 0 (the samples would be identical), and when that cost is above
``experiment.confirm_tokens()`` (50,000 input tokens; ``TURNSCOPE_CONFIRM_TOKENS``) or cannot be
estimated, Enter asks to confirm it before anything is sent. K samples run without a person to ask: the manual resolver is refused and
``recorded`` stops a sample at a call the run never made, as headless.

Enter sends (dismissing with a ``ReviewChoice``); Escape goes back to editing (None).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from rich.text import Text
from textual import getters, work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tui.app import keys
from tui.app.footer_fit import FittedFooter
from tui.app.render import styles as palette
from tui.app.screens.branch.dialogs import finding_lines
from tui.app.screens.dialogs import PromptScreen
from tui.app.widgets.keys_footer import KeysFooter
from tui.core.branch.experiment import DEFAULT_CONCURRENCY, confirm_tokens
from tui.core.branch.tally import Event
from tui.core.branch.edit import Verdict, json_text
from tui.core.branch.resolvers import Resolver, StopResolver, make_resolver
from tui.core.errors import UsageError
from tui.core.safe import one_line, visible

#: Lines of the patch shown before it is cut (the whole patch is in the branch file).
PATCH_LINES = 400

#: The samples ``s``/``S`` step through (any K works headless).
SAMPLES = (1, 2, 3, 5, 10, 20, 50, 100)

#: The resolvers offered, in the order ``r`` cycles through them, and what each does.
RESOLVERS = {
    "recorded": "the run's own result for the same call; otherwise you are asked",
    "manual": "you type every result (or mark it an error)",
    "stop": "the branch stops at the first tool call and leaves it unanswered",
    "python": "FUNCTION(name, input) from your module answers each call (tab leaves the field)",
}


@dataclass
class ReviewChoice:
    """What the user chose to send: the step limit, the resolver's spec (as the lineage records it)
    and, for ``python:``, the resolver already built (its module imported once, here)."""

    max_steps: int
    resolver: str
    built: Resolver | None = None
    samples: int = 1  # K > 1: an experiment (``tui.core.branch.experiment``)
    control: bool = False  # with K > 1: K samples of the unedited request too
    event: str | None = None  # the event to count in each sample (``tally.Event`` spec)


def python_resolver(target: str) -> tuple[str, Resolver]:
    """``python:MODULE:FUNCTION`` from what was typed (with or without ``python:``); UsageError if bad."""
    target = target.strip().removeprefix("python:")
    if not target:
        raise UsageError("type MODULE:FUNCTION (or path/to/file.py:FUNCTION) for the python resolver")
    spec = f"python:{target}"
    return spec, make_resolver(spec, None, StopResolver())


class ReviewScreen(FittedFooter, ModalScreen[ReviewChoice | None]):
    """The patch and everything else that will be sent; Enter sends, Escape goes back to editing."""

    HELP = ("Review the branch before it is sent: the RFC 6902 patch against the parent request, the model, "
            "the step limit (+/- change it) and who answers tool calls (r: recorded, manual, stop or your own "
            "python:MODULE:FUNCTION). s/S set the samples K: with K > 1 the edit is an experiment, sampled K "
            "times against a control (c toggles it: the same request unedited, K times), e names the event to "
            "count (a tool name, TOOL:PATH=VALUE or text:WORDS); its cost is shown, and asked before sending above 50,000 input "
            "tokens (TURNSCOPE_CONFIRM_TOKENS sets another). "
            "Enter sends; Escape goes back.")
    BINDINGS = keys.REVIEW
    FOOTER_DROP = keys.REVIEW_FOOTER_DROP
    summary = getters.query_one("#review-summary", Static)
    target = getters.query_one("#review-python", Input)
    problem = getters.query_one("#review-problem", Static)

    class Estimated(Message):
        """The input tokens of one first call per arm are estimated (in a worker): ``per_request``."""

        def __init__(self, estimate: dict[str, Any] | None, error: str | None = None) -> None:
            super().__init__()
            self.estimate = estimate
            self.error = error

    def __init__(self, *, parent: str, at: int, dropped: int, model: str, patch: list, verdict: Verdict,
                 max_steps: int, saving_to: str, resolver: str = "recorded", temperature: Any = None,
                 estimate: Callable[[], dict[str, Any]] | None = None) -> None:
        super().__init__()
        self.parent_path, self.at, self.dropped, self.model = parent, at, dropped, model
        self.patch, self.verdict, self.max_steps, self.saving_to = patch, verdict, max_steps, saving_to
        self.resolver = resolver if resolver in RESOLVERS else "recorded"
        self.temperature = temperature  # the edited request's (None: unset, the API's default)
        self.estimate_of = estimate  # one first call per arm (``experiment.request_estimate`` with K = 1)
        self.estimate: dict[str, Any] | None = None
        self.estimate_error: str | None = None
        self.estimate_started = False
        self.samples = 1
        self.control = False
        self.control_chosen = False  # the user toggled it: K changes no longer move it
        self.event: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="review"):
            with VerticalScroll(id="review-patch"):  # one scroll: at 80x24 nothing of the summary is cut
                yield Static(id="review-summary")
                yield Input(placeholder="MODULE:FUNCTION or path/to/file.py:FUNCTION", id="review-python")
                yield Static(id="review-problem")
                yield Static(self._patch_text(), id="review-patch-text")
            yield KeysFooter()

    def footer_width(self) -> int:
        """The footer sits inside the dialog's box, narrower than the screen."""
        box = self.query_one("#review")
        return box.content_region.width if box.content_region.width else self.size.width

    def on_mount(self) -> None:
        self._describe()
        self.query_one("#review-patch").focus()

    @work(thread=True, exclusive=True, group="review-estimate")
    def _estimate(self) -> None:
        try:
            self.post_message(self.Estimated(self.estimate_of()))
        except Exception as exc:  # noqa: BLE001 - said in the dialog; the branch can still be sent
            self.post_message(self.Estimated(None, f"{type(exc).__name__}: {exc}"))

    def on_review_screen_estimated(self, message: Estimated) -> None:
        self.estimate, self.estimate_error = message.estimate, message.error
        self._describe()

    def cost(self) -> tuple[int | None, str]:
        """The estimated input tokens of every sample's first call, and the words for it."""
        if self.estimate is None:
            return None, (f"cannot estimate: {one_line(self.estimate_error)}" if self.estimate_error
                          else "estimating the input tokens …")
        per = self.estimate.get("per_request", {})
        arms = [("edited", per.get("edited"))] + ([("control", per.get("control"))] if self.control else [])
        total = sum(int(n or 0) * self.samples for _, n in arms)
        parts = " + ".join(f"{int(n or 0):,} x {self.samples} ({arm})" for arm, n in arms)
        return total, (f"about {total:,} input tokens for the first calls = {parts}; "
                       f"{self.estimate.get('source')}; each further step adds its own")

    def _describe(self) -> None:
        text = Text()
        text.append("Send this branch?\n", palette.HEADING)
        text.append(f"branch of {one_line(self.parent_path)} at message {self.at}: messages 0..{self.at} as edited")
        text.append(f", the {self.dropped} after it dropped\n" if self.dropped else "\n")
        text.append("model ", palette.DIM)
        text.append(one_line(self.model), "bold")
        text.append(" · step limit ", palette.DIM)
        text.append(f"{self.max_steps} model calls", "bold")
        text.append(" (+/-)\n", palette.DIM)
        text.append("tool calls answered by ", palette.DIM)
        text.append(self.resolver + (":" if self.resolver == "python" else ""), "bold")
        text.append(f" (r changes) · {RESOLVERS[self.resolver]}\n", palette.DIM)
        text.append("samples ", palette.DIM)
        text.append(str(self.samples), "bold")
        if self.samples > 1:
            text.append(" with a control" if self.control else " without a control", "bold")
            text.append(" (s/S samples, c control)", palette.DIM)
            text.append(" · event ", palette.DIM)
            text.append(one_line(self.event) if self.event else "none", "bold")
            text.append(" (e)\n", palette.DIM)
            text.append("an experiment: ", palette.DIM)
            text.append(f"{self.samples} samples of the edited request"
                        + (f" and {self.samples} of the unedited one" if self.control else "")
                        + f", at most {DEFAULT_CONCURRENCY} at a time; the API takes no seed: each sample is an "
                        "independent draw\n")
            text.append("cost: ", palette.DIM)
            text.append(self.cost()[1] + "\n")
            if self.temperature == 0:
                text.append("△ the request sets temperature 0: the samples will likely be identical, so K "
                            "adds little\n", palette.WARNING)
            if self.resolver == "manual":
                text.append("△ the manual resolver answers one branch at a time: choose recorded, stop or "
                            "python for K samples (r)\n", palette.WARNING)
            elif self.resolver == "recorded":
                text.append("a call the run never made stops that sample (no one is asked)\n", palette.DIM)
        else:
            text.append(" (s: sample K times, an experiment)\n", palette.DIM)
        text.append("saved under ", palette.DIM)
        text.append(one_line(self.saving_to) + "\n")
        finding_lines(self.verdict, text)
        text.rstrip()
        self.summary.update(text)
        self.target.display = self.resolver == "python"
        self.problem.display = False

    def _patch_text(self) -> Text:
        lines = json_text(self.patch).split("\n")
        ops = len(self.patch)
        text = Text(f"the patch: {ops} operation{'s' * (ops != 1)} (RFC 6902) against the request for "
                    f"message {self.at + 1}\n", palette.DIM)
        text.append(visible("\n".join(lines[:PATCH_LINES])), palette.CODE)
        if len(lines) > PATCH_LINES:
            text.append(f"\n… {len(lines) - PATCH_LINES:,} more lines (all of it is saved in the branch file)",
                        palette.NOTE)
        return text

    def action_steps(self, step: int) -> None:
        self.max_steps = max(1, min(self.max_steps + step, 100))
        self._describe()

    def action_samples(self, step: int) -> None:
        """The next (or previous) K of ``SAMPLES``; the control follows K > 1 until the user toggles it."""
        smaller = [k for k in SAMPLES if k < self.samples]
        larger = [k for k in SAMPLES if k > self.samples]
        if step > 0 and larger:
            self.samples = larger[0]
        elif step < 0 and smaller:
            self.samples = smaller[-1]
        if not self.control_chosen:
            self.control = self.samples > 1
        if self.samples > 1 and self.estimate_of is not None and not self.estimate_started:
            self.estimate_started = True  # once, when it is first needed: a single branch never pays for it
            self._estimate()
        self._describe()

    def action_control(self) -> None:
        if self.samples > 1:
            self.control = not self.control
            self.control_chosen = True
            self._describe()

    def action_event(self) -> None:
        def answer(value: str | None) -> None:
            if value is None:
                return
            spec = value.strip() or None
            if spec is not None:
                try:
                    Event.parse(spec)
                except UsageError as exc:
                    self._problem(_app_words(str(exc)))
                    return
            self.event = spec
            self._describe()

        self.app.push_screen(PromptScreen("The event to count in each sample: a tool name (issue_refund), a tool "
                                          "with an input match (issue_refund:amount_cents=8900) or words of the "
                                          "final answer (text:manager); empty: none", value=self.event or ""),
                             answer)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("control", "event"):
            return self.samples > 1 or None
        if action == "samples":
            return (self.samples < SAMPLES[-1] if parameters and int(parameters[0]) > 0 else self.samples > 1) or None
        return True

    def _problem(self, words: str) -> None:
        self.problem.update(Text.assemble(("✗ ", palette.ERROR), one_line(words)))
        self.problem.display = True
        self.call_after_refresh(self.problem.scroll_visible)

    def action_resolver(self) -> None:
        names = list(RESOLVERS)
        self.resolver = names[(names.index(self.resolver) + 1) % len(names)]
        self._describe()
        if self.resolver == "python":
            self.target.focus()
        elif self.focused is self.target:
            self.query_one("#review-patch").focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.problem.display = False  # the message was about what was typed before

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_send()

    def action_send(self) -> None:
        if self.samples > 1 and self.resolver == "manual":
            self._problem("the manual resolver answers one branch at a time: r chooses recorded, stop or python "
                          "for K samples")
            return
        spec, built = self.resolver, None
        if self.resolver == "python":
            try:
                spec, built = python_resolver(self.target.value)
            except UsageError as exc:  # said here, in the dialog; nothing is sent
                self._problem(_app_words(str(exc)))
                self.target.focus()
                return
        choice = ReviewChoice(self.max_steps, spec, built, self.samples, self.control and self.samples > 1,
                              self.event if self.samples > 1 else None)
        if self.samples == 1:
            self.dismiss(choice)
            return
        if self.estimate is None and self.estimate_error is None and self.estimate_of is not None:
            self._problem("still estimating the cost of the samples: Enter again in a moment")
            return
        total = self.cost()[0]
        if total is not None and total <= confirm_tokens():
            self.dismiss(choice)  # the cost is on the dialog and under the threshold: sent as asked
            return
        self._confirm(choice)

    def _confirm(self, choice: ReviewChoice) -> None:
        """K > 1 above the threshold (or the cost unknown): the cost of K x (arms) first calls, asked first."""
        calls = choice.samples * (2 if choice.control else 1)
        words = self.cost()[1]
        same = " The request sets temperature 0: the samples will likely be identical." if self.temperature == 0 else ""

        def answer(value: str | None) -> None:
            if value is not None and value.strip().lower() in ("y", "yes"):
                self.dismiss(choice)
            else:
                self._problem("not sent: the experiment was not confirmed")

        self.app.push_screen(PromptScreen(f"Send {calls} branches ({choice.samples} edited"
                                          + (f" + {choice.samples} control" if choice.control else "")
                                          + f")? {words}.{same} Type y and Enter to send; Escape goes back"),
                             answer)

    def action_back(self) -> None:
        self.dismiss(None)


def _app_words(message: str) -> str:
    """A resolver error without the command-line option it names (the app has no ``--resolver``)."""
    for prefix in ("--resolver: ", "--resolver "):
        if message.startswith(prefix):
            return message[len(prefix):]
    return message
