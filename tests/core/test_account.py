"""The four-sentence account: every claim tied to an index, provenance in the third sentence, the verb."""

from __future__ import annotations

import json
import re

from conftest import SAMPLES
from tui.core.account import accounts
from tui.formats import open_run

REFUND = SAMPLES / "refund" / "run.jsonl"
INVENTED = SAMPLES / "invented_order_id.jsonl"


def test_four_sentences_per_message_each_naming_an_index():
    run = open_run(str(REFUND))
    every = accounts(run)
    assert len(every) == len(run.messages)
    for i, sentences in enumerate(every):
        assert len(sentences) == 4
        assert sentences[0].startswith(f"Message {i} is ")
        # the visible prefix and the transition cite message indices; the producer names its call
        # (model turns) or the turn it answers (the loop's results); the caller's words need neither
        for sentence in sentences[2:]:
            assert re.search(r"\bmessages? \d", sentence) or "Nothing in the run" in sentence, sentence
        role = run.messages[i]["role"]
        if role == "assistant":
            assert re.search(r"model call \d+ of 4", sentences[1])
        elif i > 0:
            assert re.search(r"tool calls of message \d", sentences[1])


def test_the_refund_turn_says_where_its_values_came_from():
    sentences = accounts(open_run(str(REFUND)))[5]
    assert 'issue_refund {"order_id":"4471","amount_cents":8900}' in sentences[0]
    assert "produced by model call 3 of 4" in sentences[1]
    assert '"4471" came from message 0, 8900 from message 2' in sentences[2]
    assert "message 6 comes from the loop" in sentences[3]
    # the loop's turn says when the model first saw the result
    assert "the model first sees these results in the request for message 7" in accounts(open_run(str(REFUND)))[6][2]


def test_an_invented_value_is_named_in_the_account():
    visible = accounts(open_run(str(INVENTED)))[5][2]
    assert '"4417" is in no earlier message, system prompt or tool schema: produced by the model' in visible


def test_account_verb(cli):
    one = cli("account", REFUND, "--at", "5")
    assert one.code == 0, one.stderr
    lines = one.stdout.splitlines()
    assert len(lines) == 4 and lines[0].startswith("[5] Message 5 is an assistant turn")
    every = cli("account", REFUND, "--json")
    docs = [json.loads(line) for line in every.stdout.splitlines()]
    assert [d["index"] for d in docs] == list(range(8)) and all(len(d["sentences"]) == 4 for d in docs)
    bad = cli("account", REFUND, "--at", "8")
    assert bad.code == 2 and len(bad.stderr.strip().splitlines()) == 1
