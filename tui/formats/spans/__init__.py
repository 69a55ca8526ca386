"""Spans and trace observations read into runs (shared by the otel and langfuse loaders)."""

from __future__ import annotations

from typing import Any


def is_json_lines(doc: Any) -> bool:
    """JSON Lines, also when the first line is longer than the head the sniffers see (an export batch
    of megabytes): the first line parses alone and the whole file does not."""
    return doc.first_line() is not None and doc.json_or_none() is None
