"""``turnscope tokens FILE [--json] [--exact] [--model NAME] [--top N]``: what each request cost, and why.

A table per model call (input, cache read, cache write, output; how much of the input the
previous request had already sent, and how much was new), where each request's growth came
from, and the messages with the largest carried cost (tokens x the requests after the first
that sent them again). Each call's numbers are **recorded** (the source kept the usage),
**estimated** (offline; marked ``~``; see README for the measured error) or **exact**
(``--exact``: the count_tokens endpoint, through the anthropic SDK, cached on disk; nothing
is sent without ``--exact``). ``--json`` prints
``{"calls":[{"message","input_tokens","output_tokens","cache_read_input_tokens",
"cache_creation_input_tokens","kind"}],"messages":[{"index","tokens","carried"}]}``.
"""

from __future__ import annotations

import argparse
import sys

from tui.commands.common import WIDTH, add_file_options, fit, location, open_from_args, out, plural, write_bytes
from tui.commands.helptext import HelpFormatter
from tui.core import jsonio
from tui.core.count_tokens import CountError, TokenCounter
from tui.core.errors import UsageError
from tui.core.safe import one_line
from tui.core.summary import describe_message
from tui.core.tokens import ESTIMATED, EXACT, RECORDED, TokenReport, token_report


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("tokens", help="tokens per model call and the messages that cost the most",
                            description=__doc__.split("\n\n", 1)[1],
                            formatter_class=HelpFormatter)
    add_file_options(parser)
    parser.add_argument("--json", action="store_true", help="calls and messages as JSON")
    parser.add_argument("--exact", action="store_true",
                        help="count input tokens with the Messages API count_tokens endpoint (needs "
                             "ANTHROPIC_API_KEY; counts are cached on disk)")
    parser.add_argument("--model", metavar="NAME", help="model to count with (default: the run's)")
    parser.add_argument("--top", type=int, default=5, metavar="N", help="messages with the largest carried cost")


def run(args: argparse.Namespace) -> int:
    if args.top < 0:
        raise UsageError(f"--top must be 0 or more (got {args.top})")
    r = open_from_args(args)
    counter = TokenCounter(model=args.model or r.model) if args.exact else None
    try:
        report = token_report(r, counter)
    except CountError as exc:
        raise UsageError(str(exc)) from None
    if counter is not None:
        print(f"turnscope: count_tokens: {counter.sent} sent, {counter.hits} from the cache "
              f"({one_line(str(counter.directory))})", file=sys.stderr)
        if counter.cache_error:
            print(f"turnscope: note: {one_line(counter.cache_error)} (the counts are right, only not kept)",
                  file=sys.stderr)
    if args.json:
        doc = report.as_json()
        doc["fixed"] = {"tokens": report.fixed, "kind": report.fixed_kind}
        write_bytes(jsonio.dumps(doc))
        return 0
    for line in layout(location(r), report, r, args.top):
        out(line)
    return 0


def _n(value: int, kind: str = "") -> str:
    return ("~" if kind == ESTIMATED else "") + f"{value:,}"


def _output_kind(kind: str) -> str:
    """How a call's output count was obtained: count_tokens counts a request, never the answer, so
    only recorded usage has a measured output."""
    return "" if kind == RECORDED else ESTIMATED


def layout(path: str, report: TokenReport, r, top: int = 5) -> list[str]:
    kinds = sorted(report.kinds)
    counts = f" · {' + '.join(kinds)} token counts" if kinds else " (nothing was requested)"
    lines = [f"{path} · {plural(len(report.calls), 'model call')}{counts}"]
    if ESTIMATED in report.kinds:
        whose = "the calls with no recorded usage" if RECORDED in report.kinds else "this source recorded no usage"
        lines.append(f"~ marks an estimate: {whose} (error measured in README, \"Tokens\")")
    elif EXACT in report.kinds:
        lines.append("~ marks an estimate: count_tokens counts the input only, so the output is estimated")
    lines.append(f"system prompt + tool schemas + overhead: {_n(report.fixed, report.fixed_kind)} tokens, "
                 f"in every request ({report.fixed_kind})")
    lines += ["", f"{'call':>4} {'msg':>4}  {'input':>9} {'cache rd':>9} {'cache wr':>9} {'output':>7}"
                  f" {'carried':>9} {'new':>8}  kind"]
    for c in report.calls:
        lines.append(f"{c.call + 1:>4} {c.message:>4}  {_n(c.total_input, c.kind):>9} "
                     f"{_n(c.cache_read_input_tokens):>9} {_n(c.cache_creation_input_tokens):>9} "
                     f"{_n(c.output_tokens, _output_kind(c.kind)):>7} {_n(c.carried, c.kind):>9} {_n(c.new, c.kind):>8}  {c.kind}")
    mark = ESTIMATED if ESTIMATED in report.kinds else ""
    out_mark = ESTIMATED if any(c.kind != RECORDED for c in report.calls) else ""
    lines.append(f"{'total':>9}  {_n(report.total_input, mark):>9} "
                 f"{_n(sum(c.cache_read_input_tokens for c in report.calls)):>9} "
                 f"{_n(sum(c.cache_creation_input_tokens for c in report.calls)):>9} "
                 f"{_n(report.total_output, out_mark):>7}")
    if len(report.calls) > 1:
        lines += ["", "input: all the request sent (cache reads and writes included); carried: what the",
                  "previous request had already sent; new: the growth, from the messages it added:"]
    for c in report.calls[1:]:
        added = ", ".join(f"{i} ({_n(report.messages[i].tokens, ESTIMATED if report.messages[i].kind == ESTIMATED else '')})"
                          for i in c.added)
        lines.append(f"  call {c.call + 1}: {'~' if c.kind == ESTIMATED else ''}{'+' if c.new >= 0 else ''}{c.new:,} from message{'s' if len(c.added) != 1 else ''} "
                     f"{added or '(none)'}")
    if top <= 0:  # --top 0: the section is not wanted
        return lines
    ranked = report.top_carried(top)
    lines += ["", "largest carried cost (tokens x the later requests that sent it again):"]
    if not ranked:
        lines.append("  (none: no message was sent more than once)")
    for m in ranked:
        head = (f"  message {m.index}: {_n(m.tokens, m.kind if m.kind == ESTIMATED else '')} x {m.sends - 1} "
                f"= {m.carried:,}  ({m.kind}) ")
        what = one_line(describe_message(r.messages[m.index], 40))
        lines.append(head + fit(what, max(24, WIDTH - len(head))))
    return lines
