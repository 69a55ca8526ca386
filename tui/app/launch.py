"""``turnscope [FILE] [--at N] [--run K] [--system F] [--tools F] [--format NAME] [--diff B] [--follow]``: open the stepper.

Called by ``tui.cli`` for anything that is not a verb. The file is loaded before the app
starts, so a file that cannot be loaded (or an index out of range) prints one line,
``turnscope: FILE:LINE:COL: what``, and exits 2 with the terminal untouched. With no
file, the run picker opens. With standard output not a terminal (piped, redirected) the app does
not start: one line points to ``turnscope show``, exit 2.
"""

from __future__ import annotations

import argparse
import sys

from tui.core import collector
from tui.core.errors import LoadError, UsageError
from tui.core.trouble import say
from tui.formats import format_names
from tui.formats.options import add_file_argument, add_load_options

EXIT_BAD_INPUT = 2
VIEWS = ("request", "raw", "account", "problems", "tokens", "response")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line and exit 2, like every turnscope error
        raise UsageError(message)


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="turnscope", description="Step through an agent run one message index at a time.")
    add_file_argument(p, "optional")
    p.add_argument("--at", type=int, default=0, metavar="N", help="start at message N (default 0; negative counts back)")
    add_load_options(p, check_format=False)  # an unknown format is said below, with the known ones
    p.add_argument("--view", choices=VIEWS, default="request", help="the view to open on (default request)")
    p.add_argument("--diff", metavar="B", help="open the diff screen of the run against file B (Escape: the stepper)")
    p.add_argument("--diff-run", type=int, metavar="K", help="which run of B, if it holds several (0-based)")
    p.add_argument("--follow", action="store_true",
                   help="follow the file as it is written (a recording in progress, a live session); F toggles")
    return p


def launch(argv: list[str]) -> int:
    """Parse ``argv``, load the file, run the app; the exit code."""
    try:
        args = parser().parse_args(argv)
        if args.format is not None and args.format not in format_names():
            raise UsageError(f"unknown format {args.format!r}; known: {', '.join(format_names())}")
        from tui.app.factory import app_of, load_opening  # the file first: Textual once the analyses are forked

        at = args.at
        if args.follow and not any(a == "--at" or a.startswith("--at=") for a in argv):
            at = -1  # following starts at the end, as ``less +F`` does
        opening = load_opening(args.file, at=at, run=args.run, fmt=args.format, system=args.system,
                               tools=args.tools, view=args.view, diff=args.diff, diff_run=args.diff_run,
                               follow=args.follow, context=args.context)
    except LoadError as exc:
        say(exc.line_text())
        return EXIT_BAD_INPUT
    except UsageError as exc:
        say(str(exc))
        return EXIT_BAD_INPUT
    if not sys.stdout.isatty():  # piped or redirected: an app would draw escape codes into a file
        shown = f" {args.file}" if args.file else " FILE"
        say(f"standard output is not a terminal, so the app does not start; `turnscope show{shown}` "
            "prints the run (`turnscope check`, `tokens`, `trace` the analyses)")
        return EXIT_BAD_INPUT
    collector.keep_out_loaded()  # the run just loaded
    app = app_of(opening)
    collector.keep_out_loaded()  # what building the app left alive, before it starts (``tui.core.collector``)
    fork_analyses(opening)  # built, not yet running: no thread; the children wait until the first screen is out
    app.run()
    return app.return_code or 0


def fork_analyses(opening) -> bool:
    """The analyses of the run the app opens on (``factory.Opening``), forked now (``background.fork_early``: no
    thread runs yet, the run is in memory), for the stepper to adopt; only where it would start processes of
    its own (a large file, not followed, no diff or experiment on top). True if forked. Launch forks once the
    app is built, just before it runs: the pages the app writes after a fork are copied (about 2 µs each),
    and importing Textual and building the app wrote 10,000 of them (on the 100 MB run 20-30 ms of its first
    screen) where its first frame writes 6,000."""
    chosen = opening.chosen
    if chosen is None or not opening.path or opening.diff is not None or opening.experiment is not None \
            or opening.follower is not None:
        return False
    from tui.core.view.background import fork_early, large

    if not large(chosen.source.path):
        return False
    return fork_early(chosen)
