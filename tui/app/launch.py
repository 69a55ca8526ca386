"""``turnscope [FILE] [--at N] [--run K] [--system F] [--tools F] [--format NAME] [--diff B]``: open the stepper.

Called by ``tui.cli`` for anything that is not a verb. The file is loaded before the app
starts, so a file that cannot be loaded (or an index out of range) prints one line,
``turnscope: FILE:LINE:COL: what``, and exits 2 with the terminal untouched. With no
file, the run picker opens.
"""

from __future__ import annotations

import argparse
import gc
import sys

from tui.core.errors import LoadError, UsageError
from tui.core.safe import one_line
from tui.formats import format_names

EXIT_BAD_INPUT = 2
VIEWS = ("request", "raw", "account", "problems", "tokens")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line and exit 2, like every turnscope error
        raise UsageError(message)


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="turnscope", description="Step through an agent run one message index at a time.")
    p.add_argument("file", nargs="?", metavar="FILE", help="a run file (none: choose from the run picker)")
    p.add_argument("--at", type=int, default=0, metavar="N", help="start at message N (default 0; negative counts back)")
    p.add_argument("--run", type=int, metavar="K", help="which run of a file that holds several (0-based)")
    p.add_argument("--system", metavar="F", help="system prompt file (text, or JSON string/blocks)")
    p.add_argument("--tools", metavar="F", help="tool schemas file (JSON list, or an object with tools)")
    p.add_argument("--context", metavar="RECORDING[#CALL]",
                   help="attach the system prompt, tools, params and betas of a recorded request")
    p.add_argument("--format", metavar="NAME", help="force a format: " + ", ".join(format_names()))
    p.add_argument("--view", choices=VIEWS, default="request", help="the view to open on (default request)")
    p.add_argument("--diff", metavar="B", help="open the diff screen of the run against file B (Escape: the stepper)")
    p.add_argument("--diff-run", type=int, metavar="K", help="which run of B, if it holds several (0-based)")
    return p


def _say(text: str) -> None:
    print(f"turnscope: {one_line(text)}", file=sys.stderr)


def launch(argv: list[str]) -> int:
    """Parse ``argv``, load the file, run the app; the exit code."""
    try:
        args = parser().parse_args(argv)
        if args.format is not None and args.format not in format_names():
            raise UsageError(f"unknown format {args.format!r}; known: {', '.join(format_names())}")
        from tui.app.factory import make_app  # Textual is imported only once the arguments are good

        app = make_app(args.file, at=args.at, run=args.run, fmt=args.format, system=args.system,
                       tools=args.tools, view=args.view, diff=args.diff, diff_run=args.diff_run, context=args.context)
    except LoadError as exc:
        _say(exc.line_text())
        return EXIT_BAD_INPUT
    except UsageError as exc:
        _say(str(exc))
        return EXIT_BAD_INPUT
    # The run just loaded is millions of acyclic objects: move them out of the cyclic
    # collector's sight once, before the app starts, so no later collection pauses a step
    # to walk them. (Runs opened later from the picker are not frozen: by then the app's
    # own cyclic objects would be frozen with them.)
    gc.freeze()
    app.run()
    return app.return_code or 0
