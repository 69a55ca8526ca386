"""``say``: one line of trouble on stderr, ``turnscope: ...``, the one way every layer tells a user what went wrong."""

from __future__ import annotations

import sys

from tui.core.safe import one_line


def say(text: str) -> None:
    """One line of trouble on stderr, prefixed like every turnscope error. The text may quote a path or
    run content, so control characters and newlines are shown, never sent. Output already written to
    stdout goes first, so the two streams read in order on one terminal."""
    sys.stdout.flush()
    print(f"turnscope: {one_line(text)}", file=sys.stderr, flush=True)
