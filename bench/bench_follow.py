"""Follow mode's cost per update on a 100 MB run growing by a line a second, measured, not asserted.

    python bench/bench_follow.py [--size 100MB] [--updates 20] [--interval 1.0]

Two 100 MB files, made on demand in a temporary directory:
- a message-per-line JSONL run (``bench/large_run.py``), grown by one message line a second;
- a recording (``turnscope record``'s claude-trace lines: each request carries the whole
  conversation so far), grown by one exchange a second;
- a Claude Code session: a real one (``spotter__tool_heavy.jsonl``, a tool loop with parallel
  calls) copied again and again with fresh uuids and ids, each copy going on from the last,
  grown by its next real line a second (progress lines, answers, parallel tool results).

For each, ``Follower.poll()`` runs once a second after the line is appended; its CPU time
(``time.process_time``) is reported (p50, p95, max), beside the CPU of loading the same file
again whole (what a follower without an appender does, and the only other way to see the
new line). Target: under 50 ms of CPU per update.

``--against DIR`` (with ``--only claude-code``): the Claude Code session followed by this
checkout and by the one in DIR side by side, each in a worker process of its own on its own copy
of the file: every update appends the same line to both and polls both, in turn (which one goes
first alternates), each worker timing its own poll; and the same file loaded whole by each,
interleaved (``--repeat`` tries), CPU time.

Then the stepper in a real terminal (``bench_stepper.Term``, a pty): ``python -m tui RUN``
and ``python -m tui RUN --follow --at 0`` while a line a second is appended, interleaved,
each stepped ``--steps`` times with j once the grammar check is on screen; key to frame,
p50/p95. Target: steps as fast while following as without.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from large_run import _size, make  # noqa: E402

from tui.formats import load_runs  # noqa: E402
from tui.formats.follow import Follower  # noqa: E402


def recording(path: Path, size: int) -> Path:
    """A claude-trace recording of about ``size`` bytes: exchange k sends messages 0..2k."""
    text = "a sentence of the conversation so far " * 60
    messages: list[dict] = []
    written = 0
    k = 0
    with open(path, "w") as out:
        while written < size:
            messages.append({"role": "user", "content": f"turn {k}: {text}"})
            line = exchange(messages, k) + "\n"
            out.write(line)
            written += len(line)
            messages.append({"role": "assistant", "content": [{"type": "text", "text": f"answer {k}"}]})
            k += 1
    return path


#: The real Claude Code session the large one is made of (``../shared/realruns``): a tool loop with parallel calls.
#: (Found as the tests find ``../shared/realruns``: $TURNSCOPE_REALRUNS, next to the checkout, /work/shared.)
REAL_SESSION = next((p for p in (Path(os.environ.get("TURNSCOPE_REALRUNS", ROOT.parent / "shared" / "realruns")),
                                 ROOT.parent / "shared" / "realruns", Path("/work/shared/realruns"))
                     if (p / "spotter__tool_heavy.jsonl").exists()),
                    ROOT.parent / "shared" / "realruns") / "spotter__tool_heavy.jsonl"


def session_copies(source: Path):
    """The real session's lines again and again, each copy with fresh uuids, message ids and tool ids, its
    first line hung off the copy before's last: one main thread that goes on (an endless iterator of lines)."""
    import orjson

    records = [orjson.loads(line) for line in source.read_bytes().splitlines() if line.strip()]
    last: str | None = None
    copy = 0
    while True:
        copy += 1
        tail = f"{copy:012x}"
        fresh = lambda value: value[:-12] + tail if isinstance(value, str) and len(value) >= 12 else value  # noqa: E731
        for record in records:
            out = dict(record)
            if isinstance(out.get("uuid"), str):
                out["uuid"] = fresh(out["uuid"])
            if isinstance(out.get("parentUuid"), str):
                out["parentUuid"] = fresh(out["parentUuid"])
            elif "parentUuid" in out and last is not None and out.get("type") != "file-history-snapshot":
                out["parentUuid"] = last
            message = out.get("message")
            if isinstance(message, dict):
                message = out["message"] = dict(message)
                if isinstance(message.get("id"), str):
                    message["id"] = f"{message['id']}_{copy}"
                if isinstance(message.get("content"), list):
                    message["content"] = [_fresh_ids(block, copy) for block in message["content"]]
            yield orjson.dumps(out) + b"\n"
        last = next((fresh(r["uuid"]) for r in reversed(records) if isinstance(r.get("uuid"), str)), last)


def _fresh_ids(block, copy: int):
    if isinstance(block, dict) and block.get("type") in ("tool_use", "tool_result"):
        block = dict(block)
        for key in ("id", "tool_use_id"):
            if isinstance(block.get(key), str):
                block[key] = f"{block[key]}_{copy}"
    return block


def claude_session(path: Path, size: int):
    """A Claude Code session of about ``size`` bytes made of the real one's copies; returns the lines to grow it by."""
    lines = session_copies(REAL_SESSION)
    written = 0
    with open(path, "wb") as out:
        while written < size:
            line = next(lines)
            out.write(line)
            written += len(line)
    return lines


def exchange(messages: list[dict], k: int) -> str:
    body = {"model": "claude-bench", "max_tokens": 100, "system": "You help.", "messages": messages}
    answer = {"id": f"msg_{k}", "type": "message", "role": "assistant", "model": "claude-bench",
              "content": [{"type": "text", "text": f"answer {k}"}], "stop_reason": "end_turn",
              "usage": {"input_tokens": 10, "output_tokens": 2}}
    return json.dumps({"request": {"timestamp": 1.0 + k, "method": "POST", "url": "http://127.0.0.1/v1/messages",
                                   "headers": {}, "body": body},
                       "response": {"timestamp": 1.5 + k, "status_code": 200, "headers": {}, "body": answer}},
                      separators=(",", ":"))


def follow(path: Path, next_line, updates: int, interval: float) -> tuple[list[float], float, float, int]:
    t = time.process_time()
    follower = Follower(str(path))
    opened = time.process_time() - t
    costs = []
    whole = 0
    for k in range(updates):
        time.sleep(interval)
        line = next_line(k)
        with open(path, "ab" if isinstance(line, bytes) else "a") as out:
            out.write(line)
        t = time.process_time()
        update = follower.poll()
        costs.append((time.process_time() - t) * 1000)
        assert update is not None and update.lines == 1, update
        whole += update.whole
    t = time.process_time()
    load_runs(str(path))
    reload = (time.process_time() - t) * 1000
    return costs, opened * 1000, reload, whole


#: A follower in a process of its own, on the checkout its first argument names: it opens the file, then
#: polls each time a line comes on stdin ("poll") or loads the file whole ("load"), and answers with the CPU ms.
WORKER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from tui.formats import load_runs
from tui.formats.follow import Follower
t = time.process_time()
follower = Follower(sys.argv[2])
print(f"{(time.process_time() - t) * 1000:.3f} 0", flush=True)
for command in sys.stdin:
    t = time.process_time()
    if command.strip() == "load":
        load_runs(sys.argv[2])
        whole = 0
    else:
        update = follower.poll()
        assert update is not None and update.lines == 1, update
        whole = int(update.whole)
    print(f"{(time.process_time() - t) * 1000:.3f} {whole}", flush=True)
"""


def against(folder: Path, other: Path, args: argparse.Namespace) -> None:
    """The Claude Code session followed by this checkout and ``other``, side by side (see the docstring)."""
    import subprocess

    size = _size(args.size)
    mine = folder / "session.jsonl"
    lines = claude_session(mine, size)
    theirs = folder / "session-against.jsonl"
    shutil.copyfile(mine, theirs)
    checkouts = {"this checkout": (ROOT, mine), f"{other}": (other, theirs)}
    workers = {name: subprocess.Popen([sys.executable, "-c", WORKER, str(root), str(path)], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True, cwd=str(root))
               for name, (root, path) in checkouts.items()}

    def ask(name: str, command: str | None = None) -> tuple[float, int]:
        worker = workers[name]
        if command is not None:
            worker.stdin.write(command + "\n")
            worker.stdin.flush()
        cpu, whole = worker.stdout.readline().split()
        return float(cpu), int(whole)

    try:
        opened = {name: ask(name)[0] for name in workers}
        costs: dict[str, list[float]] = {name: [] for name in workers}
        wholes = dict.fromkeys(workers, 0)
        names = list(workers)
        for k in range(args.updates):
            time.sleep(args.interval)
            line = next(lines)
            for _, path in checkouts.values():
                with open(path, "ab") as out:
                    out.write(line)
            for name in (names if k % 2 == 0 else names[::-1]):
                cpu, whole = ask(name, "poll")
                costs[name].append(cpu)
                wholes[name] += whole
        loads: dict[str, list[float]] = {name: [] for name in workers}
        for k in range(args.repeat):
            for name in (names if k % 2 == 0 else names[::-1]):
                loads[name].append(ask(name, "load")[0])
    finally:
        for worker in workers.values():
            worker.stdin.close()
            worker.wait()
    print(f"Claude Code session ({mine.stat().st_size / 1e6:.0f} MB), {args.updates} updates side by side, "
          f"the whole load {args.repeat} tries interleaved:")
    for name in workers:
        c, load = costs[name], statistics.median(loads[name])
        print(f"  {name}: CPU per update p50 {pct(c, .5):.2f} ms, p95 {pct(c, .95):.2f} ms, max {max(c):.2f} ms | "
              f"loading it whole {load:.0f} ms (median; {min(loads[name]):.0f}-{max(loads[name]):.0f}) | "
              f"first load {opened[name]:.0f} ms" + (f" | {wholes[name]} updates loaded it again whole"
                                                     if wholes[name] else ""))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="bench-follow-"))
    try:
        measure(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # three files of --size each: not left behind


def measure(folder: Path) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="100MB")
    parser.add_argument("--updates", type=int, default=20)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--steps-only", action="store_true", help="only the stepper in a pty")
    parser.add_argument("--only", choices=("jsonl", "recording", "claude-code"), help="one file's updates, no stepper")
    parser.add_argument("--against", type=Path, metavar="DIR", help="another checkout, side by side (the Claude Code "
                        "session only)")
    args = parser.parse_args()
    if args.against:
        print(f"# follow against {args.against}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average "
              f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
        against(folder, args.against.resolve(), args)
        return
    size = _size(args.size)
    run = make(folder / "run.jsonl", size)
    rec = recording(folder / "rec.jsonl", size)
    cc = folder / "session.jsonl"
    cc_lines = claude_session(cc, size)
    line = json.dumps({"role": "user", "content": "one more line " * 20}) + "\n"
    messages = []  # the recording's next exchanges: the conversation so far, read back once
    for raw in rec.open("rb"):
        pass
    last = json.loads(raw)["request"]["body"]["messages"]
    messages = last + [{"role": "assistant", "content": [{"type": "text", "text": "answer"}]}]
    base = len(messages)

    def next_exchange(k: int) -> str:
        messages.append({"role": "user", "content": f"more {k}"})
        out = exchange(messages, base + k) + "\n"
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"answer {base + k}"}]})
        return out

    print(f"# follow, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {args.updates} updates, "
          f"{args.interval:g} s apart; load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if args.steps_only:
        steps(run, line, args)
        return
    for name, path, grow in (("message-per-line run", run, lambda k: line), ("recording", rec, next_exchange),
                             ("Claude Code session", cc, lambda k: next(cc_lines))):
        if args.only and {"jsonl": run, "recording": rec, "claude-code": cc}[args.only] != path:
            continue
        costs, opened, reload, whole = follow(path, grow, args.updates, args.interval)
        mb = path.stat().st_size / 1e6
        print(f"{name} ({mb:.0f} MB): CPU per update p50 {pct(costs, .5):.2f} ms, p95 {pct(costs, .95):.2f} ms, "
              f"max {max(costs):.2f} ms | loading it again whole {reload:.0f} ms ({reload / statistics.median(costs):.0f}x) "
              f"| first load {opened:.0f} ms" + (f" | {whole} of {len(costs)} updates loaded it again whole" if whole else ""))
    if not args.only:
        steps(run, line, args)


def steps(path: Path, line: str, args: argparse.Namespace) -> None:
    import threading

    from bench_stepper import Term

    def stepped(follow: bool) -> list[float]:
        stop = threading.Event()

        def writer() -> None:
            while not stop.wait(1.0):
                with open(path, "a") as out:
                    out.write(line)

        term = Term([sys.executable, "-m", "tui", str(path), *(["--follow", "--at", "0"] if follow else [])])
        thread = threading.Thread(target=writer, daemon=True)
        try:
            term.until("message 0 of ", timeout=300)
            term.until("error", timeout=300)  # the grammar check is on screen
            thread.start()
            return [term.key(b"j", f"message {n} of ") * 1000 for n in range(1, args.steps + 1)]
        finally:
            stop.set()
            term.close()

    results: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(args.repeat):
        for follow in (False, True):
            results[follow] += stepped(follow)
    for follow, times in results.items():
        print(f"stepper {'following' if follow else 'not following'} a {path.stat().st_size / 1e6:.0f} MB run growing "
              f"a line a second: step p50 {pct(times, .5):.1f} ms, p95 {pct(times, .95):.1f} ms")


if __name__ == "__main__":
    main()
