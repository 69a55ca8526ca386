"""What ``turnscope branch`` prints: each new turn as it is saved, why it stopped, and the path.

Text goes through ``tui.commands.common.out`` (run text is untrusted: control characters
are shown, never sent to the terminal). ``--json`` prints one object at the end:
``{"path", "at", "steps", "stop_reason", "messages": [new messages], "first", "error"}``.
Trouble (an API failure, a cancel) is also told on stderr, with the way to continue.
"""

from __future__ import annotations

import shlex

from tui.commands.common import out, write_bytes
from tui.commands.block_text import block_lines
from tui.core import jsonio
from tui.core.branch.events import Event, Finished, ToolResolved, TurnSaved
from tui.core.branch.outcome import WHY, kept_answers
from tui.core.branch.runner import Branch
from tui.core.trouble import say

class Printer:
    """What ``turnscope branch`` prints as the runner goes: a line per event, or JSON lines with ``--json``."""

    def __init__(self, branch: Branch, resolver: str, as_json: bool):
        self.branch = branch
        self.resolver = resolver
        self.as_json = as_json
        self.via: dict[str, str] = {}

    @property
    def path(self) -> str:
        return str(self.branch.path)

    def header(self, resumed: bool) -> None:
        if self.as_json:
            return
        lineage = self.branch.lineage
        parent = lineage.get("parent", {}).get("path")
        ops = len(lineage.get("patch") or [])
        verb = "resuming branch" if resumed else "branch"
        out(f"{verb} of {parent} at message {lineage.get('at')} · patch of {ops} op{'s' if ops != 1 else ''} · "
            f"model {lineage.get('model')} · resolver {self.resolver}")
        out(f"saving to {self.path}")

    def event(self, event: Event) -> None:
        if isinstance(event, ToolResolved):
            self.via[event.id] = event.via
        elif isinstance(event, TurnSaved) and not self.as_json:
            self._turn(event)

    def _turn(self, event: TurnSaved) -> None:
        call = event.call
        if call is not None:
            usage = call.usage or {}
            parts = [f"model call {self.branch.steps}", str(call.model), str(call.stop_reason),
                     f"{usage.get('input_tokens', '?')} in / {usage.get('output_tokens', '?')} out"]
            if call.request_id:
                parts.append(call.request_id)
            out(f"[{event.index}] assistant · " + " · ".join(parts))
        else:
            out(f"[{event.index}] user · tool results")
        content = event.message.get("content")
        for block in content if isinstance(content, list) else [{"type": "text", "text": str(content)}]:
            for line in block_lines(block):
                out("    " + line)
            if call is None and isinstance(block, dict) and block.get("tool_use_id") in self.via:
                out(f"      answered by {self.via[block['tool_use_id']]}")

    def finished(self, f: Finished) -> None:
        again = f"turnscope branch --resume {shlex.quote(f.path)}"
        if f.error is not None:
            say(f.error.line())
            last = len(self.branch.run.messages) - 1
            say(f"the branch is saved up to message {last}: {f.path} (retry with `{again}`)")
        if self.as_json:
            doc = {"path": f.path, "at": self.branch.lineage.get("at"), "steps": f.steps,
                   "stop_reason": f.stop_reason, "messages": f.new, "first": f.first,
                   "error": f.error.as_dict() if f.error else None,
                   "from_edit": self.branch.lineage.get("from_edit") or [],
                   "unanswered": self.branch.lineage.get("unanswered")}
            write_bytes(jsonio.dumps(doc))
            return
        why = WHY.get(f.stop_reason, f"the model stopped: {f.stop_reason}")
        out(f"{why} after {f.steps} model call{'s' if f.steps != 1 else ''}")
        if f.stop_reason == "max_steps":
            out(f"go on with: {again} --max-steps {self.branch.steps + 10}")
        elif f.stop_reason == "stopped":
            why = (self.branch.lineage.get("unanswered") or {}).get("why")
            if why:
                out(f"why: {why}")
            out(f"answer it with: {again} --resolver python:MODULE:FUNCTION")
        kept = kept_answers(self.branch.lineage)
        if kept:
            out(kept)
        out(f"saved: {f.path}")

    def save_failed(self, exc: OSError) -> None:
        """A save failed: the file is the previous save, whole; one line says so."""
        say(f"{exc.strerror}; the file keeps every turn saved before it (continue with "
             f"`turnscope branch --resume {shlex.quote(self.path)}` once it can be written)")

    def cancelled(self) -> None:
        say(f"cancelled; the branch is saved up to message {len(self.branch.run.messages) - 1}: {self.path} "
             f"(continue with `turnscope branch --resume {shlex.quote(self.path)}`)")
