"""Faults during a re-run: a kill at any moment, a server that breaks off, answers garbage or hangs.

The branch file always loads, holds only complete turns, and ``--resume`` carries it on to the
same end as a run that was never interrupted. Every fault is reported (exit 3, the failure and
where the branch is saved, no traceback), with the SDK's timeout and retries where they apply
(``TURNSCOPE_API_TIMEOUT``, ``TURNSCOPE_API_RETRIES``), and nothing already saved is lost.
Extends tests/cli/test_branch_resume.py (a kill mid-stream and mid-tool) and test_branch_cli.py (a cut
stream, an error event, API errors) with random kill points and broken or silent servers.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import orjson
import pytest
from conftest import REPO, SAMPLES, Result, run_cli
from fake_messages_api_stream import Turn, text, tool_use
from faulty_api import Raw, Silent, faulty_api  # noqa: F401

from tui.core.grammar import ERROR, check_run
from tui.formats import open_run
from verbs import call

#: The SDK warns that the sample runs' model is deprecated; in a real process that warning is not shown.
pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

REFUND = SAMPLES / "refund" / "run.jsonl"
EDIT = ["--at", "4", "--tool-error", "toolu_01Ef", "policy service unavailable (503)"]
FAST = {"TURNSCOPE_API_TIMEOUT": "1", "TURNSCOPE_API_RETRIES": "1"}
WORDS = "The policy lookup failed, so I am checking the shipment again before deciding anything. " * 12


def _script(body) -> Turn:
    """The model's turn for a request, by how many messages it holds: a run that ends the same way
    however often it is interrupted and resumed."""
    n = len(body["messages"])
    if n in (5, 7):
        return Turn([text(f"[{n}] {WORDS}"), tool_use(f"toolu_R{n}", "lookup_policy", {"topic": "lost_shipment"})],
                    "tool_use")
    return Turn([text(f"[{n}] {WORDS} Your refund is approved.")])


def _in_process(monkeypatch, env: dict[str, str], *argv) -> Result:
    """``turnscope ARGV`` in this process (no interpreter to start: the suite stays quick)."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, out, err = call([str(a) for a in argv])
    return Result(code if code is not None else -1, out, err)


def _start(api, out, tmp_path, *extra):
    env = {**os.environ, "PYTHONPATH": str(REPO), **api.env(), "XDG_DATA_HOME": str(tmp_path / "data")}
    return subprocess.Popen([sys.executable, "-m", "tui", "branch", str(REFUND), *EDIT, "-o", str(out), *extra],
                            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_for(path, proc, limit=60.0) -> float:
    start = time.monotonic()
    while not path.exists():
        assert proc.poll() is None or path.exists(), proc.stderr.read().decode()
        assert time.monotonic() - start < limit, "the branch file never appeared"
        time.sleep(0.005)
    return time.monotonic()


def _assert_complete_turns(run, reference):
    """Messages 0..4 as edited, then a prefix of the uninterrupted run's turns, each one whole."""
    n = len(run.messages)
    assert 5 <= n <= len(reference.messages)
    assert run.messages == reference.messages[:n], "a saved turn differs from the uninterrupted run's"
    assert [f for f in check_run(run) if f.severity == ERROR] == []
    produced = {c.message for c in run.calls if c.message > 4}
    assert produced == {i for i in range(5, n) if run.messages[i]["role"] == "assistant"}, "a turn without its call"


def _saves(path, proc) -> list[tuple[float, int]]:
    """(seconds since the file appeared, messages saved) at each save of a branch running to its end."""
    appeared = _wait_for(path, proc)
    seen: list[tuple[float, int]] = []
    while True:
        done = proc.poll() is not None
        try:
            count = len(orjson.loads(path.read_bytes())["messages"])
        except (OSError, ValueError, KeyError):
            count = None
        if count is not None and (not seen or seen[-1][1] != count):
            seen.append((time.monotonic() - appeared, count))
        if done:
            return seen
        time.sleep(0.002)


def test_a_kill_at_random_points_always_leaves_a_branch_that_loads_and_resumes(faulty_api, tmp_path, monkeypatch):
    faulty_api.responder = _script
    reference_out = tmp_path / "reference.turnscope.json"
    proc = _start(faulty_api, reference_out, tmp_path)
    saves = _saves(reference_out, proc)
    assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()
    reference = open_run(str(reference_out))
    assert len(reference.messages) == 10 and reference.lineage["status"] == "end_turn"
    # a window for each stage of the run: streaming a turn, running its tool call, ... the last save
    windows = [(start, end) for (start, _), (end, _) in zip(saves, saves[1:])] + [(saves[-1][0], saves[-1][0] + 0.05)]

    rng = random.Random(7)
    kills = 10
    saved_counts = []
    for k in range(kills):
        out = tmp_path / f"killed{k}.turnscope.json"
        start, end = windows[k % len(windows)]
        proc = _start(faulty_api, out, tmp_path)
        _wait_for(out, proc)
        time.sleep(start + (end - start) * rng.random())  # somewhere in that stage, as the reference ran it
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        run = open_run(str(out))
        _assert_complete_turns(run, reference)
        saved_counts.append(len(run.messages))
        # a kill between writing the temporary file and renaming it leaves that hidden file (nothing
        # can catch SIGKILL); never anything else, and the resume sweeps it
        leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        assert all(name.startswith(f".{out.name}.") for name in leftovers), leftovers
        resumed = _in_process(monkeypatch, {**faulty_api.env(), "XDG_DATA_HOME": str(tmp_path / "data")},
                              "branch", "--resume", out)
        assert resumed.code == 0, resumed.stderr
        assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
        final = open_run(str(out))
        assert final.messages == reference.messages and final.lineage["status"] == "end_turn"
    assert len(set(saved_counts)) >= 2, f"the kills did not land at different points: {saved_counts} {saves}"


GARBAGE = {
    "not JSON in the events": (Raw(b"data: {not json\n\n"), "the stream ended before the message was complete"),
    "not an event stream": (Raw(b"hello world\n\nthis is not an event stream\n\n"),
                            "the stream ended before the message was complete"),
    "an HTML page with 200": (Raw(b"<html><body>oops</body></html>", 200, "text/html"),
                              "the stream ended before the message was complete"),
    "an HTML 502 from a proxy": (Raw(b"<html><body>502 Bad Gateway</body></html>", 502, "text/html"),
                                 "the API answered 502: <html><body>502 Bad Gateway</body></html>"),
    "JSON that is no message": (Raw(b'{"what": "not a message"}', 200, "application/json"),
                                "the stream ended before the message was complete"),
    "events of the wrong shape": (Raw(b'event: message_start\ndata: {"type":"message_start","message":5}\n\n'),
                                  "the answer is not a Messages API stream"),
    "unknown events only": (Raw(b'event: weird\ndata: {"type":"weird"}\n\n'
                                b'event: message_stop\ndata: {"type":"message_stop"}\n\n'),
                            "the answer is not a Messages API stream"),
    "binary bytes": (Raw(bytes(range(256)) * 4), "the answer is not a Messages API stream"),
    "a cut connection": (Turn([text(WORDS)], cut_after=6), "the stream ended before the message was complete"),
}


RESUMED = ("events of the wrong shape", "a cut connection")


@pytest.mark.parametrize("case", list(GARBAGE))
def test_a_server_answering_garbage_is_reported_and_loses_nothing(faulty_api, tmp_path, case, monkeypatch):
    reply, words = GARBAGE[case]
    faulty_api.add(_script({"messages": [None] * 5}), reply)
    out = tmp_path / "b.turnscope.json"
    env = {**faulty_api.env(), "XDG_DATA_HOME": str(tmp_path / "data"), **FAST}
    result = _in_process(monkeypatch, env, "branch", REFUND, *EDIT, "-o", out)
    assert result.code == 3 and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and words in lines[0] and lines[1].startswith("turnscope: the branch is saved up to message 6")
    saved = open_run(str(out))
    assert len(saved.messages) == 7 and saved.lineage["status"] == "api_error"
    if case not in RESUMED:
        return  # resuming after an API failure is one path, tried on two of the cases
    faulty_api.add(Turn([text("Resumed after the fault.")]))
    assert _in_process(monkeypatch, env, "branch", "--resume", out).code == 0
    final = open_run(str(out))
    assert final.messages[:7] == saved.messages and final.messages[7]["content"][0]["text"] == "Resumed after the fault."


def test_a_server_that_never_answers_times_out_after_the_sdks_retries(faulty_api, tmp_path):
    faulty_api.add(_script({"messages": [None] * 5}), Silent(), Silent())
    out = tmp_path / "b.turnscope.json"
    started = time.monotonic()
    result = run_cli("branch", REFUND, *EDIT, "-o", out, env={**faulty_api.env(), **FAST,
                                                               "XDG_DATA_HOME": str(tmp_path / "data")})
    elapsed = time.monotonic() - started
    faulty_api.release.set()
    assert result.code == 3, result.stderr
    assert "no answer within 1 s (TURNSCOPE_API_TIMEOUT), after the SDK's 1 retry" in result.stderr
    assert len(faulty_api.bodies) == 3  # the first step, then the silent one tried twice
    assert elapsed < 60 and len(open_run(str(out)).messages) == 7


def test_a_stream_that_goes_quiet_is_reported_without_a_retry(faulty_api, tmp_path):
    faulty_api.add(_script({"messages": [None] * 5}), Turn([text(WORDS)], stall_after=5))
    out = tmp_path / "b.turnscope.json"
    result = run_cli("branch", REFUND, *EDIT, "-o", out, env={**faulty_api.env(), **FAST,
                                                               "XDG_DATA_HOME": str(tmp_path / "data")})
    faulty_api.release.set()
    assert result.code == 3 and "the stream stopped: nothing arrived for 1 s (TURNSCOPE_API_TIMEOUT)" in result.stderr
    assert len(faulty_api.bodies) == 2  # a stream that began is not sent again
    run = open_run(str(out))
    assert len(run.messages) == 7 and run.messages[-1]["role"] == "user"


@pytest.mark.parametrize("variable, value", [("TURNSCOPE_API_TIMEOUT", "soon"), ("TURNSCOPE_API_RETRIES", "-1")])
def test_a_bad_timeout_setting_is_one_line_before_anything_is_sent(faulty_api, tmp_path, variable, value):
    out = tmp_path / "b.turnscope.json"
    result = run_cli("branch", REFUND, *EDIT, "-o", out, env={**faulty_api.env(), variable: value})
    assert result.code == 2 and result.stderr.count("\n") == 1 and variable in result.stderr
    assert faulty_api.requests == [] and not out.exists()


def test_the_timeout_and_retries_reach_the_sdk(monkeypatch):
    from tui.core.branch import api

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("TURNSCOPE_API_TIMEOUT", "2.5")
    monkeypatch.setenv("TURNSCOPE_API_RETRIES", "4")
    client = api.make_client()
    assert client.timeout == 2.5 and client.max_retries == 4
    monkeypatch.delenv("TURNSCOPE_API_TIMEOUT")
    monkeypatch.delenv("TURNSCOPE_API_RETRIES")
    client = api.make_client()
    assert client.timeout == api.DEFAULT_TIMEOUT and client.max_retries == api.DEFAULT_RETRIES
