"""Which messages can hold a value the wanted index still seeks, found at C speed.

Walking a message string by string (``tui.core.wanted``) costs the Python of every string and
word in it; most messages of a long run hold none of the values still sought (each is placed
where it first occurs, usually its own tool call, and is sought no more). ``Sieve.needs(message)``
answers, before the walk, whether the message *may* hold an event of a key still sought: one
``orjson.dumps`` of its content, a byte translation and one Aho-Corasick scan (``ahocorasick_rs``,
which finds thousands of patterns in one pass; Python's ``re`` would try each at every position)
of every value's pattern at once. A message it rules out is not walked: the walk would have
placed nothing in it. A yes only means the message is walked as before, so the index is the
same whatever the sieve lets through. In a message it lets through, each string is asked the
same question (``Sieve.holds``: its own characters, scanned the same way) before it is read
as words or parsed as JSON text; the wanted index remembers a short string ruled out (the keys
sought only become fewer). A pattern matched once all its keys are placed is marked, so its
later matches cost an index each.

Why a no is safe: every event of a wanted key is bounded. A string is placed whole (the string
is the value), as a token (a maximal run of ``\\w`` joined by ``- . @ / : +``, or a word run in
one) or as text (a bounded occurrence, ``prefixtext.bounded``); a number as a JSON number, a
string or token in canonical form, or a grouped ``8,900``. So the value's characters stand in
the decoded string with no ``\\w`` beside an edge that is a ``\\w``. The scan reads the JSON text
instead of the decoded strings, with every byte that is not an ASCII letter, digit or ``_``
turned into one separator byte (``\\x00``), and looks for the value translated the same way,
with a separator at each edge that is a ``\\w``. What the JSON text may do to a value:

- ``orjson`` escapes ``"``, ``\\`` and control characters only: a value holding one of them is
  looked for by its longest stretch without them (no separator on the sides cut);
- an escape glues a letter to the next word (``\\n4471``): the letter of ``\\n \\t \\r \\b \\f`` is
  blanked first (``_ESCAPES``); where that blanks a value's own first letter (a literal
  backslash before it), the value less that letter is looked for too;
- JSON text inside a string (a tool result's rows) may spell any character as ``\\uXXXX`` or
  ``/`` as ``\\/``: a message with either is walked;
- a number may be written so its digits do not show: with an exponent (``4.471e3``: a digit,
  ``e`` and a sign or digit, checked in place by ``_exponent``), or as a decimal that rounds
  across an integer (``4470.9999999`` parses to 4471.0; below 2**32 that takes six nines or
  zeros after the point): such messages are walked. Past 2**32 a float's integer part may
  round with fewer, so while such a number is sought a message with a long decimal
  (``_BIG``) is walked too; a number with no digits to look for (infinite) makes every message
  walked while it is sought.
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson
from ahocorasick_rs import BytesAhoCorasick, Implementation

try:  # built by ``pip install`` where a C compiler is found (pyproject's ext-modules); else ``_prepared``
    from tui.core.sieve_text import prepare as _compiled_prepare
except ImportError:  # pragma: no cover - depends on the install
    _compiled_prepare = None

WORD = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
#: ASCII letters and the ASCII characters ``str.split`` splits at: a string of only these is "plain".
PLAIN = (b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
         b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")
PLAIN_CHARS = frozenset(PLAIN.decode("ascii"))
#: A block's string this long or longer is looked at before the scan: a plain one is left out of it.
LONG = 1024
_NOT_PLAIN = re.compile("[^" + re.escape(PLAIN.decode("ascii")) + "]")
SEP = 0
#: A byte of the JSON text as the scan reads it: ASCII word bytes themselves, every other one the separator.
TABLE = bytes(b if b in WORD else SEP for b in range(256))
_ESCAPES = re.compile(rb"\\[nrtbf]")
#: What JSON text inside a string may hide a character with (``\\uXXXX``, ``\\/``): such text is walked.
_HIDDEN = re.compile(rb"\\[u/]")
#: What a string's pattern is cut at: the characters orjson writes as escapes.
_UNSAFE = re.compile(r'["\\\x00-\x1f]')
#: A decimal whose integer part may not be the digits of the float it parses to, past 2**32.
_BIG = re.compile(rb"\d{10}\.\d|\d,\d{3}\.\d")
BIG = 2 ** 32
#: Written so a number's digits may not show: an exponent (checked in place), a decimal rounding over an integer.
_EXPONENTS = [f"{a}{e}{b}".encode() for a in range(10) for e in "eE" for b in [*map(str, range(10)), "\x00"]]
_ROUNDING = [b"\x00999999", b"\x00000000"]
#: Rebuild the automaton when the keys still sought fall below this share of those it was built for,
#: or matches of keys placed since outnumber its patterns this many times (a placed pattern's match costs
#: an index; on the 100 MB run a quarter took 7 builds against 16 at a half, and the index less CPU).
REBUILD = 0.25
STALE_PER_PATTERN = 64
EXPONENT, ROUNDING = "exponent", "rounding"


def _word(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


def string_patterns(value: str) -> list[bytes] | None:
    """The patterns a message holding an event of string ``value`` holds one of; None: none can be given."""
    pieces = _UNSAFE.split(value)
    k = max(range(len(pieces)), key=lambda i: len(pieces[i]))
    piece = pieces[k]
    if not piece:
        return None
    try:
        body = piece.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: orjson would not write it
        return None
    # A separator stands at an edge that is a \w, and at a cut: the escape there starts with a backslash.
    left = b"\x00" if k > 0 or _word(value[0]) else b""
    right = b"\x00" if k < len(pieces) - 1 or _word(value[-1]) else b""
    out = [left + body.translate(TABLE) + right]
    if piece[0] in "nrtbf":  # blanked by _ESCAPES after a literal backslash
        out.append(b"\x00" + body[1:].translate(TABLE) + right)
    return out


def number_patterns(value: int | float) -> list[bytes] | None:
    """The patterns a message holding an event of number ``value`` holds one of (its integer digits,
    plain or grouped); None for a number with no digits."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    whole = int(abs(value))
    out = [b"\x00%d\x00" % whole]
    if whole >= 1000:
        out.append(b"\x00" + f"{whole:,}".encode().translate(TABLE) + b"\x00")
    return out


def _exponent(h: bytes, start: int) -> bool:
    """The digit at ``start`` (followed by ``e`` or ``E``) ends the mantissa of a JSON number: its digits,
    perhaps a point and more digits, have a separator before them."""
    j = start
    while j > 0 and 48 <= h[j - 1] <= 57:
        j -= 1
    if j > 1 and h[j - 1] == SEP and 48 <= h[j - 2] <= 57:
        j -= 1
        while j > 0 and 48 <= h[j - 1] <= 57:
            j -= 1
    return j == 0 or h[j - 1] == SEP


class Sieve:
    """Tells the wanted index (``tui.core.wanted.WantedScope``) which messages may hold an event of a key
    it still seeks; it reads the scope's sets of keys still sought, which only shrink.

    The automaton is rebuilt for the keys still sought when matches of keys placed since it was built
    (each a few Python operations) have cost about what a build does, or three quarters of its keys are
    placed."""

    def __init__(self, scope: Any) -> None:
        self.scope = scope
        self._patterns: dict[tuple[str, Any], list[bytes] | None] = {}
        for value in scope._want_strings | scope._seeking:
            self._patterns["s", value] = string_patterns(value)
        for value in scope._want_numbers:
            self._patterns["n", value] = number_patterns(value)
        # Strings sought that a plain string could hold an event of: while there are none, plain strings
        # are left out of the scan.
        self._plainish = {value for value in scope._want_strings | scope._seeking if PLAIN_CHARS.issuperset(value)}
        self._plain_count = -1
        self._build()

    def _sought(self, tag: str, value: Any) -> bool:
        scope = self.scope
        if tag == "s":
            return value in scope._want_strings or value in scope._seeking
        return value in scope._want_numbers

    def _count(self) -> int:
        scope = self.scope
        return len(scope._want_strings) + len(scope._seeking) + len(scope._want_numbers)

    def _build(self) -> None:
        scope = self.scope
        keys: dict[bytes, list] = {}
        wild = []
        for key, found in self._patterns.items():
            if not self._sought(*key):
                continue
            if found is None:
                wild.append(key)
                continue
            for pattern in found:
                keys.setdefault(pattern, []).append(key)
        if scope._want_numbers:
            for pattern in _EXPONENTS:
                keys.setdefault(pattern, []).append(EXPONENT)
            for pattern in _ROUNDING:
                keys.setdefault(pattern, []).append(ROUNDING)
        self._big = any(abs(n) >= BIG for n in scope._want_numbers if math.isfinite(n))
        self._wild = wild
        self._keys = list(keys.values())
        self._placed = bytearray(len(self._keys))  # 1: the pattern's keys are all placed
        self._automaton = BytesAhoCorasick(list(keys), implementation=Implementation.DFA) if keys else None
        self._built = self._count()
        self._stale = 0
        self._stale_limit = STALE_PER_PATTERN * len(keys)

    def needs(self, message: Any) -> bool:
        """Whether ``message`` may hold an event of a key still sought (False: walking it would place none)."""
        if not isinstance(message, dict):
            return False  # no blocks (``blocks_of``)
        count = self._count()  # (counted once per message: the same until a walk places something)
        if not count:
            return False
        content = message.get("content")
        if self._plain_free(count):
            content = _without_plain(content)
        try:
            data = orjson.dumps(content)
        except (TypeError, orjson.JSONEncodeError):
            return True
        return self._may_hold(data, count)

    def _plain_free(self, count: int | None = None) -> bool:
        """No string still sought is made of ASCII letters and whitespace only. Then a plain string holds no
        event of a key sought: its tokens are words of letters, it holds no digit (no number), it is no JSON
        text, and a value occurring in it, or equal to it, would be plain too."""
        plainish = self._plainish
        if plainish:
            count = self._count() if count is None else count
            if count != self._plain_count:  # some were placed since: those are not sought any more
                scope = self.scope
                self._plainish = plainish = {v for v in plainish if v in scope._want_strings or v in scope._seeking}
                self._plain_count = count
        return not plainish

    def holds(self, text: str) -> bool:
        """Whether the string ``text`` may hold an event of a key still sought, as a token, a number, a
        bounded occurrence or inside the JSON text it is (False: walking it would place none). Its
        characters are what the JSON text of its message spells, without the escapes: the same scan."""
        count = self._count()
        if text.isascii():
            data = text.encode("ascii")
            if not data.translate(None, PLAIN) and self._plain_free(count):
                return False
        else:
            try:
                data = text.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate
                return True
        return self._may_hold(data, count)

    def may_hold(self, data: bytes) -> bool:
        """Whether JSON text (or a string's UTF-8) ``data`` may hold an event of a key still sought."""
        return self._may_hold(data, self._count())

    def _may_hold(self, data: bytes, count: int) -> bool:
        if not count:
            return False
        if count < self._built * REBUILD or self._stale > self._stale_limit:
            self._build()
        if self._wild and any(self._sought(*key) for key in self._wild):
            return True
        if self._big and _BIG.search(data):
            return True
        h = prepare(data)
        if h is None:  # a character may hide behind an escape
            return True
        if self._automaton is None:
            return False
        keys, sought, placed = self._keys, self._sought, self._placed
        stale = 0
        for pattern, start, _ in self._automaton.find_matches_as_indexes(h, overlapping=True):
            stale += 1
            if placed[pattern]:
                continue
            live = False
            for key in keys[pattern]:
                if key is EXPONENT:
                    if _exponent(h, start):
                        return True
                    live = True
                elif key is ROUNDING or sought(*key):
                    return True
            if not live:  # every key of the pattern is placed: none will be sought again
                placed[pattern] = 1
        self._stale += stale
        return False


def _prepared(data: bytes) -> bytes | None:
    """What the scan reads of JSON text ``data``: None when an escape may hide a character (``\\u``, ``\\/``), else
    its bytes translated (``TABLE``) with the letters of ``\\n \\r \\t \\b \\f`` escapes blanked, between two
    separators. (``sieve_text.prepare`` does the same in one pass, where it was built.)"""
    escaped = b"\\" in data
    if escaped:
        if _HIDDEN.search(data):
            return None
        data = _ESCAPES.sub(b"  ", data)
    return b"\x00" + data.translate(TABLE) + b"\x00"


#: The scan's view of JSON text: the compiled pass where it was built, else the Python passes (the same bytes).
prepare = _compiled_prepare or _prepared


def _plain(text: str) -> bool:
    """``text`` is ASCII letters and whitespace only (a look at its head first: most that are not show it there)."""
    return text.isascii() and _NOT_PLAIN.search(text, 0, 64) is None and not text.encode("ascii").translate(None, PLAIN)


def _without_plain(content: Any) -> Any:
    """``content`` with its long plain strings (a text block's, a tool result's) made empty: what the scan
    reads while no plain string can hold a key sought (the blocks are copied, never changed)."""
    if isinstance(content, str):
        return "" if len(content) >= LONG and _plain(content) else content
    if not isinstance(content, list):
        return content
    out = None
    for k, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        for key in ("text", "content"):
            value = block.get(key)
            if isinstance(value, str) and len(value) >= LONG and _plain(value):
                if out is None:
                    out = list(content)
                out[k] = block = {**block, key: ""}
    return content if out is None else out
