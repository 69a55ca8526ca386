"""The messages' token estimates computed in parts (another process may compute some): the same report."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SAMPLES
from tui.core.prefix_sums import PrefixSums, message_sizes
from tui.core.run import Run, infer_calls
from tui.core.tokens import token_report
from tui.formats import open_run

REFUND = SAMPLES / "refund" / "run.jsonl"


def _varied_run(n: int) -> Run:
    """Messages of different sizes, thinking in some assistant turns (whose estimate changes when it counts)."""
    messages = [{"role": "user", "content": "start " * 3}]
    for k in range(n):
        blocks = [{"type": "text", "text": "word " * (k * 7 % 50 + 1)}]
        if k % 3 == 0:
            blocks.insert(0, {"type": "thinking", "thinking": "think " * (k + 1), "signature": "s"})
        blocks.append({"type": "tool_use", "id": f"toolu_{k:04d}", "name": "step", "input": {"k": k}})
        messages.append({"role": "assistant", "content": blocks})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k:04d}",
                                                      "content": "row 4471, " * (k % 11 + 1)}]})
    run = Run(messages=messages)
    run.calls = infer_calls(run.messages)
    return run


def _parts(run: Run, cuts: list[int]):
    bounds = [0, *sorted({c % (len(run.messages) + 1) for c in cuts}), len(run.messages)]
    return [message_sizes(run.messages, a, b) for a, b in zip(bounds, bounds[1:])]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.lists(st.integers(0, 200), max_size=6))
def test_estimates_computed_in_any_parts_give_the_report_computed_whole(n, cuts):
    run = _varied_run(n)
    whole = token_report(run)
    parts = _parts(run, cuts)
    assert token_report(run, parts=parts) == whole
    split = PrefixSums(run, parts=parts)
    assert split.sizes == PrefixSums(run).sizes and split.thinks == PrefixSums(run).thinks


def test_a_real_runs_report_is_the_same_from_two_halves():
    run = open_run(str(REFUND))
    half = len(run.messages) // 2
    parts = [message_sizes(run.messages, 0, half), message_sizes(run.messages, half)]
    assert token_report(run, parts=parts) == token_report(run)


def test_parts_that_do_not_cover_the_run_in_order_are_not_used():
    """Swapped, short or overlapping parts (a part of another run) are ignored: the sizes are computed here."""
    run = _varied_run(6)
    whole = token_report(run)
    half = len(run.messages) // 2
    first, second = message_sizes(run.messages, 0, half), message_sizes(run.messages, half)
    wrong = (half, [9999.0] * (len(run.messages) - half), [])
    for parts in ([second, first], [first], [first, first, second], [first, wrong][::-1]):
        assert token_report(run, parts=parts) == whole
    assert token_report(run, parts=[first, wrong]) != whole  # (parts that cover the run are used as given)
