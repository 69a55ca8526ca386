"""Inspect AI eval logs: the seven real logs in realruns/next (.json and .eval), and an Anthropic-provider
.eval written here (no real one was found), whose recorded call is the exact Messages API request."""

from __future__ import annotations

import io
import zipfile

import orjson
import pytest

from loader_helpers import round_trip, same_run
from tui.core import native
from tui.core.errors import LoadError
from tui.core.grammar import check_run
from tui.core.prefix import request_at
from tui.formats import load_runs

BROWSER = "inspect__2025-05-12T20-27-36-04-00_browser.json"
GUIDE = "inspect__2025-05-12T20-28-26-04-00_security-guide.json"
DEDUP = "inspect__log_message_deduplication.eval"
EPOCHS = "inspect__log_streaming.eval"


def _next_logs(realruns):
    return sorted((realruns / "next").glob("inspect__*"))


def _errors(run):
    return [f for f in check_run(run) if f.severity == "error"]


def test_every_real_log_loads_a_run_per_sample_and_epoch_with_no_error_finding(realruns):
    totals = {}
    for path in _next_logs(realruns):
        runs = load_runs(str(path))
        samples = [r for r in runs if "scorer call" not in r.title() and "side conversation" not in r.title()]
        totals[path.name] = (len(samples), sum(len(r.calls) for r in runs))
        for run in runs:
            assert run.source.format == "inspect"
            assert _errors(run) == [], (path.name, run.title())
            dumped = orjson.dumps([run.messages, run.system, run.tools])
            assert b"attachment://" not in dumped, path.name
    assert totals == {
        "inspect__2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval": (10, 10),
        BROWSER: (1, 5), GUIDE: (3, 6), DEDUP: (1, 6), "inspect__log_read_sample.eval": (1, 1),
        EPOCHS: (4, 4), "inspect__mmlu-summary-choices.eval": (1, 1)}


def test_each_epoch_is_a_run_listed_with_its_id_epoch_score_and_status(realruns, cli):
    result = cli("list", realruns / "next" / EPOCHS)
    assert result.code == 0, result.stderr
    assert "(inspect, reconstructed prefixes)" in result.stdout.splitlines()[0]
    rows = result.stdout.splitlines()[2:]
    assert [r.split("·")[0].split(None, 3)[-1].strip() for r in rows] == [
        "sample 1 epoch 1", "sample 1 epoch 2", "sample 2 epoch 1", "sample 2 epoch 2"]
    assert "match I · success" in rows[0] and "match C · success" in rows[1]
    shown = cli("show", realruns / "next" / EPOCHS, "--run", "3", "--at", "1")
    assert shown.code == 0 and "Is the following statement" in shown.stdout


def test_an_openai_call_is_converted_and_said_so_with_attachments_resolved(realruns):
    path = realruns / "next" / BROWSER
    log = orjson.loads(path.read_bytes())
    sample = log["samples"][0]
    run, = load_runs(str(path))
    assert run.source.prefix == "reconstructed"
    assert "converted from openai's requests" in run.warnings[0].text
    last = [e for e in sample["events"] if e["event"] == "model"][-1]["call"]["request"]
    assert len(run.messages) - 1 == len(last["messages"])  # the last request, and its answer
    first = [e for e in sample["events"] if e["event"] == "model"][0]["call"]["request"]["messages"][0]["content"]
    assert first.startswith("attachment://")
    assert run.messages[0]["content"] == sample["attachments"][first.removeprefix("attachment://")]
    described = {t["name"]: t["description"] for t in run.tools}
    assert not any(d.startswith("attachment://") for d in described.values())
    assert [c.usage["prompt_tokens"] for c in run.calls] == [
        e["call"]["response"]["usage"]["prompt_tokens"] for e in sample["events"] if e["event"] == "model"]
    assert request_at(run, 3).exact is False


def test_v3_input_refs_are_resolved_from_the_message_pool(realruns):
    path = realruns / "next" / DEDUP
    sample = orjson.loads(zipfile.ZipFile(path).read("samples/0_epoch_1.json"))
    run, = load_runs(str(path))
    pool = sample["message_pool"]
    last = [e for e in sample["events"] if e["event"] == "model"][-1]
    start, end = last["input_refs"][-1]
    assert len(run.messages) == end + 1 == len(pool) + 1
    assert run.messages[0] == {"role": "user", "content": pool[0]["content"]}
    uses = [b["id"] for m in run.messages if isinstance(m["content"], list) for b in m["content"]
            if b["type"] == "tool_use"]
    assert uses == [f"hardcoded_{k}" for k in range(5)]
    python = next(t for t in run.tools if t["name"] == "python")
    assert python["description"] == sample["attachments"][
        "ddc588d90e1c276163c3a0eec966c6af"]


def test_scorer_model_calls_are_side_calls_listed_after_the_samples(realruns):
    runs = load_runs(str(realruns / "next" / GUIDE))
    assert len(runs) == 6
    for sample_run in runs[:3]:
        assert len(sample_run.calls) == 1 and "model_graded_fact C" in sample_run.title()
        assert "You are comparing" not in orjson.dumps(sample_run.messages).decode()
    for side in runs[3:]:
        assert "scorer call" in side.title() and "You are comparing" in side.messages[0]["content"]


def _anthropic_eval(tmp_path, with_call=True):
    system = "You are a careful assistant."
    body = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "attachment://aaa",
            "extra_headers": {"x-irid": "abc", "x-api-key": "sk-ant-api03-PLANTED-inspect-0000"},
            "tools": [{"name": "lookup", "description": "d", "input_schema": {"type": "object", "properties": {}}}],
            "messages": [{"role": "user", "content": "What is the refund policy?"}]}
    answer = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
              "content": [{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}],
              "stop_reason": "tool_use", "usage": {"input_tokens": 50, "output_tokens": 9}}
    second = dict(body, messages=body["messages"] + [
        {"role": "assistant", "content": answer["content"]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "30 days"}]}])
    final = {"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
             "content": [{"type": "text", "text": "30 days."}], "stop_reason": "end_turn",
             "usage": {"input_tokens": 80, "output_tokens": 4}}
    inputs = [{"role": "system", "content": system}, {"role": "user", "content": "What is the refund policy?"}]

    later = inputs + [{"role": "assistant", "content": "", "tool_calls": [
        {"id": "toolu_1", "function": "lookup", "arguments": {}}]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "30 days"}]

    def model_event(request, response, k):
        event = {"event": "model", "model": "anthropic/claude-sonnet-4-5", "input": inputs if k == 1 else later,
                 "tools": [{"name": "lookup", "description": "d", "parameters": {"type": "object"}}],
                 "output": {"model": "claude-sonnet-4-5", "choices": [{"message": {
                     "role": "assistant", "content": response["content"][0].get("text", ""),
                     **({"tool_calls": later[2]["tool_calls"]} if k == 1 else {})},
                     "stop_reason": "tool_calls" if k == 1 else "stop"}]}, "timestamp": f"2026-01-01T00:00:0{k}Z"}
        if with_call:
            event["call"] = {"request": request, "response": response, "time": 1.5}
        return event

    sample = {"id": "refund", "epoch": 1, "input": "What is the refund policy?", "target": "30 days",
              "messages": [], "scores": {"includes": {"value": 1.0}}, "attachments": {"aaa": system},
              "events": [model_event(body, answer, 1), model_event(second, final, 2)]}
    header = {"version": 2, "status": "success", "eval": {"task": "refunds", "model": "anthropic/claude-sonnet-4-5"}}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", orjson.dumps(header))
        archive.writestr("samples/refund_epoch_1.json", orjson.dumps(sample))
    path = tmp_path / "anthropic.eval"
    path.write_bytes(buffer.getvalue())
    def sent(request):  # the body as POSTed: the SDK sends extra_headers as headers
        return {k: v for k, v in dict(request, system=system).items() if k != "extra_headers"}

    return path, sent(body), sent(second)


def test_an_anthropic_call_is_the_exact_request_attachments_resolved_and_not_extracted(tmp_path, monkeypatch):
    path, first, second = _anthropic_eval(tmp_path)

    def refuse(*args, **kwargs):
        raise AssertionError("the archive was extracted to disk")

    monkeypatch.setattr(zipfile.ZipFile, "extract", refuse)
    monkeypatch.setattr(zipfile.ZipFile, "extractall", refuse)
    run, = load_runs(str(path))
    assert run.source.prefix == "exact" and run.title().startswith("sample refund epoch 1 · includes 1.0 · success")
    assert request_at(run, 1).body == first and request_at(run, 3).body == second
    assert [c.usage for c in run.calls] == [{"input_tokens": 50, "output_tokens": 9},
                                            {"input_tokens": 80, "output_tokens": 4}]
    assert run.calls[0].duration_ms == 1500.0 and run.calls[1].request_id == "msg_2"
    assert _errors(run) == []
    assert any("SDK options" in w.text and "extra_headers" in w.text for w in run.warnings)
    assert b"PLANTED" not in native.dumps([run])


def test_without_a_recorded_call_the_input_messages_are_the_reconstructed_prefix(tmp_path):
    path, _, _ = _anthropic_eval(tmp_path, with_call=False)
    run, = load_runs(str(path))
    assert run.source.prefix == "reconstructed" and "input messages" in run.warnings[0].text
    assert run.system == "You are a careful assistant."
    assert run.messages[0] == {"role": "user", "content": "What is the refund policy?"}
    assert run.messages[1]["content"] == [{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}]
    assert [c.stop_reason for c in run.calls] == ["tool_use", "end_turn"] and len(run.messages) == 4
    assert run.tools == [{"name": "lookup", "description": "d", "input_schema": {"type": "object"}}]


def test_near_misses_say_what_is_missing(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("samples/1_epoch_1.json", b"{}")
    path = tmp_path / "not.eval"
    path.write_bytes(buffer.getvalue())
    with pytest.raises(LoadError, match="not an Inspect .eval log: it has no header.json"):
        load_runs(str(path))
    log = tmp_path / "log.json"
    log.write_bytes(orjson.dumps({"version": 2, "eval": {"task": "t"}, "samples": []}))
    with pytest.raises(LoadError) as info:
        load_runs(str(log))
    assert info.value.line_text() == f"{log}:1:1: not an Inspect eval log: it has no 'status'"
    damaged = tmp_path / "damaged.eval"
    damaged.write_bytes(_anthropic_eval(tmp_path)[0].read_bytes()[:200])
    with pytest.raises(LoadError):
        load_runs(str(damaged), fmt="inspect")


def test_every_real_log_converts_to_native_and_back_without_loss(realruns):
    for path in _next_logs(realruns):
        runs, back = round_trip(path)
        assert len(runs) == len(back) and all(same_run(a, b) for a, b in zip(runs, back)), path.name


def test_an_eval_is_listed_from_one_read_of_each_sample_and_a_run_is_built_when_first_asked_for(
        realruns, tmp_path, monkeypatch):
    """Opening a big .eval shows its run list: every sample (id, epoch, score, status, counts) comes from one
    read of its member; the rest of a run is built from its member when first asked for, and is the run the
    same log gives read whole (as one .json document)."""
    path = realruns / "next" / "inspect__2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"
    reads: list[str] = []
    read = zipfile.ZipFile.read

    def counted(self, name, pwd=None):
        reads.append(name)
        return read(self, name, pwd)

    monkeypatch.setattr(zipfile.ZipFile, "read", counted)
    runs = load_runs(str(path), lazy=True)  # as the app, list and the picker load it
    listed = [(r.title(), r.sizes(), r.meta["sample_id"], r.meta["epoch"], r.meta["status"]) for r in runs]
    samples = [n for n in reads if n.startswith("samples/")]
    assert len(samples) == len(set(samples)) == len(runs) == 10 and len(reads) == 11  # and header.json
    assert [row[2:] for row in listed] == [(k, 1, "success") for k in range(1, 11)]

    messages = runs[3].messages  # asking for one run reads its sample again, and only its sample
    assert reads[11:] == ["samples/4_epoch_1.json"] and messages

    archive = zipfile.ZipFile(path)
    header = orjson.loads(read(archive, "header.json"))
    log = tmp_path / "whole.json"
    log.write_bytes(orjson.dumps({**header, "samples": [orjson.loads(read(archive, f"samples/{k}_epoch_1.json"))
                                                        for k in range(1, 11)]}))
    whole = load_runs(str(log))
    assert [(r.title(), r.sizes()) for r in whole] == [row[:2] for row in listed]
    assert all(same_run(a, b) and a.meta == b.meta for a, b in zip(runs, whole))

    del reads[:]  # a caller that reads every run (check, convert) has each sample read and built once
    eager = load_runs(str(path))
    assert sorted(reads) == sorted(set(reads)) and len(reads) == 11
    assert all(same_run(a, b) for a, b in zip(eager, whole)) and len(reads) == 11
