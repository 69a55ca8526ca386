"""``turnscope branch ... --samples K [--control]``: one edit sampled K times against a control, headless.

Before anything is sent the cost of the first calls is printed (input tokens x K, x2 with the
control; recorded usage or the estimate, said which). Each sample is its own branch file under
one experiment file; ``turnscope branch --resume EXPERIMENT`` continues the unfinished samples.
At the end, per arm (edited, control, and the original run): the first action, tool sequences,
stop reasons, steps, and the named event (``--event``) as a count out of K with a 95% Wilson
interval, plus the difference between the arms; ``--json`` prints the same numbers as one object.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
from typing import Any

from tui.commands.common import out, write_bytes
from tui.core import jsonio
from tui.core.branch import api, experiment as experiments, runner
from tui.core.branch.experiment import SampleDone
from tui.core.branch.resolvers import make_resolver
from tui.core.branch.tally import Event, percent
from tui.core.errors import UsageError
from tui.core.safe import one_line
from tui.core.trouble import say

EXIT_API = 3
EXIT_CANCELLED = 130


def start(args: argparse.Namespace, parent: Any, edit: list[dict[str, Any]], parent_sha: str) -> int:
    spec = args.resolver or "recorded"
    make_resolver(spec, parent)  # a resolver that cannot load fails before anything is written
    if args.event:
        Event.parse(args.event)
    api.check_environment()
    control_patch = [op for op in edit if op.get("path") == "/model"] if args.model else []
    try:
        exp = experiments.create(parent, args.at, edit, samples=args.samples, control=args.control,
                                 resolver=spec, parent_sha=parent_sha,
                                 max_steps=args.max_steps or runner.DEFAULT_MAX_STEPS,
                                 concurrency=args.concurrency or experiments.DEFAULT_CONCURRENCY,
                                 control_patch=control_patch, event=args.event, output=args.output,
                                 sidecars={"system": args.system, "tools": args.tools})
    except OSError as exc:
        raise UsageError(f"cannot save the experiment: {exc.strerror or exc}; nothing was sent") from None
    return _run(exp, args, resumed=False)


def resume(args: argparse.Namespace, open_run: Any) -> int:
    exp, note = experiments.load(args.resume, open_run)
    if note:
        say(f"note: {one_line(note)}")
    if args.max_steps:
        exp.doc["max_steps"] = args.max_steps
    unfinished = [s for s in exp.samples() if not exp.finished(*s)]
    if unfinished:
        api.check_environment()
    return _run(exp, args, resumed=True)


def _run(exp: experiments.Experiment, args: argparse.Namespace, resumed: bool) -> int:
    doc = exp.doc
    spec = args.resolver or doc.get("resolver") or "recorded"
    event = Event.parse(args.event) if args.event else (Event.parse(doc["event"]) if doc.get("event") else None)
    if not args.json:
        estimate = doc.get("estimate") or {}
        arms = " + control" if doc.get("control") else ""
        out(f"{'resuming experiment' if resumed else 'experiment'} at message {doc['at']} of "
            f"{doc['parent'].get('path')} · {doc['samples']} samples{arms} · model {doc.get('model')} · "
            f"resolver {spec} · at most {args.concurrency or doc.get('concurrency')} at a time")
        per = estimate.get("per_request", {})
        parts = " + ".join(f"{n} x {doc['samples']} ({arm})" for arm, n in per.items())
        out(f"cost before sending: about {estimate.get('input_tokens')} input tokens = {parts}; "
            f"{estimate.get('source')}; {estimate.get('note')}")
        out(f"saving to {exp.path}")

    def done(sample: SampleDone) -> None:
        if args.json:
            return
        f = sample.finished
        label = f"{sample.arm} {sample.k + 1}/{len(doc['arms'][sample.arm])}"
        if sample.skipped:
            out(f"{label}: already finished ({f.stop_reason}), not sent again")
        elif f.error is not None:
            out(f"{label}: {one_line(f.error.line())} (after {sample.attempts} attempt{'s' * (sample.attempts != 1)})")
        else:
            out(f"{label}: {f.stop_reason} after {f.steps} model call{'s' * (f.steps != 1)}")

    def resolver_for(branch: runner.Branch):
        return make_resolver(spec, exp.parent, edited=branch.run)

    work = experiments.ExperimentRunner(exp, resolver_for, concurrency=args.concurrency, on_done=done)
    try:
        results = asyncio.run(work.run())
    except KeyboardInterrupt:
        say(f"cancelled; every turn saved is kept: continue with `turnscope branch --resume {shlex.quote(str(exp.path))}`")
        return EXIT_CANCELLED
    tally = exp.tally(event)
    if args.json:
        write_bytes(jsonio.dumps(tally))
    else:
        for line in summary_lines(tally):
            out(line)
    failed = [r for r in results if r.finished.error is not None]
    if failed:
        say(f"{len(failed)} sample{'s' * (len(failed) != 1)} did not finish; continue with "
            f"`turnscope branch --resume {shlex.quote(str(exp.path))}`")
        return EXIT_API
    return 0


def summary_lines(tally: dict[str, Any]) -> list[str]:
    """The summary in words: one block per arm, the original, the event and the difference, the notes."""
    lines = []
    event = tally.get("event")
    for name, arm in tally["arms"].items():
        lines.append(f"{name}: {arm['completed']} of {arm['samples']} samples finished")
        for title, key in (("first action", "first_action"), ("tool sequences", "tool_sequences"),
                           ("stop reasons", "stop_reasons"), ("steps", "steps")):
            shown = " · ".join(f"{one_line(value)} x{count}" for value, count in arm[key]) or "-"
            lines.append(f"  {title}: {shown}")
        if event is not None and "event" in arm:
            e = arm["event"]
            low, high = e["interval95"]
            lines.append(f"  {event}: {e['count']}/{e['of']} (95% interval {percent(low)} to {percent(high)})")
    original = tally.get("original")
    if original is not None:
        lines.append(f"original run: first action {one_line(original['first_action'])} · tools "
                     f"{' > '.join(original['tools']) or '(no tool)'} · {original['stop_reason']} · "
                     f"{original['steps']} steps" + (f" · {event}: {'yes' if original['event'] else 'no'}"
                                                       if event is not None else ""))
    difference = tally.get("difference")
    if difference is not None:
        low, high = difference["interval95"]
        lines.append(f"edited - control: {difference['edited_minus_control'] * 100:+.0f} points "
                     f"(95% interval {low * 100:+.0f} to {high * 100:+.0f})")
    for note in tally.get("notes", []):
        lines.append(f"note: {note}")
    files = tally.get("files", {})
    lines.append(f"saved: {tally.get('experiment')} ({sum(len(v) for v in files.values())} sample files)")
    return lines
