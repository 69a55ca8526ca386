"""The run picker (``turnscope`` with no file): recent runs, Claude Code, Codex and Gemini sessions, then the
bundled samples. ``/`` filters the rows by typed text (label, path, first words).

The lists are gathered in a worker (session files are read to count their messages) and
shown in one ``OptionList`` with a heading per section; a run written to in the last minute is
marked ``live`` and opened following. Enter posts ``RunChosen``; the app
loads the file in a worker and, if it cannot, the reason appears here on one line.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.text import Text
from textual import getters, work
from textual.app import ComposeResult
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from tui.app import app_messages as events
from tui.app import keys
from tui.app.render import styles as palette
from tui.app.screens.dialogs import PromptScreen
from tui.app.sources import (SAMPLES, Entry, claude_entries, claude_projects, codex_entries, gemini_entries,
                             recent_entries, sample_entries)
from tui.core.safe import one_line

#: In the order shown: the user's own runs first, the bundled samples last.
SECTIONS = {"recent": "Recent runs", "claude": "Claude Code sessions",
            "codex": "Codex sessions (codex format, reconstructed prefixes)", "gemini": "Gemini CLI sessions",
            "samples": "Sample runs (bundled)"}
#: Sections left out when they find nothing (most machines have no Codex or Gemini CLI sessions).
OPTIONAL = ("codex", "gemini")


def _when(stamp: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp)) if stamp else ""


class RunOptions(OptionList):
    """The runs to choose from."""

    HELP = "Runs to open: Up/Down (j/k) move, Enter opens. A file holding several runs lists them first."
    BINDINGS = keys.PICKER_LIST


class PickerScreen(Screen):
    """Choose a run to step through."""

    HELP = "The run picker: bundled samples, runs opened before, and Claude Code sessions found on this machine."
    BINDINGS = keys.PICKER
    options = getters.query_one("#runs", RunOptions)
    notice = getters.query_one("#picker-notice", Static)

    class Scanned(Message):
        """The worker finished gathering entries."""

        def __init__(self, entries: list[Entry]) -> None:
            super().__init__()
            self.entries = entries

    def __init__(self, state_dir: Path, claude_home: Path | None = None, samples: Path = SAMPLES) -> None:
        super().__init__()
        self.state_dir = state_dir
        self.claude_home = claude_home
        self.samples = samples
        self.entries: dict[str, Entry] = {}
        self.scanned: list[Entry] = []
        self.filter = ""  # ``/``: only rows whose label, path or words hold it (any case)

    def compose(self) -> ComposeResult:
        yield Static(Text.assemble(("turnscope", "bold"), " · choose a run to step through"), id="picker-title")
        yield RunOptions(id="runs")
        yield Static(Text("looking for runs …", palette.NOTE), id="picker-notice")
        yield Footer()

    def on_mount(self) -> None:
        self.options.focus()
        self.scan()

    def on_screen_resume(self) -> None:
        self.scan()

    def action_rescan(self) -> None:
        self.scan()

    @work(thread=True, exclusive=True, group="scan")
    def scan(self) -> None:
        # With a Claude home given (tests), Gemini's is looked for beside it, never in the user's home.
        gemini_home = self.claude_home.parent if self.claude_home is not None else None
        entries = sample_entries(self.samples) + recent_entries(self.state_dir) + claude_entries(self.claude_home) \
            + codex_entries() + gemini_entries(gemini_home)
        self.post_message(self.Scanned(entries))

    def action_filter(self) -> None:
        def answer(value: str | None) -> None:
            if value is not None:
                self.filter = value.strip()
                self.show_entries(keep=False)

        self.app.push_screen(PromptScreen("Filter the runs (words in the name, the path or the first words; "
                                          "empty: all)", placeholder="words", value=self.filter), answer)

    def on_picker_screen_scanned(self, event: Scanned) -> None:
        self.scanned = event.entries
        self.show_entries()

    def show_entries(self, keep: bool = True) -> None:
        options: list[Option | None] = []
        self.entries.clear()
        needle = self.filter.casefold()
        shown = [e for e in self.scanned if not needle or needle in f"{e.label} {e.path} {e.detail}".casefold()]
        for section, heading in SECTIONS.items():
            found = [e for e in shown if e.section == section]
            if not found and (section in OPTIONAL or needle):
                continue
            width = min(max((len(e.label) for e in found), default=0), 40)
            options.append(Option(Text(heading, palette.HEADING), disabled=True))
            if not found:
                options.append(Option(Text("  " + self._empty(section), palette.NOTE), disabled=True))
            for k, entry in enumerate(found):
                option_id = f"{section}-{k}"
                self.entries[option_id] = entry
                prompt = Text.assemble("  ", (entry.label.ljust(width), "bold"))
                if entry.live:
                    prompt.append("  live", "bold reverse")
                if entry.when:
                    prompt.append("  " + _when(entry.when))
                prompt.append("  " + entry.detail, palette.DIM)
                prompt.no_wrap, prompt.overflow = True, "ellipsis"
                options.append(Option(prompt, id=option_id))
            options.append(None)
        highlighted = self.options.highlighted if keep else None
        self.options.set_options(options[:-1])
        first = next((n for n, o in enumerate(options) if o is not None and not o.disabled), None)
        self.options.highlighted = highlighted if highlighted is not None and highlighted < len(options) - 1 \
            else first
        total = len(self.entries)
        if needle:
            self.notice.update(Text(f"{total} of {len(self.scanned)} runs hold {one_line(self.filter)!r} · / again "
                                    "(empty: all) · Enter opens", palette.NOTE))
        else:
            self.notice.update(Text(f"{total} runs · / filters · Enter opens · ? all keys", palette.NOTE))

    def _empty(self, section: str) -> str:
        if section == "recent":
            return "(none yet: runs you open appear here)"
        if section == "claude":
            return f"(no sessions under {one_line(str(claude_projects(self.claude_home)))})"
        return "(no sample_runs/ next to this install)"

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        entry = self.entries.get(event.option.id or "")
        if entry is not None:
            self.notice.update(Text(f"opening {one_line(entry.path)} …", palette.NOTE))
            self.post_message(events.RunChosen(entry.path, entry.run, follow=entry.live))

    def show_error(self, text: str) -> None:
        """Attributes down: a file could not be opened; say why on one line."""
        self.notice.update(Text.assemble(("cannot open: ", palette.ERROR), one_line(text)))
