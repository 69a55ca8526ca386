"""How an experiment file is known by its first bytes, without importing the experiment runner.

The loaders ask this of every file they sniff (an experiment file is refused as a run), so it
lives apart from ``experiment``, which imports asyncio and the branch runner.
"""

from __future__ import annotations

#: The key an experiment file starts with (``experiment.save`` writes it first).
KEY = "turnscope_experiment"
#: How far into the file the key is looked for.
HEAD = 256


def marks_experiment(head: bytes) -> bool:
    """The file's first bytes are an experiment file's."""
    return f'"{KEY}"'.encode() in head[:HEAD]
