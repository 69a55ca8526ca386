"""The value index of a run's messages, for only the values its tool calls hold.

Tracing asks the index about one kind of value only: the scalars of the run's ``tool_use``
inputs, known before any message is walked. ``WantedScope`` walks the messages exactly as the full
index (``tui.core.valueindex.Scope``) does and keeps, for each wanted key, the first place that
index would give it; every other key is neither built nor stored. It also finds each wanted
string's first bounded occurrence in the prefix's text (what ``Scope.search`` would find), in the
same walk, so no prefix is scanned afterwards.

Why it is exact: the full index gives every key the first *event* of a walk of every string in
order (the string whole, its number, each token and the word runs inside a joined one in their
order, then the grouped numbers ``8,900``); ``tests/core/test_valueindex_places.py`` holds it to
that walk. This scope makes the same events and keeps those of wanted keys, first one winning.
A string is skipped only where it cannot hold an event of a key still unplaced:

- a string of ASCII letters and whitespace only (most of a long run's text) has only words of
  letters as tokens, no number and no joiner: it is skipped unless a value still sought is
  letters and whitespace, and then only when none of those occurs in it (``str.find``);
- a whitespace-delimited word already examined is skipped (as the full index does), unless it
  may hold the *anchor* of a value whose text is still sought.

Text: a bounded occurrence of a value makes each of its word runs (``\\w+``) a maximal run of the
string holding it (``Scope._words_seen`` says why), so the value is looked for (``str.find``)
only in strings where one of its word runs, its anchor (the one least like common text: with a
digit or ``_``, then the longest), is a token. A value with no word run, or holding the
separator the joined text uses between strings, is searched for in the joined text as before.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from tui.core.blocks import TOOL_USE_TYPES
from tui.core.prefixtext import SEPARATOR, PrefixText, _bounded_find
from tui.core.run import blocks_of
from tui.core.sieve import PLAIN, PLAIN_CHARS, Sieve
from tui.core.valueindex import (COARSE, FINE, GROUPED, JOINERS, NUMBER_STARTS, Scope, _word, add_json_text,
                                 index_blocks)
from tui.core.values import Place, input_scalars, number_key, trivial

#: A string the sieve rules out is remembered (not scanned again) when shorter than this.
RULED_OUT_BELOW = 256
#: Values still sought that a plain string could hold, looked for one by one with ``in`` up to this many.
PLAIN_FEW = 16
#: Words remembered as examined. Forgetting them all costs examining the common ones again; the full index
#: keeps 200,000 beside its keys, this one keeps no keys but the wanted ones, so it can remember more.
KNOWN_WORDS = 1_000_000


def wanted_values(messages: Iterable[Any]) -> list[Any]:
    """Every non-trivial scalar of every ``tool_use`` input (not the object keys): what a trace looks up."""
    out = []
    for message in messages:
        for block in blocks_of(message):
            if isinstance(block, dict) and block.get("type") in TOOL_USE_TYPES:
                out += [scalar for _, scalar in input_scalars(block.get("input")) if not trivial(scalar)]
    return out


def _anchor(value: str) -> str:
    """The word run of ``value`` a bounded occurrence is looked for at: one with a character other than an
    ASCII letter (a digit, ``_``: rarer in text), else the longest."""
    return max(FINE.findall(value), key=lambda w: (not w.isascii() or not w.isalpha(), len(w)))


class WantedScope:
    """The first places of the wanted keys in a run's messages (``get``) and the first bounded occurrence
    of each wanted string in their text (``search``), as the full index gives them.

    Built with ``index_wanted``; ``fallback`` builds the full index of the same messages for a key
    that was not wanted (a caller asking about anything else gets the full index's answer)."""

    def __init__(self, values: Iterable[Any], fallback: Callable[[], Scope]) -> None:
        self.strings: dict[str, Place] = {}
        self.numbers: dict[int | float, Place] = {}
        self.found: dict[str, Place] = {}  # wanted string -> its first bounded occurrence ("text")
        self._fallback = fallback
        self._full: Scope | None = None
        self._want_strings: set[str] = set()
        self._want_numbers: set[int | float] = set()
        for value in dict.fromkeys(values):  # (each once: a run's calls repeat their values; 4471 == 4471.0 in
            if isinstance(value, str):       # a set as in the dict, the first one kept in both)
                self._want_strings.add(value)
            number = number_key(value)
            if number is not None:
                self._want_numbers.add(number[1])
        self.wanted_strings = frozenset(self._want_strings)
        self._longest = max(map(len, self.wanted_strings), default=0)  # a longer string is none of them
        self._digits = {d: n for n in self._want_numbers if (d := _digits(n)) is not None}  # "4471" -> 4471
        self.wanted_numbers = frozenset(self._want_numbers)
        self._tokens = {s for s in self._want_strings if COARSE.fullmatch(s)}  # unplaced, and can be a token
        self._hot: dict[str, set[str]] = {}  # anchor -> wanted strings whose text is still sought
        self._odd: set[str] = set()  # strings sought in every string: no word run (no anchor)
        self._joined: set[str] = set()  # strings with the separator: searched in the joined text
        for s in self._want_strings:
            if SEPARATOR in s:
                self._joined.add(s)
            elif FINE.search(s) is None:
                self._odd.add(s)
            else:
                self._hot.setdefault(_anchor(s), set()).add(s)
        self._seeking = self._want_strings - self._joined  # wanted strings whose text is still sought
        self.text = PrefixText() if self._joined else None
        # Unplaced tokens and sought texts a plain string could hold (a token of letters only, a text of
        # letters and whitespace): a plain string that holds none of them is skipped.
        self._plain = {s for s in self._want_strings if PLAIN_CHARS.issuperset(s) and s not in self._odd}
        self._known: set[str] = set()  # words examined with nothing left to place in them
        self._anchored: dict[str, tuple[str, ...]] = {}  # words examined that hold an anchor sought
        self._paths: dict[str, str] = {}
        self.sieve: Sieve | None = None  # set by ``index_wanted``: which strings may hold a key still sought
        self._ruled_out: set[str] = set()  # short strings the sieve found no key sought in

    # -- answers ---------------------------------------------------------------------------

    def get(self, key: tuple[str, Any]) -> Place | None:
        """The first place of a key: ``("s", text)`` or a ``number_key``."""
        tag, value = key
        if (value in self.wanted_strings) if tag == "s" else (value in self.wanted_numbers):
            return (self.strings if tag == "s" else self.numbers).get(value)
        return self.full().get(key)

    def search(self, needle: str, before: int | None) -> Place | None:
        """The first bounded occurrence of ``needle`` in a string of a message before ``before``."""
        if not needle:
            return None
        if needle in self.wanted_strings and needle not in self._joined:
            place = self.found.get(needle)
            return place if place is not None and (before is None or place.index < before) else None
        if needle in self._joined and self.text is not None:
            found = self.text.find(needle, before)
            if found is None:
                return None
            k, start, end = found
            return Place(self.text.indices[k], self.text.blocks[k], self.text.paths[k], start, end, "text")
        return self.full().search(needle, before)

    def full(self) -> Scope:
        """The full index of the same messages (built once, for a key that was not wanted)."""
        if self._full is None:
            self._full = self._fallback()
        return self._full

    def finish(self) -> None:
        self._known, self._anchored, self._ruled_out = set(), {}, set()
        if self.text is not None:
            self.text.flush()

    # -- the walk (the full index's, ``Scope.add_string``) ----------------------------------

    def add_scalar(self, index: int | str, block: int, path: str, value: Any, is_key: bool = False) -> None:
        if isinstance(value, str):
            self.add_string(index, block, path, value, is_key=is_key)
        elif self._want_numbers and (number := number_key(value)) is not None and number[1] in self._want_numbers:
            self._number(number[1], Place(index, block, self._path(path), None, None, "key" if is_key else "value"))

    def _path(self, path: str) -> str:
        return self._paths.setdefault(path, path)

    def _number(self, value: Any, place: Place) -> None:
        self.numbers[value] = place
        self._want_numbers.discard(value)
        digits = _digits(value)
        if digits is not None:
            self._digits.pop(digits, None)

    def add_string(self, index: int | str, block: int, path: str, text: str, depth: int = 0,
                   is_key: bool = False) -> None:
        if self.sieve is not None and len(text) < RULED_OUT_BELOW and text in self._ruled_out:
            return  # (the sieve found no event of a key sought in it: not even the string whole, or its number)
        if len(text) <= self._longest and text in self._want_strings:  # (no hash of a long string)
            self.strings[text] = Place(index, block, self._path(path), None, None, "key" if is_key else "value")
            self._want_strings.discard(text)
            self._tokens.discard(text)
            self._settle(text)
        first = text[:1]
        if first in NUMBER_STARTS and self._want_numbers and (number := number_key(text)) is not None \
                and number[1] in self._want_numbers:
            self._number(number[1], Place(index, block, self._path(path), None, None, "key" if is_key else "value"))
        if self.sieve is not None:
            short = len(text) < RULED_OUT_BELOW
            if not (short and text in self._known) and not self.sieve.holds(text):
                # No token, number, text or JSON value of a key still sought in it, nor of one sought later
                # (only fewer are). (A word examined before is not scanned: walking it costs less.)
                if short:
                    if len(self._ruled_out) > KNOWN_WORDS:
                        self._ruled_out.clear()
                    self._ruled_out.add(text)
                return
        if add_json_text(self, index, block, path, text, first, depth):
            return
        if self.text is not None:
            self.text.append(index, block, self._path(path), text, shared=depth == 0)
        if self._odd:
            for needle in [n for n in self._odd if n in text]:
                self._text_found(needle, index, block, path, text, _bounded_find(text, needle, 0, len(text)))
        if self._tokens or self._hot or self._want_numbers:
            if text.isascii() and not text.encode("ascii").translate(None, PLAIN):  # plain: letters, whitespace
                plain = self._plain
                if plain and (len(plain) > PLAIN_FEW or any(s in text for s in plain)):
                    self._words(index, block, path, text)
            else:
                self._words(index, block, path, text)
        if "," in text and self._want_numbers:
            for match in GROUPED.finditer(text):
                number = number_key(match.group().replace(",", ""))
                if number is not None and number[1] in self._want_numbers:
                    self._number(number[1], Place(index, block, self._path(path), match.start(), match.end(), "token"))

    def _settle(self, s: str) -> None:
        """``s`` was placed as a key or found as text: a plain string need not be searched for it any more
        once both are done."""
        if s not in self._tokens and s not in self._seeking:
            self._plain.discard(s)

    def _text_found(self, needle: str, index: int | str, block: int, path: str, text: str, at: int) -> None:
        if at < 0:
            return
        self.found[needle] = Place(index, block, self._path(path), at, at + len(needle), "text")
        self._odd.discard(needle)
        self._seeking.discard(needle)
        self._settle(needle)
        if FINE.search(needle) is not None and SEPARATOR not in needle:
            anchor = _anchor(needle)
            sought = self._hot.get(anchor)
            if sought is not None:
                sought.discard(needle)
                if not sought:
                    del self._hot[anchor]

    def _words(self, index: int | str, block: int, path: str, text: str) -> None:
        """The token, number and text events of ``text`` for keys still unplaced.

        A word examined once is not examined again: ``known`` holds those with nothing left to place,
        ``anchored`` those holding the anchor of a value whose text is still sought (the text is looked
        for in every string holding such a word, until it is found)."""
        known, anchored, hot = self._known, self._anchored, self._hot
        if len(text) < 256 and text in known:  # one word, examined before
            return
        words = text.split()  # no token spans whitespace
        if known.issuperset(words):
            return
        unknown = set(words).difference(known)
        del words
        anchors = set()
        if anchored:
            held = set(filter(anchored.__contains__, unknown))  # (not ``intersection``: it would walk the dict)
            for word in held:
                anchors.update(anchored[word])
            fresh = unknown.difference(held) if held else unknown
        else:
            fresh = unknown
        found: list[str] = []
        if fresh:
            joined = " ".join(fresh)
            coarse = set(COARSE.findall(joined))
            fine = set(FINE.findall(joined))
            found = [a for a in fine if a in hot]
            anchors.update(found)
        for anchor in anchors:
            for needle in list(hot.get(anchor, ())):
                self._text_found(needle, index, block, path, text, _bounded_find(text, needle, 0, len(text)))
        if not fresh:
            return
        hits = (coarse | fine) & self._tokens if self._tokens else ()
        for token in hits:
            at = _first_event(text, token)[0]
            self.strings[token] = Place(index, block, self._path(path), at, at + len(token), "token")
            self._want_strings.discard(token)
            self._tokens.discard(token)
            self._settle(token)
        if self._want_numbers:
            self._token_numbers(index, block, path, text, coarse, fine)
        if len(known) > KNOWN_WORDS:
            known.clear()
        if len(anchored) > KNOWN_WORDS:
            anchored.clear()
        still = [a for a in found if a in hot]
        if not still:
            known.update(fresh)
            return
        for word in fresh:
            holds = tuple(a for a in still if a in word)
            if holds:
                anchored[word] = holds
            else:
                known.add(word)

    def _token_numbers(self, index: int | str, block: int, path: str, text: str, coarse: set[str],
                       fine: set[str]) -> None:
        """The first token of ``text`` for each wanted number: in the full index's order, by start, a
        token before the word runs inside it."""
        best: dict[Any, tuple[int, int, str]] = {}
        # A token is a number in canonical form (``number_key``): digits, equal to a wanted whole number only
        # when they are its digits; or digits with a fraction (a COARSE token), read as a float.
        maybe = [t for t in coarse if "." in t and t[0].isdigit()]
        maybe += self._digits.keys() & (coarse | fine)
        for token in maybe:
            number = number_key(token)
            if number is None or number[1] not in self._want_numbers:
                continue
            event = _first_event(text, token)
            if number[1] not in best or event < best[number[1]][:2]:
                best[number[1]] = (*event, token)
        for value, (start, _, token) in best.items():
            self._number(value, Place(index, block, self._path(path), start, start + len(token), "token"))


def _digits(number: Any) -> str | None:
    """The digits a token equal to ``number`` is made of when it has no fraction: a whole number's, or None."""
    if isinstance(number, int):
        return str(number) if number >= 0 else None
    if isinstance(number, float) and number.is_integer() and number >= 0:
        return str(int(number))
    return None


def _first_event(text: str, token: str) -> tuple[int, int]:
    """``(start, 0)`` of the first occurrence of ``token`` as a COARSE match, or ``(start, 1)`` as a word run
    inside a longer COARSE match, whichever comes first (the token occurs as one of them)."""
    pure = FINE.fullmatch(token) is not None
    size, at = len(text), text.find(token)
    while at >= 0:
        end = at + len(token)
        if pure:  # a maximal run of \w: the full match of a COARSE token, or a word run inside one
            if (at == 0 or not _word(text[at - 1])) and (end >= size or not _word(text[end])):
                return at, 0 if _coarse_at(text, at, end) else 1
        elif _coarse_at(text, at, end):
            return at, 0
        at = text.find(token, at + 1)
    raise ValueError(f"{token!r} is not a token of the text")  # pragma: no cover - the caller found it there


def _coarse_at(text: str, at: int, end: int) -> bool:
    """``text[at:end]`` (from a ``\\w`` to a ``\\w``) is a whole COARSE match: past the joiners beside it,
    neither neighbour is a ``\\w``."""
    left = at - 1
    while left >= 0 and text[left] in JOINERS:
        left -= 1
    if left >= 0 and _word(text[left]):
        return False
    right, size = end, len(text)
    while right < size and text[right] in JOINERS:
        right += 1
    return right >= size or not _word(text[right])


def index_wanted(messages: list[Any], values: Iterable[Any], tick: Callable[[], None] | None = None,
                 fallback: Callable[[], Scope] | None = None) -> WantedScope:
    """Every message walked in order for the wanted ``values``; ``tick`` is called before each."""
    from tui.core.valueindex import index_messages

    walked = list(messages)
    scope = WantedScope(values, fallback or (lambda: index_messages(walked)))
    sieve = Sieve(scope) if scope.text is None else None  # (the joined text needs every string)
    scope.sieve = sieve
    for i, message in enumerate(walked):
        if tick is not None:
            tick()
        if sieve is None or sieve.needs(message):
            index_blocks(scope, i, blocks_of(message))
    scope.finish()
    return scope
