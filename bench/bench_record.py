"""What ``turnscope record`` adds to an agent's calls, measured side by side, not asserted.

    python bench/bench_record.py [--rounds 8] [--calls 40] [--bursts 6] [--events 40]
        [--exchanges 1000] [--against CHECKOUT]

An upstream (an aiohttp server in its own process) streams a Messages API answer of
``--events`` events, 2 ms apart, each stamped with the system's monotonic clock when it is
written. A client in this process sends the same ~30 KB request body either straight to the
upstream or through ``turnscope record`` (its own process, recording to a temporary file)
(and, with ``--against``, through another checkout's recorder too), interleaved call by call
(in a new shuffled order for every call), in ``--rounds`` rounds, and notes when the first byte
and each event arrive. On a shared machine one run's p95 moves with whatever else runs, so
each figure is taken per round and reported as the median over rounds with the lowest and
highest round beside it; a ratio or an added time is taken within a round (direct and
proxied measured in the same seconds), then its median over rounds:

- time to first byte (request sent -> first body byte), p50/p95, direct and proxied;
- per event: arrival minus the upstream's stamp, p50/p95, direct and proxied;
- the same with 8 streams at once (8 clients started together), and the slowest TTFB of
  all rounds (a stall shows there);
- the CPU seconds each process (upstream, recorders, this client) spent over the rounds,
  and the load average sampled every round: the load the figures were taken under;
- CPU per exchange: the recorder's user+system time over ``--exchanges`` short streamed
  exchanges, divided by their number;
- the recorder's read and write system calls per exchange over those (from /proc/PID/io:
  a figure the machine's load does not move);
- memory: the recorder's resident size (VmRSS) every 100 of those exchanges.

Two floors are measured beside them, in the same rounds: a relay that copies the bytes both
ways without reading them (one in C, a process per connection, if a C compiler is found; one
on uvloop's raw transports): what any proxy pays here for the second TCP hop and a wake-up of
one more process, before any HTTP is done (``--no-floors`` leaves them out).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

UPSTREAM = r'''
import asyncio, json, sys, time
from aiohttp import web

EVENTS = int(sys.argv[1])
SPACING = float(sys.argv[2])

def event(name, data):
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()

async def messages(request):
    await request.read()
    events = int(request.query.get("events", EVENTS))
    response = web.StreamResponse(headers={"content-type": "text/event-stream", "request-id": "req_bench"})
    await response.prepare(request)
    await response.write(event("message_start", {"type": "message_start", "message": {
        "id": "msg_bench", "type": "message", "role": "assistant", "model": "claude-bench", "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 9000, "output_tokens": 1},
        "t": time.monotonic()}}))
    await response.write(event("content_block_start", {"type": "content_block_start", "index": 0,
                                                       "content_block": {"type": "text", "text": ""}}))
    for k in range(events):
        if SPACING:
            await asyncio.sleep(SPACING)
        await response.write(event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                   "delta": {"type": "text_delta", "text": "word " * 4}, "t": time.monotonic()}))
    await response.write(event("content_block_stop", {"type": "content_block_stop", "index": 0}))
    await response.write(event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                               "stop_sequence": None}, "usage": {"output_tokens": events * 4}}))
    await response.write(event("message_stop", {"type": "message_stop"}))
    return response

app = web.Application(client_max_size=1 << 30)
app.router.add_post("/v1/messages", messages)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[3]), print=None, access_log=None, backlog=1024)
'''

#: The floor of a second hop: accept, connect upstream, copy bytes both ways (a process per connection).
RELAY_C = r'''
/* The floor any proxy pays here: accept, connect upstream, copy bytes both ways (a process per connection). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
static void nodelay(int fd) { int one = 1; setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); }
int main(int argc, char **argv) {
    int up_port = atoi(argv[1]);
    signal(SIGCHLD, SIG_IGN);
    int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 1024)) return 1;
    socklen_t n = sizeof a; getsockname(ls, (struct sockaddr *)&a, &n);
    printf("export ANTHROPIC_BASE_URL=http://127.0.0.1:%d\n", ntohs(a.sin_port)); fflush(stdout);
    for (;;) {
        int c = accept(ls, NULL, NULL);
        if (c < 0) continue;
        if (fork()) { close(c); continue; }
        close(ls);
        int u = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in b = {.sin_family = AF_INET, .sin_port = htons(up_port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (connect(u, (struct sockaddr *)&b, sizeof b)) _exit(1);
        nodelay(c); nodelay(u);
        struct pollfd p[2] = {{c, POLLIN, 0}, {u, POLLIN, 0}};
        static char buf[1 << 18];
        for (;;) {
            if (poll(p, 2, -1) < 0) _exit(1);
            for (int k = 0; k < 2; k++) {
                if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
                ssize_t r = read(p[k].fd, buf, sizeof buf);
                if (r <= 0) _exit(0);
                for (ssize_t w = 0; w < r;) { ssize_t x = write(p[1 - k].fd, buf + w, r - w); if (x <= 0) _exit(0); w += x; }
            }
        }
    }
}
'''

#: The same floor in this interpreter, on uvloop's transports (no HTTP: bytes in, bytes out).
RELAY_UVLOOP = r'''
import asyncio, sys
import uvloop
UP = int(sys.argv[1])

class Upstream(asyncio.Protocol):
    def __init__(self, client): self.client = client
    def data_received(self, data): self.client.write(data)
    def connection_lost(self, exc): self.client.close()

class Client(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport, self.pending, self.up = transport, [], None
        asyncio.ensure_future(self.connect())
    async def connect(self):
        loop = asyncio.get_running_loop()
        up, _ = await loop.create_connection(lambda: Upstream(self.transport), "127.0.0.1", UP)
        self.up = up
        for data in self.pending: up.write(data)
    def data_received(self, data):
        if self.up is None: self.pending.append(data)
        else: self.up.write(data)
    def connection_lost(self, exc):
        if self.up is not None: self.up.close()

async def main():
    server = await asyncio.get_running_loop().create_server(Client, "127.0.0.1", 0, backlog=1024)
    print(f"export ANTHROPIC_BASE_URL=http://127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
    await server.serve_forever()
uvloop.run(main())
'''


def floors(tmp: str) -> list[tuple[str, list[str]]]:
    """The relays to measure as floors: (name, command printing the export line)."""
    import shutil

    found = []
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc:
        source, binary = Path(tmp) / "relay.c", Path(tmp) / "relay"
        source.write_text(RELAY_C)
        if subprocess.run([cc, "-O2", "-o", str(binary), str(source)], capture_output=True).returncode == 0:
            found.append(("floor: C relay", [str(binary)]))
    try:
        import uvloop  # noqa: F401
        found.append(("floor: uvloop relay", [sys.executable, "-c", RELAY_UVLOOP]))
    except ImportError:
        pass
    return found


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def wait_up(url: str) -> None:
    import aiohttp

    for _ in range(200):
        try:
            async with aiohttp.ClientSession() as session:
                async with session.post(url + "/v1/messages?events=0", data=b"{}") as r:
                    await r.read()
                    return
        except aiohttp.ClientError:
            await asyncio.sleep(0.05)
    raise SystemExit(f"{url} did not come up")


BODY = json.dumps({"model": "claude-bench", "max_tokens": 1000, "stream": True, "system": "You help." * 50,
                   "messages": [{"role": "user" if k % 2 == 0 else "assistant", "content": "a sentence of text " * 20}
                                for k in range(80)]}).encode()
HEADERS = {"content-type": "application/json", "x-api-key": "sk-ant-bench-not-a-key",
           "anthropic-version": "2023-06-01"}


async def one_call(session, url: str, events: int | None = None) -> tuple[float, list[float]]:
    """(time to first byte in ms, [arrival - stamp in ms for each stamped event])."""
    target = url + "/v1/messages" + (f"?events={events}" if events is not None else "")
    start = time.monotonic()
    ttfb = None
    lags: list[float] = []
    buffer = b""
    async with session.post(target, data=BODY, headers=HEADERS) as response:
        async for chunk in response.content.iter_any():
            now = time.monotonic()
            if ttfb is None:
                ttfb = (now - start) * 1000
            buffer += chunk
            while b"\n\n" in buffer:
                raw, buffer = buffer.split(b"\n\n", 1)
                data = json.loads(raw.split(b"data: ", 1)[1])
                stamp = data.get("t", data.get("message", {}).get("t"))
                if stamp is not None:
                    lags.append((now - stamp) * 1000)
    return ttfb or 0.0, lags


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_syscalls(pid: int) -> tuple[int, int]:
    """(read, write) system calls so far: sends and receives on sockets, the record's write."""
    fields = dict(line.split(": ") for line in Path(f"/proc/{pid}/io").read_text().splitlines())
    return int(fields["syscr"]), int(fields["syscw"])


def proc_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return 0.0


def spread(values: list[float]) -> str:
    """``median [min-max]`` of per-round figures."""
    return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"


def shuffled(items: list, rng: random.Random) -> list:
    """``items`` in a new order for every call: each target goes first, and follows each other
    target, as often as the others (a fixed rotation would put the same target after the same one,
    which then pays for the one before it finishing its work)."""
    order = list(items)
    rng.shuffle(order)
    return order


async def main() -> None:
    import aiohttp

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=8, help="rounds; each measures every target, interleaved")
    parser.add_argument("--calls", type=int, default=40, help="single streamed calls per target per round")
    parser.add_argument("--bursts", type=int, default=6, help="bursts of 8 parallel streams per target per round")
    parser.add_argument("--events", type=int, default=40)
    parser.add_argument("--exchanges", type=int, default=1000)
    parser.add_argument("--against", metavar="CHECKOUT", action="append", default=[],
                        help="also measure another checkout's recorder (an A/B, e.g. a copy of main), interleaved "
                        "with the others; may be given more than once")
    parser.add_argument("--no-floors", action="store_true", help="leave out the two byte relays (the floors)")
    args = parser.parse_args()
    rng = random.Random(19)  # the same orders in every run
    loads = [os.getloadavg()[0]]
    port = free_port()
    upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM, str(args.events), "0.002", str(port)])
    tmp = tempfile.mkdtemp(prefix="bench-record-")
    recording = Path(tmp) / "bench.jsonl"
    direct = f"http://127.0.0.1:{port}"
    recorders: dict[str, subprocess.Popen] = {}
    relays: list[subprocess.Popen] = []
    pids_floor: dict[str, int] = {}
    try:
        import uvloop  # noqa: F401 - the recorder runs on it where it is installed
        loops = ["uvloop"]
    except ImportError:
        loops = ["asyncio"]
    try:
        await wait_up(direct)
        targets = {"direct": direct}
        checkouts = [(f"proxied ({loops[0]})", ROOT)]
        for other in args.against:
            checkouts.append((f"{Path(other).resolve().name} ({loops[0]})", Path(other).resolve()))
        for k, (name, checkout) in enumerate(checkouts):
            recorder = subprocess.Popen(
                [sys.executable, "-m", "tui", "record", "-o", str(recording.with_name(f"rec{k}.jsonl")),
                 "--upstream", direct], cwd=checkout, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                env={**os.environ, "PYTHONPATH": str(checkout)})
            recorders[name] = recorder
            targets[name] = recorder.stdout.readline().strip().split("=", 1)[1]
        for name, command in ([] if args.no_floors else floors(tmp)):
            relay = subprocess.Popen(command + [str(port)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True)
            relays.append(relay)
            pids_floor[name] = relay.pid
            targets[name] = relay.stdout.readline().strip().split("=", 1)[1]
        names = list(targets)
        recording = recording.with_name("rec0.jsonl")
        pids = {"upstream": upstream.pid, **{name: p.pid for name, p in recorders.items()}, **pids_floor}
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector, auto_decompress=False) as session:
            for url in targets.values():  # warm every path (pools, imports)
                for _ in range(5):
                    await one_call(session, url)
                await asyncio.gather(*(one_call(session, url) for _ in range(8)))
            cpu_start = {name: proc_cpu(pid) for name, pid in pids.items()}
            client_start = sum(os.times()[:2])
            wall_start = time.monotonic()
            # per round and target: [ttfb], [event lags], [8-parallel ttfb]
            rounds = [{name: ([], [], []) for name in names} for _ in range(args.rounds)]
            for r, per in enumerate(rounds):
                for c in range(args.calls):
                    for name in shuffled(names, rng):
                        ttfb, lags = await one_call(session, targets[name])
                        per[name][0].append(ttfb)
                        per[name][1].extend(lags)
                for b in range(args.bursts):
                    for name in shuffled(names, rng):
                        done = await asyncio.gather(*(one_call(session, targets[name]) for _ in range(8)))
                        per[name][2].extend(t for t, _ in done)
                loads.append(os.getloadavg()[0])
            wall = time.monotonic() - wall_start
            cpu_used = {name: proc_cpu(pid) - cpu_start[name] for name, pid in pids.items()}
            cpu_used["client (this process)"] = sum(os.times()[:2]) - client_start
            # CPU per exchange and memory: every recorder, interleaved call by call
            cpu0 = {name: proc_cpu(p.pid) for name, p in recorders.items()}
            calls0 = {name: proc_syscalls(p.pid) for name, p in recorders.items()}
            rss = {name: [proc_rss_mb(p.pid)] for name, p in recorders.items()}
            wall0 = time.monotonic()
            for k in range(args.exchanges):
                for name in shuffled(list(recorders), rng):
                    await one_call(session, targets[name], events=5)
                if (k + 1) % 100 == 0:
                    for name, p in recorders.items():
                        rss[name].append(proc_rss_mb(p.pid))
            cpu = {name: proc_cpu(p.pid) - cpu0[name] for name, p in recorders.items()}
            calls = {name: [b - a for a, b in zip(calls0[name], proc_syscalls(p.pid))] for name, p in recorders.items()}
            wall_cpu = time.monotonic() - wall0
        for process in recorders.values():
            process.send_signal(2)
            process.wait(timeout=30)
        records = sum(1 for _ in recording.open("rb"))
    finally:
        for process in (*recorders.values(), *relays, upstream):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    loads.append(os.getloadavg()[0])
    print(f"# turnscope record, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, "
          f"{os.cpu_count()} cores, load average {min(loads):.1f}-{max(loads):.1f} (1 min, sampled every round); "
          f"{args.rounds} rounds, each {args.calls} single streamed calls and {args.bursts} bursts of 8 per target, "
          f"interleaved call by call (~{len(BODY) // 1024} KB body, {args.events} events 2 ms apart)")
    print("figures: the median over rounds of each round's figure [lowest-highest round]")

    def per_round(name: str, which: int, q: float) -> list[float]:
        return [pct(per[name][which], q) for per in rounds]

    for name in names:
        t50, t95, e50, e95 = (per_round(name, 0, .5), per_round(name, 0, .95), per_round(name, 1, .5),
                              per_round(name, 1, .95))
        p50, p95 = per_round(name, 2, .5), per_round(name, 2, .95)
        worst = max(max(per[name][2]) for per in rounds)
        print(f"{name:19} TTFB p50 {spread(t50)} p95 {spread(t95)} | per event p50 {spread(e50)} p95 {spread(e95)}"
              f" | 8 parallel TTFB p50 {spread(p50)} p95 {spread(p95)} max {worst:.1f}")
        if name == "direct":
            continue
        d95, d8 = per_round("direct", 0, .95), per_round("direct", 2, .95)
        d50 = per_round("direct", 0, .5)
        print(f"{'':19} added TTFB p50 {spread([a - b for a, b in zip(t50, d50)])} p95 "
              f"{spread([a - b for a, b in zip(t95, d95)])} | 8 parallel p95 / direct's "
              f"{spread([a / b for a, b in zip(p95, d8)])}x")
    print(f"CPU seconds over those rounds ({wall:.1f} s wall): "
          + ", ".join(f"{name} {seconds:.1f}" for name, seconds in cpu_used.items()))
    print(f"CPU per exchange ({args.exchanges} streamed exchanges of 5 events each, interleaved, {wall_cpu:.1f} s): "
          + ", ".join(f"{name} {seconds / args.exchanges * 1000:.2f} ms" for name, seconds in cpu.items()))
    print("system calls per exchange, read / write: "
          + ", ".join(f"{name} {r / args.exchanges:.1f} / {w / args.exchanges:.1f}" for name, (r, w) in calls.items()))
    for name in recorders:
        print(f"{name} RSS MB every 100 exchanges: {' '.join(f'{m:.1f}' for m in rss[name])}")
    print(f"records written: {records}")


if __name__ == "__main__":
    asyncio.run(main())
