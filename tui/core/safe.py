"""Make untrusted run text safe to put on a terminal.

Tool results, model output, tool names and ids come from the run and may hold escape
sequences (CSI, OSC 52 clipboard writes, OSC 8 links, window titles), BEL, C1 controls or
bidi overrides. ``visible`` replaces every such character with a visible escape such as
``\\x1b`` so that nothing in a run can drive the terminal; newlines and tabs are kept
(``one_line`` also shows those). Markup is not interpreted anywhere: the CLI prints plain
strings and the app renders ``rich.text.Text`` built from plain strings, never markup.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, C1 controls, bidi embeddings/overrides/isolates,
# zero-width and line/paragraph separators that can reorder or hide text.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_UNSAFE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


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
    text = _UNSAFE.sub(_escape, text)
    if _SURROGATE.search(text):
        text = _SURROGATE.sub(_escape, text)
    return text


def one_line(text: str) -> str:
    """Like ``visible``, and newlines and tabs too, for one-line summaries."""
    text = _UNSAFE_LINE.sub(_escape, text)
    if _SURROGATE.search(text):
        text = _SURROGATE.sub(_escape, text)
    return text
