"""The file options every command that opens a run shares (the stepper and the verbs), and what they load with.

``add_file_argument`` adds ``FILE`` (one, several, or optional for the stepper, whose picker
opens without one); ``add_load_options`` adds ``--run K``, ``--system F``, ``--tools F`` and
``--format NAME``. ``LoadOptions`` is what ``load_runs`` / ``open_run`` take from them, typed.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Literal

from tui.formats import format_names


@dataclass(frozen=True)
class LoadOptions:
    """How to read a run file: a forced format, and the sidecar system prompt and tools files."""

    fmt: str | None = None
    system: str | None = None
    tools: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> LoadOptions:
        return cls(args.format, args.system, args.tools)

    def kwargs(self) -> dict[str, str | None]:
        """The keyword arguments of ``load_runs`` and ``open_run``."""
        return {"fmt": self.fmt, "system": self.system, "tools": self.tools}


def add_file_argument(parser: argparse.ArgumentParser, how: Literal["one", "many", "optional"] = "one") -> None:
    """``FILE``, ``FILE...`` (``files``) or ``[FILE]`` (none: the stepper's run picker)."""
    if how == "many":
        parser.add_argument("files", nargs="+", metavar="FILE", help="run files")
    elif how == "optional":
        parser.add_argument("file", nargs="?", metavar="FILE", help="a run file (none: choose from the run picker)")
    else:
        parser.add_argument("file", metavar="FILE", help="a run file")


def add_load_options(parser: argparse.ArgumentParser, check_format: bool = True) -> None:
    """``--run K``, ``--system F``, ``--tools F``, ``--format NAME`` (checked by argparse unless
    ``check_format`` is False, when the caller says what is wrong its own way)."""
    parser.add_argument("--run", type=int, metavar="K", help="which run of a file that holds several (0-based)")
    parser.add_argument("--system", metavar="F", help="system prompt file (text, or JSON string/blocks)")
    parser.add_argument("--tools", metavar="F", help="tool schemas file (JSON list, or an object with tools)")
    parser.add_argument("--format", metavar="NAME", choices=format_names() if check_format else None,
                        help="force a format: " + ", ".join(format_names()))
