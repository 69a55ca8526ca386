"""A body with a mid-conversation ``role: "system"`` message is still an Anthropic body; the headers
that shape a request are kept without credentials."""

from __future__ import annotations

from conftest import run_cli
from runbuild import write_json
from tui.core.request_headers import shaping_headers
from tui.formats import open_run

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
