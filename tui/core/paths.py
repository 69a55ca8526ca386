"""Where turnscope keeps its own files (one module names them all), and how a run's path is shown.

``settings()`` gives the directories, read once from the environment and ``platformdirs``:
config (``keymap.json``; ``TURNSCOPE_CONFIG_DIR`` replaces it), state (``recent.json``;
``TURNSCOPE_STATE_DIR``), data (branch files under ``branches/``) and cache (exact token
counts under ``count_tokens/``). ``platformdirs`` is imported only when a directory is
asked for, so the headless verbs that need none never load it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

APP_NAME = "turnscope"


@dataclass(frozen=True)
class Settings:
    """turnscope's directories on this machine."""

    config: Path
    state: Path
    data: Path
    cache: Path


def settings() -> Settings:
    """The directories, from the environment (``TURNSCOPE_CONFIG_DIR``, ``TURNSCOPE_STATE_DIR``) and platformdirs."""
    import platformdirs

    return Settings(
        config=Path(os.environ.get("TURNSCOPE_CONFIG_DIR") or platformdirs.user_config_dir(APP_NAME)),
        state=Path(os.environ.get("TURNSCOPE_STATE_DIR") or platformdirs.user_state_dir(APP_NAME)),
        data=platformdirs.user_data_path(APP_NAME, appauthor=False),
        cache=Path(platformdirs.user_cache_dir(APP_NAME)),
    )


def short_path(path: str) -> str:
    """``path`` relative to the working directory when under it, else with ``~`` for home."""
    if not path:
        return "(no file)"
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute)
    if not relative.startswith(".."):
        return relative
    home = os.path.expanduser("~")
    return "~" + absolute[len(home):] if absolute.startswith(home + os.sep) else absolute
