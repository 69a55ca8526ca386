"""The request that produced message N: params, system, tools and messages 0..N-1, exact where
the source recorded it, sharing the run's message objects."""

from __future__ import annotations

import json

import orjson
import pytest

from conftest import SAMPLES
from runbuild import ASK, assistant, run_of, text, use, user, result
from scripts.sample_content import MODEL, REFUND, SYSTEM, TOOLS
from tui.core.errors import UsageError
from tui.core.prefix import request_at, request_json
from tui.core.run import ModelCall, RecordedRequest
from tui.formats import open_run


@pytest.mark.parametrize("n", range(9))
def test_prefix_at_every_index_of_the_refund_run(n):
    run = open_run(str(SAMPLES / "refund/run.jsonl"))
    req = request_at(run, n)
    assert list(req.body) == ["model", "max_tokens", "system", "tools", "messages"]
    assert (req.body["model"], req.body["max_tokens"]) == (MODEL, 1024)
    assert req.body["system"] == SYSTEM and req.body["tools"] == TOOLS
    assert req.body["messages"] == REFUND[:n]
    assert all(a is b for a, b in zip(req.body["messages"], run.messages))  # shared, never copied
    assert req.exact is False
    assert req.call == ((n - 1) // 2 if n % 2 == 1 else None)  # odd: model call k produced it


def test_show_json_of_the_request_file_is_the_file_body_exactly(cli):
    path = SAMPLES / "refund/request.json"
    shown = cli("show", path, "--at", "7", "--json")
    assert shown.code == 0 and shown.stderr == ""
    assert shown.stdout.encode() == orjson.dumps(orjson.loads(path.read_bytes())) + b"\n"
    assert list(json.loads(shown.stdout)) == list(json.loads(path.read_text()))  # key order
    assert cli("show", path, "--json").stdout == shown.stdout  # the default: the file's own request


def test_show_json_is_byte_identical_to_real_recorded_bodies(realruns, tmp_path, cli):
    """llm-anthropic's cassettes keep each request body as the string that was POSTed."""
    yaml = pytest.importorskip("yaml")
    compared = 0
    for cassette in sorted(realruns.glob("llmanthropic__*.yaml")):
        for k, exchange in enumerate(yaml.safe_load(cassette.read_text())["interactions"]):
            raw = exchange["request"]["body"]
            raw = raw["string"] if isinstance(raw, dict) else raw
            path = tmp_path / f"{cassette.stem}-{k}.json"
            path.write_text(raw)
            assert cli("show", path, "--json").stdout == raw + "\n"
            compared += 1
    assert compared == 4


def test_prefixes_of_a_request_file_are_exact_and_key_ordered():
    run = open_run(str(SAMPLES / "refund/request.json"))
    for n in range(8):
        req = request_at(run, n)
        assert req.exact and req.body["messages"] == REFUND[:n]
        assert list(req.body) == ["model", "max_tokens", "system", "tools", "messages"]


def test_recorded_request_deltas_are_applied():
    stored = [ASK, assistant(use("toolu_01Ab")), user(result("toolu_01Ab")), assistant("Done.")]
    returned = assistant(text("Let me look."), use("toolu_01Ab"))
    run = run_of(stored, system="Now.", params={"model": MODEL, "max_tokens": 64}, calls=[
        ModelCall(message=1, request=RecordedRequest(messages=1, system="Then.", has_tools=False)),
        ModelCall(message=3, request=RecordedRequest(messages=3, replaced={1: returned},
                                                     order=["messages", "model", "system", "max_tokens"]))])
    first = request_at(run, 1)
    assert first.exact and first.body == {"model": MODEL, "max_tokens": 64, "system": "Then.", "messages": [ASK]}
    last = request_at(run, 3)
    assert list(last.body) == ["messages", "model", "system", "max_tokens"]
    assert last.body["messages"] == [ASK, returned, stored[2]]
    assert run.messages[1] == stored[1]  # the run itself is untouched
    assert request_at(run, 2).exact is False  # no call produced message 2: rebuilt from the run


def test_the_model_comes_from_the_call_record_when_the_source_has_no_params():
    run = run_of(REFUND, calls=[ModelCall(message=i, model="claude-haiku-4-5") for i in (1, 3, 5, 7)])
    req = request_at(run, 3)
    assert req.body["model"] == "claude-haiku-4-5" and req.model_from_call
    assert "model" not in request_at(run, 2).body


@pytest.mark.parametrize("n, index", [(-1, 7), (-8, 0), (8, 8)])
def test_negative_and_next_indices(n, index):
    assert request_at(open_run(str(SAMPLES / "refund/run.jsonl")), n).index == index


@pytest.mark.parametrize("n", [9, -9])
def test_out_of_range(n):
    with pytest.raises(UsageError, match="out of range: the run has 8 messages"):
        request_at(open_run(str(SAMPLES / "refund/run.jsonl")), n)


def test_request_json_is_the_body_as_bytes():
    run = open_run(str(SAMPLES / "refund/run.jsonl"))
    assert json.loads(request_json(run, 5)) == request_at(run, 5).body
