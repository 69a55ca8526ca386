"""The run picker (``turnscope`` with no file): recent runs, Claude Code, Codex and Gemini sessions, then the
bundled samples. ``/`` filters the rows by typed text (label, path, first words).

The lists are gathered in a worker (the head of each session file is read for its first words
and an estimated count, shown ``~12 messages``) and shown in one ``OptionList`` with a heading
per section; a run written to in the last minute is marked ``live`` and opened following. The
same worker then has the exact counts taken by the loader itself, in a process of its own
(``tui.app.session_counts``; cached by path, size and mtime, so a second look is instant), and
each row is redrawn as its count arrives: the count and first words are then those of the run
Enter opens (run 0, the loader's default; the file's run list lies beneath it, Escape goes
there). Enter posts ``RunChosen``; the app loads the file in a worker and, if it cannot, the
reason appears here on one line.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.text import Text
from textual import getters, work
from textual.worker import get_current_worker
from textual.app import ComposeResult
from textual.message import Message
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.app import app_messages as events
from tui.app import keys
from tui.app.render import styles as palette
from tui.app.screens.dialogs import PromptScreen
from tui.app.session_counts import Counted, CountCache, Counter
from tui.app.sources import (SAMPLES, Entry, apply_counted, claude_entries, claude_projects, codex_entries,
                             gemini_entries, recent_entries, sample_entries)
from tui.app.widgets.keys_footer import KeysFooter
from tui.core.safe import one_line
from tui.core.words import counted

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

    HELP = ("Runs to open: Up/Down (j/k) move, Enter opens. A session opens at the run its row describes (~: a "
            "count read from the file's head, the exact one coming); Escape there lists the file's other runs. "
            "Another file holding several runs lists them first.")
    BINDINGS = keys.PICKER_LIST


class PickerScreen(Screen):
    """Choose a run to step through."""

    HELP = "The run picker: bundled samples, runs opened before, and Claude Code sessions found on this machine."
    BINDINGS = keys.PICKER
    options = getters.query_one("#runs", RunOptions)
    notice = getters.query_one("#picker-notice", Static)

    class Scanned(Message):
        """The worker finished gathering entries (scan number ``scan``)."""

        def __init__(self, entries: list[Entry], scan: int = 0) -> None:
            super().__init__()
            self.entries = entries
            self.scan = scan

    class CountArrived(Message):
        """The exact count of one file, from scan number ``scan``."""

        def __init__(self, scan: int, counted: Counted) -> None:
            super().__init__()
            self.scan = scan
            self.counted = counted

    class CountsEnded(Message):
        """The counting process of scan ``scan`` ended before it counted every file (killed, out of memory)."""

        def __init__(self, scan: int) -> None:
            super().__init__()
            self.scan = scan

    def __init__(self, state_dir: Path, claude_home: Path | None = None, samples: Path = SAMPLES,
                 cache_dir: Path | None = None, load_options: dict[str, str | None] | None = None) -> None:
        super().__init__()
        self.state_dir = state_dir
        self.claude_home = claude_home
        self.samples = samples
        #: ``load_runs``'s keywords, as the app opens a file with (``--format``, ``--system`` ...): the counts are
        #: taken with them, and kept on disk only when there are none (the cache is of files read as they are).
        self.load_options = {k: v for k, v in (load_options or {}).items() if v is not None}
        self.cache_dir = cache_dir if not self.load_options else None  # where the exact counts are kept
        self.entries: dict[str, Entry] = {}
        self.scanned: list[Entry] = []
        self.filter = ""  # ``/``: only rows whose label, path or words hold it (any case)
        self.counter: Counter | None = None  # the process counting the rows still estimated
        self.scans = 0  # scans started; a count from an older one is not applied
        self.widths: dict[str, int] = {}  # each section's label width, to redraw one row
        self.jobs: list[str] = []  # the files the last scan had counted (not in the cache, or changed since)
        self.showing = False  # the current screen: counting runs only then
        self.ended = False  # this scan's counting ended early: the rows still ``~`` will not be counted

    def compose(self) -> ComposeResult:
        yield Static(Text.assemble(("turnscope", "bold"), " · choose a run to step through"), id="picker-title")
        yield RunOptions(id="runs")
        yield Static(Text("looking for runs …", palette.NOTE), id="picker-notice")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.options.focus()

    def on_screen_resume(self) -> None:
        """Shown (first, or again after a run): scan, so runs just opened are among the recent ones."""
        self.showing = True
        self.scan()

    def on_screen_suspend(self) -> None:
        self.showing = False  # a run is open: its own work comes first; the next scan counts the rest
        self.stop_counting()

    def on_unmount(self) -> None:
        self.stop_counting()

    def stop_counting(self) -> None:
        counter, self.counter = self.counter, None
        if counter is not None:
            counter.stop()

    def action_rescan(self) -> None:
        self.scan()

    def scan(self) -> None:
        """Gather the rows again (a newer scan replaces one under way: its rows and counts are dropped)."""
        self.stop_counting()
        self.scans += 1
        self._scan(self.scans)

    @work(thread=True, exclusive=True, group="scan")
    def _scan(self, scan: int) -> None:
        """Gather the rows (estimated counts where a file is only glanced at), then have the estimated ones
        counted exactly, in a process, each row updated as its count arrives."""
        worker = get_current_worker()
        # With a Claude home given (tests), Gemini's is looked for beside it, never in the user's home.
        gemini_home = self.claude_home.parent if self.claude_home is not None else None
        cache = CountCache(self.cache_dir)  # a session counted before and unchanged since: its head is not read
        entries = sample_entries(self.samples) + recent_entries(self.state_dir) \
            + claude_entries(self.claude_home, known=cache.get) + codex_entries(known=cache.get) \
            + gemini_entries(gemini_home)
        jobs: dict[str, None] = {}  # each file once (a session may be a recent run too)
        for entry in entries:
            if entry.estimated:
                known = cache.get(entry.path)
                if known is None:
                    jobs.setdefault(entry.path, None)
                else:
                    apply_counted(entry, known)
        self.jobs = list(jobs)
        self.post_message(self.Scanned(entries, scan))
        if not jobs or worker.is_cancelled or not self.showing:
            return
        counter = Counter(list(jobs), self.load_options)
        try:
            if not self.showing or scan != self.scans:  # suspended or scanned again since: stopped found none
                return
            self.counter = counter
            counter.start()
            done = 0
            for result in counter.results():
                if worker.is_cancelled:
                    break
                cache.put(result)
                done += 1
                self.post_message(self.CountArrived(scan, result))
            if done < len(jobs) and not worker.is_cancelled and self.counter is counter:
                self.post_message(self.CountsEnded(scan))
        finally:
            counter.stop()
            cache.save()

    def action_filter(self) -> None:
        def answer(value: str | None) -> None:
            if value is not None:
                self.filter = value.strip()
                self.show_entries(keep=False)

        self.app.push_screen(PromptScreen("Filter the runs (words in the name, the path or the first words; "
                                          "empty: all)", placeholder="words", value=self.filter), answer)

    def on_picker_screen_scanned(self, event: Scanned) -> None:
        if event.scan != self.scans:  # a newer scan is under way: its rows come next
            return
        self.scanned, self.ended = event.entries, False
        self.show_entries()

    def on_picker_screen_count_arrived(self, event: CountArrived) -> None:
        """An exact count: the rows of that file show it (redrawn in place: the cursor stays)."""
        if event.scan != self.scans:
            return
        changed = [e for e in self.scanned if e.estimated and e.path == event.counted.path]
        if not changed:
            return
        for entry in changed:
            apply_counted(entry, event.counted)
        if self.filter:  # the words shown changed: the filter may take or leave the row
            self.show_entries()
            return
        for option_id, entry in self.entries.items():
            if any(entry is c for c in changed):
                self.options.replace_option_prompt(option_id, self.prompt(entry, self.widths.get(entry.section, 0)))
        self.describe()

    def on_picker_screen_counts_ended(self, event: CountsEnded) -> None:
        if event.scan == self.scans:
            self.ended = True
            self.describe()

    def show_entries(self, keep: bool = True) -> None:
        options: list[Option | None] = []
        self.entries.clear()
        needle = self.filter.casefold()
        shown = [e for e in self.scanned if not needle or needle in f"{e.label} {e.path} {e.detail}".casefold()]
        for section, heading in SECTIONS.items():
            found = [e for e in shown if e.section == section]
            if not found and (section in OPTIONAL or needle):
                continue
            width = self.widths[section] = min(max((len(e.label) for e in found), default=0), 40)
            options.append(Option(Text(heading, palette.HEADING), disabled=True))
            if not found:
                options.append(Option(Text("  " + self._empty(section), palette.NOTE), disabled=True))
            for k, entry in enumerate(found):
                option_id = f"{section}-{k}"
                self.entries[option_id] = entry
                options.append(Option(self.prompt(entry, width), id=option_id))
            options.append(None)
        highlighted = self.options.highlighted if keep else None
        self.options.set_options(options[:-1])
        first = next((n for n, o in enumerate(options) if o is not None and not o.disabled), None)
        self.options.highlighted = highlighted if highlighted is not None and highlighted < len(options) - 1 \
            else first
        self.describe()

    def prompt(self, entry: Entry, width: int) -> Text:
        """One row: the label, live, the date, the count and first words (``~``: estimated, exact coming)."""
        prompt = Text.assemble("  ", (entry.label.ljust(width), "bold"))
        if entry.live:
            prompt.append("  live", "bold reverse")
        if entry.when:
            prompt.append("  " + _when(entry.when))
        prompt.append("  " + entry.detail, palette.DIM)
        prompt.no_wrap, prompt.overflow = True, "ellipsis"
        return prompt

    def describe(self) -> None:
        """The line under the list: how many rows, whether counts are still coming, the keys."""
        total = len(self.entries)
        left = sum(e.estimated for e in self.scanned)
        counting = "" if not left else f" · ~ estimated from the file's head, {counted(left, 'exact count')} " + (
            "not taken (the counting process ended early; r counts again)" if self.ended else "coming")
        if self.filter:
            self.notice.update(Text(f"{total} of {len(self.scanned)} runs hold {one_line(self.filter)!r}{counting} "
                                    "· / again (empty: all) · Enter opens", palette.NOTE))
        else:
            self.notice.update(Text(f"{total} runs{counting} · / filters · Enter opens · ? all keys", palette.NOTE))

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
            self.post_message(events.RunChosen(entry.path, entry.run, follow=entry.live, default=entry.default_run))

    def show_error(self, text: str) -> None:
        """Attributes down: a file could not be opened; say why on one line."""
        self.notice.update(Text.assemble(("cannot open: ", palette.ERROR), one_line(text)))
