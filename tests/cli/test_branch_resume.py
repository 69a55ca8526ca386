"""A branch interrupted mid-stream (SIGKILL, Ctrl-C) leaves a file that loads, and `--resume`
continues it with exactly the request the interrupted call was making."""

import os
import signal
import subprocess
import sys
import time

from conftest import REPO, SAMPLES, run_cli
from fake_messages_api_stream import Turn, stream_api, text, tool_use  # noqa: F401
from tui.core.grammar import ERROR, check_run
from tui.formats import open_run

REFUND = SAMPLES / "refund" / "run.jsonl"


def _start_stalling(api, out, tmp_path):
    api.add(Turn([text("Trying the policy again."),
                  tool_use("toolu_K1", "lookup_policy", {"topic": "lost_shipment"})], "tool_use"),
            Turn([text("This reply never finishes arriving, however long you wait.")], stall_after=5))
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1", **api.env(),
           "XDG_DATA_HOME": str(tmp_path / "data")}
    proc = subprocess.Popen([sys.executable, "-m", "tui", "branch", str(REFUND), "--at", "4", "--tool-error",
                             "toolu_01Ef", "policy service unavailable", "-o", str(out)],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert api.stalled.wait(60), "the second model call never started streaming"
    return proc


def _assert_loads_at_the_last_complete_turn(out):
    run = open_run(str(out))
    assert len(run.messages) == 7
    assert run.messages[5]["content"][1]["id"] == "toolu_K1"
    assert run.messages[6]["content"][0]["tool_use_id"] == "toolu_K1"
    assert [f for f in check_run(run) if f.severity == ERROR] == []
    assert [p.name for p in out.parent.iterdir() if p.name.endswith(".tmp")] == []
    return run


def test_a_kill_during_streaming_leaves_a_file_that_resumes(stream_api, tmp_path):
    out = tmp_path / "b.turnscope.json"
    proc = _start_stalling(stream_api, out, tmp_path)
    before_kill = open_run(str(out)).messages
    proc.kill()
    proc.wait(timeout=30)
    run = _assert_loads_at_the_last_complete_turn(out)
    assert run.messages == before_kill and run.lineage["status"] == "running"

    # a kill in the middle of a save leaves its hidden temporary file; the resume sweeps it (and only it)
    half_written = tmp_path / ".b.turnscope.json.k1ll3d.tmp"
    half_written.write_bytes(out.read_bytes()[:100])
    someone_elses = tmp_path / ".other.turnscope.json.k1ll3d.tmp"
    someone_elses.write_bytes(b"{")
    stream_api.release.set()
    stream_api.add(Turn([text("Resumed: the refund is on its way.")]))
    result = run_cli("branch", "--resume", str(out), env={**stream_api.env(), "XDG_DATA_HOME": str(tmp_path / "data")})
    assert result.code == 0, result.stderr
    assert not half_written.exists() and someone_elses.exists()
    interrupted, resumed = stream_api.bodies[1], stream_api.bodies[2]
    assert resumed == interrupted and resumed["messages"] == run.messages
    final = open_run(str(out))
    assert len(final.messages) == 8 and final.lineage["status"] == "end_turn"
    assert final.messages[7]["content"] == [{"type": "text", "text": "Resumed: the refund is on its way."}]
    assert final.messages[:7] == run.messages


def test_ctrl_c_during_streaming_cancels_cleanly(stream_api, tmp_path):
    out = tmp_path / "b.turnscope.json"
    proc = _start_stalling(stream_api, out, tmp_path)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "cancelled; the branch is saved up to message 6" in stderr and "--resume" in stderr
    assert "Traceback" not in stderr
    run = _assert_loads_at_the_last_complete_turn(out)
    assert run.lineage["status"] == "cancelled"


def test_a_kill_while_a_tool_runs_leaves_the_call_to_answer_on_resume(stream_api, tmp_path):
    """The seeds' fault injector: interrupt between the assistant turn and its results, then resume."""
    marker = tmp_path / "tool-started"
    (tmp_path / "slowtools.py").write_text(
        "import pathlib, time\n"
        f"def slow(name, input):\n    pathlib.Path({str(marker)!r}).write_text(name)\n    time.sleep(60)\n"
        "def fast(name, input):\n    return f'{name} ok'\n")
    stream_api.add(Turn([text("Checking again."), tool_use("toolu_F1", "lookup_policy", {"topic": "returns"})],
                        "tool_use"))
    out = tmp_path / "b.turnscope.json"
    env = {**os.environ, "PYTHONPATH": str(REPO), **stream_api.env(), "XDG_DATA_HOME": str(tmp_path / "data")}
    proc = subprocess.Popen([sys.executable, "-m", "tui", "branch", str(REFUND), "--at", "4", "--tool-error",
                             "toolu_01Ef", "policy service unavailable", "--resolver", "python:slowtools:slow",
                             "-o", str(out)], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for _ in range(600):
        if marker.exists() or proc.poll() is not None:
            break
        time.sleep(0.05)
    assert marker.exists(), proc.communicate()[1]
    proc.kill()
    proc.wait(timeout=30)
    run = open_run(str(out))
    assert len(run.messages) == 6 and run.messages[5]["content"][1]["id"] == "toolu_F1"
    assert [f for f in check_run(run) if f.severity == ERROR] == []

    stream_api.add(Turn([text("All good now.")]))
    result = run_cli("branch", "--resume", str(out), "--resolver", "python:slowtools:fast", cwd=tmp_path,
                     env={**stream_api.env(), "XDG_DATA_HOME": str(tmp_path / "data")})
    assert result.code == 0, result.stderr
    assert stream_api.bodies[1]["messages"][5:] == [run.messages[5], {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_F1", "content": "lookup_policy ok"}]}]
