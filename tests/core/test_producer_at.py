"""``producer_at`` gives one index's producer without walking the run (the stepper asks per row)."""

from conftest import SAMPLES

from tui.core.producers import producer_at, producers
from tui.formats import open_run


def test_refund_run_producers_follow_the_seed():
    run = open_run(str(SAMPLES / "refund" / "run.jsonl"))
    labels = [producer_at(run, i).label for i in range(len(run.messages))]
    assert labels == ["caller", "call 1", "loop", "call 2", "loop", "call 3", "loop", "call 4"]
    assert producer_at(run, 7).transition == "end_turn ends the run"


def test_a_parity_break_is_seen_from_the_index_alone():
    run = open_run(str(SAMPLES / "broken" / "orphan_result_retry.jsonl"))
    assert producer_at(run, 3).parity_break  # results appended straight after results
    assert not producer_at(run, 2).parity_break
    assert producers(run) == [producer_at(run, i) for i in range(len(run.messages))]
