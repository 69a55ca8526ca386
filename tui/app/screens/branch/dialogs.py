"""The manual resolver's dialog, and the finding lines the branch editor and review share.

``AnswerScreen`` is the manual resolver: the model's call (name, id, input) and a text
area for the result; it dismisses with a ``Resolution`` (a result or an error result) or
None (stop the branch here, leaving the call unanswered; answers already given to the
turn's other calls are kept, and ``turnscope branch --resume`` asks only for the rest).
``finding_lines`` writes a verdict's problems and findings, index and block first. The
review before sending is ``branch_review.ReviewScreen``. All run text is shown as plain
``Text`` through ``tui.core.safe``.
"""

from __future__ import annotations

from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from tui.app import keys
from tui.app.render import styles as palette
from tui.app.widgets.keys_footer import KeysFooter
from tui.core.branch.edit import Verdict, json_text
from tui.core.branch.events import ToolCall
from tui.core.branch.resolvers import Resolution
from tui.core.safe import one_line, visible


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


class AnswerScreen(ModalScreen[Resolution | None]):
    """The manual resolver: type the tool's result, send it as an error, or stop the branch."""

    HELP = ("The model asked for a tool; the line above the result says whether the original run made the "
            "identical call (its result is then filled in). Type or edit what the tool returns: ctrl+s sends it as the result, ctrl+t as an error result (is_error); Escape stops "
            "the branch here with the call unanswered (turnscope branch --resume can answer it later; the "
            "answers you already gave to this turn are kept and not asked again).")
    BINDINGS = keys.ANSWER
    editor = getters.query_one("#answer-text", TextArea)

    def __init__(self, call: ToolCall, note: str = "", value: str = "", error: bool = False, said: str = "") -> None:
        super().__init__()
        self.call = call
        self.note = note
        self.value = value  # the result filled in (the identical call's, when the run made one)
        self.error = error
        self.said = said  # the model's text in the same turn: what it said about the call

    def compose(self) -> ComposeResult:
        call = self.call
        head = Text()
        if self.said.strip():
            head.append("the model said: ", palette.DIM)
            head.append(visible(self.said.strip()) + "\n")
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
            yield TextArea(self.value, id="answer-text", soft_wrap=True, tab_behavior="focus")
            yield KeysFooter()

    def on_mount(self) -> None:
        self.editor.focus()

    def action_answer(self, error: bool) -> None:
        text = self.editor.text
        self.dismiss(Resolution(text, is_error=error, via="manual (error)" if error else "manual"))

    def action_stop(self) -> None:
        self.dismiss(None)
