"""The content check: hidden text and secrets in a run's content, as findings (``check``, the stepper, export).

``tui.core.content`` walks the run's text (``text_places``); ``tui.core.hidden`` and
``tui.core.secrets`` scan it; this module runs both over one walk.
"""

from __future__ import annotations

from tui.core import jsonio
from tui.core.content import text_places
from tui.core.grammar.findings import Finding, sort_findings
from tui.core.hidden import hidden_findings, may_hide
from tui.core.run import Run
from tui.core.secrets import may_hold_secrets, secret_findings


def content_findings(run: Run) -> list[Finding]:
    """The content check: hidden text and secrets, as findings sorted like the grammar's."""
    # The common case, a run with neither, is settled on its JSON at C speed; a walk only when needed.
    data = jsonio.dumps([run.system, run.tools, run.messages])
    hidden, secrets = may_hide(data), may_hold_secrets(data)
    del data
    if not (hidden or secrets):
        return []
    places = list(text_places(run))  # one walk for both scans
    return sort_findings((hidden_findings(run, places) if hidden else [])
                         + (secret_findings(run, places) if secrets else []))
