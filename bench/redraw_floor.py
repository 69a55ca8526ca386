"""The floor of a step: a minimal Textual app whose whole screen is drawn again with new text on each key.

    python bench/redraw_floor.py TOTAL [--layout ours|one]

``bench_stepper.py`` runs it in the same pty (120x40) and measures it the same way as turnscope's
step: ``j`` sent, the time until the frame that says ``message N of TOTAL`` has been drawn, and the
app's CPU per key. Every row on screen is new text on every key (no row of one frame is drawn
again in the next), styled in a few spans as turnscope's rows are, so this is what Textual itself
costs to draw a full 120x40 screen on this machine, with nothing of turnscope in it:

- ``ours`` (the default): laid out like the stepper: a header line, a list of TOTAL rows (Line
  API, a cursor that scrolls, 46% of the width, a border and a scrollbar), the pane beside it
  (Line API, its rows replaced, a scrollbar always shown), a tabs line, a status line and
  Textual's footer;
- ``one``: one Line API widget covering the whole screen.
"""

from __future__ import annotations

import sys

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Footer, Static

ROLES = ("user", "assistant")
STYLES = (Style(color="cyan"), Style(color="magenta"), Style(color="green"), Style(dim=True), Style(bold=True))

CSS = """
#header { height: 1; padding: 0 1; background: $panel; }
#panes { height: 1fr; layout: horizontal; }
Rows { background: $surface; scrollbar-size-vertical: 1; }
#list { width: 46%; height: 1fr; border-right: vkey $panel-lighten-2; }
#right { height: 1fr; }
#tabs { height: 1; padding: 0 1; }
#pane { height: 1fr; overflow-y: scroll; }
#status { height: 1; padding: 0 1; background: $panel; }
#one { height: 1fr; }
"""


def row(n: int, y: int, width: int, console) -> Strip:
    """Row ``y`` drawn at key ``n``: five styled spans, new text on every key."""
    text = Text.assemble((f"{y:>6}", STYLES[3]), " ", (ROLES[(y + n) % 2].ljust(9), STYLES[(y + n) % 2]), " ",
                         (f"call {n + y}".ljust(10), STYLES[2]), " ",
                         (f"key {n} row {y}: the text of a block, a tool's input or its result " * 2, ""),
                         no_wrap=True, end="")
    if y % 7 == 0:
        text.stylize(STYLES[4], 0, 6)
    segments = [Segment(s.text, s.style) for s in text.render(console)]
    return Strip(segments).crop_extend(0, width, Style.null())


class Rows(ScrollView, can_focus=True):
    """``rows`` rows drawn with the Line API, every one with new text after each key; a cursor row."""

    def __init__(self, rows: int, *, id: str, total: int | None = None) -> None:
        super().__init__(id=id)
        self.virtual_size = Size(0, rows)
        self.n = 0
        self.cursor = 0
        self.total = total  # set: the first line says ``message N of TOTAL`` (the whole screen is this widget)

    def render_line(self, y: int) -> Strip:
        at = self.scroll_offset.y + y
        if self.total is not None and y == 0:
            text = Text(f"message {self.n} of {self.total} · model call 1 · exact · key {self.n}", "bold")
            segments = [Segment(s.text, s.style) for s in text.render(self.app.console)]
            return Strip(segments).crop_extend(0, self.scrollable_content_region.width, Style.null())
        strip = row(self.n, at, self.scrollable_content_region.width, self.app.console)
        return strip.apply_style(Style(reverse=True)) if at == self.cursor else strip

    def step(self, n: int, cursor: int) -> None:
        self.n, self.cursor = n, cursor
        height = self.scrollable_content_region.height
        if height and cursor >= self.scroll_offset.y + height:
            self.scroll_to(y=cursor - height + 1, animate=False, immediate=True)
        self.refresh()


class Floor(App):
    """Each ``j``: every row on screen drawn again with new text."""

    CSS = CSS
    BINDINGS = [("j", "step", "Step"), ("q", "quit", "Quit"), ("k", "step", "Back")]

    def __init__(self, total: int, layout: str) -> None:
        super().__init__()
        self.total, self.layout, self.n = total, layout, 0

    def compose(self) -> ComposeResult:
        if self.layout == "one":
            yield Rows(self.total, id="one", total=self.total)
            return
        yield Static(self.header(), id="header")
        with Horizontal(id="panes"):
            yield Rows(self.total + 1, id="list")
            with Vertical(id="right"):
                yield Static(self.tabs(), id="tabs")
                yield Rows(400, id="pane")
        yield Static(self.tabs(), id="status")
        yield Footer()

    def header(self) -> Text:
        return Text.assemble((f"message {self.n} of {self.total}", "bold"), " · model call 1 · ",
                             ("exact", "bold green"), f" · key {self.n}")

    def tabs(self) -> Text:
        return Text.assemble((f" 1 Request {self.n} ", "reverse bold"), (" 2 Raw  3 Account  4 Problems ", "dim"))

    def action_step(self) -> None:
        self.n += 1
        if self.layout == "one":
            self.query_one(Rows).step(self.n, -1)
            return
        for name, text in (("#header", self.header()), ("#tabs", self.tabs()), ("#status", self.tabs())):
            self.query_one(name, Static).update(text, layout=False)  # one line each: no layout asked
        self.query_one("#list", Rows).step(self.n, self.n)
        self.query_one("#pane", Rows).step(self.n, 0)


if __name__ == "__main__":
    args = sys.argv[1:]
    layout = args[args.index("--layout") + 1] if "--layout" in args else "ours"
    Floor(int(args[0]), layout).run()
