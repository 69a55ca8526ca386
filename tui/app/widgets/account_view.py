"""The Account view: the seeds' four sentences for message N, generated from the run.

What the message is, who produced it, what was visible when it was produced or acted on,
and why control moved — ``tui.core.account``, never written by hand. Four short
sentences, so a plain scrolling ``Static`` is enough here.
"""

from __future__ import annotations

from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.app.render import styles as palette
from tui.core.account import account
from tui.core.safe import visible
from tui.core.view.run_view import RunView

SLOTS = ("what it is", "who produced it", "what was visible", "why control moved")


class AccountView(VerticalScroll, can_focus=True):
    """Four sentences about message N."""

    HELP = ("The account of message N, the seeds' drill: what it is, who produced it, what was visible, "
            "and why control moved. Each sentence is generated from the run and names indices.")
    body = getters.query_one("#account-body", Static)

    def __init__(self, view: RunView, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view
        self.index: int | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="account-body")

    def show(self, index: int) -> None:
        """Attributes down: the account of ``index``."""
        if index == self.index:
            return
        self.index = index
        view = self.view
        text = Text()
        if index >= view.total:
            last = view.total - 1
            text.append(f"The next request (after message {last})\n\n", palette.HEADING)
            text.append(f"It would carry messages 0-{last}, with the system prompt and tool schemas. "
                        "No message in this run answers it: the run ends here.")
        else:
            text.append(f"Account of message {index}\n\n", palette.HEADING)
            for n, (slot, sentence) in enumerate(zip(SLOTS, account(view.run, index, view.producers)), 1):
                text.append(f"{n}. {slot}: ", palette.LABEL)
                text.append(visible(sentence) + "\n\n")
            text.append("Generated from the run: each sentence names the indices it rests on.", palette.NOTE)
        self.body.update(text)
        self.scroll_home(animate=False)
