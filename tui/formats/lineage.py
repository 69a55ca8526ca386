"""A branch file's parent run, opened again from the path its lineage names (for a side-by-side)."""

from __future__ import annotations

from tui.core.run import Run
from tui.formats import open_run


def parent_of(run: Run) -> Run | None:
    """The parent run of a branch file, when it can still be read (else the side-by-side is left out)."""
    origin = (run.lineage or {}).get("parent") if isinstance((run.lineage or {}).get("parent"), dict) else None
    if not origin or not isinstance(origin.get("path"), str):
        return None
    try:
        return open_run(origin["path"], run=origin.get("run") if isinstance(origin.get("run"), int) else None)
    except Exception:  # noqa: BLE001 - a moved or damaged parent only drops the side-by-side
        return None
