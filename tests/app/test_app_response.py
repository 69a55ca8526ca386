"""The Response view (6): what message N's model call returned and when, on a recorded cassette (the
answer's server-sent events as the recorder kept them, behind a fold) and on a Claude Code transcript
(times derived from its line timestamps, and marked so); the Tokens view's time row; the latency column."""

from __future__ import annotations

import pytest
from app_helpers import app_for, screen_text, settle
from conftest import REPO

from tui.app.render.response import EVENTS
from tui.app.screens.stepper import StepperScreen
from tui.formats import load_runs

CASSETTE = "llmanthropic__test_tools.yaml"
TRANSCRIPT = "spotter__tool_heavy.jsonl"


def _rows(app) -> list[str]:
    screen = app.screen
    assert isinstance(screen, StepperScreen)
    return screen.response_view.text_rows()


async def test_response_of_a_recorded_call_shows_what_the_api_sent(tmp_path, realruns):
    path = realruns / CASSETTE
    body = load_runs(str(path))[0].calls[0].response_body
    app = app_for(path, tmp_path, at=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        text = screen_text(app)
        assert "6 Resp" in text and "Response · message 1 · model call 1 of 2" in text
        rows = "\n".join(_rows(app))
        for shown in ("status        200", "request id    req_011CZkTfmdQovVWg8SG5f6Lq",
                      "model         claude-haiku-4-5-20251001", "stop reason   tool_use", "input         542",
                      "output        62", "cache read    0", "cache write   0", "timing        not recorded",
                      f"{len(body.encode()):,} bytes, streamed", "▸ 10 server-sent events"):
            assert shown in rows
        assert "message_start" not in rows  # the events are folded
        await pilot.press("enter")  # from the list into the view
        assert app.focused is app.screen.response_view
        await pilot.press("enter")  # the view has one fold: enter opens it
        await settle(pilot)
        rows = _rows(app)
        assert any("▾ 10 server-sent events" in r for r in rows)
        start = app.screen.response_view.document.first_row_of(EVENTS) + 1
        # every character of the body as recorded is drawn (wrapped at words: only the breaks differ)
        assert "".join("".join(rows[start:]).split()) == "".join(body.split())
        await pilot.press("enter")
        await settle(pilot)
        assert not any("message_start" in r for r in _rows(app))


async def test_response_of_a_transcript_call_marks_its_times_as_derived(tmp_path, realruns):
    app = app_for(realruns / TRANSCRIPT, tmp_path, at=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        rows = "\n".join(_rows(app))
        assert "request id    req_011CY1DVR7LRGxBs854DBvGb" in rows
        assert "status        not recorded" in rows
        assert "sent          2026-02-10T22:57:59.113+00:00" in rows
        assert "done          2026-02-10T22:58:02.888+00:00 (+3.8 s)" in rows
        assert "loop after    1 min 20 s until the next request was sent" in rows
        assert "derived from the transcript's line timestamps" in rows
        assert "not recorded: the claude-code source keeps the answer as a" in rows
        assert "1 Req" in screen_text(app) or "6 Response" in screen_text(app)  # the tabs fit the pane
        await pilot.press("j")  # the view follows the index; message 4 is the loop's
        await settle(pilot)
        assert "No model call produced message 4" in "\n".join(_rows(app))


async def test_tokens_view_opens_with_the_runs_wall_model_and_loop_time(tmp_path, realruns):
    app = app_for(realruns / TRANSCRIPT, tmp_path, view="tokens")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        rows = app.screen.tokens_view.text_rows()
        assert " ".join(" ".join(rows[1:3]).split()).startswith("wall 1 min 43 s · model 15.6 s · loop (tools) 1 min 27 s · derived")


async def test_tokens_view_says_when_a_source_records_no_time(tmp_path, realruns):
    app = app_for(realruns / CASSETTE, tmp_path, view="tokens")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.screen.tokens_view.text_rows()[1] == "time: not recorded by this source"


async def test_latency_column_shows_each_calls_time(tmp_path, realruns):
    app = app_for(realruns / TRANSCRIPT, tmp_path, at=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "~3.8s" not in screen_text(app)
        await pilot.press("L")
        await settle(pilot)
        row = next(line for line in screen_text(app).split("\n") if " 3 assistant call 2" in line)
        assert "~3.8s" in row
        await pilot.press("L")
        await settle(pilot)
        assert "~3.8s" not in screen_text(app)


@pytest.fixture
def _in_checkout(monkeypatch):
    monkeypatch.chdir(REPO)


def test_response_view_snapshot_at_80x24(snap_compare, tmp_path, realruns, _in_checkout):
    app = app_for(realruns / CASSETTE, tmp_path, at=1, view="response")

    async def opened(pilot) -> None:
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=opened)
