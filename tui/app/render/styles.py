"""The few text styles the stepper's Line API views draw with, in one place.

Named ANSI colours so the terminal's own palette applies; under ``NO_COLOR`` Textual drops
the colours and the marks still read, because every state is also a word or a glyph
(``ERROR``, ``✗``, ``△``, ``▶``, ``▸``/``▾``).
"""

from __future__ import annotations

ROLE = {"user": "bold cyan", "assistant": "bold yellow"}
PRODUCER = {"caller": "cyan", "loop": "cyan", "model": "yellow"}
LABEL = "bold"
DIM = "dim"
#: Errors: a red light enough to read at 4.5:1 on the dark surfaces (ANSI red, #f4005f in Textual's theme, is 3.7:1).
ERROR = "bold #ff6b6b"
WARNING = "bold yellow"
OUTPUT = "bold reverse"
HEADING = "bold underline"
MATCH = "black on yellow"
CODE = "green"
#: A value marked where it came from (provenance) or where it changed (diff): reverse reads without colour.
SOURCE = "bold reverse"
#: The two parts of a token bar: what the previous request already sent, and what is new.
CARRIED, NEW = "dim", "bold"
NOTE = "italic dim"

#: The finding mark in the message list and the request pane.
#: A provenance note (a value no earlier message holds): a class below warnings, drawn quieter.
NOTE_MARK = "italic"
MARK = {"error": ("✗", ERROR), "warning": ("△", WARNING), "note": ("◦", NOTE_MARK)}
FOLDED, OPEN = "▸", "▾"
