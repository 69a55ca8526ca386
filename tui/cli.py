"""The ``turnscope`` command line: thin verbs over the core.

``turnscope VERB ...`` runs a verb from ``tui.commands``; ``turnscope FILE`` (or no
argument) opens the stepper app. Bad input never ends in a traceback: a file that cannot
be loaded prints one line ``turnscope: FILE:LINE:COL: what is wrong`` and exits 2.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import re
import sys
from typing import Sequence

from tui import __version__
from tui.core import collector
from tui.core.errors import LoadError, UsageError
from tui.core.safe import visible_streams
from tui.core.trouble import say

#: Verb name -> module in ``tui.commands`` defining ``add_parser(subparsers)`` and ``run(args) -> int``.
VERBS = {
    "check": "tui.commands.check",
    "show": "tui.commands.show",
    "list": "tui.commands.listing",
    "convert": "tui.commands.convert",
    "tokens": "tui.commands.tokens",
    "trace": "tui.commands.trace",
    "account": "tui.commands.account",
    "stats": "tui.commands.stats",
    "diff": "tui.commands.diff",
    "branch": "tui.commands.branch",
    "record": "tui.commands.record",
    "export": "tui.commands.export",
}

#: Verbs that talk to the network or run for long: they keep the cyclic garbage collector on.
LONG_LIVED = {"branch", "record"}

EXIT_BAD_INPUT = 2


def _parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line; with ``only``, just that verb's subcommand (its module alone is imported:
    importing every verb, the network client of ``branch`` included, would double the start-up of
    a ``check``)."""
    parser = argparse.ArgumentParser(
        prog="turnscope",
        description="A terminal replay debugger for LLM agent runs. "
                    "`turnscope FILE` opens the stepper; the verbs below work headless.",
    )
    parser.add_argument("--version", action="version", version=f"turnscope {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB")
    for name, module_name in VERBS.items():
        if only is None or name == only:
            importlib.import_module(module_name).add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line. Everything it writes as text (a verb's output, an error line, argparse's
    usage) passes through ``tui.core.safe.visible``: run text, a hostile file name or argument
    cannot send a control byte to the terminal, whatever a call site forgot."""
    with visible_streams():
        return _main(list(sys.argv[1:] if argv is None else argv))


def _main(args_list: list[str]) -> int:
    try:
        if args_list and args_list[0] in VERBS:
            args = _parser(only=args_list[0]).parse_args(args_list)
            return _run_verb(args)
        if args_list and args_list[0] in ("-h", "--help", "--version"):
            _parser().parse_args(args_list)
            return 0
        if args_list:
            _refuse_unknown_verb(args_list)
        return _open_app(args_list)
    except LoadError as exc:
        say(exc.line_text())
        return EXIT_BAD_INPUT
    except UsageError as exc:
        say(str(exc))
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        try:
            sys.stdout = open("/dev/null", "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return 0
    except KeyboardInterrupt:
        return 130


def _run_verb(args: argparse.Namespace) -> int:
    """Run a verb; one-shot verbs run without the cyclic collector (a parsed run is millions of
    acyclic objects it would walk for nothing), long-lived ones keep it."""
    module = importlib.import_module(VERBS[args.verb])
    if args.verb in LONG_LIVED:
        return module.run(args)
    with collector.one_shot():
        return module.run(args)


def _refuse_unknown_verb(args_list: list[str]) -> None:
    """``turnscope chekc FILE``: a mistyped verb is no file to open. Said as such (with the verb it
    was likely meant to be) rather than as the stepper's 'unrecognized arguments: FILE'. A word
    that names an existing file, or that is alone and resembles no verb, is still a file to open."""
    first = args_list[0]
    if os.path.exists(first) or not re.fullmatch(r"[a-z][a-z-]*", first):
        return
    close = difflib.get_close_matches(first, list(VERBS), n=1)
    if not close and (len(args_list) < 2 or args_list[1].startswith("-")):
        return
    hint = f" (did you mean `turnscope {close[0]}`?)" if close else ""
    raise UsageError(f"unknown verb '{first}'{hint}; the verbs are {', '.join(VERBS)}, and `turnscope FILE` "
                     "opens the stepper")


def _open_app(args_list: list[str]) -> int:
    try:
        launch = importlib.import_module("tui.app.launch").launch  # Textual only when asked for
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("tui.app"):
            raise
        say("the stepper app is not built yet; use `turnscope show FILE --at N` or `turnscope --help`")
        return EXIT_BAD_INPUT
    return launch(args_list)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
