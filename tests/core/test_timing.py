"""Call times: what the source recorded, the loop's time between calls, and the run's totals."""

from __future__ import annotations

from tui.core.run import ModelCall, Run
from tui.core.timing import call_timings, duration, run_timing


def _run(*calls: ModelCall) -> Run:
    messages = []
    for call in calls:
        messages += [{"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}]
    return Run(messages=messages, calls=list(calls))


def test_loop_time_is_the_gap_from_one_answer_to_the_next_request():
    run = _run(ModelCall(1, started="2026-01-01T10:00:00Z", duration_ms=2000),
               ModelCall(3, started="2026-01-01T10:00:05Z", duration_ms=1000),
               ModelCall(5, started="2026-01-01T10:00:05.500Z", duration_ms=500))  # overlapped the one before
    timings = call_timings(run)
    assert [t.loop_ms for t in timings] == [3000.0, None, None]
    total = run_timing(timings)
    assert (total.wall_ms, total.model_ms, total.loop_ms, total.timed) == (6000.0, 3500.0, 3000.0, 3)
    assert not total.derived


def test_a_run_without_times_has_no_totals_and_a_missing_duration_is_not_counted():
    assert run_timing(call_timings(_run(ModelCall(1), ModelCall(3)))) is None
    run = _run(ModelCall(1, started="2026-01-01T10:00:00+00:00", derived_timing=True), ModelCall(3, started="bad"))
    total = run_timing(call_timings(run))
    assert total.timed == 0 and total.calls == 2 and total.derived


def test_durations_read_at_a_glance():
    assert [duration(v) for v in (None, 840, 12_400, 185_000, 7_440_000)] == [
        "—", "840 ms", "12.4 s", "3 min 05 s", "2 h 04 min"]
    assert [duration(v, compact=True) for v in (840, 12_400, 185_000, 7_440_000, 284_400_000)] == [
        "840ms", "12.4s", "3m05s", "2h04m", "3d07h"]
