"""The content check: hidden text and secrets in a run's content, as findings (``check``, the stepper, export).

``tui.core.content`` walks the run's text (``text_places``); ``tui.core.hidden`` and
``tui.core.secrets`` scan it; this module runs both over one walk.

The check can also run in parts (``content_findings(run, part=(k, m))``), one part a process
(``tui.core.view.background``): part ``k`` of ``m`` is every ``m``-th stripe of ``STRIPE`` messages
from stripe ``k`` on, part 0 with the system prompt and tools. Every finding is about one message
(or the system prompt or a tool) and is sorted by where it is, so the parts' findings joined and
sorted are the whole check's, in the same order.
"""

from __future__ import annotations

import itertools
from typing import Any, Iterable, Iterator

from tui.core import jsonio
from tui.core.content import text_places
from tui.core.grammar.findings import Finding, sort_findings
from tui.core.hidden import hidden_findings, may_hide
from tui.core.run import Run
from tui.core.secrets import may_hold_secrets, secret_findings


#: Bytes of the run's JSON settled at once: the whole run's JSON (and its mask in ``may_hold_secrets``)
#: doubled a 100 MB run's memory for a moment.
PIECE_BYTES = 4 << 20


#: Messages a stripe of a part: long enough that a part's pieces stay whole, short enough that two parts
#: of a long run get about the same bytes whatever its shape.
STRIPE = 256

Part = tuple[int, int]


def part_indices(count: int, part: Part) -> range | Iterator[int]:
    """The indices of part ``k`` of ``m`` (``part``) of ``count`` messages: stripes ``k``, ``k + m``, ... of
    ``STRIPE`` messages each, ascending."""
    k, m = part
    if m == 1:
        return range(count)
    return (i for start in range(k * STRIPE, count, m * STRIPE) for i in range(start, min(start + STRIPE, count)))


def _pieces(values: Iterable[Any]) -> Iterator[bytearray]:
    """The JSON of ``values`` (system, tools, messages) in pieces of whole values of about ``PIECE_BYTES``,
    joined as in one array: what either pre-check looks for lies inside one string, so inside one piece.
    Each piece is a new ``bytearray``, handed over as it is (copying each into ``bytes`` was 100 MB more on
    a 100 MB run)."""
    piece = bytearray()  # not a list of orjson's outputs: each holds a buffer of tens of KB, however short
    for value in values:
        if piece:
            piece += b","
        piece += jsonio.dumps(value)
        if len(piece) + 1 >= PIECE_BYTES:
            yield piece
            piece = bytearray()
    if piece:
        yield piece


def content_findings(run: Run, part: Part = (0, 1)) -> list[Finding]:
    """The content check: hidden text and secrets, as findings sorted like the grammar's; of ``part`` ``(k, m)``
    of the run only (the module's text), the whole run by default."""
    # The common case, a run with neither, is settled on its JSON at C speed; a walk only when needed.
    messages = run.messages
    outside = part[0] == 0
    indices = None if part[1] == 1 else list(part_indices(len(messages), part))
    mine = messages if indices is None else map(messages.__getitem__, indices)
    hidden = secrets = False
    for data in _pieces(itertools.chain((run.system, run.tools) if outside else (), mine)):
        hidden = hidden or may_hide(data)
        secrets = secrets or may_hold_secrets(data)
        if hidden and secrets:
            break
    if not (hidden or secrets):
        return []
    places = list(text_places(run, indices, outside))  # one walk for both scans
    return sort_findings((hidden_findings(run, places) if hidden else [])
                         + (secret_findings(run, places) if secrets else []))
