"""``turnscope check FILE... [--json] [--strict]``: the grammar check, as lines or JSON.

Beside the grammar's findings, the content check's warnings: ``hidden_text`` (characters a model
reads and a person does not see: tag characters, bidi controls, zero-width characters inside words;
"likely injection" in a tool result the model answered next) and ``secret_in_content`` (a credential
in the run's text, named by its kind and last four characters, never printed).

Text: ``FILE:INDEX[.BLOCK]: error|warning RULE: message`` (request-level findings have no
index), each followed by an indented likely cause; loader warnings as
``FILE[:INDEX]: warning load: [line L: ]what`` (``error`` with ``--strict``). ``--json``: one
object per run checked.
Exit 0 when no errors (and no warnings with ``--strict``), 1 when there are, 2 when a file
cannot be read (the other files are still checked).
"""

from __future__ import annotations

import argparse

from tui.commands.common import add_file_options, location, out, runs_from_args, write_bytes
from tui.commands.helptext import HelpFormatter
from tui.core import jsonio
from tui.core.errors import LoadError
from tui.core.content_check import content_findings
from tui.core.grammar import ERROR, check_run
from tui.core.grammar.findings import sort_findings
from tui.core.safe import one_line
from tui.core.trouble import say


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("check", help="check runs against the Messages API grammar",
                            description=__doc__.split("\n\n", 1)[1], formatter_class=HelpFormatter)
    add_file_options(parser, many=True)
    parser.add_argument("--json", action="store_true", help="one JSON object per run")
    parser.add_argument("--strict", action="store_true",
                        help="warnings fail too, and the weakly evidenced rules are reported")


def run(args: argparse.Namespace) -> int:
    status = 0
    for path in args.files:
        try:
            runs = runs_from_args(args, path)
        except LoadError as exc:
            say(exc.line_text())
            status = 2
            continue
        for r in runs:
            failed = _report(r, args)
            if failed and status == 0:
                status = 1
    return status


def _report(r, args: argparse.Namespace) -> bool:
    findings = sort_findings([*check_run(r, strict=args.strict), *content_findings(r)])
    errors = sum(1 for f in findings if f.severity == ERROR)
    failed = errors > 0 or (args.strict and (len(findings) > errors or bool(r.warnings)))
    where = location(r)
    if args.json:
        doc = {"file": r.source.path, "format": r.source.format, "prefix": r.source.prefix,
               "valid": not failed, "messages": len(r.messages), "findings": [f.as_dict() for f in findings],
               "warnings": [{"text": w.text, "line": w.line, "index": w.index} for w in r.warnings]}
        if r.source.run_count > 1:
            doc["run"] = r.source.run_index
        write_bytes(jsonio.dumps(doc))
        return failed
    load_severity = "error" if args.strict else "warning"
    for w in r.warnings:
        # The number after FILE: is always a message index; a file line is named in the text.
        at = f":{w.index}" if w.index is not None else ""
        line = f"line {w.line}: " if w.line is not None else ""
        out(f"{where}{at}: {load_severity} load: {line}{one_line(w.text)}")
    for f in findings:
        at = f":{f.where()}" if f.index is not None else ""
        out(f"{where}{at}: {f.severity} {f.rule}: {one_line(f.message)}")
        if f.cause:
            out(f"  likely cause: {one_line(f.cause)}")
    if not findings and not r.warnings:
        messages, calls = len(r.messages), len(r.calls)
        out(f"{where}: ok ({messages} message{'s' if messages != 1 else ''}, {calls} model call"
            f"{'s' if calls != 1 else ''}, {r.source.prefix} prefixes)")
    return failed
