"""A recording: one claude-trace log line per Messages API exchange, appended to a locked file.

The line has the shape of claude-trace's logs (``{"request": {timestamp, method, url,
headers, body}, "response": {timestamp, status_code, headers, body | body_raw},
"logged_at"}``), so ``tui.formats.claude_trace`` and other tools that read those logs read
it, plus a few fields of its own: ``response.first_byte_timestamp`` (when the answer's headers
arrived), ``request_id``, ``recorder``, and ``partial`` with a note when the exchange did not
finish (the client went away, the upstream closed mid-stream).

What is kept exactly: the request body's bytes are written verbatim as the value of
``request.body`` when they are one line of valid UTF-8 JSON (as every SDK sends them), so
the file holds the very bytes that were POSTed; otherwise they are written as a JSON
string of the text (``body`` is then a string, which the loader parses), or as
``body_base64`` when they are not UTF-8. The response is recorded decompressed: JSON
verbatim in ``body`` likewise, an event stream as its text in ``body_raw``.

What is never written: credential headers (``x-api-key``, ``authorization``,
``proxy-authorization``, cookies, ``set-cookie``, and any header with key, token, secret,
auth or the like as a word of its name), credential-looking URL query parameters and userinfo, and
credential fields in the request body's params (an MCP server's ``authorization_token``):
a body that holds one is written without it and says so in ``request.redacted``.

Each line goes to the file with one ``write`` on an ``O_APPEND`` descriptor, so a recorder
killed at any moment leaves only complete lines (and at worst one cut last line, which the
loader reports and skips). The file is held with an exclusive ``flock`` for as long as the
recording runs: a second recorder on the same file is refused.
"""

from __future__ import annotations

import base64
import fcntl
import functools
import os
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import orjson

from tui import __version__
from tui.core.errors import UsageError
from tui.formats.recorded.exchange import drop_credentials

#: Header names never written, whatever their case.
CREDENTIAL_HEADERS = frozenset({"x-api-key", "authorization", "proxy-authorization", "cookie", "set-cookie"})
#: Any other header (or query parameter) with one of these words in its name holds a credential
#: (``x-gateway-token``, ``x-goog-api-key``, ``api_key``); ``anthropic-ratelimit-tokens-limit`` does not.
_CREDENTIAL_WORDS = frozenset({"key", "apikey", "token", "secret", "password", "passwd", "auth", "authorization",
                               "cookie", "credential", "credentials", "signature", "sig"})
_WORD = re.compile(r"[-_.\s]+")
#: Paths whose exchanges are recorded (the rest are forwarded only).
_RECORDED = re.compile(r"/v1/messages(/count_tokens)?/?$")

RECORDER = f"turnscope record {__version__}"


def is_recorded(path: str) -> bool:
    """``/v1/messages`` and ``/v1/messages/count_tokens`` (behind any path prefix a gateway adds)."""
    return _RECORDED.search(path) is not None


@functools.lru_cache(maxsize=1024)  # the same few header names come with every exchange
def is_credential(name: str) -> bool:
    lower = name.lower()
    return lower in CREDENTIAL_HEADERS or not _CREDENTIAL_WORDS.isdisjoint(_WORD.split(lower))


def kept_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Headers as a dict for the record, credentials left out (repeated names joined with ``, ``)."""
    kept: dict[str, str] = {}
    for name, value in headers:
        if is_credential(name):
            continue
        key = name.lower()
        kept[key] = f"{kept[key]}, {value}" if key in kept else value
    return kept


@functools.lru_cache(maxsize=256)  # and the same URL
def safe_url(url: str) -> str:
    """``url`` without userinfo and with credential-looking query values dropped."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url.split("?", 1)[0]
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(is_credential(k) for k, _ in pairs):
            query = urlencode([(k, "[dropped]" if is_credential(k) else v) for k, v in pairs])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _json_value(data: bytes) -> tuple[Any, bool]:
    """``(parsed, verbatim)``: the bytes parsed, and whether they can stand verbatim in a JSON line."""
    try:
        parsed = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None, False
    return parsed, b"\n" not in data and b"\r" not in data


def _request_body(data: bytes, into: dict[str, Any]) -> None:
    if not data:
        into["body"] = None
        return
    parsed, verbatim = _json_value(data)
    if isinstance(parsed, dict):
        dropped = drop_credentials(parsed)
        if dropped:
            into["body"] = parsed
            into["redacted"] = dropped
            return
    if verbatim:
        into["body"] = orjson.Fragment(data)
        return
    try:
        into["body"] = data.decode("utf-8")
    except UnicodeDecodeError:
        into["body"] = None
        into["body_base64"] = base64.b64encode(data).decode("ascii")


def _response_body(data: bytes, content_type: str, into: dict[str, Any]) -> None:
    if "event-stream" not in content_type:
        parsed, verbatim = _json_value(data)
        if verbatim:
            into["body"] = orjson.Fragment(data)
            return
        if parsed is not None:
            into["body"] = parsed
            return
    try:
        into["body_raw"] = data.decode("utf-8")
    except UnicodeDecodeError:
        into["body_raw"] = None
        into["body_base64"] = base64.b64encode(data).decode("ascii")


def _iso(seconds: float) -> str:
    moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Exchange:
    """One exchange as the proxy saw it; ``line()`` is its record."""

    method: str
    url: str
    request_headers: list[tuple[str, str]]
    request_body: bytes
    started: float = field(default_factory=time.time)
    status: int | None = None
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    first_byte: float | None = None
    ended: float | None = None
    response_body: bytes | None = None  # decompressed
    encoding_note: str | None = None  # a body that could not be decompressed for the record
    partial: str | None = None
    answered_by_recorder: str | None = None

    def line(self) -> bytes:
        request: dict[str, Any] = {"timestamp": self.started, "method": self.method, "url": safe_url(self.url),
                                   "headers": kept_headers(self.request_headers)}
        _request_body(self.request_body, request)
        record: dict[str, Any] = {"request": request, "response": None}
        headers = kept_headers(self.response_headers)
        if self.status is not None:
            response: dict[str, Any] = {"timestamp": self.ended or time.time(), "status_code": self.status,
                                        "headers": headers}
            if self.first_byte is not None:
                response["first_byte_timestamp"] = self.first_byte
            _response_body(self.response_body or b"", headers.get("content-type", ""), response)
            if self.encoding_note:
                response["note"] = self.encoding_note
            record["response"] = response
        if headers.get("request-id"):
            record["request_id"] = headers["request-id"]
        if self.partial:
            record["partial"] = self.partial
            record["note"] = self.partial
        if self.answered_by_recorder:
            record["answered_by_recorder"] = self.answered_by_recorder
        record["recorder"] = RECORDER
        record["logged_at"] = _iso(time.time())
        return orjson.dumps(record) + b"\n"


class Recording:
    """An append-only recording file, held with an exclusive lock while it is open.

    A new file is created (``O_EXCL`` for the default name); an existing one is taken only
    when it is empty and no other recorder holds it, so nothing already there is written over.
    """

    def __init__(self, path: str | os.PathLike[str], new: bool = False):
        self.path = Path(path)
        self.count = 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | (os.O_EXCL if new else 0)
        try:
            self._fd = os.open(self.path, flags | getattr(os, "O_CLOEXEC", 0), 0o600)
        except OSError as exc:
            raise UsageError(f"{self.path}: cannot create the recording ({exc.strerror})") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._fd)
            raise UsageError(f"{self.path}: another recorder is writing this file") from None
        if os.fstat(self._fd).st_size:
            os.close(self._fd)
            raise UsageError(f"{self.path}: the file already holds data; record to a new file") from None

    @classmethod
    def default(cls) -> Recording:
        """A new file under the user data directory's ``recordings/``."""
        import platformdirs

        folder = platformdirs.user_data_path("turnscope", appauthor=False) / "recordings"
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        return cls(folder / f"{stamp}-{os.getpid()}.jsonl", new=True)

    def append(self, exchange: Exchange) -> None:
        """The exchange's record, with one write (a regular file takes it whole; a short write
        from a full disk is finished or reported)."""
        data = memoryview(exchange.line())
        while data:
            written = os.write(self._fd, data)
            data = data[written:]
        self.count += 1

    def close(self, discard_if_empty: bool = False) -> None:
        """Release the file (and its lock); with ``discard_if_empty``, remove it if nothing was recorded."""
        if self._fd < 0:
            return
        if discard_if_empty and self.count == 0 and os.fstat(self._fd).st_size == 0:
            try:
                os.unlink(self.path)
            except OSError:
                pass
        os.close(self._fd)  # releases the lock
        self._fd = -1
