"""The recording reverse proxy: asyncio protocols on both sides, httptools (llhttp) parsing the HTTP.

The HTTP is parsed by httptools, the C parser (llhttp, Node's) under uvicorn, fed from asyncio
``Protocol`` callbacks: a request is parsed as its bytes arrive, sent upstream in one write on
a pooled keep-alive connection, and the answer is passed on from the upstream connection's own
``data_received``: what one read of the upstream brought (the answer's head and first events
together, when they came together) goes to the agent in one write, with no task, future or
stream object in between. Parallel requests are parallel connections, each driven by its own
callbacks in the one loop. The proxy itself only decides what to pass and what to keep:

- the request: method, path and query as received (the request target's bytes, not
  re-encoded), every header but the hop-by-hop ones (``Connection`` and those it names,
  ``Keep-Alive``, ``TE``, ``Trailer``, ``Transfer-Encoding``, ``Upgrade``,
  ``Proxy-Connection``), ``Host`` (the upstream's), ``Expect`` (the proxy answers
  ``100 Continue`` itself) and ``Content-Length`` (set again for the body, whole); the body's
  bytes unchanged. Credential headers are forwarded: only the record leaves them out.
- the answer: status, reason and headers (hop-by-hop ones dropped; ``Content-Length`` and
  ``Content-Encoding`` kept, as the body passes through undecoded), then the body piece by
  piece as it arrives (a body of known length as is, any other chunked again piece by piece).
  Upstream errors are answers like any other.
- an upstream that cannot be reached: 502 with the API's error envelope naming it.
- an upstream that closes mid-answer: the agent's connection is closed too, so the agent
  sees the cut; a client that goes away: the upstream connection is closed, which cancels the
  request there. Both are recorded with ``partial`` saying what happened.

Exchanges with ``/v1/messages`` and ``count_tokens`` are handed to the ``Recording`` when they
finish (after the agent's last byte is written); everything else (``/v1/models``, ...) is
forwarded and not kept.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import socket
import ssl
import time
import zlib
from urllib.parse import unquote, urlsplit

import httptools

from tui.core.trouble import say
from tui.record.recording import Exchange, Recording, is_recorded, safe_url

#: Hop-by-hop headers (RFC 9110 7.6.1), never forwarded on either side.
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
                        "upgrade", "proxy-authenticate"})
_HOP = frozenset(name.encode() for name in HOP_BY_HOP)
#: Request headers the proxy sets again for the upstream connection.
_RESET_ON_REQUEST = frozenset({b"host", b"content-length", b"expect"})
#: The record keeps the headers as forwarded (``Content-Length`` is the number sent upstream).
_NOT_RECORDED = frozenset({b"host", b"expect"})
#: Methods whose request carries a length even when its body is empty.
_WITH_BODY = frozenset({b"POST", b"PUT", b"PATCH"})

DEFAULT_UPSTREAM = "https://api.anthropic.com"
#: An idle upstream connection older than this is not used again (the upstream may have closed it).
IDLE_SECONDS = 15.0
CONNECT_SECONDS = 30.0

_BAD_REQUEST = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


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


def _named_by_connection(headers: list[tuple[bytes, bytes]]) -> frozenset[bytes]:
    named = [value for name, value in headers if name.lower() == b"connection"]
    if not named:
        return frozenset()
    return frozenset(token.strip().lower() for value in named for token in value.split(b","))


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _nodelay(transport: asyncio.BaseTransport) -> None:
    sock = transport.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except (OSError, AttributeError):
            pass  # not a TCP socket


class Proxy:
    """Forward everything to ``upstream``; record the Messages API exchanges in ``recording``."""

    def __init__(self, upstream: str, recording: Recording | None):
        self.upstream = upstream.rstrip("/")
        self.recording = recording
        self.in_flight = 0
        self.url = ""
        parts = urlsplit(self.upstream)
        self._secure = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port or (443 if self._secure else 80)
        host = self._host.encode() if self._host.isascii() else self._host.encode("idna")
        if b":" in host:
            host = b"[" + host + b"]"  # an IPv6 address
        explicit = parts.port is not None and parts.port != (443 if self._secure else 80)
        self._host_header = host + (b":%d" % parts.port if explicit else b"")  # userinfo is not a Host
        self._prefix = parts.path.rstrip("/").encode()
        #: ``--upstream https://user:pass@gateway``: Basic credentials for a gateway, sent (never recorded) when the
        #: agent sends no ``Authorization`` of its own, as aiohttp's client did before.
        self._basic: bytes | None = None
        if parts.username is not None:
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
            self._basic = b"Authorization: Basic " + base64.b64encode(pair) + b"\r\n"
        self._ssl: ssl.SSLContext | None = ssl.create_default_context() if self._secure else None
        self._idle: collections.deque[_Upstream] = collections.deque()
        self._clients: set[_Client] = set()
        self._server: asyncio.AbstractServer | None = None
        self._urls: dict[bytes, str] = {}

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Listen; returns the base URL to give clients (``http://127.0.0.1:PORT``)."""
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(_one_line)
        self._server = await loop.create_server(lambda: _Client(self), host, port, backlog=1024,
                                                reuse_address=True)
        bound = self._server.sockets[0].getsockname()
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        self.url = f"http://{shown}:{bound[1]}"
        return self.url

    async def stop(self, grace: float = 10.0) -> None:
        """Finish the exchanges in flight (up to ``grace`` seconds), then close both sides."""
        deadline = time.monotonic() + grace
        while self.in_flight and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        if self._server is not None:
            self._server.close()
        for client in list(self._clients):
            client.close()
        while self._idle:
            self._idle.popleft().transport.close()
        await asyncio.sleep(0)  # the closed transports' callbacks run

    def recorded_url(self, target: bytes) -> str:
        url = self._urls.get(target)
        if url is None:  # an agent asks for the same few paths again and again
            url = self.upstream + _text(target)
            if len(self._urls) < 256:
                self._urls[target] = url
        return url

    def take_idle(self) -> _Upstream | None:
        """A pooled keep-alive connection to the upstream, if one is idle and still fresh."""
        now = time.monotonic()
        while self._idle:
            upstream = self._idle.pop()  # the most recently used: the least likely to have been closed
            if now - upstream.idle_since < IDLE_SECONDS and not upstream.transport.is_closing():
                return upstream
            upstream.transport.close()
        return None

    def give_back(self, upstream: _Upstream) -> None:
        upstream.exchange = None
        upstream.idle_since = time.monotonic()
        self._idle.append(upstream)

    def forget(self, upstream: _Upstream) -> None:
        try:
            self._idle.remove(upstream)
        except ValueError:
            pass

    async def connect(self) -> _Upstream:
        loop = asyncio.get_running_loop()
        transport, upstream = await asyncio.wait_for(loop.create_connection(
            lambda: _Upstream(self), self._host, self._port, ssl=self._ssl,
            server_hostname=self._host if self._ssl else None), CONNECT_SECONDS)
        return upstream

    def unreachable(self, detail: str) -> bytes:
        """The 502 answer's body: the API's error envelope naming the upstream."""
        import orjson

        message = f"turnscope record: the upstream {safe_url(self.upstream)} is unreachable ({detail})"
        return orjson.dumps({"type": "error", "error": {"type": "api_error", "message": message}})


class _Request:
    """One parsed request: what the client sent, as bytes."""

    __slots__ = ("method", "target", "headers", "body", "keep_alive", "version")

    def __init__(self, method: bytes, target: bytes, headers: list[tuple[bytes, bytes]], body: bytes,
                 keep_alive: bool, version: str):
        self.method, self.target, self.headers, self.body = method, target, headers, body
        self.keep_alive, self.version = keep_alive, version


class _Client(asyncio.Protocol):
    """The agent's connection: requests parsed as they arrive, answered one after another."""

    def __init__(self, proxy: Proxy):
        self.proxy = proxy
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.current: _Exchange | None = None
        self.waiting: collections.deque[_Request] = collections.deque()
        self.gone = False
        self.paused = False
        self._target = b""
        self._headers: list[tuple[bytes, bytes]] = []
        self._body: list[bytes] = []

    # the connection
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        _nodelay(transport)
        self.proxy._clients.add(self)

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._refuse()  # no upgrades (WebSocket, h2c) through the recorder
        except httptools.HttpParserError:
            self._refuse()

    def eof_received(self) -> bool:
        return False  # a client that half-closes is gone: the transport closes

    def connection_lost(self, exc: Exception | None) -> None:
        self.gone = True
        self.proxy._clients.discard(self)
        self.parser = None  # (it holds this protocol for its callbacks)
        self.waiting.clear()
        if self.current is not None:
            self.current.client_gone()

    def pause_writing(self) -> None:
        self.paused = True
        if self.current is not None:
            self.current.pause_upstream(True)

    def resume_writing(self) -> None:
        self.paused = False
        if self.current is not None:
            self.current.pause_upstream(False)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def _refuse(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            if self.current is None:
                self.transport.write(_BAD_REQUEST)
            self.transport.close()

    # httptools' callbacks
    def on_message_begin(self) -> None:
        self._target = b""
        self._headers = []
        self._body = []

    def on_url(self, url: bytes) -> None:
        self._target += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name, value))

    def on_headers_complete(self) -> None:
        if self.current is None and self.parser.get_http_version() == "1.1":  # (not inside another answer)
            for name, value in self._headers:
                if name.lower() == b"expect" and value.strip().lower() == b"100-continue":
                    self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")  # type: ignore[union-attr]
                    break

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        body = self._body[0] if len(self._body) == 1 else b"".join(self._body)
        request = _Request(self.parser.get_method(), self._target, self._headers, body,
                           self.parser.should_keep_alive(), self.parser.get_http_version())
        self._body = []
        if self.current is None:
            self.begin(request)
        else:
            self.waiting.append(request)  # pipelined: answered in order

    def begin(self, request: _Request) -> None:
        self.current = _Exchange(self.proxy, self, request)
        self.current.start()

    def done(self, keep: bool) -> None:
        """The current exchange has ended: the next pipelined request, or the connection closed."""
        self.current = None
        if self.gone:
            return
        if not keep:
            self.transport.close()  # type: ignore[union-attr]
        elif self.waiting:
            self.begin(self.waiting.popleft())


class _Upstream(asyncio.Protocol):
    """One connection to the upstream, pooled between exchanges; its answers go to ``exchange``."""

    def __init__(self, proxy: Proxy):
        self.proxy = proxy
        self.transport: asyncio.Transport = None  # type: ignore[assignment]
        self.exchange: _Exchange | None = None
        self.idle_since = 0.0
        self.used = False  # it has answered before: a close before any byte may be a stale keep-alive

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        _nodelay(transport)

    def data_received(self, data: bytes) -> None:
        exchange = self.exchange
        if exchange is None:  # bytes on an idle connection: not an answer to anything
            self.transport.close()
            return
        exchange.answer_bytes(data)

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        if self.exchange is not None:
            self.exchange.upstream_lost(exc)
        else:
            self.proxy.forget(self)


class _Exchange:
    """One request and its answer, driven by the two connections' callbacks.

    The answer's bytes are framed for the agent as they are parsed and written once per upstream
    read; the record is made when the exchange ends, whichever way it ends.
    """

    def __init__(self, proxy: Proxy, client: _Client, request: _Request):
        self.proxy = proxy
        self.client = client
        self.request = request
        self.upstream: _Upstream | None = None
        self.connecting: asyncio.Task[None] | None = None
        self.parser: httptools.HttpResponseParser | None = None
        self.ended = False
        self.answering = False  # the answer's head has gone to the agent
        self.head_seen = False
        self.got_bytes = False
        self.retried = False
        self.status = 0
        self.reason = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.framing = ""  # "length" (as is), "chunked" (chunked again), "close" (until the agent's close), "none"
        self.close_delimited = False  # the upstream's body ends when it closes
        self.keep_upstream = False
        self.keep_client = request.keep_alive
        self.out: list[bytes] = []
        self.chunks: list[bytes] | None = None
        self.complete = False
        self.interim = False
        self.record: Exchange | None = None
        proxy.in_flight += 1
        self.head = self._upstream_head(request)

    def _upstream_head(self, request: _Request) -> bytes:
        named = _named_by_connection(request.headers)
        recorded = is_recorded(_text(request.target.split(b"?", 1)[0]))
        lines = [b"%s %s%s HTTP/1.1\r\nHost: %s\r\n" % (request.method, self.proxy._prefix, request.target,
                                                         self.proxy._host_header)]
        kept: list[tuple[str, str]] | None = [] if recorded else None
        authorized = False  # the agent forwards an Authorization of its own: no Basic from --upstream's URL
        for name, value in request.headers:
            lower = name.lower()
            if lower in _HOP or lower in named:
                continue
            if lower not in _RESET_ON_REQUEST:
                lines.append(b"%s: %s\r\n" % (name, value))
                authorized = authorized or lower == b"authorization"
            if kept is not None and lower not in _NOT_RECORDED:
                kept.append((_text(name), _text(value)))
        if self.proxy._basic is not None and not authorized:
            lines.append(self.proxy._basic)
        if request.body or request.method in _WITH_BODY:
            lines.append(b"Content-Length: %d\r\n" % len(request.body))
        lines.append(b"\r\n")
        if kept is not None:
            self.record = Exchange(method=_text(request.method), url=self.proxy.recorded_url(request.target),
                                   request_body=request.body, started=time.time(), request_headers=kept)
            self.chunks = []
        return b"".join(lines)

    # sending
    def start(self) -> None:
        upstream = self.proxy.take_idle()
        if upstream is not None:
            self._send(upstream)
        else:
            self.connecting = asyncio.get_running_loop().create_task(self._connect())

    async def _connect(self) -> None:
        try:
            upstream = await self.proxy.connect()
        except asyncio.CancelledError:
            return  # the recorder is stopping
        except (OSError, asyncio.TimeoutError, ssl.SSLError) as exc:
            if not self.ended:
                self._answer_502(str(exc) or exc.__class__.__name__)
            return
        finally:
            self.connecting = None
        if self.ended:
            upstream.transport.close()
            return
        self._send(upstream)

    def _send(self, upstream: _Upstream) -> None:
        self.upstream = upstream
        upstream.exchange = self
        self.parser = httptools.HttpResponseParser(self)
        if self.client.paused:
            upstream.transport.pause_reading()
        body = self.request.body
        if len(body) < 65536:
            upstream.transport.write(self.head + body if body else self.head)
        else:
            upstream.transport.writelines((self.head, body))

    def pause_upstream(self, paused: bool) -> None:
        if self.upstream is not None and not self.upstream.transport.is_closing():
            if paused:
                self.upstream.transport.pause_reading()
            else:
                self.upstream.transport.resume_reading()

    # the answer
    def answer_bytes(self, data: bytes) -> None:
        self.got_bytes = True
        try:
            self.parser.feed_data(data)  # type: ignore[union-attr]
        except httptools.HttpParserError as exc:
            self._flush()
            self._upstream_failed(f"the upstream's answer is not valid HTTP ({exc})")
            return
        self._flush()
        if self.complete and not self.ended:
            self._finish(None)

    def on_status(self, reason: bytes) -> None:
        self.reason += reason

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        status = self.parser.get_status_code()  # type: ignore[union-attr]
        if 100 <= status < 200:  # an interim answer (103 Early Hints): the final one follows
            self.interim = True
            self.headers = []
            self.reason = b""
            return
        self.status = status
        self.head_seen = True
        self.keep_upstream = self.parser.should_keep_alive()  # type: ignore[union-attr]
        if self.record is not None:
            self.record.first_byte = time.time()
            self.record.status = status
            self.record.response_headers = [(_text(k), _text(v)) for k, v in self.headers]
        named = _named_by_connection(self.headers)
        length = chunked = False
        lines = [b"HTTP/1.1 %d %s\r\n" % (status, self.reason)]
        for name, value in self.headers:
            lower = name.lower()
            if lower == b"transfer-encoding":
                chunked = chunked or b"chunked" in value.lower()
            if lower in _HOP or lower in named:
                continue
            if lower == b"content-length":
                length = True
            lines.append(b"%s: %s\r\n" % (name, value))
        no_body = self.request.method == b"HEAD" or status in (204, 304)
        if no_body:
            self.framing = "none"
            if self.request.method == b"HEAD":
                self.keep_upstream = False  # the parser would wait for a body the answer to HEAD never has
                self.complete = True
        elif length and not chunked:
            self.framing = "length"
        else:
            self.close_delimited = not chunked
            if chunked and length:
                lines = [line for line in lines if not line.lower().startswith(b"content-length:")]
            if self.request.version == "1.1":
                self.framing = "chunked"
                lines.append(b"Transfer-Encoding: chunked\r\n")
            else:
                self.framing = "close"
                self.keep_client = False
        if not self.keep_client:
            lines.append(b"Connection: close\r\n")
        lines.append(b"\r\n")
        self.out.append(b"".join(lines))
        self.answering = True

    def on_body(self, body: bytes) -> None:
        if self.chunks is not None:
            self.chunks.append(body)
        if self.framing == "chunked":
            self.out.append(b"%x\r\n%s\r\n" % (len(body), body))
        else:
            self.out.append(body)

    def on_message_complete(self) -> None:
        if self.interim:
            self.interim = False
            return
        if self.framing == "chunked":
            self.out.append(b"0\r\n\r\n")
        self.complete = True

    def _flush(self) -> None:
        out = self.out
        if not out:
            return
        data = out[0] if len(out) == 1 else b"".join(out)
        out.clear()
        transport = self.client.transport
        if transport is not None and not self.client.gone and not transport.is_closing():
            transport.write(data)

    def upstream_lost(self, exc: Exception | None) -> None:
        if self.ended:
            return
        if self.complete:
            self._finish(None)
            return
        self.keep_upstream = False
        if self.head_seen and self.close_delimited:  # the body ended with the connection: it is whole
            if self.framing == "chunked":
                self.out.append(b"0\r\n\r\n")
            self._flush()
            self.complete = True
            self._finish(None)
            return
        if not self.got_bytes and self.upstream is not None and self.upstream.used and not self.retried:
            # a pooled connection the upstream had closed while it sat idle: the request never got there
            self.retried = True
            self.upstream = None
            self.connecting = asyncio.get_running_loop().create_task(self._connect())
            return
        detail = exc.__class__.__name__ if exc is not None else "the connection was closed"
        self._upstream_failed(f"the upstream closed the connection {'mid-answer' if self.answering else 'before answering'} "
                              f"({detail})")

    def _upstream_failed(self, why: str) -> None:
        self.keep_upstream = False
        if self.upstream is not None:
            self.upstream.exchange = None
            self.upstream.transport.close()
        if not self.answering:
            self._answer_502(why.removeprefix("the upstream "))
            return
        if self.record is not None:
            self.record.partial = why
        self.keep_client = False  # the agent sees the cut: its connection closes where the answer stands
        if self.client.transport is not None:
            self.client.transport.close()
        self._finish(why)

    def _answer_502(self, detail: str) -> None:
        payload = self.proxy.unreachable(detail)
        if self.record is not None:
            self.record.status = 502
            self.record.first_byte = time.time()
            self.record.response_headers = [("content-type", "application/json")]
            self.record.answered_by_recorder = "the upstream could not be reached"
            self.record.response_body = payload
        close = b"" if self.keep_client else b"Connection: close\r\n"
        self.out.append(b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s"
                        % (len(payload), close, payload))
        self.answering = True
        self.complete = True
        self._flush()
        self._finish(None)

    def client_gone(self) -> None:
        """The agent hung up: the upstream request is cancelled (its connection closed)."""
        if self.ended:
            return
        if self.record is not None:
            self.record.partial = ("the client disconnected mid-answer; the upstream request was cancelled"
                                   if self.answering else
                                   "the client disconnected before the answer began; the upstream request was cancelled")
        self.keep_upstream = False
        # a connection being made is not cancelled: a cancel that lands as it completes loses the transport
        # (asyncio.wait_for), which then stays open; made, it is closed at once (_connect sees `ended`)
        if self.upstream is not None:
            self.upstream.exchange = None
            self.upstream.transport.close()
        self._finish("client")

    def _finish(self, partial: str | None) -> None:
        self.ended = True
        self.parser = None  # it holds this exchange for its callbacks: the cycle is broken here, not by the collector
        self.proxy.in_flight -= 1
        upstream = self.upstream
        if upstream is not None and upstream.exchange is self:
            upstream.exchange = None
            if self.complete and self.keep_upstream and not upstream.transport.is_closing():
                upstream.used = True
                self.proxy.give_back(upstream)
            else:
                upstream.transport.close()
        record = self.record
        try:
            if record is not None and self.proxy.recording is not None:
                record.ended = time.time()
                if record.response_body is None and record.status is not None:
                    record.response_body, record.encoding_note = _decompressed(
                        b"".join(self.chunks or ()), _header(record.response_headers, "content-encoding"))
                self.proxy.recording.append(record)
        except OSError as exc:  # a full disk: the agent was answered; the user is told what the file lacks
            say(f"record: cannot write to {self.proxy.recording.path} ({exc.strerror or exc}); "  # type: ignore[union-attr]
                f"the exchange {record.method} {safe_url(record.url)} is not recorded")  # type: ignore[union-attr]
        finally:
            self.client.done(self.complete and self.keep_client and partial is None)


def _one_line(loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
    """What the loop would print as a traceback, as one line: the agent's terminal is not the
    place for tracebacks (the recorder shares it)."""
    exc = context.get("exception")
    say(f"record: {context.get('message', 'error')}" + (f" ({exc.__class__.__name__}: {exc})" if exc else ""))


def _header(headers: list[tuple[str, str]], name: str) -> str:
    return next((value for key, value in headers if key.lower() == name), "")
