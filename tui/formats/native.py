"""The native run file written by ``turnscope convert`` and the branch runner."""

from __future__ import annotations

from tui.core.errors import LoadError
from tui.core.native import NativeError, runs_from_document
from tui.core.run import Run
from tui.formats.document import Document

NAME = "native"
DESCRIPTION = 'turnscope run file ({"turnscope": 1, ...})'


def sniff(doc: Document) -> int:
    if not doc.head.startswith(b"{") or b'"turnscope"' not in doc.head[:4096]:
        return 0
    value = doc.json_or_none()
    return 100 if isinstance(value, dict) and "turnscope" in value else 0


def load(doc: Document) -> list[Run]:
    value = doc.json()
    if not (isinstance(value, dict) and ("turnscope" in value or isinstance(value.get("runs"), list))):
        raise LoadError(doc.path, "not a turnscope run file: it has no 'turnscope' key", 1, 1)
    try:
        return runs_from_document(doc.json(), doc.path)
    except NativeError as exc:
        raise LoadError(doc.path, f"bad turnscope run file: {exc}", 1, 1) from None
