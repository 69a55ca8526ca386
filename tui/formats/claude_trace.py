"""claude-trace logs: JSON lines of request/response pairs recorded from Claude Code's traffic.

Each line is ``{"request": {timestamp, method, url, headers, body}, "response":
{timestamp, status_code, headers, body | body_raw}, "logged_at"}``; a streamed answer is kept
as raw server-sent events in ``body_raw`` and is reassembled here; an orphaned request (the
process ended before the answer) has ``"response": null``. Every ``/v1/messages`` pair is one
model call with its exact request and its timing; pairs are grouped into conversations
(Claude Code's main thread, its subagents, and side calls such as quota probes and title
generation are separate conversations), the longest first. claude-trace only masks the
middle of credential headers; of the headers only anthropic-version, anthropic-beta (and the URL's
query) are kept, so none of it reaches the run.
``turnscope record`` writes the same lines (and ``partial`` on an exchange that did not finish).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Iterator

from tui.core.errors import LoadError
from tui.core.request_headers import shaping_headers
from tui.core.run import LoadWarning, Run
from tui.formats.document import Document
from tui.formats.recorded.conversations import build_runs
from tui.formats.recorded.exchange import (Exchange, decode_bytes, drop_credentials, header, parse_request,
                                           read_answer, url_path)

NAME = "claude-trace"
DESCRIPTION = "claude-trace log (JSON lines of Messages API request/response pairs)"


def _is_pair(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("request"), dict) and "response" in value \
        and ("url" in value["request"] or "body" in value["request"])


def exchange_from_line(value: Any, line: int) -> Exchange | None:
    """The exchange one parsed line holds, or None when the line is no request/response pair."""
    return _exchange(value, line) if _is_pair(value) else None


def sniff(doc: Document) -> int:
    if not doc.head.startswith(b"{"):
        return 0
    first = doc.first_lines(1) or [doc.first_line()]
    return 90 if _is_pair(first[0]) else 0


def load(doc: Document) -> list[Run]:
    odd: list[LoadWarning] = []

    def exchanges() -> Iterator[Exchange]:
        # one at a time: each request is grouped, its repeated messages dropped, before the next is parsed
        for number, value in doc.iter_lines():
            if _is_pair(value):
                yield _exchange(value, number)
            else:
                odd.append(LoadWarning("line is not a request/response pair; skipped", line=number))

    runs = build_runs(exchanges(), doc.path, NAME)
    if not runs:
        if doc.several_lines() and doc.json_or_none() is not None:
            raise doc.not_this_format(NAME, "the file is one JSON document, not JSON lines of request/response pairs")
        if odd and odd[0].line is not None and not any(_is_pair(v) for _, v in doc.lines()):
            raise doc.not_this_format(NAME, f"line {odd[0].line} is not a request/response pair (it needs a "
                                            "'request' object with a 'url' or 'body', and a 'response')", odd[0].line)
        if doc.line_warnings and not odd:
            raise doc.not_this_format(NAME, "no line is JSON")
        raise LoadError(doc.path, "no /v1/messages request in this trace log")
    runs[0].warnings[:0] = doc.line_warnings + odd
    return runs


def _iso(seconds: Any) -> str | None:
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        return None
    moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _exchange(pair: dict[str, Any], line: int) -> Exchange:
    exchange = _read_pair(pair, line)
    partial = pair.get("partial")
    if partial and exchange.message is not None:
        # ``turnscope record`` marks an exchange that did not finish: its answer never reached the agent
        exchange.message, exchange.error = None, f"the exchange is partial: {partial}"
    return exchange


def _read_pair(pair: dict[str, Any], line: int) -> Exchange:
    where = f"line {line}"
    request, response = pair["request"], pair.get("response")
    raw_body = request.get("body")
    body, problem = parse_request(raw_body, where)
    exchange = Exchange(where=where, line=line, method=str(request.get("method") or ""),
                        path=url_path(request.get("url")), body=body, started=_iso(request.get("timestamp")),
                        headers=shaping_headers(request.get("headers") if isinstance(request.get("headers"), dict)
                                                else None, request.get("url")))
    if problem:
        exchange.notes.append(problem)
    exchange.dropped = drop_credentials(body)
    exchange.keep_raw(raw_body)
    if not isinstance(response, dict):
        exchange.error = str(pair.get("note") or "no response was recorded (the request was orphaned)")
        return exchange
    status = response.get("status_code")
    exchange.status = status if isinstance(status, int) else None
    headers = response.get("headers")
    exchange.request_id = header(headers, "request-id")
    start, end = request.get("timestamp"), response.get("timestamp")
    if isinstance(start, (int, float)) and isinstance(end, (int, float)):
        exchange.duration_ms = round((end - start) * 1000.0, 3)
    if "body" in response and response["body"] is not None:
        read_answer(exchange, response["body"], None, header(headers, "content-type"))
        return exchange
    text, problem = decode_bytes(response.get("body_raw"), None)
    if problem:
        exchange.error = f"the answer {problem}"
        return exchange
    read_answer(exchange, None, text, header(headers, "content-type"))
    return exchange
