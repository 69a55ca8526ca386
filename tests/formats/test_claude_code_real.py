"""The Claude Code transcript loader held against the real client: what ``claude -p`` sent, call by call.

Each scenario (``claude_code_scenarios``) runs the pinned Claude Code CLI against the fake
Messages API, which records every request it receives. The transcript Claude Code wrote is
then opened as a user opens it, and for every model call of every run in it (the main
thread, each subagent file) the ``messages`` turnscope rebuilds must equal the ``messages``
Claude Code sent, cache_control breakpoints aside. What Claude Code sent but wrote nowhere is
named here (``NOT_IN_TRANSCRIPT``), not papered over. Claude Code's system prompt and tool texts
exist only in the test's temporary folder.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest

from claude_code_harness import claude_code  # noqa: F401 - the fixture
from claude_code_scenarios import SCENARIOS
from app_helpers import app_for, screen_text, settle
from conftest import run_cli
from fake_messages_api_stream import DUMMY_KEY, FakeMessagesAPI
from tui.core.client_added import added_blocks
from tui.core.grammar import check_run
from tui.core.grammar.recorded import first_difference, without_cache_control
from tui.core.prefix import request_at
from tui.formats import load_runs

#: What Claude Code 2.1.197 sends that no transcript line holds, by scenario and request number:
#: a subagent sends the agent listing as a ``role: "system"`` message after its first tool
#: result, and writes it neither to its own file nor to the session's.
NOT_IN_TRANSCRIPT = {("subagent", 3): "the agent listing a subagent sends after its first tool result"}


_RAN: dict[str, tuple] = {}  # scenario name -> what it left, so each claude -p runs once per worker


def _scenario(name: str, claude: Path, tmp_path_factory) -> tuple:
    if name not in _RAN:
        folder = tmp_path_factory.mktemp(name)
        api = FakeMessagesAPI().start()
        try:
            session = SCENARIOS[name](claude, api, folder)
        finally:
            api.stop()
        [transcript] = session.transcripts()
        sent = {r["number"]: r for r in api.message_requests if "number" in r}
        _RAN[name] = (name, session, transcript, sent, api)
    return _RAN[name]


@pytest.fixture(scope="module", params=sorted(SCENARIOS))
def scenario(request, claude_code, tmp_path_factory):  # noqa: F811 - the fixture
    return _scenario(request.param, claude_code, tmp_path_factory)


def breakpoints_aside(value: Any) -> Any:
    """``messages`` without cache_control; a content list that is one text block with a breakpoint
    is the string it was made from (Claude Code turns a string into a block to mark it)."""
    value = copy.deepcopy(value)
    for message in value:
        content = message.get("content")
        if isinstance(content, list):
            if len(content) == 1 and isinstance(content[0], dict) and content[0].get("type") == "text" \
                    and set(content[0]) == {"type", "text", "cache_control"}:
                message["content"] = content[0]["text"]
                continue
            for block in content:
                if isinstance(block, dict):
                    block.pop("cache_control", None)
    return value


def compared(scenario) -> list[tuple[str, int, Any, Any]]:
    """(run title, request number, sent messages, rebuilt messages) for every call of every run."""
    name, _, transcript, sent, _ = scenario
    out = []
    for run in load_runs(str(transcript)):
        for call in run.calls:
            number = int(call.request_id.rsplit("_", 1)[1])
            rebuilt = request_at(run, call.message).body["messages"]
            out.append((run.title(), number, sent[number]["body"]["messages"], rebuilt))
    return out


def test_every_call_rebuilt_as_claude_code_sent_it(scenario):
    name, _, _, sent, _ = scenario
    pairs = compared(scenario)
    assert sorted(number for _, number, _, _ in pairs) == sorted(sent), "every request is a call of some run"
    mismatches = []
    for title, number, messages, rebuilt in pairs:
        a, b = breakpoints_aside(messages), breakpoints_aside(rebuilt)
        if (name, number) in NOT_IN_TRANSCRIPT:
            # Named above: the rebuilt messages are what was sent, less the one message no line holds.
            assert a[-1]["role"] == "system" and a[:-1] == b, NOT_IN_TRANSCRIPT[(name, number)]
            continue
        if a != b:
            mismatches.append(f"{title} request {number}: {first_difference(a, b)}")
    assert mismatches == []


def test_check_finds_no_error_in_the_session(scenario):
    _, _, transcript, _, _ = scenario
    result = run_cli("check", str(transcript))
    assert result.code == 0, result.stdout + result.stderr
    for run in load_runs(str(transcript)):
        assert [f for f in check_run(run) if f.severity == "error"] == []


def test_what_claude_code_added_is_marked(scenario):
    """Message 0 opens with the context reminder (approximate: no line holds it), the listings are a
    system message marked as rebuilt, and the user's own words are not marked."""
    _, _, transcript, _, _ = scenario
    main = load_runs(str(transcript))[0]
    first = main.messages[0]
    assert first["content"][0]["text"].startswith("<system-reminder>\nAs you answer the user's questions")
    assert added_blocks(main, 0) == {0: "added by Claude Code, approximate"}
    systems = [i for i, m in enumerate(main.messages) if m["role"] == "system"]
    assert systems == [1] and added_blocks(main, 1) == {None: "added by Claude Code"}
    assert "Available agent types for the Agent tool" in main.messages[1]["content"]
    assert all(not added_blocks(main, i) for i in range(2, len(main.messages)))
    assert not main.title().startswith("<system-reminder>")


def test_requests_carry_what_shapes_them(scenario):
    """What the issue found Claude Code sending: the betas and version headers, ``?beta=true``."""
    _, _, _, sent, _ = scenario
    for request in sent.values():
        assert request["path"] == "/v1/messages?beta=true"
        assert request["headers"]["anthropic-version"] == "2023-06-01"
        assert "mid-conversation-system-2026-04-07" in request["headers"]["anthropic-beta"].split(",")
        assert request["raw"] and request["body"]["stream"] is True


def test_nothing_claude_code_sent_is_in_the_repository(scenario):
    """Its system prompt is generated at test time: no file of the checkout holds a line of it."""
    _, _, _, sent, _ = scenario
    system = sent[min(sent)]["body"]["system"]
    line = next(b["text"] for b in system if len(b.get("text", "")) > 200).strip().splitlines()[0]
    tracked = Path(__file__).resolve().parents[2]
    for path in [*tracked.glob("tests/**/*"), *tracked.glob("tui/**/*"), *tracked.glob("sample_runs/**/*")]:
        if path.is_file() and path.suffix in (".py", ".json", ".jsonl", ".md", ".yaml"):
            assert line not in path.read_text(errors="replace"), path


async def test_the_stepper_marks_what_claude_code_added(claude_code, tmp_path_factory, tmp_path):  # noqa: F811
    """In the Request view of the first answer: the reminder block is marked approximate, the system
    message is marked added by Claude Code, and the user's prompt carries no mark."""
    _, _, transcript, _, _ = _scenario("one_tool", claude_code, tmp_path_factory)
    app = app_for(transcript, tmp_path, at=2)
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        text = screen_text(app)
    assert "+ added by Claude Code, approximate" in text
    assert text.count("+ added by Claude Code") == 2
    lines = text.splitlines()
    prompt = next(k for k, line in enumerate(lines) if "ONETOOL: write hello" in line)
    assert "added by Claude Code" not in lines[prompt - 1]


def _trace_log(path: Path, sent: dict[int, dict]) -> Path:
    """What a recorder in front of Claude Code would have written (claude-trace lines): each request
    as received by the fake API, with its URL and headers, and a minimal answer."""
    lines = []
    for number, request in sorted(sent.items()):
        lines.append(orjson.dumps({
            "request": {"timestamp": 1.0 * number, "method": "POST", "url": "http://127.0.0.1" + request["path"],
                        "headers": request["headers"], "body": request["body"]},
            "response": {"timestamp": 1.0 * number + 0.5, "status_code": 200,
                         "headers": {"request-id": f"req_fake_{number:03d}", "content-type": "application/json"},
                         "body": {"id": f"msg_fake_{number:03d}", "type": "message", "role": "assistant",
                                  "model": request["body"]["model"], "content": [{"type": "text", "text": "(answer)"}],
                                  "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}}}))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_context_from_a_recording_rebuilds_the_whole_request(claude_code, tmp_path_factory, tmp_path):  # noqa: F811
    """--context RECORDING#CALL: the transcript's request for message 2, with the recorded call's
    system prompt, tools, params and betas, is the body Claude Code sent (cache_control aside)."""
    _, _, transcript, sent, _ = _scenario("one_tool", claude_code, tmp_path_factory)
    recording = _trace_log(tmp_path / "trace.jsonl", sent)
    assert DUMMY_KEY in recording.read_text()  # the recorder saw the key; turnscope must drop it
    [run] = load_runs(str(transcript), context=f"{recording}#2")
    body = request_at(run, 2).body
    want = dict(sent[1]["body"])
    assert set(body) == set(want)
    assert breakpoints_aside(body["messages"]) == breakpoints_aside(want["messages"])
    assert without_cache_control(body["system"]) == without_cache_control(want["system"])
    assert without_cache_control(body["tools"]) == without_cache_control(want["tools"])
    assert {k: v for k, v in body.items() if k not in ("system", "tools", "messages")} == \
        {k: v for k, v in want.items() if k not in ("system", "tools", "messages")}
    assert run.meta["request_headers"]["anthropic-beta"] == sent[1]["headers"]["anthropic-beta"]
    shown = run_cli("show", str(transcript), "--at", "2", "--context", f"{recording}#2")
    assert shown.code == 0, shown.stderr
    assert f"prefix: reconstructed, context from {recording}#2" in shown.stdout
    assert DUMMY_KEY not in shown.stdout and DUMMY_KEY not in repr(run.meta)
    # check knows the betas from the recording, and finds no error
    assert run_cli("check", str(transcript), "--context", str(recording)).code == 0
    bad = run_cli("show", str(transcript), "--context", f"{recording}#9")
    assert bad.code == 2 and "has 2 model call(s); choose one with #1..#2" in bad.stderr
