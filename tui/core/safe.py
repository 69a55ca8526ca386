"""Make untrusted run text safe to put on a terminal, and make invisible text visible.

Tool results, model output, tool names and ids come from the run and may hold escape
sequences (CSI, OSC 52 clipboard writes, OSC 8 links, window titles), BEL, C1 controls, bidi
overrides, or text written to be read by a model and missed by a person: Unicode tag characters
(U+E0000-E007F, "ASCII smuggling"), zero-width characters between letters, variation selectors
carrying bytes. ``visible`` replaces every such character with something a person can see:
a control or format character as its escape (``\\x1b``, ``\\u200b``, ``\\U000e0001``), a run of tag
characters decoded (``⟨tags: "ignore previous instructions"⟩``), a run of variation selectors
as the bytes they carry (``⟨variation selectors: "..."⟩``); newlines and tabs are kept (``one_line``
also shows those). Markup is not interpreted anywhere: the CLI prints plain strings and the app
renders ``rich.text.Text`` built from plain strings, never markup.

The set of characters made visible is Unicode's, not a hand list: the control (Cc), format (Cf),
surrogate (Cs) and line/paragraph separator (Zl, Zp) categories, every ``Default_Ignorable_Code_Point``
(which adds variation selectors, Hangul fillers, the combining grapheme joiner and the like) and the
whole tag block, as the ``regex`` library's Unicode property tables give them (the standard ``re`` has
no property classes, and walking ``unicodedata`` over every code point costs a third of a second at
start-up). One exception is kept drawn as it is: a single emoji presentation selector (U+FE0E/FE0F)
right after a symbol (``⚠️``), which hides nothing.

Behind the call sites there is one backstop per surface: the command line writes its text
through ``VisibleStream`` (so a forgotten ``print`` of a path, or argparse echoing an
argument, cannot send a control byte), JSON goes to a terminal through ``json_for_terminal``,
and the app draws every line through a filter built on ``visible`` (``tui.app.safe_lines``).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, TextIO

if TYPE_CHECKING:
    import regex

#: Every character a terminal must not receive as it is, tab and newline included.
INVISIBLE_CLASS = (r"\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}"
                   r"\U000e0000-\U000e007f")
TAGS = "\U000e0000-\U000e007f"
SELECTORS = "\ufe00-\ufe0f\U000e0100-\U000e01ef"
#: The patterns, compiled on first use (``_Pattern``): importing the regex library and compiling its
#: Unicode classes was a third of importing the loaders, and loading a run never needs them.
_PATTERNS = {
    "_ONE": rf"(?V1)[{TAGS}]+|[{SELECTORS}]+|[[{INVISIBLE_CLASS}]--[\t\n]]",
    "_ONE_LINE": rf"(?V1)[{TAGS}]+|[{SELECTORS}]+|[{INVISIBLE_CLASS}]",
    "_ANY": rf"(?V1)[[{INVISIBLE_CLASS}]--[\t\n]]",
    # What JSON leaves raw inside strings but a terminal may act on, or a person would not see.
    "_JSON_RAW": rf"(?V1)[[{INVISIBLE_CLASS}]--[\x00-\x1f]]",
    "_SYMBOL": r"\p{So}",
}


class _Pattern:
    """Stands in for one of ``_PATTERNS`` until first used; then every pattern is compiled and takes
    its place in the module, so later calls find the compiled one itself."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, attr: str) -> Any:
        pattern = globals()[self.name]
        return getattr(_compiled()[self.name] if pattern is self else pattern, attr)


def _compiled() -> dict[str, Any]:
    import regex

    done = {name: regex.compile(pattern) for name, pattern in _PATTERNS.items()}
    globals().update(done)
    return done


_ONE = _ONE_LINE = _ANY = _JSON_RAW = _SYMBOL = None  # (set just below: named here for readers and linters)
globals().update({name: _Pattern(name) for name in _PATTERNS})
_SAFE_ASCII = bytes(range(0x20, 0x7F)) + b"\n\t"
_HIGH = bytes(range(0x80, 0x100))
_PRESENTATION = "\ufe0e\ufe0f"
#: The printable characters up to U+25FF that are invisible all the same (default-ignorable: the combining
#: grapheme joiner, two Hangul fillers, two Khmer vowels, Mongolian variation selectors); ``_drawn``.
_PRINTABLE_IGNORABLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f")
#: Texts longer than this go to the patterns directly (``_drawn`` is for a line's few characters).
_DRAWN_MAX = 256
_BELOW_2600 = bytes(range(0x26))


def _drawn(text: str) -> bool:
    """True when ``visible`` and ``one_line`` leave ``text`` as it is, known without the regex library: a short
    text, every character printable, none past U+25FF (Latin, Greek, Cyrillic, punctuation, arrows, box
    drawing, shapes: what the app draws itself, ``▶ · … ↳ ▏``), none of ``_PRINTABLE_IGNORABLE``. Then the
    first screen does not import and compile the patterns (30 ms of CPU at start-up). ``tests/core/test_safe.py``
    holds it to the patterns for every character it passes."""
    if len(text) > _DRAWN_MAX or text.encode("utf-16-le", "surrogatepass")[1::2].translate(None, _BELOW_2600):
        return False  # long, or a character past U+25FF (each character's high byte, at C speed)
    return text.isprintable() and _PRINTABLE_IGNORABLE.isdisjoint(text)


def _code(code: int) -> str:
    if code == 0x0A:
        return "\\n"
    if code == 0x09:
        return "\\t"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def decode_tags(run: str) -> str:
    """A run of tag characters as the ASCII it mirrors; a tag without an ASCII twin as its escape."""
    return "".join(chr(ord(c) - 0xE0000) if 0xE0020 <= ord(c) <= 0xE007E else _code(ord(c)) for c in run)


def selector_bytes(run: str) -> bytes:
    """The bytes a run of variation selectors carries: U+FE00-FE0F are 0-15, U+E0100-E01EF 16-255."""
    return bytes(ord(c) - 0xFE00 if ord(c) <= 0xFE0F else ord(c) - 0xE0100 + 16 for c in run)


def decode_selectors(run: str) -> str:
    """What a run of variation selectors says: its bytes as UTF-8 text when they are, else as hex."""
    data = selector_bytes(run)
    try:
        return '"' + one_line(data.decode("utf-8")) + '"'
    except UnicodeDecodeError:
        return " ".join(f"{b:02x}" for b in data)


def _is_presentation(match: regex.Match[str]) -> bool:
    """A single emoji presentation selector right after a symbol: ``⚠️``, drawn as it is."""
    text, start = match.group(), match.start()
    return (len(text) == 1 and text in _PRESENTATION and start > 0
            and _SYMBOL.match(match.string[start - 1]) is not None)


def _escape(match: regex.Match[str]) -> str:
    text = match.group()
    first = ord(text[0])
    if 0xE0000 <= first <= 0xE007F:
        return f'⟨tags: "{decode_tags(text)}"⟩'
    if 0xFE00 <= first <= 0xFE0F or 0xE0100 <= first <= 0xE01EF:
        if _is_presentation(match):
            return text
        if len(text) == 1:
            return _code(first)
        return f"⟨variation selectors: {decode_selectors(text)}⟩"
    return _code(first)


def visible(text: str) -> str:
    """``text`` with every control, format or invisible character shown (see the module's text)."""
    if text.isascii() and text.isprintable():  # the fast path: nothing below touches printable ASCII
        return text
    if _drawn(text):
        return text
    return _ONE.sub(_escape, text)


def one_line(text: str) -> str:
    """Like ``visible``, and newlines and tabs too, for one-line summaries."""
    if text.isascii() and text.isprintable():
        return text
    if _drawn(text):
        return text
    return _ONE_LINE.sub(_escape, text)


def _unchanged(text: str) -> bool:
    """True when ``visible`` leaves ``text`` as it is (only presentation selectors after symbols)."""
    return all(_is_presentation(m) for m in _ONE.finditer(text))


def already_visible(text: str) -> bool:
    """True when ``visible(text)`` would change nothing; fast on large texts.

    The printable ASCII bytes (and newline, tab) are deleted from the UTF-8 encoding; what
    remains are control bytes and the complete multi-byte sequences, in order, so decoding
    it gives exactly the non-ASCII characters for the one check that needs a regex.
    """
    if text.isascii():
        return text.isprintable() or _ANY.search(text) is None
    return utf8_already_visible(text.encode("utf-8", "surrogatepass"))


def utf8_already_visible(data: bytes) -> bool:
    """``already_visible`` for text already encoded as UTF-8 (surrogates passed through)."""
    rest = data.translate(None, _SAFE_ASCII)
    if not rest:
        return True
    if rest.translate(None, _HIGH):
        return False  # an ASCII control character
    others = rest.decode("utf-8", "surrogatepass")
    if _drawn(others) or _ANY.search(others) is None:
        return True
    # A presentation selector needs the character before it, which the deletion kept (it is non-ASCII).
    return _unchanged(others)


def _json_escape(match: regex.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_for_terminal(data: bytes) -> bytes:
    """JSON text as a terminal may safely receive it: the characters JSON leaves raw but a terminal
    may act on (or a person would not see) are written as ``\\uXXXX`` escapes (a surrogate pair above
    U+FFFF). The JSON value is the same (they can only occur inside strings, and JSON already escapes
    every C0 control)."""
    if utf8_already_visible(data):
        return data
    text = data.decode("utf-8", "surrogatepass")
    return _JSON_RAW.sub(_json_escape, text).encode("utf-8")


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
