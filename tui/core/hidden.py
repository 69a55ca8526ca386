"""Hidden text: characters a model reads and a person does not see, found in a run's content.

``hidden_in(text)`` finds the spans of one string that hide something: Unicode tag characters
(U+E0000-E007F, "ASCII smuggling", decoded to the text they carry), bidi controls (which reorder
what a person reads), zero-width characters inside words, runs of variation selectors carrying
bytes, and any other invisible format character. What hides nothing is left out: an emoji's own
tag sequence (a subdivision flag), a zero-width joiner between two emoji, a single emoji
presentation selector, a byte-order mark at the very start of a text. Control characters (a
command's coloured output) are not hidden text: the sanitiser shows them, and they are not flagged.

``hidden_findings(run)`` makes them ``hidden_text`` warnings: one per block (or system prompt,
or tool), naming what the hidden text says. One in a tool result the model answered next is a
likely injection and says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from tui.core.content import Place, text_places
from tui.core.grammar.findings import Finding
from tui.core.grammar.rules import WARNING
from tui.core.run import Run
from tui.core.safe import SELECTORS, TAGS, decode_selectors, decode_tags, one_line

RULE = "hidden_text"
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_ZERO_WIDTH = "\u200b-\u200d\u2060\ufeff\u180e\u00ad"
_FIND = regex.compile(rf"(?V1)(?P<tags>[{TAGS}]+)|(?P<sel>[{SELECTORS}]+)|(?P<bidi>[{_BIDI}]+)"
                      rf"|(?P<zw>[{_ZERO_WIDTH}]+)|(?P<other>[\p{{Cf}}\p{{Default_Ignorable_Code_Point}}]+)")
_POSSIBLE = regex.compile(rf"[\p{{Cf}}\p{{Default_Ignorable_Code_Point}}{TAGS}{SELECTORS}]")
_ASCII = bytes(range(0x80))
_WORD = regex.compile(r"\w")
_EMOJI = regex.compile(r"[\p{So}\p{Sk}]")
_QUOTE = 80  # characters of what the hidden text says, quoted in a finding


@dataclass(frozen=True)
class Hidden:
    """One span of hidden text: its kind and what it says, shown visibly."""

    kind: str  # "tag characters", "bidi controls", "zero-width characters inside words", ...
    says: str
    start: int
    end: int


def may_hide(data: bytes | bytearray) -> bool:
    """False when the UTF-8 text ``data`` (a whole run's JSON) holds no character that could hide text:
    then no walk of the run is needed. Its ASCII bytes are deleted first; what is left is searched."""
    if data.isascii():
        return False
    rest = data.translate(None, _ASCII)
    return bool(rest) and _POSSIBLE.search(rest.decode("utf-8", "replace")) is not None


def _around(text: str, start: int, end: int) -> str:
    """The span with a few characters either side, made visible: what a person would have read."""
    return one_line(text[max(0, start - 12): end + 12])


def hidden_in(text: str) -> list[Hidden]:
    """The spans of ``text`` that hide something (see the module's text)."""
    if text.isascii():
        return []
    found: list[Hidden] = []
    for m in _FIND.finditer(text):
        start, end = m.span()
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""
        group = m.lastgroup
        if group == "tags":
            if before == "\U0001f3f4" and text[end - 1] == "\U000e007f":
                continue  # a subdivision flag: 🏴 + tags + cancel tag
            found.append(Hidden("tag characters", f'"{decode_tags(m.group())}"', start, end))
        elif group == "sel":
            if end - start == 1 and (m.group() in "\ufe0e\ufe0f" or not _WORD.match(before or " ")):
                continue  # a presentation selector, or one selector on a symbol
            found.append(Hidden("variation selectors carrying data", decode_selectors(m.group()), start, end))
        elif group == "bidi":
            found.append(Hidden("bidi controls", f'"{_around(text, start, end)}"', start, end))
        elif group == "zw":
            if start == 0 and m.group() == "\ufeff":
                continue  # a byte-order mark at the start of a file's text
            if not (before and after and _WORD.match(before) and _WORD.match(after)):
                if "\u200d" in m.group() and (_EMOJI.match(before or " ") or _EMOJI.match(after or " ")):
                    continue  # an emoji sequence
                if m.group() in ("\u200b", "\u00ad"):
                    continue  # a line-break opportunity between words
                kind = "zero-width characters"
            else:
                kind = "zero-width characters inside words"
            found.append(Hidden(kind, f'"{_around(text, start, end)}"', start, end))
        else:
            found.append(Hidden("invisible format characters", f'"{_around(text, start, end)}"', start, end))
    return found


def _where(place: Place) -> str:
    return {"text": "the text", "thinking": "the thinking", "tool result": "the tool result"}.get(
        place.what, f"the {place.what}")


def _acted_on(run: Run, place: Place) -> int | None:
    """The message that answered a tool result holding hidden text: the model's next turn."""
    if place.kind != "tool_result" or place.index is None:
        return None
    nxt = place.index + 1
    if nxt < len(run.messages) and isinstance(run.messages[nxt], dict) and run.messages[nxt].get("role") == "assistant":
        return nxt
    return None


def hidden_findings(run: Run, places: list[Place] | None = None) -> list[Finding]:
    """One ``hidden_text`` warning per block (system prompt, tool) holding hidden text; ``places``: the
    run's ``text_places``, when the caller walked them already."""
    by_place: dict[tuple[int | None, int | None, str], tuple[Place, list[Hidden]]] = {}
    for place in text_places(run) if places is None else places:
        if place.text.isascii():  # O(1) for a str: no hidden character is ASCII
            continue
        spans = hidden_in(place.text)
        if spans:
            key = (place.index, place.block, place.what if place.index is None else "")
            by_place.setdefault(key, (place, []))[1].extend(spans)
    findings = []
    for (index, block, _), (place, spans) in by_place.items():
        kinds: dict[str, list[str]] = {}
        for span in spans:
            kinds.setdefault(span.kind, []).append(span.says)
        parts = []
        for kind, says in kinds.items():
            quoted = says[0] if len(says[0]) <= _QUOTE + 2 else says[0][:_QUOTE] + '…"'
            more = f" and {len(says) - 1} more" if len(says) > 1 else ""
            parts.append(f"{kind} saying {quoted}{more}" if kind in ("tag characters",
                         "variation selectors carrying data") else f"{kind} at {quoted}{more}")
        where = _where(place) if index is not None else place.what
        message = f"hidden text in {where}: " + "; ".join(parts)
        acted = _acted_on(run, place)
        cause = None
        if acted is not None:
            message = "likely injection: " + message + f" (the model's next turn, message {acted}, read it)"
            cause = ("a tool returned text hidden from a person; the model read all of it before its next turn, "
                     "so look there for what it made of it")
        else:
            cause = "text a model reads but a terminal or a browser shows as nothing (pasted, fetched or planted)"
        findings.append(Finding(WARNING, RULE, index, block, message, cause))
    return findings
