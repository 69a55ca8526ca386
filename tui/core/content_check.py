"""The content check of a run: hidden text (``tui.core.hidden``) and secrets (``tui.core.secrets``) as findings.

Apart from ``tui.core.content`` (the places text sits in a run), which both checks import:
with the check there, content, hidden and secrets imported each other in a circle.
"""

from __future__ import annotations

from tui.core.content import text_places
from tui.core.run import Run


def content_findings(run: Run) -> list:
    """The content check: hidden text and secrets, as findings sorted like the grammar's."""
    from tui.core import jsonio
    from tui.core.grammar.findings import sort_findings
    from tui.core.hidden import hidden_findings, may_hide
    from tui.core.secrets import may_hold_secrets, secret_findings

    # The common case, a run with neither, is settled on its JSON at C speed; a walk only when needed.
    data = jsonio.dumps([run.system, run.tools, run.messages])
    hidden, secrets = may_hide(data), may_hold_secrets(data)
    del data
    if not (hidden or secrets):
        return []
    places = list(text_places(run))  # one walk for both scans
    return sort_findings((hidden_findings(run, places) if hidden else [])
                         + (secret_findings(run, places) if secrets else []))
