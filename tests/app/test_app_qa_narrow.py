"""Acceptance checks at 80x24 and on resizing (a user over SSH): what does not fit stays readable and
named (headers, run list, request pane, Problems), and the current message stays in view."""

from __future__ import annotations

import re

from analysis_helpers import INVENTED, cursor_to, stepper
from app_helpers import REFUND, app_for, screen_text, settle
from conftest import SAMPLES


async def test_a_traced_value_too_wide_for_80_columns_keeps_its_source_under_it(tmp_path):
    app = app_for(REFUND, tmp_path, at=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pane = stepper(app).request
        rows = pane.text_rows()
        head = next(y for y, r in enumerate(rows) if ".amount_cents = 8900" in r)
        # The path and its value stay whole on their row; the source follows on its own rows, indented
        # under the path (never wrapped back to the margin as "| .[0].total_cents").
        assert rows[head].strip() == ".amount_cents = 8900"
        assert rows[head + 1].startswith("      ← message 2 (loop) · block 0 · .content | fromjson")
        assert ".[0].total_cents" in rows[head + 1] or rows[head + 2].startswith("      ")
        assert not any(r.lstrip().startswith("|") for r in rows)
        # Enter on the source's row goes to the source, as it does on the value's row.
        await cursor_to(pilot, pane, "← message 2 (loop)")
        await pilot.press("enter")
        await settle(pilot)
        assert stepper(app).index == 2


async def test_opening_at_a_late_index_at_80x24_shows_that_message_in_the_list(tmp_path):
    app = app_for(REFUND, tmp_path, at=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "▶  7 assistant call 4" in screen_text(app)


async def test_a_smaller_terminal_keeps_the_current_message_in_the_list(tmp_path, realruns):
    app = app_for(realruns / "sweagent__marshmallow-code__marshmallow-1867.traj", tmp_path, at=19)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        # (message 19's finding is a provenance note: notes put no mark in the list)
        assert "▶  19 assistant call 10" in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert "▶  19 assistant call 10" in screen_text(app)


async def test_the_header_at_80_columns_still_names_the_file(tmp_path):
    app = app_for(REFUND, tmp_path, at=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        header = screen_text(app).splitlines()[0].strip()
        assert header == "message 5 of 8 · model call 3 of 4 · reconstructed · run.jsonl (messages)"
        await pilot.resize_terminal(140, 30)
        await settle(pilot)
        header = screen_text(app).splitlines()[0].strip()
        assert header.endswith("reconstructed prefix · sample_runs/refund/run.jsonl (messages)")


async def test_the_diff_header_names_both_files_at_120_and_at_80_columns(tmp_path):
    app = app_for(REFUND, tmp_path, diff=str(INVENTED))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        header = screen_text(app).splitlines()[0].strip()
        assert header == ("diff · first divergence: message 5 · 4 changes · A run.jsonl (8) · "
                          "B invented_order_id.jsonl (8)")
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        header = screen_text(app).splitlines()[0].strip()
        assert header == "diff · from message 5 · 4 changes · A run.jsonl · B invented_order_id.jsonl"


async def test_the_run_list_at_80x24_keeps_each_run_to_two_rows_and_says_how_many(tmp_path, realruns):
    app = app_for(realruns / "spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        rows = [r.strip() for r in screen_text(app).splitlines()]
        assert rows[0] == "spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl holds 2 runs · choose one"
        # The first words are cut with an ellipsis on their row, not wrapped to the margin mid-word ("of con").
        # each run's size and when its first call was sent (the run list sorts by them: o)
        assert rows[1] == "run 0  158 messages, 79 model calls · 2026-02-12 14:51 UTC"
        assert rows[2].startswith("This session is being continued") and rows[2].endswith("…")
        assert rows[3].startswith("run 1  276 messages, 138 model calls · 2026-02-")


async def test_a_folded_one_line_block_does_not_say_1_lines(tmp_path, realruns):
    app = app_for(realruns / "spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl", tmp_path, run=1, at=200)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        rows = stepper(app).request.text_rows()
        # its tool input is shown field by field; each folded field says how many lines it holds
        assert any(re.search(r"^\s+\w+: \d+ lines", r) for r in rows)
        assert not any(re.search(r"(?<!\d)1 lines", r) for r in rows)


async def test_problems_at_80x24_wrap_under_their_text_not_under_the_marks(tmp_path):
    app = app_for(SAMPLES / "broken" / "orphan_result_retry.jsonl", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        lines = screen_text(app).splitlines()
        start = next(y for y, line in enumerate(lines) if "consecutive_user" in line)
        rows = [line.rstrip() for line in lines[start:] if line.strip()][:10]
        assert rows[0].startswith(" △ WARNING 3") and rows[1].startswith("   two user turns in a row")
        # A finding's wrapped rows are indented under its text; only the marks stand at the margin.
        for row in rows:
            assert row.startswith((" △", " ✗", "   ")), row
        assert "     messages 2 and 3" in rows
