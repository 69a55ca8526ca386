"""The real samples of the otel, langfuse and gemini formats in ../shared/realruns/next: each is
detected from its content, loads, checks without an error finding (every sample is a run the
provider accepted), converts to the native format and back without loss, and ``--format``
forces the loader; near misses say what they lack."""

from __future__ import annotations

import orjson
import pytest

from loader_helpers import same_run
from tui.core import native
from tui.core.grammar import check_run
from tui.core.grammar.rules import ERROR
from tui.core.prefix import request_at
from tui.formats import load_runs

#: Format -> (the name prefixes of its samples, how many there are).
FORMATS = {
    "otel": (("agentprism__quo_tav_agent", "agentprism__rag_earnings_agent", "anyagent__"), 6),
    "langfuse": (("agentprism__langfuse-", "langfuse__"), 14),
    "gemini": (("vct__",), 3),
}


def _samples(realruns, fmt):
    prefixes, count = FORMATS[fmt]
    files = sorted(p for p in (realruns / "next").iterdir() if p.name.startswith(prefixes))
    assert len(files) == count
    return files


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_sample_is_detected_loads_and_checks_without_error(realruns, fmt, tmp_path):
    for path in _samples(realruns, fmt):
        runs = load_runs(str(path))
        assert {r.source.format for r in runs} == {fmt}, path.name
        for run in runs:
            assert run.calls, path.name
            errors = [f for f in check_run(run) if f.severity == ERROR]
            assert errors == [], f"{path.name}: {errors[:3]}"
            # every prefix is said to be converted or reconstructed, never exact: no request bytes were recorded
            assert not run.exact
            assert not any(request_at(run, c.message).exact for c in run.calls)
        out = tmp_path / f"{path.name}.turnscope.json"
        out.write_bytes(native.dumps(runs))
        back = load_runs(str(out))
        assert len(back) == len(runs)
        for a, b in zip(runs, back):
            assert same_run(a, b), path.name
            assert [request_at(a, c.message).converted for c in a.calls] == \
                [request_at(b, c.message).converted for c in b.calls]


def test_the_cli_checks_every_sample_in_one_process_without_errors(realruns, cli):
    files = [p for fmt in FORMATS for p in _samples(realruns, fmt)]
    result = cli("check", *files, "--json", timeout=300)
    assert result.code == 0, result.stdout[-2000:] + result.stderr
    docs = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert {d["file"] for d in docs} == {str(p) for p in files}
    assert all(d["warnings"] for d in docs), "each converted run says how it was converted"


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_format_forces_the_loader_and_a_wrong_one_says_what_is_missing(realruns, fmt, cli):
    path = _samples(realruns, fmt)[0]
    assert cli("check", path, "--format", fmt).code in (0, 1)
    other = realruns / "next" / "codemie__rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl"
    result = cli("check", other, "--format", fmt)
    assert result.code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"turnscope: {other}")
    assert "not a" in lines[0]


def test_the_header_says_which_prefixes_are_converted_and_which_rebuilt(realruns, cli):
    path = realruns / "next" / "anyagent__OPENAI_trace.json"
    first = cli("show", path, "--at", "1")
    assert "prefix: converted" in first.stdout
    later = cli("show", path, "--at", "3")
    assert "prefix: reconstructed" in later.stdout


@pytest.mark.parametrize("text, what", [
    ('{"trace": {"id": "t1", "name": "x"}, "observations": []}', "'trace' has no 'projectId'"),
    ('{"scopeSpans": [{"spans": []}]}', "no 'resourceSpans'"),
    ('{"spans": [{"name": "x"}], "final_output": null}', "not OpenTelemetry SDK span dumps"),
    ('{"sessionId": "s1", "startTime": "2026-01-01T00:00:00Z"}', "lacks 'projectHash'"),
])
def test_a_near_miss_says_what_it_lacks(tmp_path, cli, text, what):
    path = tmp_path / "near.json"
    path.write_text(text)
    result = cli("check", path)
    assert result.code == 2
    assert len(result.stderr.splitlines()) == 1
    assert what in result.stderr, result.stderr


def test_a_spans_file_without_a_model_call_names_what_it_holds(tmp_path, cli):
    spans = [{"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": f"b7ad6b71692033{k:02d}", "name": name,
              "startTimeUnixNano": str(1000 + k), "endTimeUnixNano": str(2000 + k),
              "attributes": [{"key": "openinference.span.kind", "value": {"stringValue": kind}}]}
             for k, (name, kind) in enumerate([("retrieve", "RETRIEVER"), ("chain", "CHAIN"), ("chain2", "CHAIN")])]
    path = tmp_path / "spans.json"
    path.write_bytes(orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    result = cli("check", path)
    assert result.code == 2
    assert result.stderr.splitlines() == [
        f"turnscope: {path}:1:1: no model-call span in this spans file: it holds 3 span(s) in 1 trace(s) "
        "(2 CHAIN, 1 RETRIEVER), none a GenAI or OpenInference LLM span"]
