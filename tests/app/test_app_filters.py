"""Filters: the message list filtered by role, tool, finding and words (hidden rows counted in the
header, stepping keys past them), and search over the system prompt and the tools too, saying when
it wrapped, cleared by Escape."""

from __future__ import annotations

from app_helpers import REFUND, app_for, screen_text, settle, stepper
from conftest import REPO, SAMPLES

from tui.app.screens.stepper import StepperScreen

WITH_FINDINGS = SAMPLES / "broken" / "orphan_result_retry.jsonl"


async def _filter(pilot, typed: str) -> None:
    await pilot.press("ampersand", "ctrl+u", *[{" ": "space", ":": "colon"}.get(c, c) for c in typed], "enter")
    await settle(pilot)


def _status(app) -> str:
    """The status line, on however many rows it took, as one line."""
    return " ".join(str(stepper(app).status.render()).split())


def _list_rows(app) -> list[str]:
    screen = stepper(app)
    width = screen.message_list.size.width
    return [screen.message_list.line_text(row, width).plain for row in range(screen.message_list.row_count())]


async def test_a_role_filter_hides_rows_counts_them_and_stepping_skips_them(tmp_path):
    app = app_for(REFUND, tmp_path, at=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _filter(pilot, "role:assistant")
        screen = stepper(app)
        assert screen.index == 1  # message 0 is hidden: the next shown one
        assert "filter role:assistant: 4 hidden" in screen_text(app).split("\n")[0]
        assert [row.split()[:2] for row in _list_rows(app)[:4]] == [
            ["1", "assistant"], ["3", "assistant"], ["5", "assistant"], ["7", "assistant"]]
        await pilot.press("j")
        assert screen.index == 3
        await pilot.press("j", "j")
        assert screen.index == 7
        await pilot.press("k")
        assert screen.index == 5
        await _filter(pilot, "")  # an empty answer: off
        assert "hidden" not in screen_text(app) and len(_list_rows(app)) == 9
        assert screen.index == 5


async def test_a_tool_filter_keeps_its_calls_and_their_results_and_n_steps_past_the_rest(tmp_path):
    app = app_for(REFUND, tmp_path, at=0)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await _filter(pilot, "tool:issue_refund")
        screen = stepper(app)
        assert screen.message_list.shown == [5, 6, 8]
        assert screen.index == 5
        await pilot.press("p")  # the earlier model calls are hidden: none to go to
        assert screen.index == 5
        await _filter(pilot, "role:user refund_id")  # words and a role: both must hold
        assert screen.message_list.shown == [6, 8]


async def test_a_finding_filter_and_the_next_finding_key(tmp_path):
    app = app_for(WITH_FINDINGS, tmp_path, at=0)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        screen = stepper(app)
        marked = [i for i in range(screen.view.total) if screen.view.severity(i) is not None]
        assert marked
        await _filter(pilot, "finding")
        assert screen.message_list.shown == [*marked, screen.view.total]
        assert f"{screen.view.rows - len(marked) - 1} hidden" in screen_text(app)


async def test_search_covers_the_system_prompt_and_the_tools_and_says_when_it_wraps(tmp_path):
    app = app_for(REFUND, tmp_path, at=0)
    async with app.run_test(size=(130, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"Northwind", "enter")  # only in the system prompt
        await settle(pilot)
        assert "'Northwind': no message matches; in the system prompt (s)" in _status(app)
        await pilot.press("slash", "ctrl+u", *"carrier", "enter")
        await settle(pilot)
        screen = stepper(app)
        assert screen.matches.rows == [2, 4] and screen.index == 2
        assert "also in the system prompt (s), 1 tool: get_shipment (t)" in _status(app)
        await pilot.press("greater_than_sign", "greater_than_sign")
        await settle(pilot)
        assert screen.index == 2 and "match 1 of 2, wrapped to the top" in _status(app)
        await pilot.press("escape")  # Escape clears the search
        await settle(pilot)
        assert screen.matches is None and "search" not in _status(app)
        assert isinstance(app.screen, StepperScreen)


def test_filtered_list_snapshot_at_80x24(snap_compare, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    app = app_for(REFUND, tmp_path, at=3)

    async def filtered(pilot) -> None:
        await settle(pilot)
        await _filter(pilot, "tool:lookup_policy")

    assert snap_compare(app, terminal_size=(80, 24), run_before=filtered)
