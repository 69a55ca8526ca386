"""How an experiment file is known (its name, its first bytes), without importing the experiment runner.

The loaders ask this of every file they sniff (an experiment file is refused as a run), and the app
of every file it opens, so it lives apart from ``experiment``, which imports asyncio and the branch
runner: the app imports those only for an experiment file, not on every start.
"""

from __future__ import annotations

import os

#: How an experiment file's name ends (``turnscope branch --samples K`` saves it so).
SUFFIX = ".experiment.json"

#: The key an experiment file starts with (``experiment.save`` writes it first).
KEY = "turnscope_experiment"
#: How far into the file the key is looked for.
HEAD = 256


def marks_experiment(head: bytes) -> bool:
    """The file's first bytes are an experiment file's."""
    return f'"{KEY}"'.encode() in head[:HEAD]


def is_experiment(path: str | os.PathLike[str]) -> bool:
    """The file is an experiment file (by name, or by its first bytes)."""
    if str(path).endswith(SUFFIX):
        return True
    try:
        with open(path, "rb") as handle:
            return marks_experiment(handle.read(HEAD))
    except OSError:
        return False
