"""The exact JSON body of one request, and its pretty-printed lines, indexed for drawing line by line.

``RawBody`` is built in a worker (a 100 MB body serialises and indexes in a fraction of a
second) and then read a line at a time by the Raw view. ``exact`` is the body as POSTed
(``request_json``); ``pretty`` is the same JSON with whitespace added for reading. Lines
are highlighted one at a time with a small JSON tokenizer, so only what is on screen
costs anything.
"""

from __future__ import annotations

import hashlib
import re
from array import array
from itertools import accumulate

from rich.text import Text

from tui.app.render.lines import display
from tui.core import jsonio
from tui.core.prefix import request_at
from tui.core.run import Run

_TOKEN = re.compile(r'("(?:[^"\\]|\\.)*"?)(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(true|false|null)|([{}\[\],])')
STYLE_KEY, STYLE_STRING, STYLE_NUMBER, STYLE_LITERAL, STYLE_PUNCT = "bold blue", "green", "magenta", "cyan", "dim"


class RawBody:
    """One request body: the exact bytes, the pretty lines and where each line starts."""

    def __init__(self, index: int, exact: bytes, pretty: bytes, wording: str = "exact bytes as POSTed"):
        self.index = index
        #: What ``exact`` is: the recorded bytes, re-serialised parsed JSON, or a reconstructed body.
        self.wording = wording
        self.exact = exact
        self.sha256 = hashlib.sha256(exact).hexdigest()
        self.pretty = pretty
        lengths = list(map(len, pretty.split(b"\n")))
        self.starts = array("q", [0, *accumulate(n + 1 for n in lengths[:-1])])
        self.lengths = array("q", lengths)
        self.width = max(lengths) if lengths else 0
        self._exact_text: str | None = None

    @classmethod
    def build(cls, run: Run, index: int) -> RawBody:
        req = request_at(run, index)
        return cls(index, req.bytes(), jsonio.dumps(req.body, indent=True), req.wording)

    def __len__(self) -> int:
        return len(self.starts)

    def line(self, y: int) -> str:
        start = self.starts[y]
        return self.pretty[start:start + self.lengths[y]].decode("utf-8", "replace")

    def exact_text(self) -> str:
        """The exact body as text (decoded once, on first use of the exact mode)."""
        if self._exact_text is None:
            self._exact_text = self.exact.decode("utf-8", "replace")
        return self._exact_text

    def same_json(self) -> bool:
        """The pretty lines parse to exactly the value the exact bytes parse to."""
        return jsonio.loads(self.pretty) == jsonio.loads(self.exact)


def highlight(window: str) -> Text:
    """A window of one JSON line, made visible and coloured by token."""
    text = Text(display(window), no_wrap=True, end="")
    plain = text.plain
    for match in _TOKEN.finditer(plain):
        if match.group(1) is not None:
            style = STYLE_KEY if match.group(2) else STYLE_STRING
            text.stylize(style, match.start(1), match.end(1))
        elif match.group(3) is not None:
            text.stylize(STYLE_NUMBER, match.start(), match.end())
        elif match.group(4) is not None:
            text.stylize(STYLE_LITERAL, match.start(), match.end())
        else:
            text.stylize(STYLE_PUNCT, match.start(), match.end())
    return text
