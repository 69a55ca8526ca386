"""A one-line question at the bottom of the screen (``:`` go to index, ``/`` search); Enter answers, Escape cancels."""

from __future__ import annotations

from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class PromptScreen(ModalScreen[str | None]):
    """Ask for one line; dismiss with the text (or None when cancelled)."""

    HELP = "Type and press Enter; Escape cancels."
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]
    answer = getters.query_one("#prompt-input", Input)

    def __init__(self, question: str, placeholder: str = "", value: str = "", *, name: str | None = None) -> None:
        super().__init__(name=name)
        self.question = question
        self.placeholder = placeholder
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt"):
            yield Static(Text(self.question, "bold"), id="prompt-question")
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")

    def on_mount(self) -> None:
        self.answer.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
