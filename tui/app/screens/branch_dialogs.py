"""The branch mode's two dialogs: review the edit before sending it, and answer a tool call by hand.

``ReviewScreen`` shows what will be sent — the parent, the index, the model, the step limit,
the resolver, the messages dropped, every warning and the RFC 6902 patch itself — and
dismisses with the step limit (send) or None (back to editing). ``AnswerScreen`` is the
manual resolver: the model's call (name, id, input) and a text area for the result;
it dismisses with a ``Resolution`` (a result or an error result) or None (stop the branch
here, leaving the call unanswered; ``turnscope branch --resume`` can answer it later).
All run text is shown as plain ``Text`` through ``tui.core.safe``.
"""

from __future__ import annotations

from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea

from tui.app import palette
from tui.app.branch_edit import Verdict, json_text
from tui.core.branch.events import ToolCall
from tui.core.branch.resolvers import Resolution
from tui.core.safe import one_line, visible

#: Lines of the patch shown before it is cut (the whole patch is in the branch file).
PATCH_LINES = 400


def finding_lines(verdict: Verdict, text: Text) -> Text:
    """Append one line per blocking problem and finding: index and block first, then the rule."""
    for problem in verdict.problems:
        text.append("✗ ", palette.ERROR)
        text.append(one_line(problem) + "\n")
    for finding in verdict.findings:
        mark, style = palette.MARK.get(finding.severity, ("·", ""))
        where = f"message {finding.where()} " if finding.index is not None else "request "
        text.append(f"{mark} {finding.severity} ", style)
        text.append(where, "bold")
        text.append(f"{one_line(finding.rule)}: {one_line(finding.message)}\n")
    return text


class ReviewScreen(ModalScreen[int | None]):
    """The patch and everything else that will be sent; Enter sends, Escape goes back to editing."""

    HELP = ("Review the branch before it is sent: the RFC 6902 patch against the parent request, the model, "
            "the step limit (+/- change it) and who answers tool calls. Enter sends; Escape goes back.")
    BINDINGS = [
        Binding("enter", "send", "Send", id="review.send"),
        Binding("ctrl+s", "send", "Send", show=False, id="review.send.ctrl_s"),
        Binding("plus", "steps(1)", "More steps", id="review.more_steps"),
        Binding("minus", "steps(-1)", "Fewer steps", id="review.fewer_steps"),
        Binding("escape", "back", "Back to editing", id="review.back"),
    ]
    summary = getters.query_one("#review-summary", Static)

    def __init__(self, *, parent: str, at: int, dropped: int, model: str, patch: list, verdict: Verdict,
                 max_steps: int, saving_to: str) -> None:
        super().__init__()
        self.parent_path, self.at, self.dropped, self.model = parent, at, dropped, model
        self.patch, self.verdict, self.max_steps, self.saving_to = patch, verdict, max_steps, saving_to

    def compose(self) -> ComposeResult:
        with Vertical(id="review"):
            yield Static(id="review-summary")
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
        text.append(" (+/-) · tool calls answered by ", palette.DIM)
        text.append("recorded", "bold")
        text.append(" (the run's own result for the same call; otherwise you are asked)\n", palette.DIM)
        text.append("saved under ", palette.DIM)
        text.append(one_line(self.saving_to) + "\n")
        finding_lines(self.verdict, text)
        text.rstrip()
        self.summary.update(text)

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

    def action_send(self) -> None:
        self.dismiss(self.max_steps)

    def action_back(self) -> None:
        self.dismiss(None)


class AnswerScreen(ModalScreen[Resolution | None]):
    """The manual resolver: type the tool's result, send it as an error, or stop the branch."""

    HELP = ("The model asked for a tool the original run never called with this input. Type what the tool "
            "returns: ctrl+s sends it as the result, ctrl+t as an error result (is_error); Escape stops "
            "the branch here with the call unanswered (turnscope branch --resume can answer it later).")
    BINDINGS = [
        Binding("ctrl+s", "answer(False)", "Send result", id="answer.result"),
        Binding("ctrl+t", "answer(True)", "Send as error", id="answer.error"),
        Binding("escape", "stop", "Stop the branch", id="answer.stop"),
    ]
    editor = getters.query_one("#answer-text", TextArea)

    def __init__(self, call: ToolCall, note: str = "") -> None:
        super().__init__()
        self.call = call
        self.note = note

    def compose(self) -> ComposeResult:
        call = self.call
        head = Text()
        head.append(f"message {call.index} asks for a tool: ", palette.DIM)
        head.append(one_line(call.name), "bold")
        head.append("  " + one_line(call.id) + "\n", palette.DIM)
        head.append(visible(json_text(call.input)), palette.CODE)
        if self.note:
            head.append("\n" + one_line(self.note), palette.NOTE)
        with Vertical(id="answer"):
            with VerticalScroll(id="answer-call"):
                yield Static(head, id="answer-call-text")
            yield Static(Text("the result (ctrl+s: send · ctrl+t: send as an error · escape: stop the branch)",
                              "bold"), id="answer-label")
            yield TextArea(id="answer-text", soft_wrap=True, tab_behavior="focus")
            yield Footer()

    def on_mount(self) -> None:
        self.editor.focus()

    def action_answer(self, error: bool) -> None:
        text = self.editor.text
        self.dismiss(Resolution(text, is_error=error, via="manual (error)" if error else "manual"))

    def action_stop(self) -> None:
        self.dismiss(None)
