"""The issue-10 cases where a source proves acceptance (or rejection) and the check must agree with it:
a caller's assistant prefill, and a request body without the fields the API requires."""

from __future__ import annotations

import orjson
import pytest

from app_helpers import app_for, screen_text, settle
from loader_helpers import FIXTURES
from tui.core.account import who_produced
from tui.core.grammar import check_request, check_run
from tui.core.producers import PREFILL, producers
from tui.formats import load_runs

PREFILL_CASSETTE = FIXTURES / "vcr" / "prefill.yaml"


def test_a_callers_prefill_is_the_callers_not_unknown_and_no_broken_loop():
    [run] = load_runs(str(PREFILL_CASSETTE))
    assert [m["role"] for m in run.messages] == ["user", "assistant", "assistant"]
    table = producers(run)
    assert [p.label for p in table] == ["caller", "prefill", "call 1"]
    assert table[1].kind == PREFILL and "prefill" in table[1].transition
    assert who_produced(run, table[1]) == "It was written by the caller as a prefill for the model to continue."
    assert [f.rule for f in check_run(run)] == []


def test_the_prefill_cassette_shows_the_prefill_in_show(cli):
    result = cli("show", PREFILL_CASSETTE, "--at", "2")
    assert result.code == 0
    assert "[1] assistant (prefill)" in result.stdout and "unknown" not in result.stdout


async def test_the_header_of_a_prefill_never_reads_by_the_unknown(tmp_path):
    app = app_for(PREFILL_CASSETTE, tmp_path, at=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        top = screen_text(app).splitlines()[0]
        assert "message 1 of 3 · the caller's prefill (1 model call)" in top and "unknown" not in top


@pytest.mark.parametrize("missing", ["max_tokens", "model"])
def test_a_request_body_without_a_required_field_is_an_error(tmp_path, cli, missing):
    body = {"model": "claude-haiku-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}
    del body[missing]
    path = tmp_path / "request.json"
    path.write_bytes(orjson.dumps(body))
    [finding] = check_request(body)
    assert (finding.severity, finding.rule, finding.index) == ("error", "required_field", None)
    assert f"{missing}: Field required" in finding.message
    result = cli("check", path)
    assert result.code == 1 and "error required_field: " in result.stdout and f"{missing}: Field required" in result.stdout
    full = dict(body, **{missing: 64 if missing == "max_tokens" else "claude-haiku-4-5"})
    assert check_request(full) == []


def test_a_transcript_which_records_no_params_gets_no_required_field_error(realruns):
    [run] = load_runs(str(realruns / "spotter__tool_heavy.jsonl"))
    assert "required_field" not in {f.rule for f in check_run(run)}


def test_an_error_on_a_message_an_answered_request_held_is_a_warning_that_says_so():
    from tui.core.run import ModelCall, Run, Source

    messages = [{"role": "user", "content": "hi"},
                {"role": "assistant", "content": [{"type": "text", "text": ""}]},  # empty_text_block
                {"role": "user", "content": "again"}, {"role": "assistant", "content": "Hello."}]
    usage = {"input_tokens": 10, "output_tokens": 2}
    answered = [ModelCall(1, usage, "end_turn", request_id="req_1"), ModelCall(3, usage, "end_turn", request_id="req_2")]
    run = Run(messages=messages, calls=answered, source=Source(path="t.jsonl", format="claude-code"))
    [finding] = check_run(run)
    assert (finding.severity, finding.rule, finding.index) == ("warning", "empty_text_block", 1)
    assert "yet model call 2 was answered with message 1 in its request: the API accepted it" in finding.message
    bare = Run(messages=messages, source=Source(path="t.jsonl", format="messages"))  # calls inferred: no evidence
    assert [(f.severity, f.rule) for f in check_run(bare)] == [("error", "empty_text_block")]
