"""One pass over a Claude Code transcript: the lines a thread can be rebuilt from, indexed.

Every line with a ``uuid`` is a node of the tree ``parentUuid`` draws (progress and system
lines too: threads run through them). ``user`` and ``assistant`` lines keep their API message
and the few facts a run needs (timestamp, request id, flags); the rest of each line (the
``toolUseResult`` copy of every tool output, progress payloads) is dropped as it is read,
so a big transcript costs little more memory than the messages it holds; a progress line
(most of a transcript's lines) is only located, and parsed if a thread runs through it
(``index.Index.node``). Also indexed: assistant lines by
``message.id`` (one API answer is written as one line per content block), tool results by
``tool_use_id``, session titles (``summary`` lines), and compaction boundaries. ``attachment``
lines keep their payload (as ``content``): Claude Code sends what they hold (``attachments``).
"""

from __future__ import annotations

from typing import Any

from tui.core import jsonio
from tui.formats.document import SKIPPED, Document
from tui.formats.transcript.index import (API_ERROR, COMPACT_SUMMARY, SYNTHETIC, THINKING, TRANSCRIPT_ONLY, Index,
                                          Record)

MESSAGE_TYPES = ("user", "assistant")
__all__ = ["API_ERROR", "COMPACT_SUMMARY", "PROGRESS", "SYNTHETIC", "THINKING", "TRANSCRIPT_ONLY", "Index", "Record",
           "index_value", "read_index"]


_HEAD = b'{"parentUuid":'
_TYPE = b'"type":"'
_PROGRESS = b'"type":"progress","data":{'


def read_index(doc: Document) -> Index:
    """One pass over the lines, each parsed and dropped but for what ``Index`` keeps; a progress line
    (Claude Code writes them with scalar keys first, then ``"type":"progress","data":{``) is only
    located. Inside JSON strings quotes are escaped, so the first ``"type":"`` of a line that
    starts ``{"parentUuid":`` is its own type; a line in any other shape is parsed."""
    data = doc.data
    index = Index(doc)
    skipped = index.skipped
    unread, unread_lines = index.unread.append, index.unread_lines.append
    find, startswith, parse, error = data.find, data.startswith, jsonio.fast_loads, jsonio.FastDecodeError
    start, number, size, progress = 0, 0, len(data), 0
    while start < size:
        end = find(b"\n", start)
        if end < 0:
            end = size
        number += 1
        if startswith(_PROGRESS, find(_TYPE, start, end if end - start < 2048 else start + 2048)) \
                and startswith(_HEAD, start):
            if not progress:  # the count keeps the place of the first progress line among the kinds
                skipped.setdefault("progress", 0)
            progress += 1
            unread(start)
            unread_lines(number)
            start = end + 1
            continue
        line = data[start:end]
        at, start = start, end + 1
        try:
            value = parse(line)
        except error:
            value = doc.bad_line(line, number)
            if value is SKIPPED:
                continue
        if index_value(index, value, number, at) is PROGRESS:
            if not progress:
                skipped.setdefault("progress", 0)
            progress += 1
    if progress:
        skipped["progress"] += progress
    return index


#: ``index_value``'s answer for a parsed progress line (the caller counts them).
PROGRESS = "progress"


def index_value(index: Index, value: Any, number: int, at: int) -> Record | str | None:
    """One parsed line into ``index``: its record (a line with a ``uuid`` is a node; user and assistant
    lines are messages), ``PROGRESS`` for a progress line (counted by the caller), None for a line that
    is no object. ``read_index`` calls it for every line it parses; follow mode for every line appended."""
    skipped, parsed, links, messages = index.skipped, index.parsed, index.links, index.messages
    answers, results = index.by_message_id, index.results
    if type(value) is not dict:
        skipped["not an object"] = skipped.get("not an object", 0) + 1
        return None
    kind = value.get("type")
    uuid = value.get("uuid")
    if type(uuid) is not str:
        uuid = None
    parent = value.get("parentUuid")
    if type(parent) is not str:
        parent = None
    if kind == "progress":
        if uuid is not None:
            links[uuid] = (number, at, parent, value.get("isSidechain") is True)
            parsed.pop(uuid, None)  # the last line with a uuid is its node
            index.forget(uuid)
        return PROGRESS
    if type(kind) is not str:
        kind = "(no type)"
    message = value.get("message")
    if (kind == "user" or kind == "assistant") and type(message) is dict:
        flags = COMPACT_SUMMARY if value.get("isCompactSummary") is True else 0
        if value.get("isVisibleInTranscriptOnly") is True:
            flags |= TRANSCRIPT_ONLY
        if value.get("isApiErrorMessage") is True:
            flags |= API_ERROR
        stamp, request_id, content = value.get("timestamp"), value.get("requestId"), message.get("content")
        record = Record(number, uuid, parent, kind, value.get("isSidechain") is True, at, message,
                        stamp if type(stamp) is str else None,
                        request_id if type(request_id) is str else None, flags, content)
        messages.append(record)
        if kind == "assistant":
            _index_answer(record, message, content, answers)
        elif type(content) is list:
            for block in content:
                if type(block) is dict and block.get("type") == "tool_result":
                    target = block.get("tool_use_id")
                    if type(target) is str:
                        if target in results:
                            results[target].append(record)
                        else:
                            results[target] = [record]
        if not index.facts:
            index.facts = {k: value[k] for k in ("sessionId", "agentId", "version") if k in value}
    elif kind == "attachment":  # content Claude Code sends beside the messages (``attachments``)
        record = Record(number, uuid, parent, kind, value.get("isSidechain") is True, at,
                        content=value.get("attachment"))
        stamp = value.get("timestamp")
        record.timestamp = stamp if type(stamp) is str else None
    else:
        record = Record(number, uuid, parent, kind, value.get("isSidechain") is True, at)
        label = f"system {value.get('subtype')}" if kind == "system" else \
            f"{kind} without a message" if kind in MESSAGE_TYPES else kind
        skipped[label] = skipped.get(label, 0) + 1
        if kind == "summary" and isinstance(value.get("leafUuid"), str):
            index.titles[value["leafUuid"]] = str(value.get("summary") or "")
        elif kind == "system":
            record.subtype = value.get("subtype") if isinstance(value.get("subtype"), str) else None
            logical = value.get("logicalParentUuid")
            record.logical_parent = logical if isinstance(logical, str) else None
    if uuid is not None:
        parsed[uuid] = record
        if links:
            links.pop(uuid, None)
        index.forget(uuid)
    return record


def _index_answer(record: Record, message: dict[str, Any], content: Any, answers: dict[str, list[Record]]) -> None:
    """An assistant line's message id, tool_use ids and flags, read while the message is fresh."""
    key = record.key = message.get("id")
    if isinstance(key, str):
        answers.setdefault(key, []).append(record)
    if message.get("model") == "<synthetic>":
        record.flags |= SYNTHETIC
    if type(content) is list:
        uses = []
        for block in content:
            kind = block.get("type") if type(block) is dict else None
            if kind == "tool_use":
                uses.append(block.get("id"))
            elif kind == "thinking" or kind == "redacted_thinking":
                record.flags |= THINKING
        if uses:
            record.uses = tuple(uses)
