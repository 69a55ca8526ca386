"""The analyses forked before the app starts (``background.fork_early``) send what the spawned workers send,
byte for byte; a process that runs threads never forks; early workers not adopted are ended.

Each comparison runs in a fresh interpreter, as the command line does: one thread only, the run loaded,
then the forked workers and (afterwards, in the same process) the spawned ones on the same file."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest
from conftest import REPO, SAMPLES

from tui.core import spawn
from tui.core.view import background

BOTH = """
import functools, hashlib, pickle, sys, threading
from tui.core import collector
from tui.core.view import background as bg
from tui.formats import open_run

path = sys.argv[1]
run = open_run(path)
collector.keep_out_loaded()  # as launch.py does before it forks

def results(forked):
    got, done = [], threading.Event()
    def deliver(kind, value):
        got.append((kind, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)))
        if kind in ("done", "failed"):
            done.set()
    if forked:
        assert threading.active_count() == 1 and bg.fork_early(run), "not forked"
    b = bg.Background(run, functools.partial(open_run, path), deliver)
    assert b.forked == forked, (b.forked, forked)
    b.start()
    assert b.processes and all(p._start_method == ("fork" if forked else "spawn") for p in b.processes)
    assert done.wait(120)
    for w in b.workers:
        w._reader.join(10)
    return dict(got)

if __name__ == "__main__":
    forked, spawned = results(True), results(False)
    assert set(forked) == {"findings", "tokens", "traces", "done"}, sorted(forked)
    for kind in ("findings", "tokens", "traces"):
        assert forked[kind] == spawned[kind], kind
    print(len(run.messages), *(hashlib.sha1(forked[k]).hexdigest()[:12] for k in ("findings", "tokens", "traces")))
"""


def _both(path) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", BOTH, str(path)], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.parametrize("name", ["invented_order_id.jsonl", "where_is_my_order.jsonl", "refund/run.jsonl"])
def test_forked_workers_send_what_spawned_workers_send_on_the_sample_runs(name):
    count = int(_both(SAMPLES / name).split()[0])
    assert count > 0


def test_forked_workers_send_what_spawned_workers_send_on_a_real_run(realruns):
    assert int(_both(realruns / "spotter__tool_heavy.jsonl").split()[0]) > 0


def test_a_process_running_a_thread_of_its_own_does_not_fork():
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()
    try:
        assert not spawn.forkable()
        with pytest.raises(RuntimeError):
            spawn.start(print, (), "never", fork=True)
        from tui.formats import open_run

        assert background.fork_early(open_run(str(SAMPLES / "where_is_my_order.jsonl"))) is False
        assert background._EARLY == []
    finally:
        stop.set()
        thread.join()


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] == "Z"


def test_early_workers_of_another_run_are_ended_not_adopted(monkeypatch):
    """A run opened instead of the one forked for (another object) spawns its own; the early ones end."""
    from tui.formats import open_run

    monkeypatch.setattr(spawn, "forkable", lambda: True)  # pytest's own threads never touch what the child runs
    path = str(SAMPLES / "where_is_my_order.jsonl")
    first, other = open_run(path), open_run(path)
    assert background.fork_early(first)
    early = [w.process for _, workers in background._EARLY for w in workers]
    assert early and all(p._start_method == "fork" for p in early)
    made = background.Background(other, lambda: other, lambda kind, value: None)
    try:
        assert not made.forked and background._EARLY == []
        for process in early:
            process.join(5)
        assert all(_gone(p.pid) for p in early)
    finally:
        made.stop()


def _say_ran(send, word):
    send.send_bytes(word)


def test_a_forked_child_behind_a_gate_runs_only_once_the_parent_opens_it(monkeypatch):
    monkeypatch.setattr(spawn, "forkable", lambda: True)
    gate = spawn.Gate()
    started = [spawn.start(_say_ran, (word,), "gated", fork=True, gate=gate) for word in (b"one", b"two")]
    try:
        assert not any(receive.poll(0.5) for _, receive, _ in started)  # both alive, neither ran
        assert all(process.is_alive() for process, _, _ in started)
        gate.open()
        assert sorted(receive.recv_bytes() for _, receive, _ in started) == [b"one", b"two"]
        gate.open()  # once only: nothing more happens
    finally:
        for process, receive, _ in started:
            process.join(5)
            receive.close()
    assert [process.exitcode for process, _, _ in started] == [0, 0]


def test_a_gate_shut_ends_its_children_without_running_them(monkeypatch):
    monkeypatch.setattr(spawn, "forkable", lambda: True)
    gate = spawn.Gate()
    process, receive, _ = spawn.start(_say_ran, (b"ran",), "gated", fork=True, gate=gate)
    gate.shut()
    process.join(5)
    assert process.exitcode == 0
    with pytest.raises(EOFError):
        receive.recv_bytes()  # it never wrote
    with pytest.raises(ValueError):
        spawn.start(_say_ran, (b"ran",), "gated", fork=True, gate=gate)  # a gate shut holds no one new


ORPHANS = """
import sys, time
from tui.core import spawn

def mark(send, path):
    open(path, "w").write("ran")

gate = spawn.Gate()
process, receive, _ = spawn.start(mark, (sys.argv[1],), "gated", fork=True, gate=gate)
print(process.pid, flush=True)
time.sleep(0.3)
import os
os._exit(0)  # ends without opening or shutting its gate, as a crash would
"""


def test_children_behind_a_gate_end_unrun_when_their_parent_ends(tmp_path):
    marker = tmp_path / "ran"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", ORPHANS, str(marker)], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    pid = int(proc.stdout)
    import time

    for _ in range(50):
        if _gone(pid):
            break
        time.sleep(0.1)
    assert _gone(pid) and not marker.exists()


FORKED_WAIT = """
import sys, threading, time
from tui.core import collector
from tui.core.view import background as bg
from tui.formats import open_run

run = open_run(sys.argv[1])
assert bg.fork_early(run)
workers = bg._EARLY[0][1]
time.sleep(0.5)
assert not any(w._conn.poll(0) for w in workers), "a forked worker sent before its Background started"
done = threading.Event()
b = bg.Background(run, None, lambda kind, value: done.set() if kind in ("done", "failed") else None)
assert b.workers == workers
b.start()
assert done.wait(60)
print("ok")
"""


def test_forked_workers_wait_for_the_background_that_adopts_them_to_start():
    """Forked as the app starts, they do nothing until the stepper's Background starts (after the first frame)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", FORKED_WAIT, str(SAMPLES / "refund" / "run.jsonl")],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]
