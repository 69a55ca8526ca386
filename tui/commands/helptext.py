"""``--help`` text for the verbs: their module docstrings, as a reader at any width sees them.

The docstrings are written for the source (reStructuredText literals ````like this```` and
``**bold**``) with lines of about 90 characters; printed raw they wrapped mid-word at 80
columns and showed the markup. Here each paragraph loses the markup and is re-filled to the
terminal's width; a paragraph whose lines are indented (a usage block) is kept as it is.
JSON schemas and other long words are never split.
"""

from __future__ import annotations

import argparse
import re
import textwrap

_MARKUP = re.compile(r"``(.+?)``|\*\*(.+?)\*\*", re.DOTALL)


def plain(text: str) -> str:
    """``text`` without the reStructuredText literal and bold marks."""
    return _MARKUP.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), text)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions as filled paragraphs (blank lines between them kept), indented blocks verbatim."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = []
        for paragraph in textwrap.dedent(text).strip("\n").split("\n\n"):
            lines = paragraph.splitlines()
            if lines and all(line.startswith(" ") for line in lines if line.strip()):
                paragraphs.append("\n".join(indent + line for line in lines))
                continue
            paragraphs.append(textwrap.fill(" ".join(plain(paragraph).split()), width, initial_indent=indent,
                                            subsequent_indent=indent, break_long_words=False,
                                            break_on_hyphens=False))
        return "\n\n".join(paragraphs)
