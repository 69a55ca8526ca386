"""VCR cassettes of Messages API calls, as vcrpy and pytest-recording write them (YAML, or JSON).

A cassette is ``interactions:``, each a recorded ``request`` and ``response``. Bodies come in
every form recorders use: a JSON string, ``parsed_body`` (pydantic-ai's serializer), bytes
(``!!binary``, often gzip-compressed), and streamed answers as raw server-sent events. Each
``/v1/messages`` interaction is one model call with its exact request; interactions are
grouped into conversations (``tui.formats.recorded.conversations``). Headers are read for
the status, the request id and the encoding, then dropped: no credential reaches the run.
YAML is read with PyYAML's C loader when it is built, timestamps kept as the text they are.
YAML anchors and aliases share one value between many places; a cassette whose aliases
expand to far more values than its text holds (a "billion laughs" file), or that refers to
itself, is refused before anything walks it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from tui.core.errors import LoadError
from tui.core.request_headers import shaping_headers
from tui.core.run import Run
from tui.formats.document import Document
from tui.formats.recorded.conversations import build_runs
from tui.formats.recorded.exchange import (Exchange, decode_bytes, drop_credentials, header, parse_request,
                                           read_answer, url_path)

NAME = "vcr"
DESCRIPTION = "VCR cassette of Messages API calls (vcrpy / pytest-recording YAML, or JSON)"

_INTERACTION = re.compile(rb"^- request:", re.MULTILINE)


def sniff(doc: Document) -> int:
    head = doc.head
    if head.startswith(b"{"):
        value = doc.json_or_none()
        return 90 if isinstance(value, dict) and isinstance(value.get("interactions"), list) else 0
    if re.search(rb"^interactions:", head, re.MULTILINE) and b"request:" in head:
        return 90
    return 0


@lru_cache(maxsize=1)
def yaml_loader() -> type:
    """PyYAML's safe loader (the C one when built), a timestamp kept as the text it is (a request
    body holds text, not dates). Imported on first use: the other formats need no YAML."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = type("CassetteLoader", (base,), {})
    loader.add_constructor("tag:yaml.org,2002:timestamp", base.construct_yaml_str)
    return loader


def _parse(doc: Document) -> Any:
    if doc.head.startswith(b"{"):
        return doc.json()
    import yaml

    try:
        value = yaml.load(doc.data, Loader=yaml_loader())  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise LoadError(doc.path, f"invalid YAML: {exc.problem or exc.context}",
                        mark.line + 1 if mark else None, mark.column + 1 if mark else None) from None
    except yaml.reader.ReaderError as exc:  # a byte that is not UTF-8 (or a character YAML forbids)
        where = exc.position
        line = doc.data.count(b"\n", 0, where) + 1
        col = where - (doc.data.rfind(b"\n", 0, where) + 1) + 1
        what = f"byte 0x{exc.character:02x}" if isinstance(exc.character, int) else f"character {exc.character!r}"
        raise LoadError(doc.path, f"invalid YAML: {exc.reason} ({what})", line, col) from None
    except yaml.YAMLError as exc:
        raise LoadError(doc.path, f"invalid YAML: {exc}") from None
    if b"&" in doc.data:  # anchors: aliases may expand the document far beyond its text
        _refuse_expansion(value, doc)
    return value


def _refuse_expansion(value: Any, doc: Document) -> None:
    """Count the values the document holds with every alias expanded (each shared value once, by
    identity, without recursion); refuse a cycle or an expansion far beyond the text's size."""
    limit = 4 * len(doc.data) + 10_000
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(value, False)]
    open_: set[int] = set()
    while stack:
        node, done = stack.pop()
        children = list(node.values()) if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        key = id(node)
        if done:
            open_.discard(key)
            sizes[key] = 1 + sum(sizes.get(id(c), 1) for c in children)
            if sizes[key] > limit:
                raise LoadError(doc.path, f"YAML aliases expand this {len(doc.data):,}-byte cassette to more than "
                                          f"{limit:,} values: refused (a 'billion laughs' file)")
            continue
        if key in sizes:
            continue
        if key in open_:
            raise LoadError(doc.path, "a YAML alias refers to a value that holds it: refused (it never ends)")
        open_.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children if isinstance(c, (dict, list)) and id(c) not in sizes)


def load(doc: Document) -> list[Run]:
    value = _parse(doc)
    interactions = value.get("interactions") if isinstance(value, dict) else None
    if not isinstance(interactions, list):
        raise LoadError(doc.path, "not a cassette: no 'interactions' list")
    lines = [doc.data.count(b"\n", 0, m.start()) + 1 for m in _INTERACTION.finditer(doc.data)]
    if len(lines) != len(interactions):
        lines = []
    exchanges = [_exchange(item, k, lines[k] if lines else None) for k, item in enumerate(interactions)]
    runs = build_runs([e for e in exchanges if e is not None], doc.path, NAME)
    if not runs:
        raise LoadError(doc.path, "no /v1/messages request in this cassette")
    return runs


def _headers(headers: Any) -> dict[str, Any]:
    return headers if isinstance(headers, dict) else {}


def _exchange(item: Any, k: int, line: int | None) -> Exchange | None:
    where = f"interaction {k + 1}"
    request = item.get("request") if isinstance(item, dict) else None
    response = item.get("response") if isinstance(item, dict) else None
    if not isinstance(request, dict):
        return None
    raw = None
    if "parsed_body" in request:
        body, problem = request["parsed_body"], None
    else:
        raw, problem = decode_bytes(request.get("body"), header(request.get("headers"), "content-encoding"))
        body, problem2 = parse_request(raw, where) if problem is None else (None, f"{where}: request {problem}")
        problem = problem or problem2
    exchange = Exchange(where=where, line=line, method=str(request.get("method") or ""),
                        path=url_path(request.get("uri") or request.get("url")), body=body,
                        headers=shaping_headers(_headers(request.get("headers")), request.get("uri") or request.get("url")))
    if problem:
        exchange.notes.append(problem)
    exchange.dropped = drop_credentials(body)
    exchange.keep_raw(raw)
    if not isinstance(response, dict):
        exchange.error = "no response recorded"
        return exchange
    status = response.get("status")
    exchange.status = status.get("code") if isinstance(status, dict) else status if isinstance(status, int) else None
    headers = response.get("headers")
    exchange.request_id = header(headers, "request-id")
    content_type = header(headers, "content-type")
    if "parsed_body" in response:
        read_answer(exchange, response["parsed_body"], None, content_type)
        return exchange
    body_field = response.get("body")
    raw = body_field.get("string") if isinstance(body_field, dict) else body_field
    text, problem = decode_bytes(raw, header(headers, "content-encoding"))
    if problem:
        exchange.error = f"the answer {problem}"
        return exchange
    read_answer(exchange, None, text, content_type)
    return exchange
