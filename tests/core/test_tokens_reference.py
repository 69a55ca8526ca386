"""token_report keeps running sums so that a run of 200,000 messages is not quadratic; its numbers must
be what the plain definitions give: each request's body estimated whole, each message's sends counted
call by call. Generated runs (thinking blocks, parallel calls, recorded usage) against that reference."""

from __future__ import annotations

import random

import pytest

from scripts.make_large_run import build
from tui.core import estimate
from tui.core.prefix import request_at
from tui.core.run import RecordedRequest, Run, infer_calls
from tui.core.tokens import ESTIMATED, RECORDED, token_report
from tui.formats import open_run


def reference_calls(run: Run) -> list[tuple[int, int, int]]:
    """(message, input, output) per call: the request body estimated whole, the produced turn's output."""
    out = []
    for call in run.calls:
        body = request_at(run, call.message).body
        produced = ({"role": "assistant", "content": call.response} if call.response is not None
                    else run.messages[call.message])
        out.append((call.message, estimate.request_tokens(body), estimate.output_tokens(produced)))
    return out


def reference_messages(run: Run) -> list[tuple[int, int, int | None]]:
    """(tokens, sends, first call) per message, counted by walking every request's messages."""
    sent = [call.request.messages if call.request is not None else call.message for call in run.calls]
    rows = []
    for i, message in enumerate(run.messages):
        senders = [k for k, count in enumerate(sent) if i < count]
        rows.append((round(estimate.message_tokens(message, carry_thinking=False)), len(senders),
                     senders[0] if senders else None))
    return rows


@pytest.mark.parametrize("thinking", [False, True])
def test_estimated_report_of_a_generated_run_equals_the_plain_definitions(tmp_path, thinking):
    path = tmp_path / "run.jsonl"
    path.write_bytes(build(600_000, "jsonl", seed=3, thinking=thinking))
    run = open_run(str(path))
    assert len(run.calls) > 30
    report = token_report(run)
    assert [(c.message, c.input_tokens, c.output_tokens) for c in report.calls] == reference_calls(run)
    assert {c.kind for c in report.calls} == {ESTIMATED}
    assert [(m.tokens, m.sends, m.first_call) for m in report.messages] == reference_messages(run)


def test_recorded_requests_with_their_own_system_and_a_replaced_turn_are_estimated_as_sent(tmp_path):
    """Calls whose recorded request differs from the run (another system prompt, fewer messages, a turn
    rewritten by the loop) are estimated from the body they sent, not from the run's prefix."""
    path = tmp_path / "run.jsonl"
    path.write_bytes(build(150_000, "jsonl", seed=5, thinking=True))
    run = open_run(str(path))
    rng = random.Random(5)
    for call in run.calls[::3]:
        replaced = {}
        if call.message > 2 and rng.random() < 0.5:
            replaced[1] = {"role": "assistant", "content": [{"type": "text", "text": "rewritten by the loop"}]}
        call.request = RecordedRequest(messages=max(call.message - rng.choice((0, 0, 2)), 0),
                                       system=rng.choice((None, "You are terse.")), replaced=replaced)
    report = token_report(run)
    assert [(c.message, c.input_tokens, c.output_tokens) for c in report.calls] == reference_calls(run)
    assert [(m.tokens, m.sends, m.first_call) for m in report.messages] == reference_messages(run)


def test_recorded_usage_is_kept_and_sends_are_counted_per_request_on_a_long_run():
    messages: list[dict] = [{"role": "user", "content": "start"}]
    for k in range(3000):
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{k}", "name": "step", "input": {"k": k}}]})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{k}",
                                                      "content": "ok " * (k % 7)}]})
    run = Run(messages=messages)
    run.calls = infer_calls(run.messages)
    for k, call in enumerate(run.calls):
        call.usage = {"input_tokens": 100 + 3 * k, "output_tokens": 9}
    report = token_report(run)
    assert {c.kind for c in report.calls} == {RECORDED}
    assert [c.input_tokens for c in report.calls] == [100 + 3 * k for k in range(len(run.calls))]
    assert [(m.sends, m.first_call) for m in report.messages] == [r[1:] for r in reference_messages(run)]
