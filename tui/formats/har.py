"""HAR 1.2 recordings of LLM API traffic (browser devtools, mitmproxy exports, Polly.JS, monitoring proxies).

``{"log": {"creator", "entries": [{startedDateTime, time, request{method, url, headers, postData},
response{status, headers, content{mimeType, text, encoding}}}]}}``. Every ``/v1/messages``
exchange is a model call with its exact request, grouped into conversations as claude-trace logs
and cassettes are (``tui.formats.recorded.conversations``: the main thread by its model calls,
side calls listed after it); OpenAI Chat Completions and Responses exchanges are converted
(``tui.formats.converted``) and their runs say so. Other traffic (embeddings, unrelated GETs) is
counted in a warning and left out.

Bodies come as HAR writers keep them: plain text, base64 (``encoding``), gzip, and the JSON array
of base64 chunks Polly.JS writes; streamed answers (SSE text) are put back together. Headers are
read for the status, the request id and the body's length and then dropped, so no credential
header (``authorization``, ``x-api-key``, cookies) reaches a run.

Monitoring proxies that write HAR files may change what they record: cc-dump re-serialises the
request body, forces ``stream`` to false and keeps only the reassembled answer. Such a body is not
the bytes that were sent: where the recorder is known to do this, or the recorded body's length
differs from the ``Content-Length`` the client sent, the run says "recorded by X, body
re-serialised" and its prefixes are reconstructed, not exact.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from tui.core.errors import LoadError
from tui.core.run import RECONSTRUCTED, LoadWarning, Run
from tui.formats import bedrock
from tui.formats.converted import (chat_request, chat_response, chat_stream, loads_or_none, responses_answer,
                                   responses_request, responses_stream)
from tui.formats.document import Document
from tui.formats.recorded.conversations import build_runs
from tui.formats.recorded.exchange import Exchange, decode_bytes, drop_credentials, parse_request, read_answer, url_path

NAME = "har"
DESCRIPTION = "HAR 1.2 recording of LLM API calls (Anthropic Messages exact; OpenAI chat/responses converted)"

#: Recorders known to rewrite what they record, and what they change.
REWRITING_RECORDERS = {"cc-dump": "re-serialises the request body, forces stream to false and keeps only the "
                                  "reassembled answer"}
CONVERTED = ("converted from {kinds} exchanges: the requests became the Messages API bodies they would "
             "have been; prefixes are reconstructed, not what was sent")


def _is_har(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("log"), dict) and isinstance(value["log"].get("entries"),
                                                                                          list)


def sniff(doc: Document) -> int:
    if not doc.head.startswith(b"{") or b'"log"' not in doc.head or doc.is_json_lines():
        return 0
    value = doc.json_or_none()
    if _is_har(value):
        return 95
    return 5 if isinstance(value, dict) and isinstance(value.get("log"), dict) else 0


def load(doc: Document) -> list[Run]:
    if doc.is_json_lines():
        raise LoadError(doc.path, "not a HAR file: it is JSON lines (a HAR file is one JSON object with "
                                  "log.entries)", 1, 1)
    value = doc.json()
    if not _is_har(value):
        log = value.get("log") if isinstance(value, dict) else None
        what = ("its 'log' has no 'entries' list" if isinstance(log, dict) else
                "it has no 'log' object" if isinstance(value, dict) else "it is not a JSON object")
        raise LoadError(doc.path, f"not a HAR file: {what}", 1, 1)
    log = value["log"]
    creator = log.get("creator") if isinstance(log.get("creator"), dict) else {}
    recorder = creator.get("name") if isinstance(creator.get("name"), str) else None
    exact: list[Exchange] = []
    converted: list[Exchange] = []
    kinds: set[str] = set()
    other: dict[str, int] = {}
    rewritten: list[str] = []
    forced = 0
    for k, entry in enumerate(log["entries"]):
        where = f"entry {k + 1}"
        request = entry.get("request") if isinstance(entry, dict) else None
        if not isinstance(request, dict):
            other["entries without a request"] = other.get("entries without a request", 0) + 1
            continue
        path = url_path(request.get("url"))
        endpoint = _endpoint(path, request)
        if endpoint is None:
            key = f"{request.get('method') or '?'} {path or '(no URL)'}"
            other[key] = other.get(key, 0) + 1
            continue
        exchange, text, answer = _exchange(entry, request, path, where)
        if endpoint == "bedrock":
            endpoint = _bedrock(exchange, answer)
            if endpoint == "legacy":
                kinds.add("Bedrock Text Completions (the prompt's Human/Assistant turns made messages)")
                converted.append(exchange)
                continue
        if endpoint == "messages":
            if _reserialised(request, text, recorder):
                rewritten.append(where)
                if isinstance(exchange.body, dict) and exchange.body.get("stream") is False:
                    forced += 1
            exact.append(exchange)
        else:
            kinds.add("OpenAI Chat Completions" if endpoint == "chat" else "OpenAI Responses")
            _convert(exchange, endpoint, answer)
            converted.append(exchange)
    runs = build_runs(exact, doc.path, NAME) if exact else []
    converted_runs = build_runs(converted, doc.path, NAME) if converted else []
    for run in converted_runs:
        _reconstructed(run, CONVERTED.format(kinds=" and ".join(sorted(kinds))))
    if rewritten:
        what = REWRITING_RECORDERS.get(recorder or "", "the recorded body's length differs from the Content-Length "
                                                       "the client sent")
        note = (f"recorded by {recorder or 'an unknown recorder'}, body re-serialised ({what}): "
                f"{len(rewritten)} request(s) are not the bytes that were sent"
                + (f", {forced} with stream forced to false" if forced else "") + "; prefixes are reconstructed")
        for run in runs:
            _reconstructed(run, note)
            run.meta["recorded_by"] = recorder
    runs += converted_runs
    if not runs:
        kinds_seen = ", ".join(f"{n} {k}" for k, n in other.items()) or "no entries"
        raise LoadError(doc.path, f"no Messages API, chat completions or responses exchange in this HAR file "
                                  f"({kinds_seen})", 1, 1)
    if other:
        runs[0].warnings.append(LoadWarning("other traffic left out, not model calls: "
                                            + ", ".join(f"{n} {k}" for k, n in other.items())))
    for k, run in enumerate(runs):
        run.source.run_index, run.source.run_count = k, len(runs)
        if recorder:
            run.meta.setdefault("recorder", recorder)
    return runs


def _endpoint(path: str, request: dict[str, Any]) -> str | None:
    method = str(request.get("method") or "").upper()
    trimmed = path.rstrip("/")
    if method != "POST":
        return None
    if trimmed.endswith("/v1/messages"):
        return "messages"
    if trimmed.endswith("/chat/completions"):
        return "chat"
    if trimmed.endswith("/v1/responses") or trimmed.endswith("/openai/responses"):
        return "responses"
    if bedrock.model_of(trimmed):
        return "bedrock"
    return None


def _headers(headers: Any) -> dict[str, str]:
    """HAR headers (a list of name/value pairs) as a dict with lower-case names; only read, never kept."""
    out: dict[str, str] = {}
    if isinstance(headers, list):
        for item in headers:
            if isinstance(item, dict) and isinstance(item.get("name"), str) and isinstance(item.get("value"), str):
                out[item["name"].lower()] = item["value"]
    return out


def _exchange(entry: dict[str, Any], request: dict[str, Any], path: str,
              where: str) -> tuple[Exchange, str | None, tuple[str | None, str | None] | None]:
    """The entry as an exchange, the request body's text, and the answer's (text, content type)."""
    post = request.get("postData") if isinstance(request.get("postData"), dict) else {}
    text, problem = _body_text(post.get("text"), post.get("encoding"))
    body, problem2 = parse_request(text, where) if problem is None else (None, f"{where}: request {problem}")
    exchange = Exchange(where=where, line=None, method=str(request.get("method") or ""), path=path, body=body,
                        started=entry.get("startedDateTime") if isinstance(entry.get("startedDateTime"), str) else None)
    if problem or problem2:
        exchange.notes.append(problem or problem2)
    time = entry.get("time")
    if isinstance(time, (int, float)) and not isinstance(time, bool) and time >= 0:
        exchange.duration_ms = float(time)
        timings = entry.get("timings") if isinstance(entry.get("timings"), dict) else {}
        receive = timings.get("receive")
        if isinstance(receive, (int, float)) and not isinstance(receive, bool) and 0 <= receive <= time:
            exchange.first_byte_ms = float(time) - float(receive)  # HAR: time is the sum of the phases
    exchange.dropped = drop_credentials(body)
    response = entry.get("response") if isinstance(entry.get("response"), dict) else None
    if response is None:
        exchange.error = "no response recorded"
        return exchange, text, None
    status = response.get("status")
    exchange.status = status if isinstance(status, int) and not isinstance(status, bool) and status > 0 else None
    headers = _headers(response.get("headers"))
    exchange.request_id = headers.get("request-id") or headers.get("x-request-id")
    content = response.get("content") if isinstance(response.get("content"), dict) else {}
    content_type = content.get("mimeType") or headers.get("content-type")
    if "eventstream" in (content_type or ""):  # binary AWS event-stream frames: kept as bytes
        raw, problem = _body_bytes(content.get("text"), content.get("encoding"))
        return exchange, text, (raw, content_type)  # type: ignore[return-value]
    answer, problem = _body_text(content.get("text"), content.get("encoding"))
    if exchange.status is None and answer is None:
        exchange.error = "no response recorded (the request did not complete)"
        return exchange, text, None
    if problem:
        exchange.error = f"the answer {problem}"
        return exchange, text, None
    if _endpoint(path, request) == "messages":
        read_answer(exchange, None, answer or "", content_type)
    return exchange, text, (answer, content_type)


def _body_bytes(text: Any, encoding: Any) -> tuple[bytes | str | None, str | None]:
    """A HAR body as it was: text as is, or the bytes of base64 (Polly's JSON array of base64 chunks too)."""
    if text is None:
        return None, None
    if not isinstance(text, str):
        return None, f"body is {type(text).__name__}, not text"
    if encoding != "base64":
        return text, None
    stripped = text.strip()
    try:
        if stripped.startswith("["):
            chunks = loads_or_none(stripped)
            if not isinstance(chunks, list) or not all(isinstance(c, str) for c in chunks):
                return None, "body is a base64 chunk list that does not parse"
            return b"".join(base64.b64decode(c) for c in chunks), None
        return base64.b64decode(stripped), None
    except (binascii.Error, ValueError) as exc:
        return None, f"body is not valid base64 ({exc})"


def _body_text(text: Any, encoding: Any) -> tuple[str | None, str | None]:
    """A HAR body as text: plain, or base64 decoded and gunzipped where its bytes are gzip."""
    raw, problem = _body_bytes(text, encoding)
    if problem is not None or raw is None or isinstance(raw, str):
        return raw, problem  # type: ignore[return-value]
    return decode_bytes(raw, None)  # gunzips by the magic bytes; a stored body is never deflated twice


def _reserialised(request: dict[str, Any], text: str | None, recorder: str | None) -> bool:
    if recorder in REWRITING_RECORDERS:
        return True
    sent = _headers(request.get("headers")).get("content-length")
    if text is None or sent is None or not sent.strip().isdigit():
        return False
    return int(sent) != len(text.encode("utf-8"))


def _convert(exchange: Exchange, endpoint: str, answer: tuple[str | None, str | None] | None) -> None:
    """An OpenAI exchange made the Messages API exchange it would have been (``path`` included, for grouping)."""
    body = exchange.body if isinstance(exchange.body, dict) else {}
    exchange.path = "/v1/messages"
    if endpoint == "chat":
        exchange.body, notes = chat_request(body) if isinstance(body.get("messages"), list) else (None, [])
    else:
        exchange.body, _, notes = responses_request(body) if "input" in body else (None, None, [])
    # the conversion's notes would be said once per call; the run says once that it was converted
    del notes
    if exchange.error or answer is None:
        return
    text, content_type = answer
    text = text or ""
    stream = "event-stream" in (content_type or "") or text.lstrip().startswith(("data:", "event:"))
    if stream:
        message, problems = chat_stream(text) if endpoint == "chat" else responses_stream(text)
        exchange.notes += [f"{exchange.where}: streamed answer: {p}" for p in problems]
    else:
        parsed = loads_or_none(text)
        message = chat_response(parsed) if endpoint == "chat" else responses_answer(parsed)
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
            exchange.error = str(parsed["error"].get("message") or parsed["error"])[:200]
    if exchange.status not in (None, 200) and exchange.error is None:
        exchange.error = f"HTTP {exchange.status}"
    elif message is None and exchange.error is None:
        exchange.error = "the answer holds no message"
    exchange.message = message if exchange.error is None else None


def _bedrock(exchange: Exchange, answer: tuple[Any, str | None] | None) -> str:
    """A Bedrock InvokeModel exchange made a Messages API exchange: ``messages`` when its body is a
    Messages API body (exact), ``legacy`` when it is a Text Completions prompt (converted)."""
    model = bedrock.model_of(exchange.path)
    body = exchange.body if isinstance(exchange.body, dict) else {}
    legacy = not isinstance(body.get("messages"), list)
    exchange.path = "/v1/messages"
    if legacy:
        exchange.body = bedrock.legacy_request(body, model)
    raw = answer[0] if answer else None
    if exchange.error is not None or raw is None:
        exchange.error = exchange.error or "no answer recorded"
        return "legacy" if legacy else "messages"
    if isinstance(raw, (bytes, bytearray)) and "eventstream" in (answer[1] or ""):
        pieces, problems = bedrock.chunks(bytes(raw))
        exchange.notes += [f"{exchange.where}: streamed answer: {p}" for p in problems]
    else:
        parsed = loads_or_none(raw if isinstance(raw, str) else bytes(raw).decode("utf-8", "replace"))
        pieces = [parsed]
    if legacy:
        exchange.message = bedrock.legacy_answer(pieces)
    elif len(pieces) == 1 and isinstance(pieces[0], dict) and isinstance(pieces[0].get("content"), list):
        read_answer(exchange, pieces[0], None, "application/json")
    else:
        read_answer(exchange, None, bedrock.as_sse(pieces), "text/event-stream")
        exchange.answer = None  # events rebuilt from AWS frames: not the bytes the API sent
    if exchange.message is not None and model and not exchange.message.get("model"):
        exchange.message = {**exchange.message, "model": model}
    if exchange.message is None and exchange.error is None:
        exchange.error = "the answer holds no message"
    if exchange.status not in (None, 200) and exchange.error is None:
        exchange.error, exchange.message = f"HTTP {exchange.status}", None
    return "legacy" if legacy else "messages"


def _reconstructed(run: Run, note: str) -> None:
    for call in run.calls:
        call.request = None
    run.source.prefix = RECONSTRUCTED
    run.warnings.insert(0, LoadWarning(note))
