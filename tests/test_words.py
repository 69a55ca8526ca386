"""Counts agree with their nouns everywhere a user reads them: "1 model call", never "1 model calls"."""

from __future__ import annotations

import re

from loader_helpers import FIXTURES
from tui.core.words import counted

ONE_PLURAL = re.compile(r"(?<![\d.,])1 (model calls|messages|runs|lines|requests|blocks|turns|items|warnings|errors)\b")


def test_counted_agrees_with_its_count():
    assert [counted(n, "model call") for n in (0, 1, 2, 1200)] == ["0 model calls", "1 model call", "2 model calls",
                                                                  "1,200 model calls"]
    assert counted(1, "match") == "1 match" and counted(3, "match") == "3 matches"
    assert counted(2, "tool-call id") == "2 tool-call ids"


def test_no_verb_says_one_with_a_plural_noun(cli, tmp_path):
    one = FIXTURES / "vcr" / "prefill.yaml"  # one model call
    texts = [cli("show", one).stdout, cli("show", one, "--at", "3").stdout, cli("check", one).stdout,
             cli("list", FIXTURES / "claude_trace" / "session.jsonl").stdout,
             cli("check", FIXTURES / "claude_trace" / "session.jsonl").stdout,
             cli("check", FIXTURES / "claude_code" / "agent-acompact-retry.jsonl").stdout,
             cli("show", one, "--at", "9").stderr]
    single = tmp_path / "one.jsonl"
    single.write_text('{"role": "user", "content": "hi"}\n')
    texts.append(cli("show", single, "--at", "5").stderr)
    for text in texts:
        assert not ONE_PLURAL.search(text), ONE_PLURAL.search(text).group(0)
    assert "(1 model call before it)" in texts[1]
    assert "1 count_tokens request: not model calls" in texts[4]
    assert "the run has 1 message (0..0)" in texts[-1]
