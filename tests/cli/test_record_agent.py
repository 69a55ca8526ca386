"""``turnscope record -- python record_agent.py`` end to end: the agent's tool loop, recorded whole.

The recorder is started as a user starts it, with the agent as its command and no
``--upstream``: the fake's address comes from the ANTHROPIC_BASE_URL set before (recorders
and gateways chain), and the agent gets the proxy's. The recording must load as one exact
run holding every turn of the loop, and the recorder must exit with the agent's status.
"""

from __future__ import annotations

import sys

from conftest import REPO
from fake_messages_api_stream import DUMMY_KEY, Turn, stream_api, text, tool_use  # noqa: F401 - the fixture
from tui.core.prefix import call_request
from tui.core.run import EXACT
from tui.formats import load_runs


def _model(body):
    """Adds 2 + 3, then 5 + 4, then answers."""
    last = body["messages"][-1]["content"]
    if isinstance(last, str):
        return Turn([text("First 2 + 3."), tool_use("toolu_a", "add", {"a": 2, "b": 3})], "tool_use")
    result = last[0]["content"]
    if result == "5":
        return Turn([tool_use("toolu_b", "add", {"a": 5, "b": 4})], "tool_use")
    return Turn([text(f"The sum is {result}.")])


def test_record_runs_the_agent_through_the_proxy_and_keeps_its_whole_loop(stream_api, cli, tmp_path):
    stream_api.responder = _model
    out = tmp_path / "agent.jsonl"
    result = cli("record", "-o", str(out), "--", sys.executable, str(REPO / "tests" / "helpers" / "record_agent.py"), "3",
                 env={"ANTHROPIC_BASE_URL": stream_api.url, "ANTHROPIC_API_KEY": DUMMY_KEY}, timeout=120)
    assert result.code == 3, result.stderr  # the agent's exit status
    assert "answer: The sum is 9." in result.stdout
    proxy_url = result.stdout.rsplit("via ", 1)[1].strip()
    assert proxy_url.startswith("http://127.0.0.1:") and proxy_url != stream_api.url
    assert f"forwarding to {stream_api.url}" in result.stderr
    assert f"3 exchanges in {out}" in result.stderr
    (run,) = load_runs(str(out))
    assert run.source.prefix == EXACT and run.system == "You add numbers."
    assert [m["role"] for m in run.messages] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert run.messages[-1]["content"] == [{"type": "text", "text": "The sum is 9."}]
    assert [call_request(run, k) for k in range(3)] == stream_api.bodies
    assert DUMMY_KEY.encode() not in out.read_bytes()
