"""Sharing a run from the stepper: the palette's "Export this run" and "Copy as cURL".

"Export this run (HTML|Markdown)" writes what ``turnscope export FILE --at N`` writes (N: the current
index), in the working directory, and says where. When the run holds secrets, ``RedactScreen`` first
shows what will be redacted (kinds and places, never the secrets) and asks; the export is written
redacted or not at all. "Copy as cURL" copies the request at N as a ``curl`` command that reads the
key from ``$ANTHROPIC_API_KEY`` (``tui.core.curl``). The scan and the writing run in a worker thread;
the dialog and the notifications are the UI thread's.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.app.render import styles as palette
from tui.core.safe import one_line

if TYPE_CHECKING:  # pragma: no cover
    from textual.screen import Screen as StepperScreen  # the stepper (``view``, ``index``): no import circle


class RedactScreen(ModalScreen[bool]):
    """What an export will redact, and the question: write it redacted (y) or not at all (n)."""

    HELP = ("The run holds secrets. The export replaces each with ⟨redacted: KIND⟩; the list names each by "
            "kind and place. y or Enter writes the redacted export; n or Escape writes nothing.")
    BINDINGS = [Binding("y,enter", "answer(True)", "Export redacted", id="redact.yes"),
                Binding("n,escape", "answer(False)", "Cancel", id="redact.no")]

    def __init__(self, places: list[str], target: str) -> None:
        super().__init__()
        self.places = places
        self.target = target

    def compose(self) -> ComposeResult:
        count = len(self.places)
        with Vertical(id="redact"):
            yield Static(Text(f"This run holds {count} secret{'s' if count != 1 else ''}. The export to "
                              f"{one_line(self.target)} will replace each with ⟨redacted: KIND⟩:", "bold"),
                         id="redact-question")
            with VerticalScroll(id="redact-list"):
                yield Static(Text("\n".join(one_line(p) for p in self.places)))
            yield Static(Text("y / enter: export redacted · n / escape: cancel", palette.DIM), id="redact-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def _say(screen: StepperScreen, text: str, title: str, severity: str = "information") -> None:
    screen.notify(text, title=title, severity=severity, markup=False)  # type: ignore[arg-type]


def export_run(screen: StepperScreen, fmt: str) -> None:
    """Scan for secrets in a worker; ask when there are some; then write."""
    from tui.core.export import default_output
    from tui.core.export import secret_places

    run, at = screen.view.run, min(screen.index, len(screen.view.run.messages))
    target = default_output(run.source.path or "run", fmt)

    def scanned(places: list[str]) -> None:
        if not places:
            _write(screen, fmt, at, target, redact=False)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                _write(screen, fmt, at, target, redact=True)
            else:
                _say(screen, "Nothing was written.", "Export cancelled")

        screen.app.push_screen(RedactScreen(places, target), answered)

    def scan() -> None:
        places = secret_places(run)
        screen.app.call_from_thread(scanned, places)

    screen.run_worker(scan, thread=True, group="export", exclusive=True)


def _write(screen: StepperScreen, fmt: str, at: int, target: str, *, redact: bool) -> None:
    from tui.core import jsonio
    from tui.core.export import export_bytes
    from tui.formats.lineage import parent_of

    run = screen.view.run

    def write() -> None:
        try:
            data, places = export_bytes(run, fmt, at=at, redact=redact, parent=parent_of(run))
            jsonio.atomic_write(target, data)
        except OSError as exc:
            screen.app.call_from_thread(_say, screen, f"{target}: cannot write: {exc.strerror or exc}",
                                        "Export failed", "error")
            return
        note = f", {len(places)} secret{'s' if len(places) != 1 else ''} redacted" if places else ""
        screen.app.call_from_thread(_say, screen, f"Wrote {target} ({fmt}, {len(run.messages)} messages, the request "
                                    f"at {at}{note})", "Exported")

    screen.run_worker(write, thread=True, group="export", exclusive=True)


def copy_curl(screen: StepperScreen) -> None:
    from tui.core.curl import curl_command

    index = min(screen.index, len(screen.view.run.messages))
    screen.app.copy_to_clipboard(curl_command(screen.view.run, index))
    _say(screen, f"Copied the request for message {index} as a curl command; it reads the key from "
                 "$ANTHROPIC_API_KEY when run, and holds none.", "Copied")


class ShareProvider(Provider):
    """The palette's "Export this run (HTML)", "(Markdown)" and "Copy as cURL"."""

    @property
    def stepper(self) -> StepperScreen:
        return self.screen  # type: ignore[return-value]

    def _commands(self) -> list[tuple[str, object, str]]:
        return [("Export this run (HTML)", partial(export_run, self.stepper, "html"),
                 "one self-contained page for a review, in the working directory"),
                ("Export this run (Markdown)", partial(export_run, self.stepper, "md"),
                 "the same, as Markdown"),
                ("Copy as cURL", partial(copy_curl, self.stepper),
                 "the request at this index as a curl command (the key from $ANTHROPIC_API_KEY)")]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, action, help_text in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), action, help=help_text)  # type: ignore[arg-type]

    async def discover(self) -> Hits:
        for text, action, help_text in self._commands():
            yield DiscoveryHit(Content(text), action, help=help_text)  # type: ignore[arg-type]
