"""Stepping leaves nothing for the cyclic collector, and no young collection falls inside a step.

What a step draws is freed by reference counts (``tui.app.strip_cycles``: Textual kept a one-piece
divide of a strip in the strip's own cache, a cycle every scrollbar and header row left behind), and
a step starts with an empty young generation (``tui.core.collector.stepped``), so the collection of
what steps keep alive does not pause one of them.
"""

from __future__ import annotations

import gc
from collections import Counter

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from app_helpers import app_for, settle, stepper, write_run

from tui.app import strip_cycles


def _strips(n: int) -> list[Strip]:
    styles = [Style(bold=True), Style(color="red"), None]
    return [Strip([Segment(f"{k}ab", styles[k % 3]), Segment("cdé", styles[(k + 1) % 3]), Segment("漢字")])
            for k in range(n)]


def test_a_strip_cut_only_at_its_end_is_itself_and_leaves_no_cycle():
    strip_cycles.install()
    strip = _strips(1)[0]
    was = gc.isenabled()
    gc.disable()
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        assert strip.divide([strip.cell_length]) == [strip]
        assert strip.divide([strip.cell_length])[0] is strip
        del strip
        gc.collect()
        assert not [o for o in gc.garbage if isinstance(o, Strip)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was:
            gc.enable()


def test_every_other_divide_is_textuals():
    strip_cycles.install()
    for strip in _strips(6):
        length = strip.cell_length
        for cuts in ([length], [1, length], [3, length], [2, 5, length], [4, 6, length + 3], [length + 2], [0, length]):
            ours = strip.divide(cuts)
            theirs = strip_cycles._textual_divide(Strip(list(strip), length), cuts)
            assert [list(s) for s in ours] == [list(s) for s in theirs], cuts
            assert [s.cell_length for s in ours] == [s.cell_length for s in theirs], cuts


async def test_steps_leave_no_strip_in_a_cycle_and_start_with_an_empty_young_generation(tmp_path):
    messages = [{"role": "user" if i % 2 == 0 else "assistant",
                 "content": [{"type": "text", "text": f"message {i} " + "words " * (i % 40)}]} for i in range(300)]
    app = app_for(write_run(tmp_path / "long.jsonl", messages), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = stepper(app)
        young: list[int] = []
        go_to = screen.go_to

        def step(index: int) -> None:
            go_to(index)
            young.append(gc.get_count()[0])  # after the step's work: what it left in the young generation

        screen.go_to = step
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            for key in ["j"] * 60 + ["k"] * 20:  # past the bottom of the list (it scrolls), and back
                await pilot.press(key)
            await settle(pilot)
            gc.collect()
            kinds = Counter(type(o).__name__ for o in gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        assert screen.index == 40
        assert kinds["Strip"] == 0, kinds.most_common(8)
        assert len(young) == 80 and max(young) < 5000, young  # each step began empty: one step's objects at most
