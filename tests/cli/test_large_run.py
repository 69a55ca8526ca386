"""``scripts/make_large_run.py``: large runs on demand, valid, realistic in shape, seeded."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO
from scripts.make_large_run import FORMATS, build, parse_size
from tui.core.grammar import ERROR, check_run
from tui.formats import load_runs


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_loads_and_checks_clean(tmp_path, fmt):
    data = build(400_000, fmt, seed=3)
    path = tmp_path / f"large.{fmt}"
    path.write_bytes(data)
    run, = load_runs(str(path))
    assert run.source.format == ("messages" if fmt == "jsonl" else fmt)
    assert 400_000 <= len(data) < 1_000_000
    assert [f for f in check_run(run, strict=True) if f.severity == ERROR] == []
    assert check_run(run) == []
    if fmt == "messages":  # a bare array holds the messages only
        assert (run.system, run.tools, run.params) == (None, None, {})
    else:
        assert run.system and len(run.tools) == 6 and run.params["model"]
    last = run.messages[-1]["role"]
    assert last == ("user" if fmt == "request" else "assistant")  # a request body is the next request


def test_the_shape_is_realistic(tmp_path):
    path = tmp_path / "large.jsonl"
    path.write_bytes(build(3_000_000, "jsonl", seed=7))
    run, = load_runs(str(path))
    turns = [m for m in run.messages if m["role"] == "assistant"]
    calls_per_turn = [sum(b["type"] == "tool_use" for b in m["content"]) for m in turns]
    assert max(calls_per_turn) >= 3 and calls_per_turn.count(1) > len(turns) / 3  # parallel calls, mostly single
    sizes = sorted(len(b["content"]) for m in run.messages if m["role"] == "user" and isinstance(m["content"], list)
                   for b in m["content"])
    assert sizes[0] < 200 and sizes[-1] > 20_000 and sizes[len(sizes) // 2] < 5_000  # a long tail
    results = [b for m in run.messages if isinstance(m["content"], list) for b in m["content"]
               if b["type"] == "tool_result"]
    assert any(b.get("is_error") for b in results)
    assert sum(1 for m in run.messages if isinstance(m["content"], str)) > 1  # the caller writes again


def test_same_seed_same_bytes_other_seed_other_bytes():
    assert build(200_000, "request", seed=11) == build(200_000, "request", seed=11)
    assert build(200_000, "request", seed=11) != build(200_000, "request", seed=12)


def test_thinking_runs_obey_the_thinking_rules(tmp_path):
    path = tmp_path / "t.json"
    path.write_bytes(build(300_000, "native", seed=5, thinking=True))
    run, = load_runs(str(path))
    assert run.params["thinking"]["type"] == "enabled"
    assert all(m["content"][0]["type"] == "thinking" for m in run.messages if m["role"] == "assistant")
    assert check_run(run, strict=True) == []


def test_command_line(tmp_path):
    out = tmp_path / "big.json"
    done = subprocess.run([sys.executable, str(REPO / "scripts/make_large_run.py"), "--size", "250KB", "--format",
                           "request", "--out", str(out)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {out}: {out.stat().st_size:,} bytes (request)\n"


@pytest.mark.parametrize("text, size", [("100MB", 100_000_000), ("512KB", 512_000), ("1.5GB", 1_500_000_000),
                                        ("2MiB", 2 * 1024 ** 2), ("1000", 1000)])
def test_sizes(text, size):
    assert parse_size(text) == size


def test_bad_size():
    with pytest.raises(Exception, match="not a size"):
        parse_size("lots")
