"""claude-trace logs of Claude Code traffic: conversations and side calls, streamed answers, a 529
and its retry, moving cache_control breakpoints, timing, orphaned requests, no credentials kept."""

from __future__ import annotations

import orjson

from loader_helpers import FIXTURES
from tui.core import native
from tui.core.grammar import check_run
from tui.core.prefix import call_request
from tui.formats import load_runs

SESSION = FIXTURES / "claude_trace" / "session.jsonl"


def test_the_main_conversation_is_the_first_run_and_side_calls_are_listed_apart():
    runs = load_runs(str(SESSION))
    assert [r.source.format for r in runs] == ["claude-trace"] * 4
    main = runs[0]
    assert len(main.messages) == 6 and main.messages[-1]["content"][0]["text"].startswith("refund() divides")
    assert [r.title() for r in runs[1:]] == ["side call: quota probe (max_tokens 1)", "Why does test_refund fail?",
                                            "Find every caller of refund()."]
    assert runs[3].system[0]["text"].startswith("You are a subagent") and len(runs[3].calls) == 2
    notes = " | ".join(w.text for w in main.warnings)
    assert "1 count_tokens request(s): not model calls, not part of any run" in notes and "4 conversations" in notes


def test_a_529_answer_is_kept_as_a_refused_call_and_its_retry_produced_the_turn():
    main = load_runs(str(SESSION))[0]
    assert [(c.message, c.status) for c in main.calls] == [(1, 200), (3, 529), (3, 200), (5, 200)]
    assert main.call_index(3) == 2
    assert call_request(main, 1) == call_request(main, 2)  # the same request, resent
    assert any("answered 529: overloaded_error: Overloaded" in w.text and w.line == 5 for w in main.warnings)


def test_streamed_answers_become_the_turns_the_next_requests_carry():
    main = load_runs(str(SESSION))[0]
    first = main.messages[1]["content"]
    assert [b["type"] for b in first] == ["text", "tool_use", "tool_use"]
    assert first[1]["input"] == {"command": "pytest -q tests/test_refund.py"}
    assert all(c.response is None for c in main.calls)  # Claude Code stored every answer as returned


def test_moved_cache_control_breakpoints_are_kept_exactly_but_are_no_finding():
    main = load_runs(str(SESSION))[0]
    first_call = main.calls[0].request
    assert first_call.replaced[0]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in main.messages[0]["content"][-1]
    assert call_request(main, 0)["messages"][0] is first_call.replaced[0]
    assert [f.rule for f in check_run(main)] == []


def test_each_call_keeps_its_timing_usage_and_request_id():
    main = load_runs(str(SESSION))[0]
    call = main.calls[0]
    assert call.started == "2025-08-20T10:00:03.000Z" and call.duration_ms == 1250.0
    assert call.request_id == "req_011CFirst" and call.usage["output_tokens"] == 120
    assert call.model == "claude-sonnet-4-5-20250929" and call.stop_reason == "tool_use"


def test_no_credential_or_header_reaches_the_run():
    dumped = native.dumps(load_runs(str(SESSION)))
    for secret in (b"sk-ant-oa", b"Bearer", b"_cfuvid", b"set-cookie", b"authorization", b"claude-cli/"):
        assert secret not in dumped


def test_an_orphaned_request_is_the_last_call_and_the_next_request():
    [run] = load_runs(str(FIXTURES / "claude_trace" / "orphaned.jsonl"))
    assert [(c.message, c.status) for c in run.calls] == [(1, 200), (3, None)]
    assert len(run.messages) == 3 and run.call_index(3) == 1
    assert any("ORPHANED_REQUEST" in w.text for w in run.warnings)
    [back] = native.runs_from_document(orjson.loads(native.dumps([run])), "x")
    assert back.calls == run.calls  # a call at len(messages) survives the native file


def test_show_says_the_orphaned_call_produced_nothing(cli):
    result = cli("show", FIXTURES / "claude_trace" / "orphaned.jsonl", "--at", "3")
    assert result.code == 0, result.stderr
    assert "sent by model call 2 of 2" in result.stdout
    assert "model call 2 got no recorded answer: it produced no message" in result.stdout
