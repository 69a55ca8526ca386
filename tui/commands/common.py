"""Options every verb that opens a run shares, and safe printing of run text."""

from __future__ import annotations

import argparse
import sys

from tui.core.run import Run
from tui.core.safe import already_visible, json_for_terminal, one_line, utf8_already_visible, visible
from tui.formats import format_names, load_runs, open_run


#: The terminal width table rows are kept within (80 columns: a terminal over SSH).
WIDTH = 80


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, ``…`` marking the cut (a row stays one terminal line)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def add_file_options(parser: argparse.ArgumentParser, many: bool = False) -> None:
    """``FILE`` (or ``FILE...``), ``--run K``, ``--system F``, ``--tools F``, ``--format NAME``."""
    if many:
        parser.add_argument("files", nargs="+", metavar="FILE", help="run files")
    else:
        parser.add_argument("file", metavar="FILE", help="a run file")
    parser.add_argument("--run", type=int, metavar="K", help="which run of a file that holds several (0-based)")
    parser.add_argument("--system", metavar="F", help="system prompt file (text, or JSON string/blocks)")
    parser.add_argument("--tools", metavar="F", help="tool schemas file (JSON list, or an object with tools)")
    parser.add_argument("--context", metavar="RECORDING[#CALL]",
                        help="attach the system prompt, tools, params and betas of a recorded request "
                             "(model call CALL, 1-based; default the last) to a run that lacks them")
    parser.add_argument("--format", metavar="NAME", choices=format_names(),
                        help="force a format: " + ", ".join(format_names()))


def options(args: argparse.Namespace) -> dict:
    return {"fmt": args.format, "system": args.system, "tools": args.tools, "context": getattr(args, "context", None)}


def open_from_args(args: argparse.Namespace, path: str | None = None) -> Run:
    return open_run(path or args.file, run=args.run, **options(args))


def runs_from_args(args: argparse.Namespace, path: str) -> list[Run]:
    """The run ``--run`` picks, or every run of the file."""
    if args.run is not None:
        return [open_from_args(args, path)]
    return load_runs(path, **options(args))


def say(text: str) -> None:
    """One line of trouble on stderr, ``turnscope: ...``, with control characters shown."""
    sys.stdout.flush()
    print(f"turnscope: {one_line(text)}", file=sys.stderr, flush=True)


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
