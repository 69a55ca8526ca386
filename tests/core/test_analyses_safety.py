"""Run text is untrusted: the analysis verbs never pass escape sequences to the terminal, and a file
that cannot be read is one line and exit 2, for each verb."""

from __future__ import annotations

import pytest

from run_files import refund, write_jsonl

HOSTILE = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\u202eevil"


@pytest.fixture
def hostile_run(tmp_path):
    header, messages = refund()
    messages[0]["content"] = f"I never got order 4471 {HOSTILE}"
    messages[2]["content"][1]["content"] = f'{{"carrier": "{HOSTILE}", "state": "in_transit"}}'.replace("\x1b", "\\u001b").replace("\x07", "\\u0007")
    messages[5]["content"][0]["input"]["note"] = HOSTILE
    messages[5]["content"][0]["name"] = f"issue_refund{HOSTILE}"
    return write_jsonl(tmp_path / "hostile.jsonl", messages, header)


@pytest.mark.parametrize("verb", [["tokens"], ["trace"], ["account"], ["stats"], ["diff", "OTHER"]])
def test_no_escape_sequence_reaches_the_terminal(cli, hostile_run, verb):
    args = [verb[0], hostile_run] + ([hostile_run.parent / "other.jsonl"] if len(verb) > 1 else [])
    if len(verb) > 1:
        header, messages = refund()
        write_jsonl(hostile_run.parent / "other.jsonl", messages, header)
    result = cli(*args)
    assert result.code in (0, 1), result.stderr
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout and "\u202e" not in result.stdout
    if verb[0] in ("trace", "account", "diff"):
        assert "\\x1b" in result.stdout or "\\u001b" in result.stdout  # shown, visibly escaped


@pytest.mark.parametrize("verb", ["tokens", "trace", "account", "stats"])
def test_malformed_file_is_one_line_and_exit_2(cli, tmp_path, verb):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"role": "user", "content": "hi"},\n {"role": ')
    result = cli(verb, bad)
    assert result.code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"turnscope: {bad}:2:")
    assert "Traceback" not in result.stderr
