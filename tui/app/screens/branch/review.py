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

Enter sends (dismissing with a ``ReviewChoice``); Escape goes back to editing (None).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static

from tui.app import keys
from tui.app.render import styles as palette
from tui.app.screens.branch.dialogs import finding_lines
from tui.core.branch.edit import Verdict, json_text
from tui.core.branch.resolvers import Resolver, StopResolver, make_resolver
from tui.core.errors import UsageError
from tui.core.safe import one_line, visible

#: Lines of the patch shown before it is cut (the whole patch is in the branch file).
PATCH_LINES = 400

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


def python_resolver(target: str) -> tuple[str, Resolver]:
    """``python:MODULE:FUNCTION`` from what was typed (with or without ``python:``); UsageError if bad."""
    target = target.strip().removeprefix("python:")
    if not target:
        raise UsageError("type MODULE:FUNCTION (or path/to/file.py:FUNCTION) for the python resolver")
    spec = f"python:{target}"
    return spec, make_resolver(spec, None, StopResolver())


class ReviewScreen(ModalScreen[ReviewChoice | None]):
    """The patch and everything else that will be sent; Enter sends, Escape goes back to editing."""

    HELP = ("Review the branch before it is sent: the RFC 6902 patch against the parent request, the model, "
            "the step limit (+/- change it) and who answers tool calls (r: recorded, manual, stop or your own "
            "python:MODULE:FUNCTION). Enter sends; Escape goes back.")
    BINDINGS = keys.REVIEW
    summary = getters.query_one("#review-summary", Static)
    target = getters.query_one("#review-python", Input)
    problem = getters.query_one("#review-problem", Static)

    def __init__(self, *, parent: str, at: int, dropped: int, model: str, patch: list, verdict: Verdict,
                 max_steps: int, saving_to: str, resolver: str = "recorded") -> None:
        super().__init__()
        self.parent_path, self.at, self.dropped, self.model = parent, at, dropped, model
        self.patch, self.verdict, self.max_steps, self.saving_to = patch, verdict, max_steps, saving_to
        self.resolver = resolver if resolver in RESOLVERS else "recorded"

    def compose(self) -> ComposeResult:
        with Vertical(id="review"):
            yield Static(id="review-summary")
            yield Input(placeholder="MODULE:FUNCTION or path/to/file.py:FUNCTION", id="review-python")
            yield Static(id="review-problem")
            with VerticalScroll(id="review-patch"):
                yield Static(self._patch_text(), id="review-patch-text")
            yield Footer()

    def on_mount(self) -> None:
        self._describe()
        self.query_one("#review-patch").focus()

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
        if self.resolver != "python":
            self.dismiss(ReviewChoice(self.max_steps, self.resolver))
            return
        try:
            spec, built = python_resolver(self.target.value)
        except UsageError as exc:  # said here, in the dialog; nothing is sent
            self.problem.update(Text.assemble(("✗ ", palette.ERROR), one_line(_app_words(str(exc)))))
            self.problem.display = True
            self.target.focus()
            return
        self.dismiss(ReviewChoice(self.max_steps, spec, built))

    def action_back(self) -> None:
        self.dismiss(None)


def _app_words(message: str) -> str:
    """A resolver error without the command-line option it names (the app has no ``--resolver``)."""
    for prefix in ("--resolver: ", "--resolver "):
        if message.startswith(prefix):
            return message[len(prefix):]
    return message
