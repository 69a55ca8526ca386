"""Recently opened runs, kept in turnscope's state directory (``recent.json``, written atomically).

A damaged or unreadable file is treated as empty (it is only a convenience) and is
replaced on the next open; nothing else is ever written there.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from tui.core import jsonio
from tui.core.errors import LoadError

LIMIT = 20
FILE = "recent.json"


def default_state_dir() -> Path:
    from platformdirs import user_state_dir

    return Path(os.environ.get("TURNSCOPE_STATE_DIR") or user_state_dir("turnscope"))


@dataclass
class Recent:
    path: str
    run: int | None
    title: str
    messages: int
    opened: float


def load(state_dir: Path) -> list[Recent]:
    try:
        data = jsonio.loads((state_dir / FILE).read_bytes(), str(state_dir / FILE))
    except (OSError, LoadError):
        return []
    items = data.get("recent") if isinstance(data, dict) else None
    out = []
    for item in items if isinstance(items, list) else []:
        try:
            out.append(Recent(str(item["path"]), item.get("run"), str(item.get("title", "")),
                              int(item.get("messages", 0)), float(item.get("opened", 0))))
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
    return out


def remember(state_dir: Path, path: str, run: int | None, title: str, messages: int) -> None:
    """Put ``path`` (run ``run``) first in the list; errors writing it are not the user's problem."""
    absolute = str(Path(path).resolve())
    items = [r for r in load(state_dir) if not (r.path == absolute and r.run == run)]
    items.insert(0, Recent(absolute, run, title, messages, time.time()))
    data = jsonio.dumps({"recent": [asdict(r) for r in items[:LIMIT]]}, indent=True)
    try:
        jsonio.atomic_write(state_dir / FILE, data)
    except OSError:
        pass
