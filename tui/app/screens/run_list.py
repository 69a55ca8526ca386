"""The runs of a file that holds several: pick one to step through (Enter), Escape goes back (to the picker
when the list was the first screen: Escape never quits)."""

from __future__ import annotations

import os

from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from tui.app import keys
from tui.app.app_messages import OpenPicker
from tui.app.render import styles as palette
from tui.core.run import Run
from tui.core.safe import one_line


class RunListScreen(Screen):
    """One option per run: its index, message and model-call counts, and its first words."""

    HELP = "The runs in this file. Enter steps through the highlighted one; Escape goes back."
    BINDINGS = keys.RUNS
    options = getters.query_one("#run-options", OptionList)

    class Picked(Message):
        """The user chose run ``run`` of ``path``."""

        def __init__(self, path: str, runs: list[Run], run: int) -> None:
            super().__init__()
            self.path = path
            self.runs = runs
            self.run = run

    def __init__(self, path: str, runs: list[Run]) -> None:
        super().__init__()
        self.path = path
        self.runs = runs

    def compose(self) -> ComposeResult:
        holds = f" holds {len(self.runs)} runs · choose one"
        path = self.path if len(self.path + holds) <= self.app.size.width - 2 else os.path.basename(self.path)
        title = Text.assemble((one_line(path), "bold"), holds)
        title.truncate(max(self.app.size.width - 2, 20), overflow="ellipsis")
        yield Static(title, id="runs-title")
        options = []
        width = max(self.app.size.width - 10, 20)  # less the indent, the list's padding and its scrollbar
        for k, run in enumerate(self.runs):
            title = Text(one_line(run.title()))
            title.truncate(width, overflow="ellipsis")  # one row: cut with an ellipsis, not wrapped to the margin
            messages, calls = len(run.messages), len(run.calls)
            prompt = Text.assemble((f"run {k}", "bold"), (f"  {messages} message{'s' * (messages != 1)}, "
                                                          f"{calls} model call{'s' * (calls != 1)}", palette.DIM),
                                   "\n    ", title)
            options.append(Option(prompt, id=f"run-{k}"))
        yield OptionList(*options, id="run-options")
        yield Footer()

    def on_mount(self) -> None:
        self.options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Picked(self.path, self.runs, event.option_index))

    def action_cursor_down(self) -> None:
        self.options.action_cursor_down()

    def action_cursor_up(self) -> None:
        self.options.action_cursor_up()

    def action_back(self) -> None:
        """Back to where the list came from; opened first (``turnscope FILE``), to the picker: never quits."""
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.post_message(OpenPicker())
