"""The experiment's counting: events by tool, by tool input (a JSON path) and by final text; Wilson's
interval against published values; honest notes for few samples, identical answers and temperature 0."""

import pytest

from tui.core.branch.tally import Arm, Event, Sample, newcombe, summary, wilson
from tui.core.errors import UsageError
from tui.core.run import Run

REFUND = [{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "issue_refund",
                                             "input": {"order_id": "4471", "amount_cents": 8900}}]},
          {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
          {"role": "assistant", "content": [{"type": "text", "text": "Refunded £89.00."}]}]
MANAGER = [{"role": "assistant", "content": [{"type": "text", "text": "I have asked a Manager to look at it."}]}]


def test_wilson_matches_the_published_intervals():
    assert wilson(2, 5) == pytest.approx((0.1176, 0.7693), abs=1e-4)
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(5, 5) == pytest.approx((0.5655, 1.0), abs=1e-4)
    d, low, high = newcombe(5, 5, 0, 5)
    assert d == 1 and 0 < low < 1 and high == pytest.approx(1.0)


def test_events_by_tool_by_input_path_and_by_final_text():
    assert Event.parse("issue_refund").happened(REFUND)
    assert Event.parse("issue_refund:amount_cents=8900").happened(REFUND)
    assert not Event.parse("issue_refund:amount_cents=4450").happened(REFUND)
    assert Event.parse('issue_refund:order_id="4471"').happened(REFUND)
    assert Event.parse("issue_refund:order_id=4471").happened(REFUND) is False  # 4471 is a number, not the id string
    assert Event.parse("text:manager").happened(MANAGER) and not Event.parse("text:manager").happened(REFUND)
    for bad in ("", "text:", "issue_refund:=3", "issue_refund:amount_cents"):
        with pytest.raises(UsageError):
            Event.parse(bad)


def _sample(messages, status="end_turn"):
    run = Run(messages=[{"role": "user", "content": "hi"}, *messages], lineage={"at": 0, "status": status})
    return Sample.of(run, 0, Event.parse("issue_refund"))


def test_identical_answers_few_samples_and_temperature_0_are_said():
    edited, control = Arm("edited", [_sample(MANAGER) for _ in range(3)]), Arm("control", [_sample(REFUND) for _ in range(3)])
    doc = summary([edited, control], None, Event.parse("issue_refund"), temperature=0)
    notes = " | ".join(doc["notes"])
    assert "edited: all 3 samples gave the identical first answer" in notes
    assert "interval is wide" in notes and "temperature 0" in notes
    assert doc["arms"]["edited"]["event"]["count"] == 0 and doc["arms"]["control"]["event"]["count"] == 3
    assert doc["difference"]["edited_minus_control"] == -1


def test_unfinished_samples_are_left_out_of_the_counts_and_said():
    arm = Arm("edited", [_sample(REFUND), _sample([], status="api_error")])
    doc = summary([arm], None, Event.parse("issue_refund"))
    assert doc["arms"]["edited"]["event"] == {"count": 1, "of": 1, "rate": 1.0,
                                              "interval95": list(wilson(1, 1))}
    assert any("1 of 2 samples did not finish" in n for n in doc["notes"])
