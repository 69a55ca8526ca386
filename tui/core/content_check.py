"""The content check: hidden text and secrets in a run's content, as findings (``check``, the stepper, export).

``tui.core.content`` walks the run's text (``text_places``); ``tui.core.hidden`` and
``tui.core.secrets`` scan it; this module runs both over one walk.
"""

from __future__ import annotations

from typing import Iterator

from tui.core import jsonio
from tui.core.content import text_places
from tui.core.grammar.findings import Finding, sort_findings
from tui.core.hidden import hidden_findings, may_hide
from tui.core.run import Run
from tui.core.secrets import may_hold_secrets, secret_findings


#: Bytes of the run's JSON settled at once: the whole run's JSON (and its mask in ``may_hold_secrets``)
#: doubled a 100 MB run's memory for a moment.
PIECE_BYTES = 4 << 20


def _pieces(run: Run) -> Iterator[bytearray]:
    """The run's JSON (system, tools, messages) in pieces of whole values of about ``PIECE_BYTES``, joined as
    in one array: what either pre-check looks for lies inside one string, so inside one piece. Each piece is
    a new ``bytearray``, handed over as it is (copying each into ``bytes`` was 100 MB more on a 100 MB run)."""
    piece = bytearray()  # not a list of orjson's outputs: each holds a buffer of tens of KB, however short
    for value in (run.system, run.tools, *run.messages):
        if piece:
            piece += b","
        piece += jsonio.dumps(value)
        if len(piece) + 1 >= PIECE_BYTES:
            yield piece
            piece = bytearray()
    if piece:
        yield piece


def content_findings(run: Run) -> list[Finding]:
    """The content check: hidden text and secrets, as findings sorted like the grammar's."""
    # The common case, a run with neither, is settled on its JSON at C speed; a walk only when needed.
    hidden = secrets = False
    for data in _pieces(run):
        hidden = hidden or may_hide(data)
        secrets = secrets or may_hold_secrets(data)
        if hidden and secrets:
            break
    if not (hidden or secrets):
        return []
    places = list(text_places(run))  # one walk for both scans
    return sort_findings((hidden_findings(run, places) if hidden else [])
                         + (secret_findings(run, places) if secrets else []))
