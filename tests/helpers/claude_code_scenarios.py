"""The Claude Code sessions the real-client tests run: scripted answers and the ``claude -p`` runs.

Each scenario is a function ``(claude, api, folder) -> Session`` that scripts the fake API's answers
and runs Claude Code once (twice for ``resume``). The words in capitals are how ``Script`` tells the
conversations apart (the main prompt, the subagent's prompt).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from claude_code_harness import Script, Session, run_claude
from fake_messages_api_stream import FakeMessagesAPI, Turn, text, tool_use

SIGNATURE = "EqoBCkgIARABGAIiQFakeSignatureForTurnscopeTests0123456789abcdef=="


def one_tool(claude: Path, api: FakeMessagesAPI, folder: Path) -> Session:
    api.responder = Script({"ONETOOL": [
        Turn([text("I'll write the file."), tool_use("toolu_01A", "Bash", {
            "command": "echo hello > out.txt && cat out.txt", "description": "Write out.txt"})], "tool_use"),
        Turn([text("Wrote hello to out.txt.")]),
    ]})
    return run_claude(claude, api, folder, "ONETOOL: write hello to out.txt")


def parallel_tools(claude: Path, api: FakeMessagesAPI, folder: Path) -> Session:
    (folder / "project").mkdir(parents=True, exist_ok=True)
    (folder / "project" / "a.txt").write_text("alpha\n")
    (folder / "project" / "b.txt").write_text("beta\n")
    api.responder = Script({"PARALLEL": [
        Turn([text("Reading both."),
              tool_use("toolu_01P", "Bash", {"command": "cat a.txt", "description": "Read a"}),
              tool_use("toolu_02P", "Bash", {"command": "cat b.txt", "description": "Read b"})], "tool_use"),
        Turn([text("a.txt says alpha, b.txt says beta.")]),
    ]})
    return run_claude(claude, api, folder, "PARALLEL: what do a.txt and b.txt say?")


def failing_tool(claude: Path, api: FakeMessagesAPI, folder: Path) -> Session:
    api.responder = Script({"FAILING": [
        Turn([tool_use("toolu_01F", "Bash", {"command": "ls no-such-dir", "description": "List"})], "tool_use"),
        Turn([text("The folder does not exist.")]),
    ]})
    return run_claude(claude, api, folder, "FAILING: list no-such-dir")


def thinking(claude: Path, api: FakeMessagesAPI, folder: Path) -> Session:
    api.responder = Script({"THINKING": [
        Turn([{"type": "thinking", "thinking": "The user wants the date; run date.", "signature": SIGNATURE},
              tool_use("toolu_01T", "Bash", {"command": "echo 2026", "description": "Year"})], "tool_use"),
        Turn([{"type": "thinking", "thinking": "It printed 2026.", "signature": SIGNATURE + "2"},
              text("The year is 2026.")]),
    ]})
    return run_claude(claude, api, folder, "THINKING: which year is it?")


def subagent(claude: Path, api: FakeMessagesAPI, folder: Path) -> Session:
    api.responder = Script({
        "SUBTASK": [
            Turn([tool_use("toolu_01S", "Bash", {"command": "echo sub", "description": "Echo"})], "tool_use"),
            Turn([text("The subtask printed sub.")]),
        ],
        "DELEGATE": [
            Turn([text("Delegating."), tool_use("toolu_01D", "Agent", {
                "description": "Run the subtask", "subagent_type": "general-purpose",
                "prompt": "SUBTASK: run echo sub and report what it printed."})], "tool_use"),
            Turn([text("The subagent says it printed sub.")]),
        ],
    })
    return run_claude(claude, api, folder, "DELEGATE: have a subagent run echo sub")


SESSION_ID = "5e55a0e1-0000-4000-8000-0000000000aa"


def resume(claude: Path, api: FakeMessagesAPI, folder: Path) -> Session:
    api.responder = Script({"RESUME": [
        Turn([tool_use("toolu_01R", "Bash", {"command": "echo one", "description": "One"})], "tool_use"),
        Turn([text("It printed one.")]),
        Turn([tool_use("toolu_02R", "Bash", {"command": "echo two", "description": "Two"})], "tool_use"),
        Turn([text("It printed two.")]),
    ]})
    run_claude(claude, api, folder, "RESUME: run echo one", "--session-id", SESSION_ID)
    return run_claude(claude, api, folder, "now run echo two", "--resume", SESSION_ID)


SCENARIOS: dict[str, Callable[[Path, FakeMessagesAPI, Path], Session]] = {
    "one_tool": one_tool, "parallel_tools": parallel_tools, "failing_tool": failing_tool,
    "thinking": thinking, "subagent": subagent, "resume": resume}
