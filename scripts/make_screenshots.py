"""Write ``screenshots/``: pictures of the stepper's main screens, made by the app itself from the sample runs.

    python scripts/make_screenshots.py [--png]

Each picture is the app's own SVG export (``App.export_screenshot``) of a scene driven
with Textual's Pilot, through the same ``make_app`` the command line uses. With ``--png``
(and ``cairosvg`` installed) a PNG is written beside each SVG. Run it again whenever the
UI changes; README.md shows the SVGs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tui.app.factory import make_app  # noqa: E402
from tui.core import jsonio  # noqa: E402

OUT = ROOT / "screenshots"
REFUND = "sample_runs/refund/run.jsonl"
BROKEN = "sample_runs/broken/orphan_result_retry.jsonl"
INVENTED = "sample_runs/invented_order_id.jsonl"
#: Real runs (``../shared/realruns``, beside the checkout): a Claude Code session, a SWE-agent trajectory.
CLAUDE_CODE = "../shared/realruns/spotter__tool_heavy.jsonl"
SWE_AGENT = "../shared/realruns/sweagent__marshmallow-code__marshmallow-1867.traj"

#: name -> (file or None for the picker, options, terminal size, keys, title)
SCENES = {
    "request": (REFUND, {"at": 5}, (130, 40), [], "The request that produced message 5"),
    "raw": (REFUND, {"at": 5, "view": "raw"}, (130, 40), [], "Raw: the exact JSON body"),
    "account": (REFUND, {"at": 3, "view": "account"}, (130, 40), [], "Account: four sentences for message 3"),
    "problems": (BROKEN, {"view": "problems"}, (130, 40), [], "Problems on a broken run"),
    "search": (REFUND, {}, (130, 40), ["slash", *"8900", "enter"], "Search: every block, > and < step"),
    "narrow": (REFUND, {"at": 5}, (80, 24), [], "80x24 over SSH: the panes stack"),
    "picker": (None, {}, (110, 32), [], "The run picker"),
    "keys": (REFUND, {"at": 5}, (110, 48), ["question_mark"], "? lists every key"),
    "tokens": (REFUND, {"at": 5, "view": "tokens"}, (130, 40), [], "Tokens: what each request cost"),
    "provenance": (INVENTED, {"at": 5}, (130, 40), [], "Where the tool inputs came from (an invented order id)"),
    "diff": (REFUND, {"diff": INVENTED}, (130, 40), [], "Diff: two runs from their first divergence"),
    "diff-narrow": (REFUND, {"diff": INVENTED}, (80, 24), ["n"], "Diff at 80x24: A above B"),
    "claude_code-80x24": (CLAUDE_CODE, {"at": 7}, (80, 24), [], "A Claude Code session at 80x24"),
    "claude_code-120x40": (CLAUDE_CODE, {"at": 7}, (120, 40), [], "A Claude Code session at 120x40"),
    "swe_agent-80x24": (SWE_AGENT, {"at": 3}, (80, 24), [], "A SWE-agent trajectory at 80x24"),
    "swe_agent-120x40": (SWE_AGENT, {"at": 3}, (120, 40), [], "A SWE-agent trajectory at 120x40"),
    "refund-80x24": (REFUND, {"at": 5}, (80, 24), [], "The refund run at 80x24"),
    "refund-120x40": (REFUND, {"at": 5}, (120, 40), [], "The refund run at 120x40"),
    "branch_editor": (REFUND, {"at": 4}, (130, 36),
                      ["b", "e", "ctrl+u", *("space" if c == " " else c for c in "policy service unavailable (503)"),
                       "enter"], "b: the branch editor, lookup_policy's result made an error"),
}


def _session(home: Path) -> None:
    """A small Claude Code session so the picker's third section has something in it."""
    project = home / "projects" / "-home-me-shop"
    project.mkdir(parents=True)
    session = "8f2c1a55-0000-4000-8000-000000000000"
    records = [{"type": "user", "message": {"role": "user", "content": "Why does the refund test fail?"},
                "uuid": "u1", "parentUuid": None, "sessionId": session},
               {"type": "assistant", "message": {"id": "m1", "role": "assistant",
                                                 "content": [{"type": "text", "text": "Let me look."}]},
                "uuid": "a1", "parentUuid": "u1", "sessionId": session}]
    path = project / f"{session}.jsonl"
    path.write_bytes(b"\n".join(jsonio.dumps(r) for r in records) + b"\n")
    os.utime(path, (1_767_000_000, 1_767_000_000))


async def shoot(name: str, tmp: Path) -> str:
    path, options, size, keys, title = SCENES[name]
    app = make_app(path, state_dir=tmp / name / "state", cache_dir=tmp / name / "cache", claude_home=tmp / "claude",
                   keymap={}, **options)
    async with app.run_test(size=size) as pilot:
        for step in (None, *keys):
            if step is not None:
                await pilot.press(step)
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
        return app.export_screenshot(title=f"turnscope · {title}")


def _recording_lines() -> list[bytes]:
    """The refund run as ``turnscope record`` writes it: one claude-trace line per model call, the
    request that produced the message and the answer (fixed times, so the picture is stable)."""
    from tui.core.prefix import request_at
    from tui.formats import open_run

    run = open_run(REFUND)
    lines = []
    for k, call in enumerate(run.calls):
        body = request_at(run, call.message).body
        content = run.messages[call.message]["content"]
        uses = any(isinstance(b, dict) and b.get("type") == "tool_use" for b in content)
        answer = {"id": f"msg_{k:02d}", "type": "message", "role": "assistant", "model": body.get("model"),
                  "content": content, "stop_reason": call.stop_reason or ("tool_use" if uses else "end_turn")}
        start = 1_767_000_000.0 + 10 * k
        lines.append(jsonio.dumps({
            "request": {"timestamp": start, "method": "POST", "url": "https://api.anthropic.com/v1/messages",
                        "headers": {"anthropic-version": "2023-06-01", "content-type": "application/json"},
                        "body": body},
            "response": {"timestamp": start + 2.5, "first_byte_timestamp": start + 0.4, "status_code": 200,
                         "headers": {"content-type": "application/json", "request-id": f"req_{k:02d}"},
                         "body": answer},
            "request_id": f"req_{k:02d}", "recorder": "turnscope record"}) + b"\n")
    return lines


async def shoot_follow(tmp: Path) -> str:
    """The stepper following a recording: opened after its first call, the next ones arrive."""
    lines = _recording_lines()
    folder = tmp / "follow"
    folder.mkdir()
    (folder / "recording.jsonl").write_bytes(lines[0])
    here = os.getcwd()
    os.chdir(folder)  # the header names the file as a user in that folder sees it
    try:
        app = make_app("recording.jsonl", state_dir=tmp / "follow-state", claude_home=tmp / "claude", keymap={},
                       at=-1, follow=True)
        async with app.run_test(size=(130, 40)) as pilot:
            await pilot.pause(0.3)
            with open("recording.jsonl", "ab") as out:
                out.write(b"".join(lines[1:]))
            for _ in range(50):
                await pilot.pause(0.1)
                if app.screen.view.total == len(lines) * 2:
                    break
            await app.workers.wait_for_complete()
            await pilot.pause(0.3)
            await app.workers.wait_for_complete()
            await pilot.pause()
            return app.export_screenshot(title="turnscope · Following a recording as it is written")
    finally:
        os.chdir(here)


SPECIAL = {"follow": shoot_follow}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--png", action="store_true", help="also write PNGs (needs cairosvg)")
    parser.add_argument("--only", metavar="NAME", action="append", help="just this picture (again for more)")
    args = parser.parse_args()
    os.chdir(ROOT)  # paths in the pictures are relative to the checkout
    os.environ["TZ"] = "UTC"
    time.tzset()
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        _session(Path(tmp) / "claude")
        for name in args.only or [*SCENES, *SPECIAL]:
            if name in SCENES and SCENES[name][0] and not (ROOT / SCENES[name][0]).exists():
                print(f"skipped {name}: {SCENES[name][0]} is not beside the checkout")
                continue
            svg = asyncio.run(SPECIAL[name](Path(tmp)) if name in SPECIAL else shoot(name, Path(tmp)))
            target = OUT / f"{name}.svg"
            jsonio.atomic_write(target, svg.encode("utf-8"))
            print(f"wrote {target.relative_to(ROOT)}")
            if args.png:
                import cairosvg

                cairosvg.svg2png(bytestring=svg.encode("utf-8"), write_to=str(target.with_suffix(".png")),
                                 output_width=1400)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
