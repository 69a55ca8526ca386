"""A thread's lines turned into the message list Claude Code sent, and one call per answer.

Assistant lines that share a ``message.id`` are one answer: their blocks form one assistant
turn, in the order they were written, even when a tool result was written between two of
them (Claude Code runs a tool while the rest of the answer streams). Consecutive user lines
form one user turn, tool results first (the API requires it; the loop put them there), as
the API merges consecutive user messages anyway. A line's content is used as it is: a turn
built from one line shares its content; only merged turns get a new list of the same blocks.
Each answer is one model call with the usage, model and request id its last line records;
its timing is read off the transcript: sent when the line before it was written, done when
its last line was.

With ``client`` (a version whose requests were compared, ``attachments.rebuilds``), what Claude
Code adds is put where it sends it: the text of each attachment line as a ``role: "system"``
message in the line's place (consecutive lines one message), and the user's context reminder
as the first block of message 0. ``added`` names each added piece ("i" a message, "i.b" a block)
with how it was rebuilt (``REBUILT`` from the line, ``APPROXIMATE`` where the line does not hold it all).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tui.core.run import LoadWarning, ModelCall
from tui.formats.transcript.attachments import context_reminder, kind_of, render
from tui.formats.transcript.records import API_ERROR, COMPACT_SUMMARY, SYNTHETIC, THINKING, TRANSCRIPT_ONLY, Record

REBUILT, APPROXIMATE = "rebuilt", "approximate"


@dataclass
class Assembled:
    """A Claude Code thread made into API messages and model calls, with counts of what had to be merged or
    moved."""

    messages: list[Any] = field(default_factory=list)
    calls: list[ModelCall] = field(default_factory=list)
    merged_answers: int = 0  # answers written over several lines
    merged_users: int = 0  # user turns made of several lines
    moved_results: int = 0  # user turns whose results had to be put before other blocks
    synthetic: list[int] = field(default_factory=list)  # lines of assistant text Claude Code wrote itself
    thinking: list[int] = field(default_factory=list)  # assistant turns with a thinking block
    transcript_only: list[int] = field(default_factory=list)
    added: dict[str, str] = field(default_factory=dict)  # "i" / "i.b" -> REBUILT | APPROXIMATE
    not_rebuilt: list[tuple[int, str]] = field(default_factory=list)  # attachment lines left out: (line, kind)


def assemble(records: list[Record], client: bool = False, compared: bool = True) -> Assembled:
    """``compared``: the version's requests were compared, so pieces rebuilt from a line are REBUILT (else APPROXIMATE)."""
    assembler = Assembler(client, compared)
    for record in records:
        assembler.add(record)
    return assembler.result()


class Assembler:
    """``assemble`` one line at a time: ``add`` each of a thread's lines in file order, and ``result()``
    gives what ``assemble`` gives for the lines added so far, as often as asked (follow mode adds
    the lines appended to a session and asks again; nothing before them is walked again)."""

    def __init__(self, client: bool = False, compared: bool = True):
        self.out = Assembled()
        self.client = client
        self.rebuilt = REBUILT if compared else APPROXIMATE
        self.system_at = -1  # the system message the last attachment went into
        self.answer: list[Record] = []
        self.answer_key: object = None  # the message.id (or uuid) the answer's lines share
        self.answer_at = -1
        self.pending: list[Record] = []
        self.before: str | None = None  # timestamp of the line before the current answer
        self.last_stamp: str | None = None
        self.first_stamp: str | None = None  # of the first user line with one: the context reminder's date

    def add(self, record: Record) -> None:
        out = self.out
        if self.first_stamp is None and record.kind == "user" and record.timestamp:
            self.first_stamp = record.timestamp
        if record.kind == "attachment":
            words = render(record.content) if self.client else None
            if words is None:
                out.not_rebuilt.append((record.line, kind_of(record.content)))
                return
            if self.pending:
                _flush_user(out, self.pending)
                self.pending = []
            if self.system_at == len(out.messages) - 1 >= 0:
                out.messages[self.system_at] = {"role": "system",
                                                "content": out.messages[self.system_at]["content"] + "\n\n" + words}
            else:
                self.system_at = len(out.messages)
                out.messages.append({"role": "system", "content": words})
                out.added[str(self.system_at)] = self.rebuilt
            self.last_stamp = record.timestamp or self.last_stamp
            return
        if record.kind == "assistant":
            if record.flags & (API_ERROR | SYNTHETIC):
                out.synthetic.append(record.line)
                return
            key = record.key or record.uuid
            if self.answer and key == self.answer_key:
                self.answer.append(record)
                self.last_stamp = record.timestamp or self.last_stamp
                return
            if self.answer:
                _close_answer(out, self.answer, self.answer_at, self.before)
            if self.pending:
                _flush_user(out, self.pending)
                self.pending = []
            self.answer, self.answer_key, self.answer_at, self.before = [record], key, len(out.messages), self.last_stamp
            out.messages.append(None)  # filled when the answer is complete
        else:
            if record.flags & TRANSCRIPT_ONLY and not record.flags & COMPACT_SUMMARY:
                out.transcript_only.append(record.line)
                return
            self.pending.append(record)
        self.last_stamp = record.timestamp or self.last_stamp

    def result(self) -> Assembled:
        """The lines added so far, assembled: the answer still open closed, the user lines pending made a turn
        (in a copy: the next ``add`` goes on from where the lines left off)."""
        out = self.out
        done = Assembled(list(out.messages), list(out.calls), out.merged_answers, out.merged_users, out.moved_results,
                         list(out.synthetic), list(out.thinking), list(out.transcript_only), dict(out.added),
                         list(out.not_rebuilt))
        _close_answer(done, self.answer, self.answer_at, self.before)
        _flush_user(done, self.pending)
        if self.client:
            _add_context(done, self.first_stamp)
        return done


def _add_context(out: Assembled, stamp: str | None) -> None:
    """The user's context reminder, as the first block of message 0 (Claude Code adds it to every request)."""
    first = out.messages[0] if out.messages else None
    block = context_reminder(stamp)
    if not isinstance(first, dict) or first.get("role") != "user" or block is None:
        return
    content = first.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list):
        return
    out.messages[0] = {"role": "user", "content": [block, *content]}
    out.added["0.0"] = APPROXIMATE


def _close_answer(out: Assembled, answer: list[Record], at: int, before: str | None) -> None:
    if not answer:
        return
    last = answer[-1].message
    if len(answer) == 1:
        content = answer[0].content
        stop = last.get("stop_reason")
    else:
        out.merged_answers += 1
        content = []
        for record in answer:
            part = record.content
            content.extend(part if isinstance(part, list) else [{"type": "text", "text": part}])
        stop = None
        for record in reversed(answer):
            stop = record.message.get("stop_reason")
            if stop:
                break
    out.messages[at] = {"role": "assistant", "content": content}
    for record in answer:
        if record.flags & THINKING:
            out.thinking.append(at)
            break
    started = before or answer[0].timestamp
    out.calls.append(ModelCall(at, last.get("usage"), stop or None, last.get("model"), answer[-1].request_id,
                               started, _between(started, answer[-1].timestamp), derived_timing=True))


def _flush_user(out: Assembled, pending: list[Record]) -> None:
    if not pending:
        return
    if len(pending) == 1:
        out.messages.append({"role": "user", "content": pending[0].content})
        return
    out.merged_users += 1
    blocks: list[Any] = []
    for record in pending:
        content = record.content
        if isinstance(content, list):
            blocks.extend(content)
        elif isinstance(content, str) and content:
            blocks.append({"type": "text", "text": content})
    results, others = [], []
    for block in blocks:
        (results if isinstance(block, dict) and block.get("type") == "tool_result" else others).append(block)
    if results and others and blocks != results + others:
        out.moved_results += 1
        blocks = results + others
    out.messages.append({"role": "user", "content": blocks})


def _between(start: str | None, end: str | None) -> float | None:
    if not start or not end:
        return None
    try:
        delta = datetime.fromisoformat(end) - datetime.fromisoformat(start)
    except ValueError:
        return None
    return round(delta.total_seconds() * 1000.0, 3)


def client_notes(built: Assembled, client: bool, version: str | None = None, compared: bool = True) -> list[LoadWarning]:
    """What the loader says of what Claude Code added to the messages, and of what it could not rebuild."""
    notes = []
    if client and not compared:
        notes.append(LoadWarning(f"Claude Code {version} is not among the versions whose requests were compared "
                                 "with its transcript: what it added is rebuilt as those sent it, labelled approximate"))
    systems = sum(1 for key in built.added if "." not in key)
    if built.added:
        parts = [f"{systems} role: system message(s) from its attachment lines (agent and skill listings)"] \
            if systems else []
        if "0.0" in built.added:
            parts.append("the context reminder that opens message 0 (approximate: dated by the session's first "
                         "line; CLAUDE.md text, when there is any, is not recorded)")
        notes.append(LoadWarning("added by Claude Code, in the places it sends them: " + "; ".join(parts)))
    if built.not_rebuilt:
        kinds = sorted({kind for _, kind in built.not_rebuilt})
        if client:
            text = (f"{len(built.not_rebuilt)} attachment line(s) not rebuilt ({', '.join(kinds)}): Claude Code "
                    "may have sent what they hold, so the messages it sent may differ")
        else:
            text = (f"skipped {len(built.not_rebuilt)} attachment line(s) ({', '.join(kinds)}): turnscope does not "
                    f"rebuild what this Claude Code version ({version or 'unknown'}) sends of them, so the messages it "
                    "sent may differ")
        notes.append(LoadWarning(text, line=built.not_rebuilt[0][0]))
    return notes
