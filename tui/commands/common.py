"""Options every verb that opens a run shares, and safe printing of run text."""

from __future__ import annotations

import argparse
import sys

from tui.core.run import Run
from tui.core.safe import already_visible, json_for_terminal, utf8_already_visible, visible
from tui.formats import load_runs, open_run
from tui.formats.options import LoadOptions, add_file_argument, add_load_options


#: The terminal width table rows are kept within (80 columns: a terminal over SSH).
WIDTH = 80


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, ``…`` marking the cut (a row stays one terminal line)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def add_file_options(parser: argparse.ArgumentParser, many: bool = False) -> None:
    """``FILE`` (or ``FILE...``), ``--run K``, ``--system F``, ``--tools F``, ``--format NAME``
    (``tui.formats.options``, shared with the stepper's own command line)."""
    add_file_argument(parser, "many" if many else "one")
    add_load_options(parser)


def options(args: argparse.Namespace) -> dict:
    """The ``load_runs`` / ``open_run`` keyword arguments the file options give."""
    return LoadOptions.from_args(args).kwargs()


def open_from_args(args: argparse.Namespace, path: str | None = None) -> Run:
    return open_run(path or args.file, run=args.run, **options(args))


def runs_from_args(args: argparse.Namespace, path: str) -> list[Run]:
    """The run ``--run`` picks, or every run of the file."""
    if args.run is not None:
        return [open_from_args(args, path)]
    return load_runs(path, **options(args))


def out(text: str = "") -> None:
    """Print text that may hold run content: control characters are shown, never sent."""
    sys.stdout.write(visible(text) + "\n")


def out_lines(lines: list[str]) -> None:
    """``out`` for many lines at once: one write, and one fast check that nothing needs escaping."""
    text = "\n".join(lines) + "\n"
    if (sys.stdout.encoding or "").lower().replace("-", "") == "utf8":
        data = text.encode("utf-8", "surrogatepass")
        del text
        if utf8_already_visible(data):
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
            return
        text = data.decode("utf-8", "surrogatepass")
    if not already_visible(text):
        text = "".join(visible(line) + "\n" for line in lines)
    sys.stdout.write(text)


def write_bytes(data: bytes) -> None:
    """JSON out as it is (exact bytes into a pipe or a file); on a terminal, the characters JSON leaves
    raw but a terminal may act on (C1 controls, bidi overrides) are ``\\u`` escapes: the same value."""
    if sys.stdout.isatty():
        data = json_for_terminal(data)
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.write(b"\n")
    sys.stdout.buffer.flush()


def location(run: Run) -> str:
    """``FILE`` or ``FILE#K`` for run K of a multi-run file."""
    path = run.source.path
    return f"{path}#{run.source.run_index}" if run.source.run_count > 1 else path


def plural(n: int, word: str) -> str:
    """``1 run``, ``2 runs``, with thousands separators."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"
