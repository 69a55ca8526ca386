"""claude-trace logs of Claude Code traffic: conversations and side calls, streamed answers, a 529
and its retry, moving cache_control breakpoints, timing, orphaned requests, no credentials kept."""

from __future__ import annotations

import orjson

from loader_helpers import FIXTURES
from tui.core import native
from tui.core.grammar import check_run
from tui.core.prefix import call_request
from tui.core.producers import producers
from tui.formats import load_runs

SESSION = FIXTURES / "claude_trace" / "session.jsonl"
COMPACTED = FIXTURES / "claude_trace" / "compacted.jsonl"


def test_the_main_conversation_is_the_first_run_and_side_calls_are_listed_apart():
    runs = load_runs(str(SESSION))
    assert [r.source.format for r in runs] == ["claude-trace"] * 4
    main = runs[0]
    assert len(main.messages) == 6 and main.messages[-1]["content"][0]["text"].startswith("refund() divides")
    assert [r.title() for r in runs[1:]] == ["side call: quota probe (max_tokens 1)", "side call: title generation",
                                            "Find every caller of refund()."]
    assert runs[3].system[0]["text"].startswith("You are a subagent") and len(runs[3].calls) == 2
    notes = " | ".join(w.text for w in main.warnings)
    assert "1 count_tokens request: not model calls, not part of any run" in notes and "4 conversations" in notes


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


def test_the_default_run_of_a_real_sessions_log_is_the_agents_thread_not_the_compact_call():
    """The /compact call holds the most messages (27 sent); the agent's thread has the most model calls."""
    runs = load_runs(str(COMPACTED))
    main = runs[0]
    assert (len(main.messages), len(main.calls)) == (26, 13)
    assert main.tools is not None and [t["name"] for t in main.tools] == ["Bash", "Read", "Task"]
    assert {p.kind for p in producers(main)} == {"caller", "model", "loop"}  # no "unknown" anywhere
    compact = [r for r in runs if r.meta.get("side_call") == "compaction summary"]
    assert len(compact) == 1 and len(compact[0].messages) == 28 > len(main.messages)
    assert "the agent's thread with the most model calls" in main.warnings[0].text


def test_every_side_call_is_labelled_by_its_kind_not_by_the_users_words():
    runs = load_runs(str(COMPACTED))
    kinds = [r.meta.get("side_call") for r in runs]
    assert kinds.count("quota probe") == 1 and kinds.count("title") == 1 and kinds.count("spinner word") == 3
    assert kinds.count("path extraction") == 12 and kinds.count("compaction summary") == 1
    for run in runs:
        if run.meta.get("side_call"):
            assert run.title().startswith("side call: ") and "refund" not in run.title().lower()


def test_the_thread_after_the_compaction_continues_the_one_before(cli):
    runs = load_runs(str(COMPACTED))
    [after] = [r for r in runs if "continues_run" in r.meta]
    [summary] = [k for k, r in enumerate(runs) if r.meta.get("side_call") == "compaction summary"]
    assert after.meta["continues_run"] == 0 and len(after.calls) == 3
    assert after.title().startswith("continues run 0 after the compaction at line ")
    assert f"summary: run {summary}" in after.title()
    assert any(f"run {after.source.run_index} continues this thread" in w.text for w in runs[0].warnings)
    listed = cli("list", COMPACTED)
    assert listed.code == 0
    rows = listed.stdout.splitlines()
    assert "side call: compaction summary (/compact)" in rows[2 + summary]
    assert f"  continues run 0 after the compaction" in rows[2 + after.source.run_index]


async def test_the_run_list_shows_the_side_call_labels(tmp_path):
    from app_helpers import app_for, screen_text, settle

    app = app_for(COMPACTED, tmp_path)
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "side call: quota probe (max_tokens 1)" in text and "side call: spinner word" in text
        rows = [row.strip() for row in text.splitlines()]
        # each row also says when its first call was sent (the run list sorts by it)
        assert "run 0  26 messages, 13 model calls · 2025-08-20 11:40 UTC" in rows
        assert "run 1  2 messages, 1 model call · 2025-08-20 11:40 UTC" in rows
