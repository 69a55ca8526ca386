"""The branch editor's model: what can be edited at index N, the edits made, the patch and the verdict.

No Textual here. The parent request at N (``tui.core.branch.patch.base_document``) is never
changed: an ``EditSession`` keeps each edited part (a block of a message up to N, a string
content, the system prompt, a tool's description or schema, the params) as a new value and
builds the edited request copy-on-write, sharing every untouched message with the parent,
so an edit costs the parts it touches, not the run. The RFC 6902 patch is the diff of each
touched part against the parent (``jsonpatch``, with ``test`` ops before each ``replace``
and ``remove``, so it fails on any other request), and applying it to the parent request
gives exactly the edited request (``tui.core.branch.patch.apply``).

``json_text`` is how a part is put in the editor: pretty JSON whose strings keep no
character that could drive a terminal or reorder text (they are written as ``\\uXXXX``,
which parses back to the same value).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import jsonpatch

from tui.core import jsonio
from tui.core.branch import patch as patches
from tui.core.blocks import is_tool_use
from tui.core.errors import LoadError, UsageError
from tui.core.grammar import ERROR, Finding
from tui.core.run import block_type
from tui.core.safe import one_line
from tui.core.summary import preview

Key = tuple[Any, ...]
DELETED = object()
TOP = ("system", "tools", "messages")
# Characters JSON leaves raw that a terminal or the bidi algorithm would act on (C0 controls are
# already escaped by every JSON writer).
_RAW_UNSAFE = re.compile("[\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]")


def json_text(value: Any) -> str:
    """Pretty JSON for the editor, with unsafe characters written as JSON escapes."""
    text = jsonio.dumps(value, indent=True).decode("utf-8", "surrogatepass")
    return _RAW_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _same(a: Any, b: Any) -> bool:
    return jsonio.dumps(a) == jsonio.dumps(b)


@dataclass
class Target:
    """One editable part of the request at N."""

    key: Key
    label: str  # one safe line
    pointer: str  # where it is in the request (JSON Pointer)
    kind: str  # params, system, tool, block, content


def targets(base: dict[str, Any]) -> list[Target]:
    """Params, system prompt, each tool's description and schema, then every block of messages 0..N."""
    out = [Target(("params",), "params · " + ", ".join(k for k in base if k not in TOP), "/", "params"),
           Target(("system",), "system prompt" + ("" if "system" in base else " (none)"), "/system", "system")]
    tools = base.get("tools") if isinstance(base.get("tools"), list) else []
    for t, tool in enumerate(tools):
        name = one_line(str(tool.get("name") if isinstance(tool, dict) else tool))[:40]
        for part in ("description", "input_schema"):
            out.append(Target(("tool", t, part), f"tool {name} · {part}", f"/tools/{t}/{part}", "tool"))
    for i, message in enumerate(base["messages"]):
        role = one_line(str(message.get("role"))) if isinstance(message, dict) else "?"
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            out.append(Target(("content", i), f"[{i}] {role} · content", f"/messages/{i}/content", "content"))
            continue
        for b, block in enumerate(content):
            out.append(Target(("block", i, b), f"[{i}.{b}] {role} · {describe(block)}",
                              f"/messages/{i}/content/{b}", "block"))
    return out


def describe(block: Any) -> str:
    kind = one_line(block_type(block))
    if not isinstance(block, dict):
        return kind
    if is_tool_use(kind):
        return f"{kind} {one_line(str(block.get('name')))[:30]} {one_line(str(block.get('id')))[:24]}"
    if kind == "tool_result":
        return f"tool_result {one_line(str(block.get('tool_use_id')))[:24]}" + (" ERROR" if block.get("is_error") else "")
    if kind == "text" and isinstance(block.get("text"), str):
        return "text " + one_line(preview(block["text"][:400], 40))  # cut with an ellipsis, not mid-word silently
    return kind


@dataclass
class Verdict:
    """Whether the edited request can be sent, and why not."""

    findings: list[Finding] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # blocking, not grammar (bad JSON, a prefill, ...)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def sendable(self) -> bool:
        return not self.problems and not self.errors


class EditSession:
    """The edits made to the parent request at index ``at``."""

    def __init__(self, base: dict[str, Any], at: int):
        self.base = base
        self.at = at
        self.values: dict[Key, Any] = {}  # key -> new value, or DELETED
        self.drafts: dict[Key, tuple[str, str]] = {}  # key -> (text, why it does not parse)
        self.targets = targets(base)
        self.by_key = {t.key: t for t in self.targets}
        self.row = {t.key: k for k, t in enumerate(self.targets)}

    # -- parts ---------------------------------------------------------------------------

    def original(self, key: Key) -> Any:
        kind = key[0]
        if kind == "params":
            return {k: v for k, v in self.base.items() if k not in TOP}
        if kind == "system":
            return self.base.get("system")
        if kind == "tool":
            tool = self.base["tools"][key[1]]
            return tool.get(key[2]) if isinstance(tool, dict) else None
        message = self.base["messages"][key[1]]
        return message["content"] if kind == "content" else message["content"][key[2]]

    def current(self, key: Key) -> Any:
        return self.values[key] if key in self.values else self.original(key)

    def deleted(self, key: Key) -> bool:
        return self.values.get(key) is DELETED

    def edited(self, key: Key) -> bool:
        return key in self.values or key in self.drafts

    def edited_count(self) -> int:
        return len(self.values.keys() | self.drafts.keys())

    def text(self, key: Key) -> str:
        """What the editor shows for ``key``: a draft that does not parse yet, or the value's JSON."""
        if key in self.drafts:
            return self.drafts[key][0]
        return "" if self.deleted(key) else json_text(self.current(key))

    def set(self, key: Key, value: Any) -> None:
        self.drafts.pop(key, None)
        if value is not DELETED and _same(value, self.original(key)):
            self.values.pop(key, None)
        else:
            self.values[key] = value

    def set_text(self, key: Key, text: str) -> bool:
        """Parse the editor's text for ``key``; False (and kept as a draft) when it is not JSON."""
        try:
            value = jsonio.loads(text, "the editor")
        except LoadError as exc:
            self.drafts[key] = (text, f"line {exc.line}, column {exc.col}: {exc.what}" if exc.line else exc.what)
            return False
        if key[0] == "params" and (not isinstance(value, dict) or any(k in TOP for k in value)):
            self.drafts[key] = (text, "the params are one JSON object of model, max_tokens, temperature, "
                                      "thinking, ... (system, tools and messages are edited on their own)")
            return False
        self.set(key, value)
        return True

    def restore(self, key: Key) -> None:
        self.values.pop(key, None)
        self.drafts.pop(key, None)

    def delete(self, key: Key) -> None:
        if key[0] != "block":
            raise UsageError("only a block of a message can be deleted")
        self.set(key, DELETED)

    # -- quick edits -------------------------------------------------------------------------

    def tool_error(self, key: Key, message: str) -> None:
        block = self.current(key)
        if key[0] != "block" or not isinstance(block, dict) or block_type(block) != "tool_result":
            raise UsageError("only a tool_result can be turned into an error")
        self.set(key, {**block, "content": message, "is_error": True})

    def tool_input(self, key: Key, value: Any) -> None:
        block = self.current(key)
        if key[0] != "block" or not isinstance(block, dict) or block_type(block) != "tool_use":
            raise UsageError("only a tool_use block has an input")
        self.set(key, {**block, "input": value})

    def model(self, name: str) -> None:
        self.set(("params",), {**self.current(("params",)), "model": name})

    # -- the edited request --------------------------------------------------------------

    def document(self) -> dict[str, Any]:
        """The edited request, sharing every untouched part with the parent request."""
        base = self.base
        params = self.values.get(("params",), self.original(("params",)))
        doc = {k: v for k, v in base.items() if k in TOP or k in params}
        for k, v in params.items():
            doc[k] = v
        if ("system",) in self.values:
            doc.pop("system", None)
            if self.values[("system",)] is not None:
                doc["system"] = self.values[("system",)]
        tool_keys = [k for k in self.values if k[0] == "tool"]
        if tool_keys:
            tools = list(base["tools"])
            for key in tool_keys:
                tools[key[1]] = {**tools[key[1]], key[2]: self.values[key]}
            doc["tools"] = tools
        touched = sorted({k[1] for k in self.values if k[0] in ("block", "content")})
        if touched:
            messages = list(base["messages"])
            for i in touched:
                messages[i] = self._message(i)
            doc["messages"] = messages
        return _ordered(doc, base)

    def _message(self, i: int) -> dict[str, Any]:
        message = self.base["messages"][i]
        if ("content", i) in self.values:
            return {**message, "content": self.values[("content", i)]}
        content = []
        for b, block in enumerate(message["content"]):
            value = self.values.get(("block", i, b), block)
            if value is not DELETED:
                content.append(value)
        return {**message, "content": content}

    def patch(self) -> list[dict[str, Any]]:
        """The RFC 6902 patch that turns the parent request into ``document()``."""
        doc, ops = self.document(), []
        top = lambda d: {k: v for k, v in d.items() if k != "messages"}  # noqa: E731 - small and local
        ops += _diff(top(self.base), top(doc), "")
        for i in sorted({k[1] for k in self.values if k[0] in ("block", "content")}):
            ops += _diff(self.base["messages"][i], doc["messages"][i], f"/messages/{i}")
        return ops

    def snapshot(self) -> tuple[dict[str, Any], list[str]]:
        """The edited request and the drafts that do not parse: what ``verdict_for`` checks (in a worker)."""
        problems = [f"{self.by_key[key].label}: not valid JSON ({why})" for key, (_, why) in self.drafts.items()]
        return self.document(), problems

    def check(self) -> Verdict:
        return verdict_for(*self.snapshot())


def verdict_for(doc: dict[str, Any], problems: list[str]) -> Verdict:
    """The grammar check of the edited request as the branch will send it, and what else blocks it."""
    verdict = Verdict(problems=list(problems))
    for name in ("model", "max_tokens"):
        if name not in doc:
            verdict.problems.append(f"the params have no {name!r}: the API needs it")
    verdict.findings = patches.check(doc)
    if not verdict.errors and not verdict.problems:
        try:
            patches.require_sendable(doc)
        except UsageError as exc:
            verdict.problems.append(str(exc))
    return verdict


def _ordered(doc: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with the parent's key order (new params go before system/tools/messages)."""
    keys = [k for k in base if k in doc and k not in TOP] + [k for k in doc if k not in base and k not in TOP]
    keys += [k for k in TOP if k in doc]
    return {k: doc[k] for k in keys}


def _diff(src: Any, dst: Any, prefix: str) -> list[dict[str, Any]]:
    ops = jsonpatch.make_patch(src, dst, generate_test_ops=True).patch
    for op in ops:
        op["path"] = prefix + op["path"]
        if "from" in op:
            op["from"] = prefix + op["from"]
    return ops
