"""``turnscope record -- claude -p ...`` end to end: the real Claude Code CLI, recorded through the proxy.

The pinned Claude Code (``claude_code_harness``) runs one tool call against the fake Messages
API, with the recorder in between as a user would start it (no ``--upstream``: the fake's
address comes from the ANTHROPIC_BASE_URL set before). The recording must load as exact runs,
the agent's thread first, each of its calls' request equal to the body the fake received, and
the dummy key must be in no byte of it. Claude Code's prompt and tool texts stay in tmp_path.
"""

from __future__ import annotations

import os
import subprocess
import sys

from claude_code_harness import ALLOWED, Script, claude_code, first_prompt  # noqa: F401 - the fixture
from fake_messages_api_stream import DUMMY_KEY, FakeMessagesAPI, Turn, text, tool_use
from tui.core.prefix import call_request
from tui.core.run import EXACT
from tui.formats import load_runs


def test_record_keeps_every_request_claude_code_sent(claude_code, tmp_path):  # noqa: F811 - the fixture
    home, project, out = tmp_path / "home", tmp_path / "project", tmp_path / "claude.jsonl"
    home.mkdir()
    project.mkdir()
    api = FakeMessagesAPI().start()
    api.responder = Script({"RECORDED": [
        Turn([text("Writing it."), tool_use("toolu_01R", "Bash", {"command": "echo hi > hi.txt",
                                                                 "description": "Write hi.txt"})], "tool_use"),
        Turn([text("Wrote hi.txt.")]),
    ]})
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TZ": "UTC", "LANG": "C.UTF-8",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", **api.env()}
    try:
        done = subprocess.run([sys.executable, "-m", "tui", "record", "-o", str(out), "--", str(claude_code), "-p",
                               "RECORDED: write hi to hi.txt", "--allowedTools", ALLOWED],
                              cwd=project, env=env, capture_output=True, text=True, timeout=180)
    finally:
        api.stop()
    assert done.returncode == 0, done.stderr[-2000:]
    assert (project / "hi.txt").read_text() == "hi\n"  # the tool really ran
    agent = [r["body"] for r in api.message_requests if "RECORDED" in first_prompt(r["body"])]
    assert len(agent) == 2
    runs = load_runs(str(out))
    default = runs[0]  # the agent's thread, not a side call
    assert default.source.prefix == EXACT
    assert [call_request(default, k) for k in range(len(default.calls))] == agent
    assert default.messages[-1]["content"][-1] == {"type": "text", "text": "Wrote hi.txt."}
    assert DUMMY_KEY.encode() not in out.read_bytes()
