"""``turnscope branch``: edit message N of a run and re-run the real model from there, headless.

    turnscope branch FILE --at N
        (--patch PATCH | --tool-error TOOL_USE_ID TEXT | --system-file F)
        [--model M] [--resolver SPEC] [--max-steps K] [-o OUT] [--json]
    turnscope branch --resume BRANCH_FILE [--resolver SPEC] [--max-steps K]
        [--json]
    turnscope branch FILE --at N
        (--patch P | --tool-error ID TEXT | --system-file F)
        --samples K [--control] [--concurrency C] [--event SPEC]
        [--resolver SPEC] [--max-steps S] [-o EXPERIMENT] [--json]
    turnscope branch --resume EXPERIMENT_FILE [--json]

The branch keeps messages 0..N (edited), sends them with the run's system, tools and
params (as edited) through the anthropic SDK, and answers the model's tool calls with the
resolver (recorded: reuse the result the branch's world gave the same call, the edited
one where the edit changed it, else stop and say why; stop; or python:MODULE:FUNCTION).
It goes on until the model's final turn or K model calls (default 10). Every turn is saved as it completes, atomically, to OUT or the user data
dir; the parent file is never written. The key comes from ANTHROPIC_API_KEY (never
written anywhere); ANTHROPIC_BASE_URL picks the endpoint.

With --samples K it is an experiment: the cost of the first calls is printed before
anything is sent, K samples of the edited request (and K of the unedited one with
--control) run at most C at a time, each saved as its own branch file under one
experiment file, and the summary counts per arm the first action, tool sequences, stop
reasons, steps and the --event (count/K with a 95% Wilson interval, and the difference
between the arms). --resume EXPERIMENT_FILE continues the unfinished samples only.

Exit 0 when the branch ran (whatever stopped it), 2 on bad input (nothing sent), 3 when
the API failed or the branch file could not be written (it is kept up to its last complete
turn), 130 on Ctrl-C. TURNSCOPE_API_TIMEOUT (seconds) and TURNSCOPE_API_RETRIES set the
SDK's timeout and retries.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from tui.commands.branch_output import Printer
from tui.commands.common import open_from_args
from tui.commands.helptext import HelpFormatter
from tui.core import jsonio
from tui.core.branch import api, patch as patches, runner, store
from tui.core.branch.events import Finished
from tui.core.branch.resolvers import HEADLESS_SPECS, Resolver, make_resolver
from tui.core.errors import LoadError, UsageError
from tui.core.prefix import check_index
from tui.core.safe import one_line
from tui.formats import format_names, open_run
from tui.formats.sidecar import read_system

EXIT_API = 3
EXIT_CANCELLED = 130


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("branch", help="edit message N and re-run the model from there",
                            description=__doc__.split("\n\n", 1)[1], formatter_class=HelpFormatter)
    parser.add_argument("file", nargs="?", metavar="FILE", help="the run to branch")
    parser.add_argument("--resume", metavar="BRANCH_FILE", help="continue a branch file where it stopped")
    parser.add_argument("--at", type=int, metavar="N", help="the message to edit; messages after it are dropped")
    edit = parser.add_mutually_exclusive_group()
    edit.add_argument("--patch", metavar="PATCH", help="an RFC 6902 JSON Patch against the request "
                      "holding messages 0..N (paths like /messages/4/content/0/is_error, /system, /model); - reads stdin")
    edit.add_argument("--tool-error", nargs=2, metavar=("ID", "TEXT"),
                      help="turn the tool_result for the tool_use ID into an error carrying TEXT")
    edit.add_argument("--system-file", metavar="F", help="replace the system prompt (text, or JSON string/blocks)")
    parser.add_argument("--model", metavar="M", help="send the branch to model M (recorded in the patch)")
    parser.add_argument("--resolver", metavar="SPEC", help=f"who answers tool calls: {HEADLESS_SPECS} "
                        "(default recorded; on --resume, the branch's own)")
    parser.add_argument("--max-steps", type=int, metavar="K",
                        help=f"stop after K model calls since N (default {runner.DEFAULT_MAX_STEPS})")
    parser.add_argument("--samples", type=int, metavar="K", help="an experiment: send the edited request K times "
                        "(each sample its own branch file under one experiment file; the summary counts them)")
    parser.add_argument("--control", action="store_true", help="with --samples: also send the unedited request "
                        "K times (the control arm)")
    parser.add_argument("--concurrency", type=int, metavar="C", help="with --samples: at most C samples at once "
                        "(default 4; a 429/529 narrows the pool)")
    parser.add_argument("--event", metavar="SPEC", help="with --samples: the event to count: TOOL, "
                        "TOOL:PATH=VALUE (an input match, e.g. issue_refund:amount_cents=8900) or text:WORDS")
    parser.add_argument("-o", "--output", metavar="OUT", help="save the branch here instead of the user data dir")
    parser.add_argument("--json", action="store_true",
                        help='print {"path","at","steps","stop_reason","messages":[new messages]} at the end')
    parser.add_argument("--run", type=int, metavar="K", help="which run of a file that holds several (0-based)")
    parser.add_argument("--system", metavar="F", help="system prompt sidecar for a run file without one")
    parser.add_argument("--tools", metavar="F", help="tool schemas sidecar for a run file without them")
    parser.add_argument("--format", metavar="NAME", choices=format_names(), help="force the run file's format")


def run(args: argparse.Namespace) -> int:
    if args.max_steps is not None and args.max_steps < 1:
        raise UsageError("--max-steps must be at least 1")
    if args.samples is not None and args.samples < 1:
        raise UsageError("--samples must be at least 1")
    if args.concurrency is not None and args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    experiment = args.samples is not None or args.control
    if (args.control or args.event) and args.samples is None and args.resume is None:
        raise UsageError("--control and --event go with --samples K (an experiment)")
    if args.resume is not None:
        if args.file is not None or args.at is not None or _edit_given(args) or args.output or args.samples:
            raise UsageError("--resume takes only the branch file (plus --resolver, --max-steps, --json)")
        from tui.core.branch.marker import is_experiment

        if is_experiment(args.resume):
            from tui.commands import branch_experiment

            return branch_experiment.resume(args, open_run)
        if args.event or args.control or args.concurrency:
            raise UsageError(f"{args.resume} is a branch file: --event, --control and --concurrency are for experiments")
        branch, note = runner.resume(args.resume, open_run)
        spec = args.resolver or branch.lineage.get("resolver") or "recorded"
        resolver = make_resolver(spec, branch.parent, edited=branch.run)
        if not runner.is_finished(branch):  # a finished branch sends nothing: it needs no key
            api.check_environment()
        if note and spec == "recorded":
            print(f"turnscope: note: no recorded answers: {one_line(note)}; unanswered calls stop the branch",
                  file=sys.stderr)
        branch.lineage.setdefault("resumed", []).append(
            {"time": api.now_iso(), "from": len(branch.run.messages), "resolver": spec,
             **({"max_steps": args.max_steps} if args.max_steps else {})})
        if args.max_steps:
            branch.lineage["max_steps"] = args.max_steps  # the branch's limit from now on
        try:
            branch.save()
        except runner.SaveError as exc:
            raise UsageError(f"{exc.strerror}; nothing was sent") from None
    elif experiment:
        return _start_experiment(args)
    else:
        branch, resolver = _start(args)
    steps = args.max_steps or branch.lineage.get("max_steps") or runner.DEFAULT_MAX_STEPS
    printer = Printer(branch, resolver.spec, as_json=args.json)
    printer.header(resumed=args.resume is not None)
    work = runner.Runner(branch, resolver, max_steps=steps)
    try:
        finished = asyncio.run(_consume(work, printer))
    except KeyboardInterrupt:
        printer.cancelled()
        return EXIT_CANCELLED
    except runner.SaveError as exc:
        printer.save_failed(exc)
        return EXIT_API
    printer.finished(finished)
    if finished.error is not None:
        return EXIT_API
    return EXIT_CANCELLED if finished.stop_reason == "cancelled" else 0


def _edit_given(args: argparse.Namespace) -> bool:
    return bool(args.patch or args.tool_error or args.system_file or args.model)


def _start(args: argparse.Namespace) -> tuple[runner.Branch, Resolver]:
    if args.file is None:
        raise UsageError("give the run FILE to branch (or --resume BRANCH_FILE)")
    if args.at is None:
        raise UsageError("give --at N: the message to edit (messages after it are dropped)")
    if not _edit_given(args):
        raise UsageError("nothing to change: give --patch, --tool-error, --system-file or --model")
    parent = open_from_args(args)
    base = patches.base_document(parent, args.at)
    edit = _patch(args, base)
    if args.model:
        edit += patches.param("model", args.model)
    spec = args.resolver or "recorded"
    resolver = make_resolver(spec, parent)  # a resolver that cannot load fails before anything is written
    api.check_environment()
    if args.output and _same_file(args.output, args.file):
        raise UsageError(f"{args.output}: refusing to overwrite the run being branched")
    try:
        branch = runner.start(parent, args.at, edit, resolver=spec, parent_sha=store.sha256_of(args.file),
                              max_steps=args.max_steps or runner.DEFAULT_MAX_STEPS, output=args.output,
                              sidecars={"system": args.system, "tools": args.tools})
    except runner.SaveError as exc:
        raise UsageError(f"{exc.strerror}; nothing was sent") from None
    except OSError as exc:  # the directory for it could not be made
        raise UsageError(f"cannot save the branch: {exc.strerror or exc}; nothing was sent") from None
    if spec == "recorded":  # answers come from the branch's own world: the edit, then the original
        resolver = make_resolver(spec, parent, edited=branch.run)
    return branch, resolver


def _start_experiment(args: argparse.Namespace) -> int:
    from tui.commands import branch_experiment

    if args.file is None:
        raise UsageError("give the run FILE to branch (or --resume EXPERIMENT_FILE)")
    if args.at is None:
        raise UsageError("give --at N: the message to edit (messages after it are dropped)")
    if not _edit_given(args):
        raise UsageError("nothing to change: give --patch, --tool-error, --system-file or --model")
    if args.output and _same_file(args.output, args.file):
        raise UsageError(f"{args.output}: refusing to overwrite the run being branched")
    parent = open_from_args(args)
    at = check_index(parent, args.at)
    args.at = at
    edit = _patch(args, patches.base_document(parent, at))
    if args.model:
        edit += patches.param("model", args.model)
    return branch_experiment.start(args, parent, edit, store.sha256_of(args.file))


def _patch(args: argparse.Namespace, base: dict[str, Any]) -> list[dict[str, Any]]:
    if args.tool_error:
        tool_use_id, text = args.tool_error
        return patches.tool_error(base, tool_use_id, text)
    if args.system_file:
        return patches.system(read_system(args.system_file))
    if args.patch:
        path = "<stdin>" if args.patch == "-" else args.patch
        try:
            data = sys.stdin.buffer.read() if args.patch == "-" else open(args.patch, "rb").read()
        except OSError as exc:
            raise LoadError(path, f"cannot read: {exc.strerror or exc}") from None
        value = jsonio.loads(data, path)
        if not isinstance(value, list):
            raise LoadError(path, "a JSON Patch is a list of operations")
        return value
    return []


def _same_file(a: str, b: str) -> bool:
    return os.path.exists(a) and os.path.samefile(a, b)


async def _consume(work: runner.Runner, printer: Printer) -> Finished:
    async for event in work.events():
        printer.event(event)
        if isinstance(event, Finished):
            return event
    raise RuntimeError("the branch runner ended without a Finished event")  # pragma: no cover
