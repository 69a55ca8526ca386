"""``turnscope export FILE [--at N] [--format html|md] [-o OUT] [--redact]``: a run as a document for a review.

One self-contained HTML page (no network, no script needed to read it, one file) or Markdown:
the header (file, format, exact or reconstructed, token figures), each message with its index,
producer and blocks as the stepper shows them, the findings beside their messages, the request
at N with ``--at`` (system prompt and tools included), and for a branch file its lineage and the
side-by-side with its parent. Run text stays inert: escaped, hidden text made visible.
When the run holds secrets, ``--redact`` is required (each becomes ``⟨redacted: KIND⟩``); without
it the export is refused with exit 2 and the list of what was found (kinds and places only).
``-o`` defaults to the run file's name with ``.html`` or ``.md`` in the current directory; the
file is written atomically and never over the input.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from tui.commands.common import open_from_args, out, say
from tui.commands.helptext import HelpFormatter
from tui.core import jsonio
from tui.core.errors import UsageError
from tui.core.export import FORMATS, HTML, build, render, secret_places
from tui.core.run import Run
from tui.core.safe import one_line
from tui.formats import format_names


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("export", help="export a run as one HTML page or Markdown, for a review",
                            description=__doc__.split("\n\n", 1)[1], formatter_class=HelpFormatter)
    # The shared file options, less --format: here it names the document's format (the loader's is --input-format).
    parser.add_argument("file", metavar="FILE", help="a run file")
    parser.add_argument("--run", type=int, metavar="K", help="which run of a file that holds several (0-based)")
    parser.add_argument("--system", metavar="F", help="system prompt file (text, or JSON string/blocks)")
    parser.add_argument("--tools", metavar="F", help="tool schemas file (JSON list, or an object with tools)")
    parser.add_argument("--input-format", dest="format", metavar="NAME", choices=format_names(),
                        help="force the run file's format: " + ", ".join(format_names()))
    parser.add_argument("--at", type=int, default=None, metavar="N", help="include the request that produced message N")
    parser.add_argument("--format", dest="doc_format", choices=FORMATS, default=HTML, metavar="html|md",
                        help="html (default) or md")
    parser.add_argument("-o", "--output", metavar="OUT", help="where to write (default: FILE's name .html/.md here)")
    parser.add_argument("--redact", action="store_true",
                        help="replace each credential found with ⟨redacted: KIND⟩ (required when there are any)")


def default_output(path: str, fmt: str) -> str:
    """``run.jsonl`` -> ``run.html`` (or ``run.md``) in the current directory."""
    return str(Path(Path(path).name).with_suffix("." + fmt))


def parent_of(run: Run) -> Run | None:
    """The parent run of a branch file, when it can still be read (else the side-by-side is left out)."""
    from tui.formats import open_run

    origin = (run.lineage or {}).get("parent") if isinstance((run.lineage or {}).get("parent"), dict) else None
    if not origin or not isinstance(origin.get("path"), str):
        return None
    try:
        return open_run(origin["path"], run=origin.get("run") if isinstance(origin.get("run"), int) else None)
    except Exception:  # noqa: BLE001 - a moved or damaged parent only drops the side-by-side
        return None


def export_bytes(run: Run, fmt: str, *, at: int | None = None, redact: bool = False) -> tuple[bytes, list[str]]:
    """The document's bytes and what was redacted. Raises ``UsageError`` naming the secrets (kinds and places
    only) when there are some and ``redact`` is not set."""
    places = secret_places(run)
    if places and not redact:
        raise SecretsFound(places)
    if places:
        from tui.core.secrets import redact_run

        run, _ = redact_run(run)
    doc = build(run, at=at, parent=parent_of(run), redacted=places)
    return render(doc, fmt), places


class SecretsFound(UsageError):
    """The run holds secrets and no redaction was asked for."""

    def __init__(self, places: list[str]) -> None:
        super().__init__(f"{len(places)} secret{'s' if len(places) != 1 else ''} found; export with --redact "
                         "(each becomes ⟨redacted: KIND⟩)")
        self.places = places


def run(args: argparse.Namespace) -> int:
    r = open_from_args(args)
    fmt = args.doc_format
    target = args.output or default_output(args.file, fmt)
    if os.path.exists(target) and os.path.samefile(target, args.file):
        raise UsageError(f"{target}: refusing to overwrite the input file")
    try:
        data, places = export_bytes(r, fmt, at=args.at, redact=args.redact)
    except SecretsFound as exc:
        say(f"{args.file}: {exc}")
        for place in exc.places:
            say(f"  {place}")
        return 2
    try:
        jsonio.atomic_write(target, data)
    except OSError as exc:
        raise UsageError(f"{target}: cannot write: {exc.strerror or exc}") from None
    note = f", {len(places)} secret{'s' if len(places) != 1 else ''} redacted" if places else ""
    out(f"wrote {one_line(target)} ({fmt}, {len(r.messages)} messages{note})")
    return 0
