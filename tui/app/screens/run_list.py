"""The runs of a file that holds several: pick one to step through (Enter), Escape goes back (to the picker
when the list was the first screen: Escape never quits)."""

from __future__ import annotations

import os
from datetime import timezone

from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.message import Message
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.app import keys
from tui.app.app_messages import OpenPicker
from tui.app.render import styles as palette
from tui.app.screens.dialogs import PromptScreen
from tui.app.widgets.keys_footer import KeysFooter
from tui.core.run import Run
from tui.core.run_sort import ORDERS, began, order, score_text
from tui.core.safe import one_line


class RunListScreen(Screen):
    """One option per run: its index, message and model-call counts, and its first words."""

    HELP = ("The runs in this file, with their size, date and score where recorded. Enter steps through the "
            "highlighted one; / filters by words (title, path, task id); o sorts by date, messages, model calls, "
            "score; Escape goes back.")
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
        self.filter = ""  # ``/``: only the runs whose title, path or task holds it
        self.order = ORDERS[0]  # ``o``: file, date, messages, calls, score

    def compose(self) -> ComposeResult:
        yield Static(self.title_text(), id="runs-title")
        yield OptionList(*self.run_options(), id="run-options")
        yield KeysFooter()

    def title_text(self) -> Text:
        holds = f" holds {len(self.runs)} runs · choose one"
        if self.filter:
            holds += f" · filter {one_line(self.filter)!r}: {len(self.shown())} shown"
        if self.order != ORDERS[0]:  # the file's order needs no word (the footer shows o Sort)
            holds += f" · sorted by {self.order}{' (lowest first)' * (self.order == 'score')} (o)"
        path = self.path if len(self.path + holds) <= self.app.size.width - 2 else os.path.basename(self.path)
        title = Text.assemble((one_line(path), "bold"), holds)
        return title

    def shown(self) -> list[int]:
        needle = self.filter.casefold()
        return [k for k in order(self.runs, self.order)
                if not needle or needle in self._words(self.runs[k]).casefold()]

    def _words(self, run: Run) -> str:
        meta = run.meta if isinstance(run.meta, dict) else {}
        ids = " ".join(str(meta[k]) for k in ("task_id", "sample_id", "task", "session_id", "agent_id") if k in meta)
        return f"{run.title()} {run.source.path} {ids}"

    def run_options(self) -> list[Option]:
        options = []
        width = max(self.app.size.width - 10, 20)  # less the indent, the list's padding and its scrollbar
        for k in self.shown():
            run = self.runs[k]
            title = Text(one_line(run.title()))
            title.truncate(width, overflow="ellipsis")  # one row: cut with an ellipsis, not wrapped to the margin
            messages, calls = run.sizes()
            facts = f"  {messages} message{'s' * (messages != 1)}, {calls} model call{'s' * (calls != 1)}"
            when, scored = began(run), score_text(run)
            if when is not None:
                facts += " · " + when.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
            if scored is not None:
                facts += " · " + one_line(scored)
            prompt = Text.assemble((f"run {k}", "bold"), (facts, palette.DIM), "\n    ", title)
            options.append(Option(prompt, id=f"run-{k}"))
        return options

    def refill(self) -> None:
        self.query_one("#runs-title", Static).update(self.title_text())
        self.options.set_options(self.run_options())
        if self.options.option_count:
            self.options.highlighted = 0

    def action_filter(self) -> None:
        def answer(value: str | None) -> None:
            if value is not None:
                self.filter = value.strip()
                self.refill()

        self.app.push_screen(PromptScreen("Filter the runs (words in the title, the path, a task or sample id; "
                                          "empty: all)", placeholder="words", value=self.filter), answer)

    def action_order(self) -> None:
        """o: sort by the next of file order, date, messages, model calls, score."""
        self.order = ORDERS[(ORDERS.index(self.order) + 1) % len(ORDERS)]
        self.refill()

    def on_mount(self) -> None:
        self.options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Picked(self.path, self.runs, int((event.option.id or "run-0")[4:])))

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
