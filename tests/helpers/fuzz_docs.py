"""Documents to break: an example of every registered format, random values, structural and byte mutations.

``examples()`` finds, for each format in ``tui.formats.formats()``, the small example files in the
repository that are detected as it (a new loader is covered once it has a fixture, and
``test_every_format_has_an_example`` says so when it has none). A ``Doc`` holds such a file
parsed (one JSON value, JSON lines, or a YAML cassette) so hypothesis can mutate its structure:
replace any value with a random one of another type, delete or null it, add keys, wrap it,
give a block an unknown type, a very long or hostile string, a number past 64 bits, or nesting
deeper than anything real. ``byte_mutation`` damages raw bytes (truncate, flip, insert, delete).
"""

from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson
from hypothesis import strategies as st

from conftest import REPO, SAMPLES
from tui.core.errors import LoadError
from tui.formats import detect, formats, read_document

EXAMPLE_DIRS = [SAMPLES, REPO / "tests" / "fixtures"]
EXAMPLE_BYTES = 40_000
KEYS = ["type", "id", "text", "role", "content", "name", "tool_use_id", "input", "is_error", "messages", "system",
        "tools", "params", "model", "max_tokens", "turnscope", "runs", "calls", "message", "interactions", "request",
        "response", "body", "status_code", "uuid", "parentUuid", "sessionId", "tool_calls", "function", "arguments",
        "thinking", "signature", "source", "data", "stop_reason", "usage", "delta", "index", "cache_control"]
HOSTILE = "\x1b[2J\x1b]52;c;ZXZpbA==\x07\x9b\u202e[bold]x[/][@click=app.quit]"


def nested(depth: int, leaf: Any = 1) -> Any:
    """A list nested ``depth`` levels deep (built without recursion)."""
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.integers(), st.sampled_from([2**64, -(2**63) - 1, 10**30]),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8), st.sampled_from(
        ["", "user", "assistant", "tool_use", "tool_result", "text", "thinking", "image", "x-1", HOSTILE]))
values = st.recursive(_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), inner, max_size=5)),
    max_leaves=15)
#: Values that stress a walker or a renderer rather than a parser's shape checks.
#: (Made fresh for each draw: a later mutation must not change the one hypothesis replays.)
stressing = st.sampled_from([
    lambda: "x" * 300_000, lambda: HOSTILE * 50, lambda: nested(900),
    lambda: {"type": "future_block", "payload": nested(40, {"a": [1, {}]})}, lambda: {"type": "\x1b[2J unknown"},
    lambda: {"type": None}, lambda: {"type": 5}, lambda: [], lambda: {}, lambda: None, lambda: float("1e308"),
    lambda: 2**70, lambda: -(2**70),
]).map(lambda make: make())


@dataclass
class Doc:
    """A parsed example: ``kind`` is json, jsonl or yaml; ``value`` the JSON value (or the list of lines)."""

    kind: str
    value: Any

    def dumps(self, as_yaml: bool = True) -> bytes:
        if self.kind == "jsonl" and isinstance(self.value, list):
            return b"\n".join(_dump(v) for v in self.value) + b"\n"
        if self.kind == "yaml" and as_yaml:
            import yaml

            try:
                return yaml.safe_dump(self.value, allow_unicode=True, sort_keys=False).encode("utf-8", "surrogatepass")
            except (yaml.YAMLError, RecursionError):
                pass
        return _dump(self.value)


def _dump(value: Any) -> bytes:
    from tui.core import jsonio

    try:
        return jsonio.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return b'"unserialisable"'


def parse(path: Path) -> Doc:
    data = path.read_bytes()
    if path.suffix in (".yaml", ".yml"):
        import yaml

        from tui.formats.vcr import yaml_loader

        return Doc("yaml", _jsonable(yaml.load(data, Loader=yaml_loader())))  # noqa: S506 - a safe loader
    lines = [line for line in data.splitlines() if line.strip()]
    if len(lines) > 1:
        try:
            return Doc("jsonl", [orjson.loads(line) for line in lines])
        except orjson.JSONDecodeError:
            pass
    return Doc("json", orjson.loads(data))


def _jsonable(value: Any) -> Any:
    """A YAML value as JSON can hold it: bytes (``!!binary`` bodies) become text."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def _candidates() -> list[Path]:
    files = []
    for root in EXAMPLE_DIRS:
        files += [p for p in sorted(root.rglob("*")) if p.is_file() and p.suffix in (".json", ".jsonl", ".yaml",
                                                                                      ".yml", ".traj", ".har")]
    return [p for p in files if p.stat().st_size <= EXAMPLE_BYTES]


@lru_cache(maxsize=1)
def examples() -> dict[str, list[Path]]:
    """Format name -> small example files detected as that format (every registered format is a key)."""
    found: dict[str, list[Path]] = {m.NAME: [] for m in formats()}
    for path in _candidates():
        try:
            found[detect(read_document(str(path))).NAME].append(path)
        except LoadError:
            continue
    return found


def _slots(value: Any, limit: int = 4000) -> list[tuple[Any, Any]]:
    """(container, key) for values inside ``value``, breadth first, without recursion."""
    out, queue = [], deque([value])
    while queue and len(out) < limit:
        node = queue.popleft()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in items:
            out.append((node, key))
            if isinstance(child, (dict, list)):
                queue.append(child)
    return out


OPS = ["replace", "stress", "delete", "null", "extra_key", "wrap", "retype", "duplicate", "string", "hostile"]


@st.composite
def mutated(draw, doc: Doc, max_mutations: int = 4) -> Doc:
    """``doc`` with one to ``max_mutations`` structural changes at places hypothesis picks."""
    value = copy.deepcopy(doc.value)
    for _ in range(draw(st.integers(1, max_mutations))):
        slots = _slots(value)
        if not slots:
            value = draw(values)
            continue
        parent, key = slots[draw(st.integers(0, len(slots) - 1))]
        op = draw(st.sampled_from(OPS))
        if op == "replace":
            parent[key] = draw(values)
        elif op == "stress":
            parent[key] = draw(stressing)
        elif op == "delete":
            del parent[key]
        elif op == "null":
            parent[key] = None
        elif op == "extra_key" and isinstance(parent[key], dict):
            parent[key][draw(st.sampled_from(KEYS))] = draw(values)
        elif op == "wrap":
            parent[key] = [parent[key]]
        elif op == "retype" and isinstance(parent[key], dict):
            parent[key]["type"] = draw(st.sampled_from(["future_block", "", HOSTILE, "tool_use", "text"]) | values)
        elif op == "duplicate" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif op == "string":
            parent[key] = str(parent[key])[:50]
        elif op == "hostile":
            parent[key] = HOSTILE + str(parent[key])[:20]
    return Doc(doc.kind, value)


@st.composite
def byte_mutation(draw, data: bytes) -> bytes:
    """``data`` truncated, with bits flipped, bytes inserted or a range deleted (one to three times)."""
    for _ in range(draw(st.integers(1, 3))):
        size = len(data)
        at = draw(st.integers(0, max(size - 1, 0)))
        op = draw(st.sampled_from(["truncate", "flip", "insert", "delete"]))
        if op == "truncate":
            data = data[:at]
        elif op == "flip" and size:
            data = data[:at] + bytes([data[at] ^ (1 << draw(st.integers(0, 7)))]) + data[at + 1:]
        elif op == "insert":
            data = data[:at] + draw(st.binary(min_size=1, max_size=16) | st.sampled_from(
                [b"\xff\xfe", b"\x00", b"\n", b"\r\n", b'"', b"{", b"]", b"\xef\xbb\xbf", b"\xc3"])) + data[at:]
        elif op == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 64)):]
    return data
