"""``turnscope record``: record an agent's exact Messages API traffic with a local proxy.

    turnscope record [-o FILE] [--upstream URL] [--port P] [--listen ADDR]
        [-- COMMAND ARGS...]

Starts a recording reverse proxy on 127.0.0.1 (another address only with ``--listen``).
With a command, runs it with ANTHROPIC_BASE_URL pointed at the proxy (the rest of the
environment unchanged), waits for it and exits with its exit status; without one, prints
the ``export ANTHROPIC_BASE_URL=...`` line to use and records until Ctrl-C.

Every request is forwarded unchanged to the upstream: ``--upstream``, else the
ANTHROPIC_BASE_URL set before (recorders and gateways chain), else the public Messages
API. Each ``/v1/messages`` and ``count_tokens`` exchange is appended to the recording when it
finishes, as a claude-trace log line (``turnscope FILE`` opens it as an exact run). Keys,
authorization and cookies are forwarded but never written. The recording goes to FILE
(a new or empty file) or to a new file under the user data directory's ``recordings/``.

Exit: the command's status; 0 after Ctrl-C without a command; 2 on bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
from collections.abc import Callable
from urllib.parse import urlsplit


from tui.core.trouble import say
from tui.commands.helptext import HelpFormatter
from tui.core.errors import UsageError


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("record", help="record an agent's exact requests through a local proxy",
                            description=__doc__.split("\n\n", 1)[1], formatter_class=HelpFormatter)
    parser.add_argument("-o", "--output", metavar="FILE", help="the recording (a new or empty file)")
    parser.add_argument("--upstream", metavar="URL", help="where requests go (default: ANTHROPIC_BASE_URL, "
                                                          "else https://api.anthropic.com)")
    parser.add_argument("--port", type=int, default=0, metavar="P", help="port to listen on (default: a free one)")
    parser.add_argument("--listen", default="127.0.0.1", metavar="ADDR",
                        help="address to listen on (default 127.0.0.1, loopback only)")
    parser.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND ARGS",
                        help="the agent to run with ANTHROPIC_BASE_URL pointed at the proxy")


def upstream_from(option: str | None, environ: dict[str, str]) -> str:
    """``--upstream``, else the ANTHROPIC_BASE_URL set before, else the public Messages API."""
    from tui.record.proxy import DEFAULT_UPSTREAM

    url = option or environ.get("ANTHROPIC_BASE_URL") or DEFAULT_UPSTREAM
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        where = "--upstream" if option else "ANTHROPIC_BASE_URL"
        raise UsageError(f"{where} '{url}' is not an http(s) URL")
    return url


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop where it is installed (not on Windows): it halves the proxy's own time per event."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run(args: argparse.Namespace) -> int:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port} is not a port number")
    upstream = upstream_from(args.upstream, dict(os.environ))
    from tui.record.proxy import Proxy
    from tui.record.recording import Recording

    recording = Recording(args.output) if args.output else Recording.default()
    try:
        with asyncio.Runner(loop_factory=_loop_factory()) as runner:
            status = runner.run(_record(Proxy(upstream, recording), command, args.listen, args.port))
    except BaseException:
        recording.close(discard_if_empty=True)  # nothing recorded: no empty file left behind
        raise
    recording.close()
    n = recording.count
    say(f"record: {n} exchange{'s' if n != 1 else ''} in {recording.path}")
    return status


def _note(text: str) -> None:
    say(f"record: {text}")


async def _record(proxy, command: list[str], listen: str, port: int) -> int:
    from tui.record.recording import safe_url

    try:
        url = await proxy.start(listen, port)
    except OSError as exc:
        await proxy.stop(grace=0)
        raise UsageError(f"cannot listen on {listen}:{port} ({exc.strerror or exc})") from None
    _note(f"recording to {proxy.recording.path}; forwarding to {safe_url(proxy.upstream)}")
    loop = asyncio.get_running_loop()
    try:
        if command:
            return await _run_command(loop, command, url)
        print(f"export ANTHROPIC_BASE_URL={url}", flush=True)
        _note("recording until Ctrl-C")
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        return 0
    finally:
        await proxy.stop()


async def _run_command(loop: asyncio.AbstractEventLoop, command: list[str], url: str) -> int:
    env = dict(os.environ, ANTHROPIC_BASE_URL=url)
    try:
        process = await asyncio.create_subprocess_exec(*command, env=env)
    except OSError as exc:
        raise UsageError(f"cannot run '{command[0]}' ({exc.strerror or exc})") from None
    # Ctrl-C reaches the command too (one process group): the recorder waits for it to finish,
    # as a shell does; a TERM sent to the recorder is passed on.
    loop.add_signal_handler(signal.SIGINT, lambda: None)
    loop.add_signal_handler(signal.SIGTERM, lambda: process.returncode is None and process.terminate())
    status = await process.wait()
    return 128 - status if status < 0 else status
