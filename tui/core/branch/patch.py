"""A branch's edit: an RFC 6902 JSON Patch against the parent request at the branch index.

The document a patch applies to (``base_document(run, n)``) is the request body that
carries messages 0..N of the parent: its params, ``system``, ``tools`` and ``messages``
[0..N], exactly as ``tui.core.prefix.request_at(run, n + 1)`` builds it (for a recorded
run, the body that was POSTed for message N+1; otherwise the one rebuilt from the run).
Message N is the one being edited; everything after it is dropped. Paths therefore read
as the API's own field paths: ``/messages/4/content/0/is_error``, ``/system``,
``/tools/2/description``, ``/model``, ``/temperature``.

Applying the patch gives the edited request. When it ends with a user message it is the
first request the branch sends; when it ends with an assistant turn holding tool calls,
the branch first answers those calls (see ``tui.core.branch.resolvers``). A patch may
change any message up to N and append messages after N, never remove one.

The quick edits below build small patches (with a ``test`` op naming the block they
target, so a patch applied to the wrong document fails instead of editing something
else); ``diff`` turns a whole edited document into a patch for a free-form editor.
"""

from __future__ import annotations

from typing import Any

import jsonpatch
import jsonpointer

from tui.core import jsonio
from tui.core.errors import UsageError
from tui.core.grammar import ERROR, Finding, check_request
from tui.core.prefix import check_index, request_at
from tui.core.run import Run, blocks_of

Patch = list[dict[str, Any]]


class PatchError(UsageError):
    """A patch that is not valid JSON Patch, or does not apply to the parent request."""


class EditRejected(UsageError):
    """The edited request breaks a rule the API enforces: it cannot be sent."""

    def __init__(self, findings: list[Finding]):
        self.findings = findings
        first = findings[0]
        where = f"message {first.where()}: " if first.index is not None else ""
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        super().__init__(f"the edited request would be rejected: {where}{first.rule}: {first.message}{more}")


def base_document(run: Run, n: int) -> dict[str, Any]:
    """The parent request carrying messages 0..N (shares message objects with the run)."""
    n = check_index(run, n)
    if n >= len(run.messages):
        raise UsageError(f"index {n} is out of range: a branch edits one of messages 0..{len(run.messages) - 1}")
    return request_at(run, n + 1).body


def apply(base: dict[str, Any], patch: Any, n: int) -> dict[str, Any]:
    """The edited request: ``patch`` applied to a copy of ``base`` (``base`` is never changed)."""
    if not isinstance(patch, list) or not all(isinstance(op, dict) for op in patch):
        raise PatchError("a patch is a JSON list of operations ({\"op\": ..., \"path\": ...})")
    try:
        edited = jsonpatch.apply_patch(base, patch, in_place=False)
    except jsonpatch.JsonPatchTestFailed as exc:
        raise PatchError(f"the patch does not fit this request: {exc}") from None
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as exc:
        raise PatchError(f"the patch does not apply: {exc}") from None
    except (TypeError, ValueError, KeyError, IndexError) as exc:
        raise PatchError(f"the patch does not apply: {exc}") from None
    if not isinstance(edited, dict) or not isinstance(edited.get("messages"), list):
        raise PatchError("the edited request must stay an object with a 'messages' list")
    if len(edited["messages"]) < n + 1:
        raise PatchError(f"the patch removes messages: a branch keeps messages 0..{n} (edit them, "
                         "or branch at a smaller index)")
    for key in ("model", "max_tokens"):
        if key not in edited:
            raise PatchError(f"the edited request has no {key!r}: add it with the patch or --model")
    return edited


def check(edited: dict[str, Any]) -> list[Finding]:
    """Grammar findings for the edited request as the branch will send it.

    A request ending with an assistant turn of tool calls is checked as it will be sent:
    with a user turn answering each call appended (the resolver's results).
    """
    messages = edited["messages"]
    last = messages[-1] if messages else None
    calls = _tool_uses(last) if isinstance(last, dict) and last.get("role") == "assistant" else []
    if calls:
        answers = [{"type": "tool_result", "tool_use_id": b.get("id"), "content": "(resolver)"} for b in calls]
        edited = {**edited, "messages": [*messages, {"role": "user", "content": answers}]}
    return check_request(edited)


def require_sendable(edited: dict[str, Any]) -> list[Finding]:
    """``check``, raising ``EditRejected`` when any finding is an error; returns the warnings."""
    findings = check(edited)
    errors = [f for f in findings if f.severity == ERROR]
    if errors:
        raise EditRejected(errors)
    last = edited["messages"][-1]
    if isinstance(last, dict) and last.get("role") == "assistant" and not _tool_uses(last):
        raise UsageError(f"message {len(edited['messages']) - 1} is an assistant turn with no tool calls: the "
                         "branch would send it as a prefill. Branch one index earlier to ask the model for it "
                         "again, or append a user message in the patch")
    return findings


def diff(base: dict[str, Any], edited: dict[str, Any]) -> Patch:
    """The patch that turns ``base`` into ``edited`` (for an editor of the whole document)."""
    return jsonpatch.make_patch(base, edited).patch


# -- quick edits ------------------------------------------------------------------------------


def _tool_uses(message: Any) -> list[dict[str, Any]]:
    return [b for b in blocks_of(message) if isinstance(b, dict) and b.get("type") == "tool_use"]


def _find_block(base: dict[str, Any], kind: str, key: str, value: str) -> tuple[int, int]:
    seen = []
    for i, message in enumerate(base["messages"]):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for k, block in enumerate(content):
            if isinstance(block, dict) and block.get("type") == kind:
                if block.get(key) == value:
                    return i, k
                seen.append(str(block.get(key)))
    known = ", ".join(seen) if seen else "none"
    raise UsageError(f"no {kind} block with {key} {value!r} in messages 0..{len(base['messages']) - 1} "
                     f"(there: {known})")


def tool_error(base: dict[str, Any], tool_use_id: str, text: str) -> Patch:
    """Turn the tool_result answering ``tool_use_id`` into an error carrying ``text``."""
    i, k = _find_block(base, "tool_result", "tool_use_id", tool_use_id)
    path = f"/messages/{i}/content/{k}"
    return [{"op": "test", "path": f"{path}/tool_use_id", "value": tool_use_id},
            {"op": "add", "path": f"{path}/content", "value": text},
            {"op": "add", "path": f"{path}/is_error", "value": True}]


def tool_input(base: dict[str, Any], tool_use_id: str, value: dict[str, Any]) -> Patch:
    """Change the input of the tool_use block ``tool_use_id``."""
    i, k = _find_block(base, "tool_use", "id", tool_use_id)
    path = f"/messages/{i}/content/{k}"
    return [{"op": "test", "path": f"{path}/id", "value": tool_use_id},
            {"op": "replace", "path": f"{path}/input", "value": value}]


def delete_block(base: dict[str, Any], index: int, block: int) -> Patch:
    """Remove block ``block`` of message ``index``."""
    messages = base["messages"]
    if not 0 <= index < len(messages) or not 0 <= block < len(blocks_of(messages[index])):
        raise UsageError(f"there is no block {index}.{block} in messages 0..{len(messages) - 1}")
    content = messages[index].get("content")
    if isinstance(content, str):
        return [{"op": "replace", "path": f"/messages/{index}/content", "value": []}]
    return [{"op": "test", "path": f"/messages/{index}/content/{block}", "value": content[block]},
            {"op": "remove", "path": f"/messages/{index}/content/{block}"}]


def system(text: Any) -> Patch:
    """Replace (or add) the system prompt: a string or a list of text blocks."""
    return [{"op": "add", "path": "/system", "value": text}]


def _tool_index(base: dict[str, Any], name: str) -> int:
    tools = base.get("tools") if isinstance(base.get("tools"), list) else []
    for t, tool in enumerate(tools):
        if isinstance(tool, dict) and tool.get("name") == name:
            return t
    names = ", ".join(str(t.get("name")) for t in tools if isinstance(t, dict)) or "none"
    raise UsageError(f"no tool named {name!r} in the request (tools: {names})")


def tool_field(base: dict[str, Any], name: str, field: str, value: Any) -> Patch:
    """Set a tool's ``description`` or ``input_schema`` (or any other field)."""
    t = _tool_index(base, name)
    return [{"op": "test", "path": f"/tools/{t}/name", "value": name},
            {"op": "add", "path": f"/tools/{t}/{jsonpointer.escape(field)}", "value": value}]


def param(key: str, value: Any) -> Patch:
    """Set a param (``model``, ``max_tokens``, ``temperature``, ``thinking``, ...); None removes it."""
    if key in ("messages", "system", "tools"):
        raise UsageError(f"{key!r} is not a param")
    path = "/" + jsonpointer.escape(key)
    if value is None:
        return [{"op": "remove", "path": path}]
    return [{"op": "add", "path": path, "value": value}]


def describe(patch: Any, width: int = 48) -> str:
    """The patch in one line: each change (``test`` ops left out) as ``op path = value``, values cut to ``width``."""
    if not isinstance(patch, list):
        return "(not a patch)"
    parts = []
    for op in patch:
        if not isinstance(op, dict) or op.get("op") == "test":
            continue
        kind, path = str(op.get("op")), str(op.get("path"))
        if kind == "remove":
            parts.append(f"remove {path}")
            continue
        value = op.get("value")
        shown = value if isinstance(value, str) else jsonio.dumps(value).decode("utf-8", "replace")
        shown = " ".join(str(shown).split())
        if len(shown) > width:
            shown = shown[:width - 1] + "…"
        parts.append(f"{kind} {path} = {shown}" if kind in ("add", "replace") else f"{kind} {path}")
    return "; ".join(parts) if parts else "(no change)"
