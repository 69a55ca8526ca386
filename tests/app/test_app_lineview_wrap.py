"""A LineView wraps a big expanded block in a worker; a layout again at the same width (the request pane
built again on a step back, a fold opened elsewhere) keeps that worker instead of cancelling it and
wrapping the block again from the start; another width starts one anew."""

from __future__ import annotations

import threading

from app_helpers import settle
from rich.text import Text
from textual.app import App, ComposeResult

from tui.app.render.lines import BIG, Rows, Wrapped
from tui.app.widgets.lineview import LineView


class HeldBlock(Wrapped):
    """A big block whose wrapping waits for the test to let it go (so the worker is surely still running
    when the view lays out again), counting how often it was wrapped at each width."""

    def __init__(self, text: str) -> None:
        super().__init__(text, head=Text("text  "), indent=6)
        self.go = threading.Event()
        self.prepared: list[int] = []

    def prepare(self, width: int) -> None:
        self.prepared.append(width)
        self.go.wait(60)
        super().prepare(width)


class Host(App):
    def compose(self) -> ComposeResult:
        yield LineView(id="doc")


def _wrap_workers(app) -> list:
    return [w for w in app.workers if w.group == "wrap"]


async def test_a_layout_again_at_the_same_width_keeps_the_running_wrap_worker():
    words = "word " * (BIG // 5 + 1000) + "LAST-WORD"
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(LineView)
        block = HeldBlock(words)
        try:
            view.set_parts([Rows([Text("a big tool result")]), block])
            await pilot.pause()
            running = _wrap_workers(app)
            assert len(running) == 1 and not running[0].is_finished
            view.set_parts([Rows([Text("a big tool result, built again")]), block])  # same width, same block
            await pilot.pause()
            assert _wrap_workers(app) == running and not running[0].is_cancelled
        finally:
            block.go.set()
        await settle(pilot)
        assert running[0].is_finished and not running[0].is_cancelled
        assert len(block.prepared) == 1  # wrapped once, not started again
        rows = view.text_rows()
        assert len(rows) > 10_000 and rows[-1].rstrip().endswith("LAST-WORD")  # all of it, to the last word


async def test_another_width_wraps_anew():
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(LineView)
        block = HeldBlock("word " * (BIG // 5 + 1000))
        block.go.set()
        view.set_parts([block])
        await settle(pilot)
        await pilot.resize_terminal(100, 24)
        await settle(pilot)
        assert len(set(block.prepared)) == 2 and len(block.prepared) == 2
        assert max(len(row) for row in view.text_rows()) > 80
