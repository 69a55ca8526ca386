"""The recording reverse proxy: aiohttp's server towards the agent, aiohttp's client upstream.

aiohttp does the HTTP on both sides (parsing, chunked bodies, keep-alive, a connection pool
upstream) in one asyncio loop, so every exchange, parallel ones included, is a task and a
streamed answer is written on as each piece arrives. The proxy itself only decides what
to pass and what to keep:

- the request: method, path and query as received (``raw_path``, not re-encoded), every
  header but the hop-by-hop ones (``Connection`` and those it names, ``Keep-Alive``, ``TE``,
  ``Trailer``, ``Transfer-Encoding``, ``Upgrade``, ``Proxy-Connection``) and ``Host``; the
  body's bytes unchanged. Credential headers are forwarded: only the record leaves them out.
- the answer: status, reason and headers (hop-by-hop ones dropped; ``Content-Length`` and
  ``Content-Encoding`` kept, as the body passes through undecoded), then the body piece by
  piece as it arrives. Upstream errors are answers like any other.
- an upstream that cannot be reached: 502 with the API's error envelope naming it.
- an upstream that closes mid-answer: the agent's connection is closed too, so the agent
  sees the cut; a client that goes away: the upstream request is cancelled. Both are recorded
  with ``partial`` saying what happened.

Exchanges with ``/v1/messages`` and ``count_tokens`` are handed to the ``Recording`` when they
finish; everything else (``/v1/models``, ...) is forwarded and not kept.
"""

from __future__ import annotations

import asyncio
import logging
import time
import zlib
from typing import Any

import aiohttp
from aiohttp import web
from multidict import CIMultiDict
from yarl import URL

from tui.record.recording import Exchange, Recording, is_recorded, safe_url

#: Hop-by-hop headers (RFC 9110 7.6.1), never forwarded on either side.
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
                        "upgrade", "proxy-authenticate"})
#: Request headers the client side sets again for the upstream connection.
_RESET_ON_REQUEST = frozenset({"host", "content-length", "expect"})
#: The record keeps the headers as forwarded (``Content-Length`` is the same number aiohttp sends).
_NOT_RECORDED = frozenset({"host", "expect"})

DEFAULT_UPSTREAM = "https://api.anthropic.com"


def _forwarded(headers: Any, also: frozenset[str]) -> CIMultiDict[str]:
    named = _named_by_connection(headers)
    out: CIMultiDict[str] = CIMultiDict()
    for name, value in headers.items():
        lower = name.lower()
        if lower in HOP_BY_HOP or lower in named or lower in also:
            continue
        out.add(name, value)
    return out


def _named_by_connection(headers: Any) -> set[str] | frozenset[str]:
    values = headers.getall("connection", ())
    if not values:
        return frozenset()
    return {token.strip().lower() for value in values for token in value.split(",")}


def _request_headers(headers: Any, recorded: bool) -> tuple[CIMultiDict[str], list[tuple[str, str]] | None]:
    """The request's headers as forwarded upstream and, when the exchange is recorded, as the record
    keeps them (the same, with ``Content-Length``): one pass over them, not one for each."""
    named = _named_by_connection(headers)
    out: CIMultiDict[str] = CIMultiDict()
    kept: list[tuple[str, str]] | None = [] if recorded else None
    for name, value in headers.items():
        lower = name.lower()
        if lower in HOP_BY_HOP or lower in named:
            continue
        if lower not in _RESET_ON_REQUEST:
            out.add(name, value)
        if kept is not None and lower not in _NOT_RECORDED:
            kept.append((name, value))
    return out, kept


def _decompressed(data: bytes, encoding: str) -> tuple[bytes, str | None]:
    """The body as the record keeps it: gzip and deflate undone; another coding kept as received."""
    encoding = encoding.strip().lower()
    if not encoding or encoding == "identity" or not data:
        return data, None
    try:
        if encoding in ("gzip", "x-gzip"):
            return zlib.decompress(data, 16 + zlib.MAX_WBITS), None
        if encoding == "deflate":
            try:
                return zlib.decompress(data), None
            except zlib.error:
                return zlib.decompress(data, -zlib.MAX_WBITS), None
    except zlib.error as exc:
        return data, f"the answer's {encoding} body does not decompress ({exc}); recorded as received"
    return data, f"the answer is {encoding}-encoded, which the recorder does not decode; recorded as received"


class Proxy:
    """Forward everything to ``upstream``; record the Messages API exchanges in ``recording``."""

    def __init__(self, upstream: str, recording: Recording | None):
        self.upstream = upstream.rstrip("/")
        self.recording = recording
        self.session: aiohttp.ClientSession | None = None
        self.runner: web.AppRunner | None = None
        self.in_flight = 0
        self.url = ""
        self._urls: dict[str, URL] = {}

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Listen; returns the base URL to give clients (``http://127.0.0.1:PORT``)."""
        for name in ("aiohttp.server", "aiohttp.access", "aiohttp.web", "aiohttp.client"):
            logger = logging.getLogger(name)
            logger.addHandler(logging.NullHandler())
            logger.propagate = False  # the agent's terminal is not the place for aiohttp's tracebacks
        self.session = aiohttp.ClientSession(
            auto_decompress=False,  # compressed bodies pass through as they are
            skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=30),
            connector=aiohttp.TCPConnector(limit=0, enable_cleanup_closed=True),
            cookie_jar=aiohttp.DummyCookieJar(),
        )
        app = web.Application(client_max_size=1 << 40)
        app.router.add_route("*", "/{tail:.*}", self.handle)
        self.runner = web.AppRunner(app, handler_cancellation=True, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, host, port, backlog=1024, reuse_address=True)
        await site.start()
        bound = site._server.sockets[0].getsockname()  # type: ignore[union-attr]
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        self.url = f"http://{shown}:{bound[1]}"
        return self.url

    async def stop(self, grace: float = 10.0) -> None:
        """Finish the exchanges in flight (up to ``grace`` seconds), then close both sides."""
        deadline = time.monotonic() + grace
        while self.in_flight and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        if self.runner is not None:
            await self.runner.cleanup()
        if self.session is not None:
            await self.session.close()

    def _upstream_url(self, raw_path: str) -> URL:
        url = self._urls.get(raw_path)
        if url is None:  # an agent asks for the same few paths again and again: each is parsed once
            url = URL(self.upstream + raw_path, encoded=True)
            if len(self._urls) < 256:
                self._urls[raw_path] = url
        return url

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.in_flight += 1
        try:
            return await self._handle(request)
        finally:
            self.in_flight -= 1

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        started = time.time()
        body = await request.read()
        url = self._upstream_url(request.raw_path)
        headers, kept = _request_headers(request.headers, is_recorded(request.path))
        exchange = Exchange(method=request.method, url=str(url), request_body=body, started=started,
                            request_headers=kept) if kept is not None else None
        chunks: list[bytes] = []
        answering = False
        out: web.StreamResponse | None = None
        try:
            assert self.session is not None
            try:
                upstream = await self.session.request(
                    request.method, url, headers=headers,
                    data=body if body else None, allow_redirects=False)
            except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as exc:
                return self._unreachable(exchange, exc)
            try:
                if exchange is not None:
                    exchange.first_byte = time.time()
                    exchange.status = upstream.status
                    exchange.response_headers = list(upstream.headers.items())
                try:  # the body bytes that came with the headers: they go on together, in one write
                    chunk = upstream.content.read_nowait()
                except (aiohttp.ClientError, OSError, asyncio.TimeoutError):
                    chunk = b""  # the next read says what went wrong
                out = (_WithFirstBytes if chunk else web.StreamResponse)(
                    status=upstream.status, reason=upstream.reason, headers=_forwarded(upstream.headers, frozenset()))
                answering = True
                await out.prepare(request)
                while True:
                    if not chunk:
                        try:
                            chunk = await upstream.content.readany()
                        except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as exc:
                            if exchange is not None:
                                exchange.partial = ("the upstream closed the connection mid-answer "
                                                    f"({exc.__class__.__name__})")
                            _cut(request)
                            return out
                        if not chunk:
                            break
                    if exchange is not None:
                        chunks.append(chunk)
                    if upstream.content.at_eof():  # the answer's end came with these bytes: they go on
                        await out.write_eof(chunk)  # together (the last chunk and the end of the body)
                        return out
                    await out.write(chunk)
                    chunk = b""
                await out.write_eof()
                return out
            finally:
                if upstream.content.is_eof():
                    upstream.release()  # the connection goes back to the pool
                else:
                    upstream.close()  # an answer not read to its end: cancel it upstream
        except (ConnectionError, aiohttp.ClientConnectionError):  # the agent went away mid-answer
            if exchange is not None:
                exchange.partial = "the client disconnected mid-answer; the upstream request was cancelled"
            _cut(request)
            return out if out is not None else web.Response(status=499)  # never sent: the connection is gone
        except asyncio.CancelledError:
            if exchange is not None:
                exchange.partial = ("the client disconnected mid-answer; the upstream request was cancelled"
                                    if answering else
                                    "the client disconnected before the answer began; the upstream request was cancelled")
            raise
        finally:
            if exchange is not None and self.recording is not None:
                exchange.ended = time.time()
                if exchange.response_body is None and exchange.status is not None:
                    exchange.response_body, exchange.encoding_note = _decompressed(
                        b"".join(chunks), _header(exchange.response_headers, "content-encoding"))
                self.recording.append(exchange)

    def _unreachable(self, exchange: Exchange | None, exc: BaseException) -> web.Response:
        detail = str(exc) or exc.__class__.__name__
        message = f"turnscope record: the upstream {safe_url(self.upstream)} is unreachable ({detail})"
        envelope = {"type": "error", "error": {"type": "api_error", "message": message}}
        import orjson

        payload = orjson.dumps(envelope)
        if exchange is not None:
            exchange.status = 502
            exchange.first_byte = time.time()
            exchange.response_headers = [("content-type", "application/json")]
            exchange.answered_by_recorder = "the upstream could not be reached"
            exchange.response_body = payload
        return web.Response(status=502, body=payload, content_type="application/json")


class _WithFirstBytes(web.StreamResponse):
    """An answer whose first body bytes are already here: its headers go out with them, in one write
    (aiohttp's own ``web.Response`` does the same), not one socket send each. An answer whose body
    has not begun is a plain ``StreamResponse``: its headers go on as soon as they arrive."""

    _send_headers_immediately = False


def _header(headers: list[tuple[str, str]], name: str) -> str:
    return next((value for key, value in headers if key.lower() == name), "")


def _cut(request: web.Request) -> None:
    """Close the agent's connection where it stands, so an answer cut upstream is cut here too."""
    transport = request.transport
    if transport is not None:
        transport.close()
