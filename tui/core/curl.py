"""The request at N as a ``curl`` command a person can paste into a shell to send it again.

The API key is never in it: the command reads ``$ANTHROPIC_API_KEY`` (and ``$ANTHROPIC_BASE_URL``,
defaulting to the public API) when it runs. The body is the exact request body, fed on standard
input from a quoted here-document, so the shell expands nothing in it; the characters JSON would
leave raw but a terminal may act on or a person would not see (C1 controls, bidi, tag characters)
are written as ``\\u`` escapes, the same JSON value, so the command is safe to print and to paste.
"""

from __future__ import annotations

from tui.core import jsonio
from tui.core.prefix import request_at
from tui.core.run import Run
from tui.core.safe import json_for_terminal

API_VERSION = "2023-06-01"
DELIMITER = "TURNSCOPE_REQUEST_BODY"


def curl_command(run: Run, n: int) -> str:
    """The ``curl`` command that sends the request that produced message ``n``."""
    body = json_for_terminal(jsonio.dumps(request_at(run, n).body)).decode("utf-8")
    return "\n".join([
        'curl -sS "${ANTHROPIC_BASE_URL:-https://api.anthropic.com}/v1/messages" \\',
        '  -H "x-api-key: $ANTHROPIC_API_KEY" \\',
        f'  -H "anthropic-version: {API_VERSION}" \\',
        '  -H "content-type: application/json" \\',
        f"  --data-binary @- <<'{DELIMITER}'",
        body,
        DELIMITER,
    ])
