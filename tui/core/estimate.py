"""Estimate Claude tokens from a request body, offline, without the tokenizer.

Claude's tokenizer is not public, so a count we did not record or ask the API for is an
*estimate*, and every caller marks it so. The estimator splits text into the pieces a BPE
tokenizer starts from (letter runs, digit runs, punctuation runs, whitespace) and charges
each piece by its shape: a common lower-case word is one token, a long or mixed-case run
(ids, base64, hashes) costs about one token per few characters, digits go in threes,
non-Latin script about a token per character. The request adds what the API renders
around the content: a few tokens per message and block, the tool-use system prompt when
``tools`` is present, the tool schemas as JSON. Thinking signatures and redacted thinking
are opaque and not counted; thinking text is counted only in the latest assistant turn
(the one a tool-use continuation carries), as the API does for earlier turns.

The constants were set once against the recorded usage in ``../shared/realruns`` and the
error is measured by ``bench/estimate_error.py`` (numbers in README, "Tokens").

``_pieces`` is the definition. Where ``pip install`` built it, ``tui.core.piece_count`` (C, one pass)
counts every text; elsewhere the Python passes below do (short texts remembered, long ASCII text by
bit sets, other text by ``_pieces`` itself). Both give ``_pieces``' number, to the bit.
"""

from __future__ import annotations

import itertools
import math
import re
from binascii import a2b_hex
from typing import Any

from tui.core import jsonio
from tui.core.blocks import is_tool_result, is_tool_use, thinking_enabled
from tui.core.memo import BoundedMemo

try:  # built by ``pip install`` where a C compiler is found (pyproject's ext-modules); else the Python passes
    from tui.core.piece_count import pieces as _compiled_pieces
except ImportError:  # pragma: no cover - depends on the install
    _compiled_pieces = None

#: Pieces: letter runs (split at lower->upper case changes), digit runs, punctuation runs, whitespace.
_PIECE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^\W\d_]+|[^\w\s]+|_+|\s+")
_ASCII_WORD = re.compile(r"[A-Za-z]+")

#: Overheads in tokens (see the module docstring; measured, not documented by the API).
REQUEST_BASE = 4
SYSTEM_BASE = 3
MESSAGE_BASE = 3
BLOCK_BASE = 2
TOOL_USE_BASE = 12
TOOL_RESULT_BASE = 8
TOOL_SCHEMA_BASE = 6
#: The tool-use system prompt the API adds whenever ``tools`` is sent (Anthropic's tool-use
#: pricing page gives 346 for tool_choice auto/none and 313 for any/tool on Claude 4 models).
TOOLS_PROMPT = {"auto": 346, "none": 346, "any": 313, "tool": 313}
#: Server tools add their own hidden instructions; a measured order of magnitude.
SERVER_TOOL = 600
#: An image is about (width x height) / 750 tokens, capped near 1,600 after resizing.
IMAGE_DEFAULT = 1600
PDF_PAGE = 1500
#: Claude's tokenizer splits finer than one token per piece: the median ratio of recorded growth
#: to piece count over the Claude Code transcripts in realruns (set once, see scripts/estimate_error.py).
SCALE = 1.15
#: ``thinking`` enabled adds hidden instructions (measured on two cassettes: 23 and 32 tokens).
THINKING_PROMPT = 25


def _python_text_tokens(text: str) -> float:
    """Estimated tokens of plain text (fractional), by the Python passes: a short text's computed once per distinct
    text (``_SHORT_TEXTS``), long ASCII text by bit sets, other text piece by piece (about 3 MB/s)."""
    if len(text) < LONG_TEXT:
        return _SHORT_TEXTS[text]
    return _python_long_text_tokens(text)


def _python_long_text_tokens(text: str) -> float:
    return (_ascii_pieces(text) if text.isascii() else _pieces(text)) * SCALE


def _compiled_text_tokens(text: str) -> float:
    """Estimated tokens of plain text (fractional), by ``piece_count`` (C, one pass, any text, ~300 MB/s): the
    number the Python passes give. It needs no memo of short texts: counting one costs less than looking it up."""
    return _compiled_pieces(text) * SCALE


def _python_short_text_tokens(text: str) -> float:
    """A short text's estimate (``_SHORT_TEXTS`` remembers it: a tool's name, an id, a tool_use's then its
    result's, and a small input recur all through a run)."""
    if text.isascii() and text.isprintable() and " " not in text:  # one word (an id, a name, small JSON)
        return _ascii_word_cost(text) * SCALE  # what _word_pieces gives for it, uncached
    return _python_long_text_tokens(text)


def _word_cost(word: str) -> int:
    """Pieces of a word (a run without whitespace); ``_WORDS`` remembers them (ids and hashes are words too)."""
    return _ascii_word_cost(word) if word.isascii() else int(_pieces(word))


#: Distinct texts, words and segments remembered (each memo forgets all at once when full).
MEMO_LIMIT = 100_000
_DIGIT_RUN = re.compile(r"\d+")
_DIGITS_BY_THREE = re.compile(r"\d{1,3}")  # a run of n digits matches ceil(n / 3) times


def _ascii_word_cost(word: str) -> int:
    """``_ascii_word_pieces(word)``, from the stretches between its digit runs (no piece crosses a digit
    run's edge: digits are pieces of their own), each costed once per distinct stretch: a word new to
    the cache is mostly a known stretch and a new number (``"id":"5193","status":`` and the like)."""
    return sum(map(_SEGMENTS.__getitem__, _DIGIT_RUN.split(word))) + len(_DIGITS_BY_THREE.findall(word))


#: ASCII pieces by kind, as ``_PIECE`` cuts them: in ASCII the kinds are disjoint runs of characters
#: (letters cut where the case changes), so each kind's pieces are its own regex's matches.
_LETTERS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_DIGITS = re.compile(r"\d+")
_PUNCTUATION = re.compile(r"[^\w\s]+")
_UNDERSCORES = re.compile(r"_+")


def _ascii_word_pieces(word: str) -> int:
    """``_pieces`` of an ASCII word (no whitespace), each kind found with one regex call, not a Python
    step per piece: a letter piece is 1, plus ``ceil((n - 7) / 4)`` past 7 letters; digits
    ``ceil(n / 3)``; punctuation ``ceil(n / 2)``; underscores ``ceil(n / 4)``."""
    letters = _LETTERS.findall(word)
    total = len(letters)
    for piece in letters:
        if len(piece) > 7:
            total += (len(piece) - 4) // 4
    for kind, size in ((_DIGITS, 3), (_PUNCTUATION, 2), (_UNDERSCORES, 4)):
        for piece in kind.findall(word):
            total += (len(piece) + size - 1) // size
    return total


#: Pieces of an ASCII word's stretch between digit runs, per distinct stretch; of a word; a short text's estimate.
_SEGMENTS: BoundedMemo[str, int] = BoundedMemo(_ascii_word_pieces, MEMO_LIMIT)
_WORDS: BoundedMemo[str, int] = BoundedMemo(_word_cost, MEMO_LIMIT)
_SHORT_TEXTS: BoundedMemo[str, float] = BoundedMemo(_python_short_text_tokens, MEMO_LIMIT)
#: Whether texts are counted by ``piece_count`` (built, and not switched off: ``count_with``).
COMPILED = _compiled_pieces is not None
#: Estimated tokens of plain text (fractional): ``_pieces(text) * SCALE``, by the fastest way built.
text_tokens = _compiled_text_tokens if COMPILED else _python_text_tokens


def count_with(compiled: bool) -> None:
    """Count texts with ``piece_count`` (``compiled``: where it was built) or with the Python passes (the same
    numbers: the tests hold both to ``_pieces``); the short texts' memo starts again."""
    global COMPILED, text_tokens
    if compiled and _compiled_pieces is None:
        raise RuntimeError("tui.core.piece_count was not built (no C compiler at install)")
    COMPILED = compiled
    text_tokens = _compiled_text_tokens if compiled else _python_text_tokens
    _SHORT_TEXTS.clear()


_WHITESPACE_RUN = re.compile(r"\s{2,}|[^\S ]")  # a run of two or more, or one that is not a space
_OTHER_SPACE = ("\t", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")


def _has_other_space(text: str) -> bool:
    """Any of ``_OTHER_SPACE`` in ``text``: eight C-level searches, without a generator's step per character
    kind (``any(...)``'s generator was about 7% of a 100 MB run's estimate, profiled)."""
    return ("\t" in text or "\r" in text or "\x0b" in text or "\x0c" in text or "\x1c" in text or "\x1d" in text
            or "\x1e" in text or "\x1f" in text)


#: From this length on, ASCII text is costed by bit sets over the whole string (``_class_pieces``): below
#: it, splitting into words and looking each up costs less than the dozen C-level passes (measured).
LONG_TEXT = 256


def _ascii_pieces(text: str) -> float:
    """``_pieces`` of ASCII text, the same number, without a Python step per piece. All costs here are whole
    numbers, so the order they are added in does not change the sum."""
    if len(text) >= LONG_TEXT:
        pieces = _class_pieces(text.encode("ascii"))
        if pieces is not None:
            return float(pieces)
    return _word_pieces(text)


def _word_pieces(text: str) -> float:
    """No piece crosses whitespace, so the words' pieces are looked up per distinct word (C-level ``split``
    and ``map``); whitespace costs its newlines, a run without one ``ceil(len / 8)``, a single space nothing."""
    total = text.count("\n") + sum(map(_WORDS.__getitem__, text.split()))
    if "  " in text or _has_other_space(text):
        for run in _WHITESPACE_RUN.findall(text):
            if "\n" not in run:
                total += math.ceil(len(run) / 8)
    return float(total)


def _kind(ch: str) -> str:
    """An ASCII character's class as ``_PIECE`` sees it: a lower/upper letter, digit, underscore, space,
    newline, other whitespace, or punctuation (everything else)."""
    if "a" <= ch <= "z":
        return "a"
    if "A" <= ch <= "Z":
        return "A"
    if "0" <= ch <= "9":
        return "0"
    if ch in "_ \n":
        return ch
    return "\t" if ch.isspace() and ch < "\x80" else "."


#: Each class as one hex digit, so that ``binascii.a2b_hex`` packs the class string two characters a byte.
_HEX = b"0123456789abcdef"
_PUNCT, _LOWER, _UPPER, _DIGIT, _UNDERSCORE, _SPACE, _NEWLINE, _OTHER_SPACE, _PAD = range(9)
_IDS = {".": _PUNCT, "a": _LOWER, "A": _UPPER, "0": _DIGIT, "_": _UNDERSCORE, " ": _SPACE, "\n": _NEWLINE,
        "\t": _OTHER_SPACE}
#: A text's byte -> the hex digit of its class (the class string); each class's digit in it, as bytes.
_CLASS = bytes(_HEX[_IDS[_kind(chr(b))]] for b in range(256))
#: (As integers: ``byte in c`` with a bytes needle first tries it as an integer, and the TypeError it makes and
#: clears cost more than the search in a short text.)
_PUNCT_IN, _UPPER_IN, _DIGIT_IN, _UNDERSCORE_IN, _NEWLINE_IN, _OTHER_SPACE_IN = (
    _HEX[k] for k in (_PUNCT, _UPPER, _DIGIT, _UNDERSCORE, _NEWLINE, _OTHER_SPACE))
_PUNCT_RUN = bytes([_PUNCT_IN, _PUNCT_IN])
_PADDING = [b"%x" % _PAD * k for k in range(8)]  # the class string made a multiple of 8 long: in no kind


def _two_kinds(x: int, y: int | None) -> bytes:
    """A byte of the packed class string (the classes of two characters, a hex digit each) -> the hex digit
    whose bits say, first character first, whether each is of kind ``x``, then of kind ``y``."""
    out = bytearray()
    for b in range(256):
        first, second = b >> 4, b & 15
        out.append(_HEX[(first == x) << 3 | (second == x) << 2 | (first == y) << 1 | (second == y)])
    return bytes(out)


def _one_kind(shift: int) -> bytes:
    """A byte of two ``_two_kinds`` digits (four characters, bits ``x0 x1 y0 y1 x2 x3 y2 y3``) -> the hex digit of
    one kind's four bits (``shift`` 2: x, 0: y)."""
    return bytes(_HEX[(b >> shift + 4 & 3) << 2 | (b >> shift & 3)] for b in range(256))


_FIRST, _SECOND = _one_kind(2), _one_kind(0)
Plan = tuple[tuple[bytes, bool], ...]
#: Per (upper case, digits, underscores, other whitespace) in a text: the ``_two_kinds`` tables its bit sets take,
#: each with whether its second kind is wanted (made on first use).
_PLANS: dict[tuple[bool, bool, bool, bool], Plan] = {}


def _plan(upper: bool, digits: bool, underscores: bool, others: bool) -> Plan:
    """The bit sets a text takes, two kinds a table: lower case; upper case, digits, underscores where there are
    some; the spaces unless there is other whitespace (which sends the text to the whitespace count anyway)."""
    kinds = [_LOWER] + [_UPPER] * upper + [_DIGIT] * digits + [_UNDERSCORE] * underscores + [_SPACE] * (not others)
    pairs = [(kinds[k], kinds[k + 1] if k + 1 < len(kinds) else None) for k in range(0, len(kinds), 2)]
    plan = _PLANS[upper, digits, underscores, others] = tuple((_two_kinds(*p), p[1] is not None) for p in pairs)
    return plan


def _bit_sets(c: bytes, plan: Plan) -> list[int]:
    """For each kind of the ``plan``, a bit set of the characters of that class (the first character the top bit,
    then 0 to 7 clear bits of padding at the bottom). The class string is packed with C-level passes that each
    halve it: two characters a byte (``a2b_hex``), then, two kinds at a time, four characters a byte, then one
    kind's eight characters a byte, read as one integer (``int.from_bytes``): per kind, passes over a quarter
    and an eighth of the text instead of ``int(mask, 2)`` over all of it, a digit at a time."""
    packed = a2b_hex(c + _PADDING[-len(c) % 8])
    sets = []
    for table, second in plan:
        four = a2b_hex(packed.translate(table))
        sets.append(int.from_bytes(a2b_hex(four.translate(_FIRST)), "big"))
        if second:
            sets.append(int.from_bytes(a2b_hex(four.translate(_SECOND)), "big"))
    return sets


def _table(kind: Any) -> bytes:
    return bytes(ord(kind(chr(b))) for b in range(256))


#: The whitespace of the class string as s(pace), t(ab and the rest), n(ewline); s and t as 1.
_SPACES = bytes(ord({_SPACE: "s", _OTHER_SPACE: "t", _NEWLINE: "n"}.get(int(chr(d), 16), "0"))
                if chr(d) in "0123456789abcdef" else ord("0") for d in range(256))
_BLANKS = _table(lambda c: "1" if c in "st" else "0")
_STRIP = itertools.repeat(b"st")
#: Bit-set levels tried before a run this long (32 x 4 letters, 32 x 3 digits ...) sends the text to the words.
_LEVELS = 32


def _class_pieces(raw: bytes) -> int | None:
    """``_pieces`` of ASCII bytes from whole-string C-level operations, without a Python step per word: the
    text becomes one class string (``bytes.translate``), and the letters, digits, underscores and spaces bit
    sets (``_bit_sets``), whose pieces are counted with shifts, ``&`` and ``bit_count`` (letters: 1, plus 1 per
    4 letters past 7; digits ``ceil(n / 3)``; underscores ``ceil(n / 4)``); punctuation, ``ceil(n / 2)`` a run,
    with two counts of the class string. Whitespace: the newlines, plus ``ceil(len / 8)`` for each run without a
    newline that is not a single space (the runs next to a newline stripped off each line).
    None when a run is too long for the bit-set levels (the caller counts by words)."""
    if not raw:
        return 0
    c = raw.translate(_CLASS)
    upper, digits, underscores, others = _UPPER_IN in c, _DIGIT_IN in c, _UNDERSCORE_IN in c, _OTHER_SPACE_IN in c
    plan = _PLANS.get((upper, digits, underscores, others)) or _plan(upper, digits, underscores, others)
    sets = _bit_sets(c, plan)
    letters = _letter_pieces(sets[0], sets[1] if upper else 0)
    if letters is None:
        return None
    total = letters
    if _NEWLINE_IN in c:
        total += c.count(_NEWLINE_IN)
    if _PUNCT_IN in c:  # a run of n costs ceil(n / 2) = n - floor(n / 2), and floor(n / 2) is how often ".." fits in it
        total += c.count(_PUNCT_IN) - c.count(_PUNCT_RUN)
    at = 1 + upper
    for present, size in ((digits, 3), (underscores, 4)):
        if present:
            runs = _ceil_runs(sets[at], size)
            if runs is None:
                return None
            total += runs
            at += 1
    if others or sets[-1] & (sets[-1] >> 1):  # a tab or the like, or two spaces side by side
        free = b"0".join(map(bytes.strip, (b"0%b0" % c.translate(_SPACES)).split(b"n"), _STRIP))
        blank = free.translate(_BLANKS)  # the runs without a newline, each between two 0s
        total += (blank.count(b"01") + blank.replace(b"01", b"0").count(b"11111111")  # ceil(len / 8) each
                  - free.replace(b"0", b"00").count(b"0s0"))  # a single space costs nothing
    return total


def _ceil_runs(bits: int, size: int) -> int | None:
    """The sum of ``ceil(n / size)`` over the runs of set bits: the runs at least 1, size + 1, 2 size + 1 ...
    long, each level one ``&`` of the starts with a shifted block of ``size`` set bits. (``x ^ (x & y)`` is
    ``x & ~y``, without the negative integer ``~y`` that costs Python four times as much.)"""
    starts = bits ^ (bits & (bits >> 1))
    total = starts.bit_count()
    block = bits
    for j in range(1, size):
        block &= bits << j
    reach = 1
    for _ in range(_LEVELS):
        starts &= block << reach
        if not starts:
            return total
        total += starts.bit_count()
        reach += size
    return None


def _letter_pieces(lower: int, upper: int) -> int | None:
    """The letter pieces' cost, 1 each plus 1 per 4 letters past 7, from the lower and upper case bit sets.
    A piece starts after a non-letter, at an upper after a lower, and at the last upper of a run of them
    before a lower (``HTTPServer``: HTTP, Server), as ``_PIECE`` cuts them."""
    letters = lower | upper
    starts = letters ^ (letters & (letters >> 1))
    if upper:
        starts |= (upper & (lower >> 1)) | (upper & (upper >> 1) & (lower << 1))
    total = starts.bit_count()
    inside = letters ^ starts  # (the starts are letters)
    two = inside & (inside << 1)
    four = two & (two << 2)
    seven = four & (two << 4) & (inside << 6)
    longer = starts & (seven << 1)  # pieces of 8 letters or more
    reach = 8
    for _ in range(_LEVELS):
        if not longer:
            return total
        total += longer.bit_count()
        longer &= four << reach
        reach += 4
    return None


def _pieces(text: str) -> float:
    total = 0.0
    for match in _PIECE.finditer(text):
        piece = match.group()
        first = piece[0]
        if first.isspace():
            if piece == " ":
                continue  # a single space joins the next word
            lines = piece.count("\n")
            total += lines if lines else math.ceil(len(piece) / 8)
        elif first.isdigit():
            total += math.ceil(len(piece) / 3)
        elif piece.isascii() and (first.isalpha()):
            n = len(piece)
            total += 1 if n <= 7 else 1 + math.ceil((n - 7) / 4)
        elif first.isalpha() or not piece.isascii():
            total += _non_latin(piece)
        elif first == "_":
            total += math.ceil(len(piece) / 4)
        else:
            total += math.ceil(len(piece) / 2)
    return total


def _non_latin(piece: str) -> float:
    cost = 0.0
    for ch in piece:
        code = ord(ch)
        if code < 0x80:
            cost += 0.25
        elif code < 0x2E80:
            cost += 0.6  # accented Latin, Greek, Cyrillic, ...
        else:
            cost += 1.2  # CJK, emoji and the rest: about a token per character or more
    return max(cost, 1.0)


def value_tokens(value: Any) -> float:
    """A JSON value as the model sees it (tool inputs, schemas, structured results)."""
    if isinstance(value, str):
        return text_tokens(value)
    return text_tokens(jsonio.dumps(value).decode("utf-8", "replace"))


def block_tokens(block: Any, carry_thinking: bool = True) -> float:
    if not isinstance(block, dict):
        return BLOCK_BASE + (text_tokens(block) if isinstance(block, str) else value_tokens(block))
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        return BLOCK_BASE + (text_tokens(text) if isinstance(text, str) else 0)
    if kind == "tool_result":  # (the commonest block of a long run, before the tool-use test)
        content = block.get("content")
        inner = 0.0
        if isinstance(content, str):
            inner = text_tokens(content)  # (``value_tokens`` of a string)
        elif isinstance(content, list):
            inner = sum(map(block_tokens, content))
        elif content is not None:
            inner = value_tokens(content)
        return TOOL_RESULT_BASE + text_tokens(str(block.get("tool_use_id", ""))) + inner
    if is_tool_use(kind):
        return (TOOL_USE_BASE + text_tokens(str(block.get("name", ""))) + text_tokens(str(block.get("id", "")))
                + value_tokens(block.get("input", {})))
    if is_tool_result(kind):
        content = block.get("content")
        inner = 0.0
        if isinstance(content, list):
            inner = sum(block_tokens(b) for b in content)
        elif content is not None:
            inner = value_tokens(content)
        return TOOL_RESULT_BASE + text_tokens(str(block.get("tool_use_id", ""))) + inner
    if kind == "thinking":
        thought = block.get("thinking")
        return (BLOCK_BASE + text_tokens(thought)) if carry_thinking and isinstance(thought, str) else 0.0
    if kind == "redacted_thinking":
        return 0.0
    if kind == "image":
        return image_tokens(block.get("source"))
    if kind == "document":
        return document_tokens(block.get("source"))
    return BLOCK_BASE + value_tokens({k: v for k, v in block.items() if k not in ("type", "cache_control")})


def message_tokens(message: Any, carry_thinking: bool = True) -> float:
    if not isinstance(message, dict):
        return MESSAGE_BASE + value_tokens(message)
    content = message.get("content")
    if isinstance(content, list):
        return MESSAGE_BASE + sum(map(block_tokens, content, itertools.repeat(carry_thinking, len(content))))
    if isinstance(content, str):
        return MESSAGE_BASE + text_tokens(content)
    return float(MESSAGE_BASE)


def system_tokens(system: Any) -> float:
    if system is None:
        return 0.0
    if isinstance(system, str):
        return SYSTEM_BASE + text_tokens(system) if system else 0.0
    if isinstance(system, list):
        return SYSTEM_BASE + sum(block_tokens(b) for b in system)
    return SYSTEM_BASE + value_tokens(system)


def tools_tokens(tools: Any, tool_choice: Any = None) -> float:
    if not isinstance(tools, list) or not tools:
        return 0.0
    choice = tool_choice.get("type") if isinstance(tool_choice, dict) else None
    choice = choice if isinstance(choice, str) else None
    total = float(TOOLS_PROMPT.get(choice or "auto", TOOLS_PROMPT["auto"]))
    for tool in tools:
        if not isinstance(tool, dict):
            total += value_tokens(tool)
        elif tool.get("type") not in (None, "custom"):
            total += SERVER_TOOL  # a server tool: its definition is the provider's, not in the body
        else:
            total += TOOL_SCHEMA_BASE + value_tokens({k: v for k, v in tool.items() if k != "cache_control"})
    return total


def thinking_carried(messages: list[Any]) -> list[bool]:
    """Per message: does the API count its thinking text? Only the latest assistant turn's."""
    last = max((i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"),
               default=-1)
    return [i == last for i in range(len(messages))]


def fixed_tokens(body: dict[str, Any]) -> float:
    """What rides in every request besides the messages: base, system prompt, tool schemas."""
    hidden = THINKING_PROMPT if thinking_enabled(body) else 0
    return (REQUEST_BASE + hidden + system_tokens(body.get("system"))
            + tools_tokens(body.get("tools"), body.get("tool_choice")))


def request_tokens(body: dict[str, Any]) -> int:
    """Estimated input tokens of a whole request body."""
    messages = body.get("messages") if isinstance(body.get("messages"), list) else []
    carried = thinking_carried(messages)
    return round(fixed_tokens(body) + sum(message_tokens(m, c) for m, c in zip(messages, carried)))


def output_tokens(message: Any) -> int:
    """Estimated output tokens of a produced assistant turn (thinking text counts in full)."""
    return round(max(message_tokens(message) - MESSAGE_BASE, 1))


def image_tokens(source: Any) -> float:
    from tui.core.media import image_size  # small helper, kept apart so this file stays about text

    size = image_size(source)
    if size is None:
        return IMAGE_DEFAULT
    width, height = size
    return min(math.ceil(width * height / 750), IMAGE_DEFAULT)


def document_tokens(source: Any) -> float:
    if isinstance(source, dict) and source.get("type") == "text":
        return BLOCK_BASE + value_tokens(source.get("data", ""))
    if isinstance(source, dict) and isinstance(source.get("data"), str):
        import base64
        import binascii

        try:
            raw = base64.b64decode(source["data"], validate=False)
        except (binascii.Error, ValueError):
            return PDF_PAGE
        pages = len(re.findall(rb"/Type\s*/Page(?!s)", raw))
        return PDF_PAGE * max(pages, 1)
    return PDF_PAGE
