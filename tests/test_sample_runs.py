"""``sample_runs/`` is exactly what ``scripts/make_sample_runs.py`` writes (so the two cannot
drift), and the samples are the runs the seeds and issue 2 describe."""

from __future__ import annotations

import json

from conftest import SAMPLES
from scripts import make_sample_runs
from tui.core.grammar import ERROR, check_run
from tui.formats import open_run


def test_committed_samples_are_what_the_script_writes():
    expected = make_sample_runs.files()
    committed = {str(p.relative_to(SAMPLES)): p.read_bytes() for p in SAMPLES.rglob("*") if p.is_file()}
    assert sorted(committed) == sorted(expected)
    for rel, data in expected.items():
        assert committed[rel] == data, f"sample_runs/{rel} differs: run `python scripts/make_sample_runs.py`"


def test_the_script_writes_the_files_it_lists(tmp_path, monkeypatch):
    monkeypatch.setattr(make_sample_runs, "OUT", tmp_path)
    assert make_sample_runs.main() == 0
    assert {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()} == set(make_sample_runs.files())


def test_the_refund_run_is_the_seeds():
    run = open_run(str(SAMPLES / "refund/run.jsonl"))
    ids = [b["id"] for m in run.messages if isinstance(m["content"], list) for b in m["content"] if b["type"] == "tool_use"]
    assert ids == ["toolu_01Ab", "toolu_01Cd", "toolu_01Ef", "toolu_01Gh"]
    assert len(run.messages) == 8 and len(run.calls) == 4
    text = json.dumps(run.messages)
    assert "4471" in text and "8900" in text
    assert [t["name"] for t in run.tools] == ["search_orders", "get_shipment", "lookup_policy", "issue_refund"]
    assert 3500 < len(run.system) < 6000  # about a thousand tokens
    assert run.params == {"model": "claude-sonnet-4-5", "max_tokens": 1024}


def test_the_siblings_have_the_seeds_step_counts():
    assert len(open_run(str(SAMPLES / "other_account.jsonl")).calls) == 7
    assert len(open_run(str(SAMPLES / "where_is_my_order.jsonl")).calls) == 2


def test_good_samples_are_clean_and_broken_ones_are_not():
    for name in ("refund/run.jsonl", "refund/request.json", "refund/messages.json", "other_account.jsonl",
                 "where_is_my_order.jsonl", "redacted_thinking.jsonl"):
        assert check_run(open_run(str(SAMPLES / name)), strict=True) == [], name
    for path in (SAMPLES / "broken").iterdir():
        assert check_run(open_run(str(path))), path.name
    errors = {p.name: sorted({f.rule for f in check_run(open_run(str(p))) if f.severity == ERROR})
              for p in (SAMPLES / "broken").iterdir()}
    assert errors == {
        "orphan_result_retry.jsonl": ["unexpected_tool_use_id"],
        "skipped_result.jsonl": ["tool_use_without_result"],
        "only_first_call.jsonl": ["tool_use_without_result"],
        "truncated_window.jsonl": ["unexpected_tool_use_id"],
        "rewritten_turn.turnscope.json": [],  # structurally valid: only the recorded response shows it
    }


def test_redacted_thinking_sample_holds_what_the_provider_returns():
    run = open_run(str(SAMPLES / "redacted_thinking.jsonl"))
    kinds = [b["type"] for m in run.messages if m["role"] == "assistant" for b in m["content"]]
    assert "redacted_thinking" in kinds and kinds.count("thinking") == 3
    assert run.params["thinking"]["type"] == "enabled"
