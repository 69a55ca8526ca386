"""A turnscope format plug-in: ``{"chatlog": [{"who": "user"|"bot", "said": "..."}]}``."""

from tui.core.errors import LoadError
from tui.core.run import Run, Source

NAME = "chatlog"
DESCRIPTION = 'a chat log ({"chatlog": [{"who", "said"}]})'


def sniff(doc):
    value = doc.json_or_none() if b'"chatlog"' in doc.head else None
    return 80 if isinstance(value, dict) and isinstance(value.get("chatlog"), list) else 0


def load(doc):
    value = doc.json()
    lines = value.get("chatlog") if isinstance(value, dict) else None
    if not isinstance(lines, list):
        raise LoadError(doc.path, "no 'chatlog' list", 1, 1)
    roles = {"user": "user", "bot": "assistant"}
    messages = [{"role": roles.get(x.get("who"), "user"), "content": str(x.get("said", ""))} for x in lines]
    return [Run(messages=messages, source=Source(path=doc.path, format=NAME))]
