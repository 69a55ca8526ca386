"""Running the real Claude Code CLI (``claude -p``) against the fake Messages API, for tests.

``claude_code`` (a session fixture) installs the pinned version (``scripts/install_claude_code.py``)
when it is missing; a test that needs it and cannot have it fails when ``CI=true`` and is skipped
otherwise. ``Script`` answers the requests a session sends: the answers are picked by a word of
the conversation's first prompt (so a subagent, whose prompt is the one its caller wrote, gets its
own script) and by how many assistant turns the request already holds; anything else (a side
call of the client) gets a short text answer. ``run_claude`` runs one ``claude -p`` with ``HOME``
and the project folder under the test's ``tmp_path`` (so Claude Code's system prompt, tool texts
and transcripts stay there) and returns the session's transcripts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from fake_messages_api_stream import MODEL, FakeMessagesAPI, Turn, text

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
import install_claude_code  # noqa: E402

#: Tools Claude Code may run without asking (print mode has no one to ask; as root it refuses
#: --dangerously-skip-permissions, so the tools are allowed by name).
ALLOWED = "Bash Read Write Edit Glob Grep Agent Task"


@pytest.fixture(scope="session")
def claude_code() -> Path:
    try:
        return install_claude_code.ensure()
    except install_claude_code.InstallError as error:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"Claude Code is needed and could not be installed: {error}")
        pytest.skip(f"Claude Code is not installed and could not be: {error}")


def first_prompt(body: dict[str, Any]) -> str:
    """The text of the first message's blocks (Claude Code puts its context reminder before the prompt)."""
    messages = body.get("messages") or []
    if not messages:
        return ""
    content = messages[0].get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


@dataclass
class Script:
    """Answers by prompt word: ``{"WORD": [turn 0, turn 1, ...]}``; turn k answers a request holding k assistant turns."""

    turns: dict[str, list[Turn]]
    side_calls: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Turn:
        prompt = first_prompt(body) if isinstance(body, dict) else ""
        answered = sum(1 for m in (body.get("messages") or []) if m.get("role") == "assistant")
        model = body.get("model") if isinstance(body, dict) and isinstance(body.get("model"), str) else None
        for word, turns in self.turns.items():
            if word in prompt and answered < len(turns):
                # The API answers with the model asked for (Claude Code drops thinking signed by another model).
                return replace(turns[answered], model=model or turns[answered].model)
        self.side_calls.append(body)
        return Turn([text("OK.")], model=model or MODEL)


@dataclass
class Session:
    proc: subprocess.CompletedProcess
    home: Path
    project: Path

    def transcripts(self) -> list[Path]:
        """The main transcript(s) of the project, oldest first (subagent files are beside them)."""
        found = list((self.home / ".claude" / "projects").glob("*/*.jsonl"))
        return sorted(found, key=lambda p: p.stat().st_mtime)

    def subagent_files(self) -> list[Path]:
        return sorted((self.home / ".claude" / "projects").glob("*/*/subagents/*.jsonl"))


def run_claude(claude: Path, api: FakeMessagesAPI, tmp_path: Path, prompt: str, *args: str,
               timeout: float = 90) -> Session:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir(exist_ok=True)
    project.mkdir(exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TZ": "UTC", "LANG": "C.UTF-8",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", **api.env()}
    proc = subprocess.run([str(claude), "-p", prompt, "--allowedTools", ALLOWED, *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"claude -p exited {proc.returncode}: {proc.stderr[-2000:]}"
    return Session(proc, home, project)
