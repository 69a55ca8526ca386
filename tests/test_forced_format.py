"""``--format NAME`` on a file that does not fit: one line with ``FILE:LINE:COL`` or the key that is missing,
exit 2, never a run made of warnings and never "the messages are not a list" alone."""

from __future__ import annotations

import re

import pytest

SAMPLE = {"claude-code": "spotter__short.jsonl", "cassette": "llmanthropic__test_tools.yaml",
          "tau-bench": "taubench__gpt-4o-airline.json"}
EXPECTED = [
    ("messages", "claude-code", ":1:1: not in the messages format: line 1 has no 'role' key"),
    ("messages", "cassette", ":1:1: not in the messages format: invalid JSON"),
    ("messages", "tau-bench", ":1:1: not in the messages format: item 0 has no 'role' key"),
    ("openai", "claude-code", ":1:1: not in the openai format: line 1 has no 'role' key"),
    ("openai", "cassette", ":1:1: not in the openai format: invalid JSON"),
    ("claude-trace", "claude-code", ":1:1: not in the claude-trace format: line 1 is not a request/response pair"),
    ("claude-trace", "tau-bench", ":1:1: not in the claude-trace format: the file is one JSON document"),
    ("claude-code", "tau-bench", ":1:1: not in the claude-code format: no line is a 'user' or 'assistant' line"),
    ("native", "tau-bench", ":1:1: not a turnscope run file: it has no 'turnscope' key"),
    ("vcr", "tau-bench", ": not a cassette: no 'interactions' list"),
    ("request", "tau-bench", ":1:1: item 0: not a request body: needs a 'messages' list"),
]


@pytest.mark.parametrize("fmt,kind,expected", EXPECTED, ids=[f"{f}-on-{k}" for f, k, _ in EXPECTED])
def test_a_forced_format_that_does_not_fit_says_where_or_which_key(realruns, cli, fmt, kind, expected):
    path = realruns / SAMPLE[kind]
    result = cli("check", path, "--format", fmt)
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"turnscope: {path}{expected}"), result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_a_body_whose_messages_are_not_a_list_names_the_key_and_its_position(tmp_path, cli):
    path = tmp_path / "body.json"
    path.write_text('{"model": "gpt-4o", "messages": {"role": "user"}}')
    result = cli("check", path, "--format", "openai")
    assert result.code == 2
    assert re.match(rf"turnscope: {re.escape(str(path))}:1:1: not in the openai format: the object has no "
                    r"'messages' list \(a chat request body\)", result.stderr)
    assert "the messages are not a list" not in result.stderr
