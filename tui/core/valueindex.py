"""An index of every value a run's prefix holds, built once, for provenance look-ups.

Each message is walked in order and every value it holds is registered under a key with
its first position (message index, block, jq-style path, character span); later repeats
are not stored, so a look-up "before message N" is one dict access. What counts as a value:

- every JSON scalar: block fields, tool inputs, and the parsed content of any string that
  is itself JSON text (a tool_result's ``"[{\\"total_cents\\":8900}]"``: path
  ``.content | fromjson | .[0].total_cents``), and the keys of such JSON objects;
- every string whole, and every token in it: runs of letters, digits and ``_`` joined by
  ``- . @ / : +`` (``cus_8123``, ``2024-05-20``, ``re_9d2``), and the word runs inside
  those (``2024``, ``05``); ``_`` does not split, so ``8123`` is not a token of ``cus_8123``;
- numbers by value, whatever their form: ``8900``, ``8900.0``, ``"8900"``, ``8,900``.

Strings the index cannot answer by key (several words, say) are searched for in the
prefix's strings (``tui.core.prefixtext``); a match counts only where the characters on
either side cannot continue it (a letter, digit or ``_`` next to one), so "447" is not found
in "4471" nor "9d2" in "re_9d2".
The system prompt and tool schemas are indexed apart (``index`` ``"system"``/``"tools"``).
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any, Callable

import orjson

from tui.core.prefixtext import PrefixText
from tui.core.run import blocks_of
from tui.core.values import Place, number_key, walk  # noqa: F401 - also imported from here

COARSE = re.compile(r"\w[\w\-.@/:+]*\w|\w")
COARSE_SPLIT = re.compile(f"({COARSE.pattern})")
FINE = re.compile(r"\w+")
GROUPED = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w,]|\.\d)")
JSON_TEXT_LIMIT = 8 << 20
KNOWN_WORDS = 200_000  # words remembered as fully registered (a run's vocabulary; ids make it grow)
FEW = 128  # new tokens in a string found with str.find; more: the string is split into all its tokens
FIND_TRIES = 64  # occurrences of a new token inside longer ones stepped over before splitting instead
JOINERS = frozenset("-.@/:+")  # what joins word runs into one COARSE token
NUMBER_STARTS = frozenset("-0123456789")  # what a string that number_key reads as a number starts with
JSON_STARTS = frozenset("{[")
OPAQUE = ("signature", "data", "source", "type", "cache_control", "citations")


class Scope:
    """Index of one ordered set of sources (the messages, or the system prompt and tools).

    ``strings`` and ``numbers`` map each value to its first place. A string's tokens are found
    with C-level regex calls (``findall``, then a set difference against ``strings``); only
    tokens never seen before are placed one by one, in the order a left-to-right walk of the
    string would register them, so the first place of every key is what that walk gives.
    Paths are interned: a long run has hundreds of thousands of places and a few dozen paths."""

    def __init__(self) -> None:
        self.strings: dict[str, Place] = {}
        self.numbers: dict[int | float, Place] = {}
        self.text = PrefixText()
        self._paths: dict[str, str] = {}
        self._known: set[str] = set()  # whitespace-delimited words whose tokens are all registered

    def get(self, key: tuple[str, Any]) -> Place | None:
        """The first place of a key: ``("s", text)`` or a ``number_key``."""
        tag, value = key
        return (self.strings if tag == "s" else self.numbers).get(value)

    def finish(self) -> None:
        """Indexing is done: join the last chunk of text, drop the words kept to skip known strings."""
        self.text.flush()
        self._known = set()

    def _path(self, path: str) -> str:
        return self._paths.setdefault(path, path)

    def _put(self, key: tuple[str, Any], index: int | str, block: int, path: str, start: int | None = None,
             end: int | None = None, how: str = "value") -> None:
        table = self.strings if key[0] == "s" else self.numbers
        if key[1] not in table:  # only the first place is kept; build it only then
            table[key[1]] = Place(index, block, self._path(path), start, end, how)

    def add_scalar(self, index: int | str, block: int, path: str, value: Any, is_key: bool = False) -> None:
        if isinstance(value, str):
            self.add_string(index, block, path, value, is_key=is_key)
        elif (number := number_key(value)) is not None:
            self._put(number, index, block, path, how="key" if is_key else "value")

    def add_string(self, index: int | str, block: int, path: str, text: str, depth: int = 0,
                   is_key: bool = False) -> None:
        how = "key" if is_key else "value"
        path = self._paths.setdefault(path, path)
        fresh = text not in self.strings
        if fresh:
            self.strings[text] = Place(index, block, path, None, None, how)
        first = text[:1]
        if first in NUMBER_STARTS and (number := number_key(text)) is not None:
            self._put(number, index, block, path, how=how)
        if add_json_text(self, index, block, path, text, first, depth):
            return
        if fresh or first in JSON_STARTS or first.isspace():
            self._tokens(index, block, path, text, fresh)
        # else: the same string was tokenized before (or is itself a token, or a word run of one): nothing new
        for match in GROUPED.finditer(text) if "," in text else ():  # the check is much faster than the regex
            value = match.group().replace(",", "")
            number = number_key(value)
            if number is not None:
                self._put(number, index, block, path, match.start(), match.end(), "token")
        self.text.append(index, block, path, text, shared=depth == 0)  # depth 0: the run's own string

    def _tokens(self, index: int | str, block: int, path: str, text: str, fresh: bool) -> None:
        """Register the tokens of ``text`` not seen before: runs of ``\\w`` joined by ``- . @ / : +``
        (COARSE) and, inside a joined one, its word runs (FINE), each at its first position."""
        strings, known = self.strings, self._known
        words = text.split()  # no token spans whitespace
        if known.issuperset(words):  # every token of every one of its words was registered before
            return
        unknown = set(words).difference(known)
        del words
        found = set(COARSE.findall(" ".join(unknown)))
        new = found.difference(strings)
        if fresh and text in found:  # the whole string is one token: registered just now, its word runs not yet
            new.add(text)
        if len(known) > KNOWN_WORDS:
            known.clear()
        known.update(unknown)  # once this string is done, all their tokens are registered
        if not new:  # a token seen before had its word runs and its number registered with it
            return
        firsts = _first_starts(text, new) if len(new) <= FEW else None
        if firsts is None:  # many new tokens: map every token of the string to its first start at once
            pieces = COARSE_SPLIT.split(text)  # [between, token, between, token, ..., between]
            tokens = pieces[1::2]
            first = dict(zip(reversed(tokens), range(len(tokens) - 1, -1, -1)))  # first occurrence of each
            starts = list(accumulate(map(len, pieces[:-1])))[0::2]  # where each token starts
            firsts = [(starts[first[token]], token) for token in new]
        events = []  # (start, 0 for the token or 1.. for a word run in it, text, start): tokens start apart
        for start, token in firsts:
            events.append((start, 0, token, start))
            if not FINE.fullmatch(token):
                for j, fine in enumerate(FINE.finditer(token), 1):
                    if fine.group() not in strings:
                        events.append((start, j, fine.group(), start + fine.start()))
        events.sort()
        path = self._path(path)
        numbers = self.numbers
        for _, _, token, start in events:  # what _put would do, without its look-ups per token
            if token not in strings:
                strings[token] = Place(index, block, path, start, start + len(token), "token")
            if token[0].isdigit() and (number := number_key(token)) is not None and number[1] not in numbers:
                numbers[number[1]] = Place(index, block, path, start, start + len(token), "token")

    def search(self, needle: str, before: int | None) -> Place | None:
        """The first bounded occurrence of ``needle`` in a string of a message before ``before``."""
        if not needle or not len(self.text) or not self._words_seen(needle, before):
            return None
        return self.scan(needle, before)

    def _words_seen(self, needle: str, before: int | None) -> bool:
        """False when a word of ``needle`` is in no string before ``before``: then it cannot occur there.

        Every maximal ``\\w+`` run of an indexed string is registered as a token (``add_string``), and
        a bounded occurrence of ``needle`` makes each of its word runs a maximal run of that string
        (``bounded`` stops exactly where ``\\w`` does). So one dict look-up per word saves scanning the
        whole prefix for a value the model made up, which made tracing a long run quadratic."""
        for word in FINE.findall(needle):
            place = self.strings.get(word)
            if place is None or (before is not None and isinstance(place.index, int) and place.index >= before):
                return False
        return True

    def scan(self, needle: str, before: int | None) -> Place | None:
        """``search`` without the word check: a scan of the prefix's strings."""
        found = self.text.find(needle, before)
        if found is None:
            return None
        k, start, end = found
        return Place(self.text.indices[k], self.text.blocks[k], self.text.paths[k], start, end, "text")


def _first_starts(text: str, tokens: set[str]) -> list[tuple[int, str]] | None:
    """``(start, token)`` of each token's first occurrence *as a token* of ``text`` (a COARSE match), found
    with ``str.find`` instead of splitting the whole string; None when a token's occurrences inside longer
    tokens are too many to step over (the caller splits then).

    A COARSE match is the stretch of a maximal run of ``\\w`` and ``- . @ / : +`` from its first ``\\w``
    to its last: so an occurrence of a token is one exactly when, past the joiners beside it, neither
    neighbour is a ``\\w``."""
    out = []
    size = len(text)
    for token in tokens:
        at, tries = text.find(token), 0
        while True:
            if at < 0 or tries > FIND_TRIES:  # (at < 0 cannot happen: every new token is one of the text's)
                return None
            tries += 1
            left = at - 1
            while left >= 0 and text[left] in JOINERS:
                left -= 1
            if left < 0 or not _word(text[left]):
                right = at + len(token)
                while right < size and text[right] in JOINERS:
                    right += 1
                if right >= size or not _word(text[right]):
                    break
            at = text.find(token, at + 1)
        out.append((at, token))
    return out


def _word(ch: str) -> bool:
    """``\\w`` of a ``str`` pattern, for one character: alphanumeric (``str.isalnum``) or ``_``."""
    return ch.isalnum() or ch == "_"


def add_json_text(scope: Any, index: int | str, block: int, path: str, text: str, first: str, depth: int) -> bool:
    """When ``text`` (whose first character is ``first``) is itself JSON text, an object or an array, every
    value in it is added to ``scope`` under ``PATH | fromjson | ...`` (two levels of JSON in JSON at most,
    under ``JSON_TEXT_LIMIT``); True then, and the string is not read as words. The full index and the
    wanted one (``tui.core.wanted``) read JSON text alike through this."""
    if depth >= 2 or not (first in JSON_STARTS or (first.isspace() and text.lstrip()[:1] in JSON_STARTS)) \
            or len(text) >= JSON_TEXT_LIMIT:
        return False
    try:
        parsed = orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    if not isinstance(parsed, (dict, list)):
        return False
    for sub_path, scalar, key in walk(parsed, ""):
        full = f"{path} | fromjson | {sub_path}"
        if isinstance(scalar, str):
            scope.add_string(index, block, full, scalar, depth + 1, is_key=key)
        else:
            scope.add_scalar(index, block, full, scalar, key)
    return True


def index_blocks(scope: Scope, index: int | str, blocks: list[Any]) -> None:
    for b, block in enumerate(blocks):
        if isinstance(block, str):
            scope.add_string(index, b, ".text", block)
            continue
        if not isinstance(block, dict):
            continue
        for key, value in block.items():
            if key in OPAQUE:
                continue
            if key == "content" and isinstance(value, list):
                for j, inner in enumerate(value):
                    if isinstance(inner, dict):
                        for inner_key, inner_value in inner.items():
                            if inner_key not in OPAQUE:
                                _add_any(scope, index, b, f".content[{j}].{inner_key}", inner_value)
                continue
            _add_any(scope, index, b, f".{key}", value)


def _add_any(scope: Scope, index: int | str, block: int, path: str, value: Any) -> None:
    if isinstance(value, str):
        scope.add_string(index, block, path, value)
        return
    for sub_path, scalar, is_key in walk(value, path):
        scope.add_scalar(index, block, sub_path, scalar, is_key)


def index_messages(messages: list[Any], tick: Callable[[], None] | None = None) -> Scope:
    """Every message indexed in order; ``tick`` is called before each (a worker may pause or stop there)."""
    scope = Scope()
    for i, message in enumerate(messages):
        if tick is not None:
            tick()
        index_blocks(scope, i, blocks_of(message))
    scope.finish()
    return scope


def index_fixed(system: Any, tools: Any) -> Scope:
    scope = Scope()
    if isinstance(system, str):
        scope.add_string("system", 0, ".text", system)
    elif isinstance(system, list):
        index_blocks(scope, "system", system)
    if isinstance(tools, list):
        for t, tool in enumerate(tools):
            if isinstance(tool, dict):
                for key, value in tool.items():
                    if key not in ("type", "cache_control"):
                        _add_any(scope, "tools", t, f".{key}", value)
    scope.finish()
    return scope
