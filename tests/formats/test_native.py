"""The native run file: ``turnscope convert`` writes it, and loading it gives back the same run
(messages, system, tools, params, calls with their recorded requests and responses, loader
warnings, exact or reconstructed prefixes), without storing any request whole."""

from __future__ import annotations

import json

import pytest

from conftest import SAMPLES
from runbuild import ASK, assistant, result, text, use, user, write_json, write_jsonl
from scripts.sample_content import MODEL, REFUND, SYSTEM
from tui.core import native
from tui.core.prefix import request_json
from tui.core.run import LoadWarning, ModelCall, RecordedRequest, Run, Source
from tui.formats import load_runs


def assert_same_run(before: Run, after: Run) -> None:
    assert after.messages == before.messages
    assert json.dumps(after.messages) == json.dumps(before.messages)  # key order and types too
    assert (after.system, after.tools, after.params) == (before.system, before.tools, before.params)
    assert after.calls == before.calls  # recorded requests and responses included
    assert after.warnings == before.warnings
    assert (after.source.prefix, after.source.title) == (before.source.prefix, before.source.title)
    assert (after.prefill, after.order, after.lineage) == (before.prefill, before.order, before.lineage)
    assert {k: v for k, v in after.meta.items() if k != "converted_from"} == \
        {k: v for k, v in before.meta.items() if k != "converted_from"}
    for n in range(len(before.messages) + 1):
        assert request_json(after, n) == request_json(before, n)


def _bad_line_file(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"system": SYSTEM}) + "\n" + json.dumps(ASK) + "\n{oops\n"
                    + json.dumps(assistant("Hi.")) + "\n")
    return path


SOURCES = {
    "jsonl with header": lambda tmp: SAMPLES / "refund/run.jsonl",
    "request body": lambda tmp: SAMPLES / "refund/request.json",
    "recorded requests and responses": lambda tmp: SAMPLES / "broken/rewritten_turn.turnscope.json",
    "prefill body": lambda tmp: write_json(tmp / "prefill.json", {"max_tokens": 8, "model": MODEL,
                                                                  "messages": [ASK, assistant("{")]}),
    "bad jsonl line": _bad_line_file,
    "thinking": lambda tmp: SAMPLES / "redacted_thinking.jsonl",
}


@pytest.mark.parametrize("name", SOURCES)
def test_convert_then_load_gives_the_same_run(tmp_path, cli, name):
    source = SOURCES[name](tmp_path)
    out = tmp_path / "out.turnscope.json"
    done = cli("convert", source, "-o", out)
    assert done.code == 0, done.stderr
    assert done.stdout == f"wrote {out} (1 run)\n"
    before, = load_runs(str(source))
    after, = load_runs(str(out))
    assert after.source.format == "native" and after.source.path == str(out)
    origin = before.meta.get("converted_from") or {"path": str(source), "format": before.source.format}
    assert after.meta["converted_from"] == origin  # the first origin is kept
    assert_same_run(before, after)


def test_a_run_with_everything_survives_the_round_trip(tmp_path):
    messages = [ASK, assistant(text("Looking."), use("toolu_01Ab")), user(result("toolu_01Ab", "in transit")),
                assistant("It is in transit.")]
    run = Run(messages=messages, system=[text("Be brief.", cache_control={"type": "ephemeral"})], tools=[],
              params={"model": MODEL, "max_tokens": 512, "temperature": 0.0, "metadata": {"user_id": "u1"}},
              calls=[ModelCall(message=1, usage={"input_tokens": 1420, "output_tokens": 80}, stop_reason="tool_use",
                               model=MODEL, request_id="req_011a", started="2026-04-21T10:00:00Z", duration_ms=812.5,
                               request=RecordedRequest(messages=1, has_system=False, order=["model", "messages"]),
                               status=200),
                     ModelCall(message=3, stop_reason="end_turn", request=RecordedRequest(
                         messages=3, replaced={1: assistant(use("toolu_01Ab"))}, system="Older prompt.",
                         params={"model": MODEL, "max_tokens": 256}),
                         response=[text("It is in transit.", citations=None)])],
              source=Source(path="x", format="cassette", prefix="exact", title="Refund, take 2"),
              warnings=[LoadWarning("skipped a record", line=7), LoadWarning("system attached", index=None)],
              order=["model", "max_tokens", "temperature", "metadata", "system", "tools", "messages"],
              lineage={"parent": "refund.json", "at": 3}, meta={"session": "abc"})
    path = tmp_path / "all.turnscope.json"
    path.write_bytes(native.dumps([run]))
    after, = load_runs(str(path))
    assert_same_run(run, after)
    first = json.loads(request_json(after, 1))
    assert "system" not in first and list(first)[:2] == ["model", "messages"]  # as recorded
    assert json.loads(request_json(after, 3))["system"] == "Older prompt."


def test_multi_run_round_trip(tmp_path, cli):
    source = write_json(tmp_path / "runs.json", [REFUND, REFUND[:4]])
    assert cli("convert", source, "-o", tmp_path / "out.json").stdout.endswith("(2 runs)\n")
    before, after = load_runs(str(source)), load_runs(str(tmp_path / "out.json"))
    assert [r.source.run_index for r in after] == [0, 1]
    for a, b in zip(before, after):
        assert_same_run(a, b)


def test_the_native_file_is_versioned_and_stores_no_request_whole(tmp_path, cli):
    source = SAMPLES / "broken/rewritten_turn.turnscope.json"
    doc = json.loads(cli("convert", source).stdout)
    assert doc["turnscope"] == 1
    assert [c["request"] for c in doc["calls"]] == [{"messages": 1}, {"messages": 3}, {"messages": 5},
                                                    {"messages": 7}]
    assert doc["messages"] == json.loads(source.read_text())["messages"]


def test_the_file_grows_with_the_run_not_its_square(tmp_path):
    def size(n_rounds: int) -> int:
        messages = [ASK]
        calls = []
        for k in range(n_rounds):
            messages.append(assistant(use(f"toolu_{k:04d}")))
            calls.append(ModelCall(message=len(messages) - 1, request=RecordedRequest(messages=len(messages) - 1)))
            messages.append(user(result(f"toolu_{k:04d}", "x" * 500)))
        return len(native.dumps([Run(messages=messages, calls=calls, source=Source("p", "t", prefix="exact"))]))

    assert size(200) < 2.2 * size(100)


def test_jsonl_run_written_natively_keeps_its_loader_warning(tmp_path):
    source = write_jsonl(tmp_path / "w.jsonl", ASK, assistant("Hi."))
    source.write_text(source.read_text() + "not json\n")
    before, = load_runs(str(source))
    path = tmp_path / "w.turnscope.json"
    path.write_bytes(native.dumps([before]))
    after, = load_runs(str(path))
    assert [(w.text, w.line) for w in after.warnings] == [(before.warnings[0].text, 3)]
