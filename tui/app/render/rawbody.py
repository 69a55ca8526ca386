"""The exact JSON body of one request, and its pretty-printed lines, indexed for drawing line by line.

``RawBody`` is built in a worker and then read a line at a time by the Raw view. ``exact`` is the body
as POSTed (``RequestAt.bytes``); the pretty lines are the same JSON with whitespace added for reading
(``jsonio.dumps(body, indent=True)``, line for line). Lines are highlighted one at a time with a small
JSON tokenizer, so only what is on screen costs anything.

A late request of a long run is the whole run: at the last index of a 100 MB run, holding its exact
bytes, its pretty text and their decoded forms took the app from 233 MB to 579 MB. So nothing the size of
the body is kept. The pretty text is the shell of the body (every key but the messages) around the
messages, each pretty-printed on its own and indented one level more; the build serialises each message
once to count its lines and their widths (one message at a time: the GIL goes back to the UI between
them), and a line is made again from its message when it is drawn (the last few messages made are kept).
The exact bytes are hashed and counted a message at a time, never held whole, and the exact mode's rows
are windows made from the messages they fall in (where the bytes were recorded, they are decoded whole
when the mode is first used); ``exact`` serialises them again where they were not recorded. A test holds the lines, joined, to the whole body
pretty-printed at once, on every real run.
"""

from __future__ import annotations

import hashlib
import os
import re
from array import array
from bisect import bisect_right
from functools import partial
from typing import Any

from rich.text import Text

from tui.app.render.lines import display
from tui.core import jsonio
from tui.core.memo import BoundedMemo
from tui.core.prefix import RequestAt, request_at
from tui.core.run import Run

_TOKEN = re.compile(r'("(?:[^"\\]|\\.)*"?)(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(true|false|null)|([{}\[\],])')
STYLE_KEY, STYLE_STRING, STYLE_NUMBER, STYLE_LITERAL, STYLE_PUNCT = "bold blue", "green", "magenta", "cyan", "dim"
#: Messages whose pretty lines are kept, made again from the message past that (a screen shows a few).
KEPT_MESSAGES = 16
#: A message's lines inside the body's ``"messages"`` list: one level deeper than on their own.
_INDENT = b"    "


class RawBody:
    """One request body: its size and sha256, the pretty lines by index, the exact bytes on demand."""

    def __init__(self, index: int, request: RequestAt):
        self.index = index
        #: What ``exact`` is: the recorded bytes, re-serialised parsed JSON, or a reconstructed body.
        self.wording = request.wording
        self._request = request
        body = request.body
        messages = body.get("messages") if isinstance(body, dict) else None
        shell = jsonio.dumps({**body, "messages": []} if isinstance(messages, list) and messages else body,
                             indent=True).split(b"\n")
        self._messages: list[Any] = messages if isinstance(messages, list) and messages else []
        at = _messages_line(shell) if self._messages else None
        if at is None:  # no messages (or not a list): the shell is the whole body
            self._messages, self._head, self._tail = [], shell, []
        else:
            comma = shell[at].endswith(b",")
            self._head = [*shell[:at], b'  "messages": [']
            self._tail = [b"  ]," if comma else b"  ]", *shell[at + 1:]]
        messages = self._messages
        #: Each message's pretty lines, made again when drawn (a few kept: a screen shows a few messages).
        self._lines_of = BoundedMemo(lambda k: jsonio.dumps(messages[k], indent=True).split(b"\n"), KEPT_MESSAGES)
        #: Line index where each message's lines end (the head's lines before the first).
        self._ends = array("q")
        width = max(map(len, (*self._head, *self._tail)), default=0)
        line = len(self._head)
        final = len(self._messages) - 1
        exact = self._exact = _ExactText(request, bool(self._messages))
        for k, message in enumerate(self._messages):
            exact.add(message, k)
            lines = jsonio.dumps(message, indent=True).split(b"\n")
            line += len(lines)
            self._ends.append(line)
            # (a message's last line takes a comma, but the final message's)
            width = max(width, len(_INDENT) + max(max(map(len, lines)), len(lines[-1]) + (k < final)))
        self._length = line + len(self._tail)
        self.width = width
        #: The exact bytes' length and sha256 (counted as they were made, message by message: not kept), and
        #: its length in characters (the exact mode's rows).
        self.size, self.sha256 = exact.done()
        self.exact_chars = exact.chars

    @classmethod
    def build(cls, run: Run, index: int) -> RawBody:
        return cls(index, request_at(run, index))

    def __len__(self) -> int:
        return self._length

    def line(self, y: int) -> str:
        return self.pretty_line(y).decode("utf-8", "replace")

    def pretty_line(self, y: int) -> bytes:
        """Line ``y`` of the pretty text, as bytes."""
        head = len(self._head)
        if y < head:
            return self._head[y]
        ends = self._ends
        if ends and y < ends[-1]:
            k = bisect_right(ends, y)
            lines = self._lines_of[k]
            local = y - (ends[k - 1] if k else head)
            text = _INDENT + lines[local]
            return text + b"," if local == len(lines) - 1 and k < len(ends) - 1 else text
        return self._tail[y - (ends[-1] if ends else head)]

    @property
    def pretty(self) -> bytes:
        """The whole pretty text (as big as the body: for tests and small bodies, never drawn from)."""
        return b"\n".join(self.pretty_line(y) for y in range(len(self)))

    @property
    def exact(self) -> bytes:
        """The body as POSTed: the recorded bytes, or serialised again on each use (not kept)."""
        return self._request.bytes()

    def exact_window(self, start: int, end: int) -> str:
        """Characters ``start`` to ``end`` of the exact body as text (what the exact mode wraps), made from the
        messages they fall in."""
        return self._exact.window(start, end)

    def same_json(self) -> bool:
        """The pretty lines parse to exactly the value the exact bytes parse to."""
        return jsonio.loads(self.pretty) == jsonio.loads(self.exact)


class _ExactText:
    """A request's exact bytes without holding them: their length and sha256, and any window of them as text.
    Recorded bytes (or a body without messages) are one piece, decoded when a window is first asked for. A
    re-serialised body is its shell's compact bytes around each message's (``jsonio.dumps`` writes no whitespace,
    so the body's bytes are exactly those pieces joined: the Raw view's test holds them to it), a window made
    from the messages it falls in."""

    def __init__(self, request: RequestAt, by_message: bool):
        self._request = request
        self._hash, self.size, self._tail = hashlib.sha256(), 0, ""
        self._messages: list[Any] = []
        #: Where each piece starts, in characters: the head, each message (with the comma before it), the tail.
        self._starts = array("q", [0])
        self._whole = request.raw is not None or not by_message
        if not self._whole:
            mark = f"turnscope-messages-{os.urandom(8).hex()}"  # (in no body: where the messages go)
            shell = jsonio.dumps({**request.body, "messages": [mark]})
            needle = b'"messages":["' + mark.encode() + b'"]'
            if shell.count(needle) == 1:
                head, tail = shell.split(needle)
                self._head = self._add(head + b'"messages":[')
                self._tail_bytes = b"]" + tail
                self._messages = request.body["messages"]
            else:  # pragma: no cover - a top-level "messages" key is written once
                self._whole = True
        if self._whole:
            self._head = self._add(request.bytes())
            self._whole_text: str | None = None
        #: Each message's compact text, with the comma before it, made again when drawn (a few kept).
        self._texts = BoundedMemo(partial(_compact_text, self._messages), KEPT_MESSAGES)

    def _add(self, data: bytes) -> str:
        """Hash and count ``data`` (bytes and characters: the next piece starts after it); its text."""
        self._hash.update(data)
        self.size += len(data)
        text = "" if data.isascii() else data.decode("utf-8", "replace")
        self._starts.append(self._starts[-1] + (len(text) if text else len(data)))
        return text or data.decode("ascii")

    def add(self, message: Any, k: int) -> None:
        if not self._whole:
            data = jsonio.dumps(message)
            self._hash.update(b"," + data if k else data)
            self.size += len(data) + bool(k)
            chars = len(data) if data.isascii() else len(data.decode("utf-8", "replace"))
            self._starts.append(self._starts[-1] + chars + bool(k))

    def done(self) -> tuple[int, str]:
        if self._whole:
            self._head = ""  # (the recorded bytes are the source's: decoded again when a window is asked for)
        else:
            self._tail = self._add(self._tail_bytes)
        return self.size, self._hash.hexdigest()

    @property
    def chars(self) -> int:
        return self._starts[-1]

    def window(self, start: int, end: int) -> str:
        if self._whole:
            if self._whole_text is None:
                self._whole_text = self._request.bytes().decode("utf-8", "replace")
            return self._whole_text[start:end]
        out, at, starts = [], max(start, 0), self._starts
        end = min(end, self.chars)
        while at < end:
            piece = bisect_right(starts, at) - 1
            text = self._piece(piece)
            taken = text[at - starts[piece]:end - starts[piece]]
            if not taken:  # pragma: no cover - the pieces' lengths are their texts' (a test holds every row)
                break
            out.append(taken)
            at += len(taken)
        return "".join(out)

    def _piece(self, piece: int) -> str:
        if piece == 0:
            return self._head
        if piece == len(self._starts) - 2:
            return self._tail
        return self._texts[piece - 1]


def _compact_text(messages: list[Any], k: int) -> str:
    """Message ``k``'s exact text in the body, with the comma before it."""
    return ("," if k else "") + jsonio.dumps(messages[k]).decode("utf-8", "replace")


def _messages_line(shell: list[bytes]) -> int | None:
    """The line of the shell that holds the body's (emptied) ``"messages"`` list: a top-level key is indented two."""
    for k, line in enumerate(shell):
        if line in (b'  "messages": []', b'  "messages": [],'):
            return k
    return None


def highlight(window: str) -> Text:
    """A window of one JSON line, made visible and coloured by token."""
    text = Text(display(window), no_wrap=True, end="")
    plain = text.plain
    for match in _TOKEN.finditer(plain):
        if match.group(1) is not None:
            style = STYLE_KEY if match.group(2) else STYLE_STRING
            text.stylize(style, match.start(1), match.end(1))
        elif match.group(3) is not None:
            text.stylize(STYLE_NUMBER, match.start(), match.end())
        elif match.group(4) is not None:
            text.stylize(STYLE_LITERAL, match.start(), match.end())
        else:
            text.stylize(STYLE_PUNCT, match.start(), match.end())
    return text
