"""What the value index counts as values: every scalar of a JSON value with its jq-style path, and
numbers by value whatever their form (``8900``, ``8900.0``, ``"8900"``); and where one was found."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

import orjson

CANONICAL_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?")


@dataclass(frozen=True, slots=True)
class Place:
    """Where a value sits in a request: message index (or system/tools), block, path, and how it matched."""

    index: int | str  # message index, or "system" / "tools"
    block: int
    path: str
    start: int | None = None  # character span inside the string at ``path`` (token and text matches)
    end: int | None = None
    how: str = "value"  # value | token | text | key


def number_key(value: Any) -> tuple[str, Any] | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return ("n", value)
    if isinstance(value, str) and value[:1] in "-0123456789" and CANONICAL_NUMBER.fullmatch(value):
        return ("n", int(value) if "." not in value else float(value))
    return None


def trivial(value: Any) -> bool:
    """Not traced, since such values turn up everywhere by coincidence: booleans, null, and any value whose
    text form is shorter than two characters."""
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, str):
        return len(value) < 2
    if isinstance(value, (int, float)):
        return len(repr(value)) < 2
    return False


def walk(value: Any, path: str = "") -> Iterator[tuple[str, Any, bool]]:
    """``(path, scalar, is_key)`` for every scalar (and object key) inside ``value``, iteratively."""
    stack = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                child_path = (f"{where}.{key}" if isinstance(key, str) and key.isidentifier()
                              else f"{where or '.'}[{orjson.dumps(str(key)).decode()}]")
                yield child_path, key, True
                stack.append((child_path, child))
        elif isinstance(item, list):
            for k in range(len(item) - 1, -1, -1):
                stack.append((f"{where or '.'}[{k}]", item[k]))
        else:
            yield where or ".", item, False


def input_scalars(value: Any) -> list[tuple[str, Any]]:
    """``(path, scalar)`` of every scalar in a tool input, as ``walk`` gives them (object keys left out). Most
    inputs are one object of scalars: their paths are made here, without the walk's stack."""
    if isinstance(value, dict):
        out = []
        for key, child in value.items():
            if isinstance(child, (dict, list)):
                break
            out.append((f".{key}" if isinstance(key, str) and key.isidentifier()
                        else f".[{orjson.dumps(str(key)).decode()}]", child))
        else:
            return out
    return [(path, scalar) for path, scalar, is_key in walk(value, "") if not is_key]
