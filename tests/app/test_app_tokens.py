"""The Tokens view and the message list's token column, driven by keys: bars per call, every number marked
(estimated, exact, recorded), Enter to a top carried message, exact counts through count_tokens, and the
work done in a worker that yields to the keys and draws only the rows on screen."""

from __future__ import annotations

import threading

from analysis_helpers import call_rows, cursor_to, joined, stepper
from app_helpers import REFUND, app_for, screen_text, settle
from fake_messages_api import fake_count, serve
from run_files import write_jsonl

from tui.app.widgets.tokens_view import CARRIED, NEW
from tui.core.count_tokens import count_body
from tui.core.prefix import request_at
from tui.core.tokens import token_report
from tui.core.view.analyses import RunAnalyses, Stopped, compact
from tui.formats import open_run


async def test_tokens_view_draws_a_bar_per_call_and_marks_every_estimate(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    report = token_report(open_run(str(REFUND)))
    app = app_for(REFUND, tmp_path, at=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        view = stepper(app).tokens_view
        rows = view.text_rows()
        calls = call_rows(rows)
        assert len(calls) == 4
        for row, c in zip(calls, report.calls):
            assert f"~{c.total_input:,}" in row and "estimated" in row  # the kind on every number
        bars = [r.rstrip().split("estimated")[1].strip() for r in calls]
        assert set(bars[0]) == {NEW}  # the first request carries nothing from an earlier one
        assert all(CARRIED in b and NEW in b for b in bars[1:])
        assert [len(b) for b in bars] == sorted(len(b) for b in bars)  # longer as the requests grow
        assert any(f"total input ~{report.total_input:,}" in r for r in rows)
        assert any(r.startswith("~ marks an estimate") for r in rows)
        # The cursor follows the message list: on the call that produced message 5.
        assert rows[view.cursor].split()[:2] == ["3", "5"]
        assert "12345 View" in screen_text(app)  # the key is in the footer, with the other views


async def test_enter_on_a_top_carried_message_jumps_to_it(tmp_path):
    report = token_report(open_run(str(REFUND)))
    top = report.top_carried(1)[0]
    app = app_for(REFUND, tmp_path, at=7)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        view = stepper(app).tokens_view
        await cursor_to(pilot, view, f"message {top.index} ")
        assert f"x {top.sends - 1} = ~{top.carried}" in view.text_rows()[view.cursor]
        await pilot.press("enter")
        await settle(pilot)
        screen = stepper(app)
        assert screen.index == top.index == 2
        assert screen.view_name == "request"
        assert "message 2 · user · loop · the loop's output" in screen_text(app)


async def test_message_list_shows_each_requests_input_tokens(tmp_path):
    report = token_report(open_run(str(REFUND)))
    app = app_for(REFUND, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = stepper(app)
        width = screen.message_list.size.width
        rows = [screen.message_list.row_text(i, width).plain for i in range(8)]
        for c in report.calls:
            assert f"~{compact(c.total_input)}" in rows[c.message]
        assert "~" not in rows[0] and "~" not in rows[2]  # no model call produced them: no request of theirs
        assert f"~{compact(report.calls[0].total_input)}" in screen_text(app)


async def test_recorded_usage_is_shown_unmarked(tmp_path, realruns):
    path = realruns / "spotter__tool_heavy.jsonl"
    report = token_report(open_run(str(path)))
    app = app_for(path, tmp_path, view="tokens")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        rows = stepper(app).tokens_view.text_rows()
        calls = call_rows(rows)
        assert [r.split()[2] for r in calls] == [f"{c.total_input:,}" for c in report.calls]  # no ~: recorded
        assert all("recorded" in r for r in calls)
        assert not any(r.startswith("~ marks") for r in rows)
        first = stepper(app).message_list.row_text(report.calls[0].message, 100).plain
        assert compact(report.calls[0].total_input) in first and "~" not in first


async def test_tokens_are_counted_in_a_worker_and_the_keys_still_work(tmp_path, monkeypatch):
    """The report is slow on a long run: until it arrives the view says so and stepping goes on."""
    release = threading.Event()
    real = RunAnalyses.compute_tokens

    def slow(self, *args, **kwargs):
        release.wait(10)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(RunAnalyses, "compute_tokens", slow)
    app = app_for(REFUND, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        await pilot.press("j", "j", "5")
        await pilot.pause(0.1)
        screen = stepper(app)
        assert screen.index == 2
        assert any("counting the tokens of every request" in r for r in screen.tokens_view.text_rows())
        release.set()
        await settle(pilot)
        assert call_rows(screen.tokens_view.text_rows())


def test_background_analyses_wait_while_the_user_steps_and_stop_when_cancelled():
    """``hold`` (every step) makes the workers wait at their next message; ``resume`` lets them go on; a
    cancelled worker stops there instead of keeping the app from closing."""
    analyses = RunAnalyses(open_run(str(REFUND)))
    cancelled = threading.Event()
    done: list = []
    analyses.hold()
    worker = threading.Thread(target=lambda: done.append(analyses.compute_tokens(
        tick=analyses.ticker(cancelled.is_set))))
    worker.start()
    worker.join(0.5)
    assert worker.is_alive() and not done  # held: nothing computed while the user steps
    analyses.resume()
    worker.join(10)
    assert done and done[0].calls  # resumed: the report is made
    analyses.hold()
    stopped: list = []

    def trace_all() -> None:
        try:
            analyses.compute_unsourced(analyses.ticker(cancelled.is_set))
        except Stopped:
            stopped.append(True)

    worker = threading.Thread(target=trace_all)
    worker.start()
    cancelled.set()
    worker.join(5)
    assert not worker.is_alive() and stopped


async def test_exact_counts_go_to_count_tokens_only_when_confirmed(tmp_path, monkeypatch):
    run = open_run(str(REFUND))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with serve() as api:
        for key, value in api.env().items():
            monkeypatch.setenv(key, value)
        app = app_for(REFUND, tmp_path, view="tokens")
        async with app.run_test(size=(200, 50)) as pilot:
            await settle(pilot)
            view = stepper(app).tokens_view
            await pilot.press("x")
            await settle(pilot)
            assert "x again sends 4 request(s) of this run to the count_tokens endpoint" in joined(view)
            await pilot.press("up", "x")  # another key cancelled it: this x asks again, nothing is sent
            await settle(pilot)
            assert api.requests == []
            assert "x again sends 4 request(s)" in joined(view)
            await pilot.press("x")
            await settle(pilot)
            assert len(api.requests) == 4
            rows = view.text_rows()
            expected = [fake_count(count_body(request_at(run, m).body)) for m in (1, 3, 5, 7)]
            assert [r.split()[2] for r in call_rows(rows)] == [f"={n:,}" for n in expected]
            assert all("exact" in r for r in call_rows(rows))
            assert "count_tokens: 4 sent, 0 from the cache" in joined(view)


async def test_exact_counts_without_a_key_say_so_and_keep_the_estimates(tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    app = app_for(REFUND, tmp_path, view="tokens")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("x", "x")
        await settle(pilot)
        view = stepper(app).tokens_view
        assert "exact counts failed: exact counts call the count_tokens endpoint: set ANTHROPIC_API_KEY" in joined(view)
        assert all("estimated" in r for r in call_rows(view.text_rows()))


async def test_tokens_view_of_a_long_run_draws_only_the_rows_on_screen(tmp_path, monkeypatch):
    from tui.app.widgets.tokens_view import CallBars

    messages = [{"role": "user", "content": "go"}]
    for k in range(3000):
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"t{k}", "name": "f",
                                                        "input": {"n": k}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{k}",
                                                   "content": f"result {k}"}]}]
    path = write_jsonl(tmp_path / "long.jsonl", messages)
    built: list[int] = []
    real = CallBars.row
    monkeypatch.setattr(CallBars, "row", lambda self, k, width: built.append(k) or real(self, k, width))
    app = app_for(path, tmp_path, view="tokens", at=4001)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        view = stepper(app).tokens_view
        assert len(view.document) > 3000  # one row per call...
        drawn = set(built)
        assert 0 < len(drawn) <= 60  # ...but only the rows on screen were built
        assert 2000 in drawn  # the cursor's row, call 2001 (it produced message 4001), is on screen
        assert view.text_rows()[view.cursor].split()[:2] == ["2001", "4001"]
