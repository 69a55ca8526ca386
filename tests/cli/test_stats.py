"""Step counts across runs: a distribution checked by hand, multi-run files, streaming one file at a
time, the progress bar, the iteration cap, and the tau-bench runs once their loader exists."""

from __future__ import annotations

import gc
import json
import os
import pty
import shutil
import subprocess
import sys
import weakref

import pytest

from conftest import REPO, SAMPLES
from run_files import refund, write_jsonl
from tui.core import jsonio
from tui.core.errors import LoadError
from tui.core.stats import collect, percentile
from tui.formats import load_runs


@pytest.fixture
def small_set(tmp_path):
    """Four runs by hand: refund (4 calls, end_turn), where is my order (2, end_turn), other account
    (7, end_turn) in a subfolder, and a skipped result (1 call, ends on a user turn); plus a README."""
    shutil.copy(SAMPLES / "refund" / "run.jsonl", tmp_path / "refund.jsonl")
    shutil.copy(SAMPLES / "where_is_my_order.jsonl", tmp_path / "where.jsonl")
    (tmp_path / "deeper" / "still").mkdir(parents=True)
    shutil.copy(SAMPLES / "other_account.jsonl", tmp_path / "deeper" / "still" / "other.jsonl")
    shutil.copy(SAMPLES / "broken" / "skipped_result.jsonl", tmp_path / "deeper" / "skipped.jsonl")
    (tmp_path / "README.md").write_text("notes, not a run\n")
    return tmp_path


def test_distribution_of_a_small_set_checked_by_hand(small_set):
    stats = collect([str(small_set)], load=load_runs)
    doc = stats.as_json()
    assert doc["runs"] == 4 and doc["files"] == 5 and doc["skipped"] == 1
    assert doc["calls"]["histogram"] == {"1": 1, "2": 1, "4": 1, "7": 1}
    # nearest rank over 1, 2, 4, 7: p50 is the 2nd value, p90 and p99 the 4th
    assert (doc["calls"]["p50"], doc["calls"]["p90"], doc["calls"]["p99"], doc["calls"]["max"]) == (2, 7, 7, 7)
    assert doc["ended"] == {"end_turn": 3, "user_turn_unanswered": 1}
    # the skipped result leaves a tool_use without its tool_result
    assert doc["findings"]["tool_use_without_result"] == 1
    # finished runs took 2, 4 and 7 calls: p99 = 7, x1.25 = 8.75, rounded up = 9
    assert doc["suggested_cap"] == 9
    assert "is 7; x1.25 headroom, rounded up: 9" in doc["cap_rule"]
    assert doc["tokens"]["kinds"] == {"estimated": 4}
    assert doc["tokens"]["input"]["max"] == max(stats.input_tokens)


def test_percentile_is_nearest_rank():
    histogram = {1: 50, 10: 49, 100: 1}
    assert percentile(histogram, 50) == 1
    assert percentile(histogram, 90) == 10
    assert percentile(histogram, 99) == 10
    assert percentile(histogram, 100) == 100
    assert percentile({}, 50) is None


def test_every_run_of_a_multi_run_file_counts(tmp_path):
    _, messages = refund()
    runs = [messages[:2] + [{"role": "user", "content": [b for b in messages[2]["content"]]}], messages, messages[:1]]
    path = tmp_path / "three.json"
    path.write_bytes(jsonio.dumps(runs))
    assert len(load_runs(str(path))) == 3
    doc = collect([str(path)], load=load_runs).as_json()
    assert doc["runs"] == 3
    assert doc["calls"]["histogram"] == {"0": 1, "1": 1, "4": 1}
    assert doc["ended"] == {"end_turn": 1, "user_turn_unanswered": 2}


def test_files_are_processed_one_at_a_time(tmp_path):
    header, messages = refund()
    for k in range(30):
        write_jsonl(tmp_path / f"d{k % 3}" / f"run{k}.jsonl", messages[: 2 + (k % 6)], header)
    refs: list[weakref.ref] = []
    most = 0

    def load(path):
        nonlocal most
        gc.collect()
        most = max(most, sum(1 for ref in refs if ref() is not None))
        runs = load_runs(path)
        refs.extend(weakref.ref(r) for r in runs)
        return runs

    stats = collect([str(tmp_path)], load=load)
    assert stats.runs == 30
    assert most == 0  # no run of an earlier file was still alive when the next file was read


def test_stats_json_and_text(cli, small_set):
    result = cli("stats", small_set, "--json")
    assert result.code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert {"runs", "calls", "ended", "findings", "suggested_cap"} <= set(doc)
    assert {"p50", "p90", "p99", "max", "histogram"} <= set(doc["calls"])
    assert result.stderr == ""  # no progress bar when stderr is not a terminal
    text = cli("stats", small_set).stdout
    assert "model calls per run: p50 2 · p90 7 · p99 7 · max 7" in text
    rows = [line for line in text.splitlines() if " | " in line]
    assert rows[0].split() == ["calls", "|", "runs"]
    assert [r.split("|")[0].strip() for r in rows[1:]] == ["1", "2", "3", "4", "5", "6", "7"]
    assert [r.split()[-1] for r in rows[1:]] == ["1", "1", "0", "1", "0", "0", "1"]
    assert "suggested iteration cap: 9" in text


def test_progress_bar_goes_to_a_terminal(small_set):
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "tui", "stats", str(small_set), "--json"], cwd=REPO, env=env,
                          stdout=subprocess.PIPE, stderr=follower, timeout=120)
    os.close(follower)
    seen = b""
    try:
        while chunk := os.read(leader, 4096):
            seen += chunk
    except OSError:
        pass
    os.close(leader)
    assert proc.returncode == 0
    assert b"5/5 files, 4 runs" in seen and b"[" in seen and b"#" in seen
    assert json.loads(proc.stdout)["runs"] == 4


def test_bad_input_is_one_line_and_exit_2(cli, tmp_path):
    missing = cli("stats", tmp_path / "nope.jsonl")
    assert missing.code == 2 and missing.stderr.strip().splitlines() == [
        f"turnscope: {tmp_path / 'nope.jsonl'}: cannot read: No such file or directory"]
    (tmp_path / "notes.txt").write_text("hello\n")
    nothing = cli("stats", tmp_path)
    assert nothing.code == 2 and len(nothing.stderr.strip().splitlines()) == 1
    assert "no runs found in 1 file" in nothing.stderr


def _taubench(realruns):
    path = realruns / "taubench__gpt-4o-airline.json"
    try:
        load_runs(str(path))
    except LoadError as exc:
        if "unknown format" in exc.what:
            pytest.skip("no loader is registered for the OpenAI chat format of tau-bench yet")
        raise
    return path


def test_taubench_distribution_matches_a_hand_count_on_five_runs(realruns, tmp_path):
    path = _taubench(realruns)
    trajectories = jsonio.loads(path.read_bytes())
    assert len(trajectories) == 200
    # By hand, from the raw file: one model call per assistant entry of each trajectory.
    hand = [sum(1 for m in t["traj"] if m.get("role") == "assistant") for t in trajectories[:5]]
    assert hand == [15, 5, 11, 30, 12]
    small = tmp_path / "five.json"
    small.write_bytes(jsonio.dumps(trajectories[:5]))
    doc = collect([str(small)], load=load_runs).as_json()
    assert doc["runs"] == 5
    assert doc["calls"]["histogram"] == {"5": 1, "11": 1, "12": 1, "15": 1, "30": 1}
    assert (doc["calls"]["p50"], doc["calls"]["max"]) == (12, 30)
    everything = collect([str(path)], load=load_runs).as_json()
    assert everything["runs"] == 200
    assert sum(everything["calls"]["histogram"].values()) == 200
    expected = sorted(sum(1 for m in t["traj"] if m.get("role") == "assistant") for t in trajectories)
    assert everything["calls"]["max"] == expected[-1]
    assert everything["calls"]["p50"] == expected[99]  # nearest rank: the 100th of 200


def test_runs_piling_up_at_the_maximum_are_named_as_an_existing_cap(tmp_path):
    header, messages = refund()
    one_round = messages[1:3]
    for k, rounds in enumerate([1, 2, 2, 3, 5, 5, 5]):  # three runs stopped at 5 calls, none at 4
        write_jsonl(tmp_path / f"run{k}.jsonl", messages[:1] + one_round * rounds, header)
    stats = collect([str(tmp_path)], load=load_runs)
    assert stats.pile_up() == (5, 3)
    cap, rule = stats.suggested_cap()
    assert "3 runs stopped at exactly 5 calls, more than at 4" in rule
    assert cap == 7  # none ended with end_turn: p99 of all runs is 5, x1.25 rounded up
