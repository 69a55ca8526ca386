"""A body with a mid-conversation ``role: "system"`` message is still an Anthropic body; the headers
that shape a request are kept without credentials."""

from __future__ import annotations

from app_helpers import app_for, screen_text, settle
from conftest import REPO, run_cli
from fake_messages_api_stream import Turn, stream_api, text  # noqa: F401 - the fixture
from runbuild import write_json
from tui.core.branch import store
from tui.core.request_headers import shaping_headers
from tui.formats import open_run

TRACE = REPO / "tests" / "fixtures" / "claude_trace"

SYSTEM_BETA = "mid-conversation-system-2026-04-07"


def _anthropic_body() -> dict:
    return {"model": "claude-opus-4-8", "max_tokens": 64000, "system": [{"type": "text", "text": "You help."}],
            "thinking": {"type": "adaptive"}, "stream": True,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]},
                         {"role": "system", "content": "Available agent types for the Agent tool: ..."}]}


def test_an_anthropic_body_with_a_system_message_is_not_read_as_openai(tmp_path):
    path = write_json(tmp_path / "request.json", _anthropic_body())
    run = open_run(str(path))
    assert run.source.format == "request"
    assert run.system == [{"type": "text", "text": "You help."}]
    assert run.params["thinking"] == {"type": "adaptive"} and run.params["max_tokens"] == 64000
    assert [m["role"] for m in run.messages] == ["user", "system"]
    # A body alone records no headers: without the beta the system message is invalid_role.
    result = run_cli("check", str(path))
    assert result.code == 1 and "invalid_role" in result.stdout and "mid-conversation-system beta" in result.stdout


def test_an_openai_body_with_a_system_message_is_still_openai(tmp_path):
    body = {"model": "gpt-4o", "max_tokens": 100, "messages": [
        {"role": "system", "content": "You help."}, {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"}]}
    run = open_run(str(write_json(tmp_path / "chat.json", body)))
    assert run.source.format == "openai"
    assert run.system is not None and [m["role"] for m in run.messages][:1] == ["user"]


def test_shaping_headers_keep_version_betas_and_query_but_no_credential():
    headers = {"Anthropic-Version": "2023-06-01", "anthropic-beta": "a-1,b-2", "x-api-key": "sk-ant-secret",
               "Authorization": "Bearer sk-ant-secret", "user-agent": "claude-cli/2.1.197"}
    kept = shaping_headers(headers, "https://api.anthropic.com/v1/messages?beta=true&api_key=sk-ant-secret")
    assert kept == {"anthropic-version": "2023-06-01", "anthropic-beta": "a-1,b-2", "query": "beta=true"}
    assert "sk-ant" not in repr(kept)
    assert shaping_headers([("anthropic-beta", ["x-1", "y-2"])]) == {"anthropic-beta": "x-1,y-2"}


def test_a_branch_of_a_recorded_run_sends_its_version_betas_and_query(stream_api, tmp_path):
    """The claude-trace log recorded anthropic-beta, anthropic-version and ?beta=true: the branch
    (the real SDK, to the fake API) sends the same, and its file keeps them."""
    recorded = TRACE / "session.jsonl"
    system = tmp_path / "system.txt"
    system.write_text("You are terse.")
    stream_api.add(Turn([text("Done.")]))
    result = run_cli("branch", str(recorded), "--at", "4", "--system-file", str(system),
                     env={**stream_api.env(), "XDG_DATA_HOME": str(tmp_path / "data")})
    assert result.code == 0, result.stderr
    [sent] = stream_api.message_requests
    assert sent["headers"]["anthropic-beta"] == "claude-code-20250219,oauth-2025-04-20"
    assert sent["headers"]["anthropic-version"] == "2023-06-01"
    assert sent["path"] == "/v1/messages?beta=true"
    [saved] = [p for p in (tmp_path / "data").rglob("*") if p.is_file() and p.name.endswith(store.SUFFIX)]
    assert open_run(str(saved)).meta["request_headers"] == {
        "anthropic-beta": "claude-code-20250219,oauth-2025-04-20", "anthropic-version": "2023-06-01",
        "query": "beta=true"}


def test_show_headers_prints_what_shapes_the_request_and_json_stays_the_body(tmp_path):
    recorded = TRACE / "session.jsonl"
    shown = run_cli("show", str(recorded), "--at", "1", "--headers")
    assert shown.code == 0, shown.stderr
    assert shown.stdout.splitlines() == ["anthropic-version: 2023-06-01",
                                         "anthropic-beta: claude-code-20250219,oauth-2025-04-20", "query: beta=true"]
    body = run_cli("show", str(recorded), "--at", "1", "--json")
    assert body.stdout.lstrip().startswith("{") and "anthropic-beta" not in body.stdout
    plain = run_cli("show", str(recorded), "--at", "1")
    assert "headers: anthropic-version: 2023-06-01 · anthropic-beta: claude-code-20250219,oauth-2025-04-20 · " \
           "query: beta=true" in plain.stdout
    # convert keeps them: the native file loads back with the same headers
    out = tmp_path / "run.json"
    assert run_cli("convert", str(recorded), "-o", str(out)).code == 0
    assert open_run(str(out)).meta["request_headers"]["anthropic-beta"] == "claude-code-20250219,oauth-2025-04-20"


async def test_the_request_and_raw_views_show_the_headers(tmp_path):
    app = app_for(TRACE / "session.jsonl", tmp_path, at=1, run=0)
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "headers  anthropic-version 2023-06-01  anthropic-beta" in text  # the row wraps in the pane
        assert "oauth-2025-04-20  query beta=true" in text
    app = app_for(TRACE / "session.jsonl", tmp_path, at=1, run=0, view="raw")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        raw = " ".join(screen_text(app).split())
    assert "sent with anthropic-version 2023-06-01 · 2 betas · ?beta=true {" in raw
