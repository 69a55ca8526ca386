"""Make untrusted run text safe to put on a terminal.

Tool results, model output, tool names and ids come from the run and may hold escape
sequences (CSI, OSC 52 clipboard writes, OSC 8 links, window titles), BEL, C1 controls or
bidi overrides. ``visible`` replaces every such character with a visible escape such as
``\\x1b`` so that nothing in a run can drive the terminal; newlines and tabs are kept
(``one_line`` also shows those). Markup is not interpreted anywhere: the CLI prints plain
strings and the app renders ``rich.text.Text`` built from plain strings, never markup.

Behind the call sites there is one backstop per surface: the command line writes its text
through ``VisibleStream`` (so a forgotten ``print`` of a path, or argparse echoing an
argument, cannot send a control byte), JSON goes to a terminal through ``json_for_terminal``,
and the app draws every line through a filter built on ``visible`` (``tui.app.safe_lines``).
"""

from __future__ import annotations

import re
import sys
from contextlib import contextmanager
from typing import Iterator, TextIO

# C0 controls except tab and newline, DEL, C1 controls, bidi embeddings/overrides/isolates,
# zero-width and line/paragraph separators that can reorder or hide text.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_UNSAFE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SAFE_ASCII = bytes(range(0x20, 0x7F)) + b"\n\t"
_HIGH = bytes(range(0x80, 0x100))


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x0A:
        return "\\n"
    if code == 0x09:
        return "\\t"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control or direction-changing character shown as an escape."""
    if text.isprintable():  # fast path: every character escaped below is non-printable
        return text
    text = _UNSAFE.sub(_escape, text)
    if _SURROGATE.search(text):
        text = _SURROGATE.sub(_escape, text)
    return text


def one_line(text: str) -> str:
    """Like ``visible``, and newlines and tabs too, for one-line summaries."""
    if text.isprintable():
        return text
    text = _UNSAFE_LINE.sub(_escape, text)
    if _SURROGATE.search(text):
        text = _SURROGATE.sub(_escape, text)
    return text


def already_visible(text: str) -> bool:
    """True when ``visible(text)`` would change nothing; fast on large texts.

    The printable ASCII bytes (and newline, tab) are deleted from the UTF-8 encoding; what
    remains are control bytes and the complete multi-byte sequences, in order, so decoding
    it gives exactly the non-ASCII characters for the one check that needs a regex.
    """
    return utf8_already_visible(text.encode("utf-8", "surrogatepass"))


def utf8_already_visible(data: bytes) -> bool:
    """``already_visible`` for text already encoded as UTF-8 (surrogates passed through)."""
    rest = data.translate(None, _SAFE_ASCII)
    if not rest:
        return True
    if rest.translate(None, _HIGH):
        return False  # an ASCII control character
    others = rest.decode("utf-8", "surrogatepass")
    return _UNSAFE.search(others) is None and _SURROGATE.search(others) is None


# What JSON leaves raw inside strings but a terminal may act on: DEL, C1, bidi, zero-width, surrogates.
_JSON_RAW = re.compile("[\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]")


def json_for_terminal(data: bytes) -> bytes:
    """JSON text as a terminal may safely receive it: the characters JSON leaves raw but a terminal
    may act on are written as ``\\uXXXX`` escapes. The JSON value is the same (they can only occur
    inside strings, and JSON already escapes every C0 control)."""
    if utf8_already_visible(data):
        return data
    text = data.decode("utf-8", "surrogatepass")
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


class VisibleStream:
    """A text stream whose writes go through ``visible``: nothing written as text can drive the
    terminal. Everything else (``buffer``, ``isatty``, ``encoding``, ``flush``) is the stream's own;
    ``raw`` is the stream itself, for the one writer that means its control bytes (a progress bar's
    carriage return)."""

    def __init__(self, stream: TextIO) -> None:
        self.raw = stream

    def write(self, text: str) -> int:
        self.raw.write(visible(text))
        return len(text)

    def writelines(self, lines) -> None:  # noqa: ANN001 - any iterable of str, like TextIO's
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):  # noqa: ANN204 - whatever the stream has
        return getattr(self.raw, name)


def raw_stream(stream) -> TextIO:  # noqa: ANN001 - a stream, wrapped or not
    """The stream under a ``VisibleStream`` (or ``stream`` itself)."""
    return stream.raw if isinstance(stream, VisibleStream) else stream


@contextmanager
def visible_streams() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` as ``VisibleStream`` for the duration (the command line's backstop)."""
    saved = sys.stdout, sys.stderr
    if not isinstance(sys.stdout, VisibleStream):
        sys.stdout = VisibleStream(sys.stdout)  # type: ignore[assignment]
    if not isinstance(sys.stderr, VisibleStream):
        sys.stderr = VisibleStream(sys.stderr)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
