"""When each model call was sent and answered, and where the run's time went.

Only what the source recorded: a call's ``started`` and ``duration_ms`` (a recorder measured them
on the wire; a transcript's loader derived them from the times its lines were written, and the call
says so with ``derived_timing``), and the first byte where a recorder measured it. From those:
each call's done time, the loop's time before the next request (the tools, the harness, a human),
and the run's wall time, model time and loop time. Nothing is guessed: a call without a time has
none, and the totals say how many calls they cover.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from tui.core.run import ModelCall, Run


@dataclass(frozen=True)
class CallTiming:
    """One call's times: ``sent`` and ``done`` as datetimes, the spans in milliseconds (None: not recorded)."""

    call: int
    message: int
    sent: datetime | None
    done: datetime | None
    model_ms: float | None
    first_byte_ms: float | None
    #: From this call's answer to the next request being sent: the loop's (tools') time.
    loop_ms: float | None
    derived: bool


@dataclass(frozen=True)
class RunTiming:
    """Where the run's time went: wall (first send to last answer), model (the calls), loop (between them)."""

    wall_ms: float | None
    model_ms: float
    loop_ms: float
    timed: int  # calls with a duration
    calls: int
    derived: bool  # any of the times is derived from transcript timestamps


def parse_time(value: str | None) -> datetime | None:
    """An ISO 8601 time (``Z`` or an offset; a time without one is read as UTC), or None."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment


def _ms(delta: timedelta) -> float:
    return round(delta.total_seconds() * 1000.0, 3)


def _one(k: int, call: ModelCall) -> CallTiming:
    sent = parse_time(call.started)
    done = sent + timedelta(milliseconds=call.duration_ms) if sent is not None and call.duration_ms is not None \
        else None
    return CallTiming(k, call.message, sent, done, call.duration_ms, call.first_byte_ms, None, call.derived_timing)


def call_timings(run: Run) -> list[CallTiming]:
    """Every call's times, in call order; ``loop_ms`` where this call's done time and the next call's
    send time are both known (and in order: a negative gap is two calls that overlapped, not a loop)."""
    out = [_one(k, call) for k, call in enumerate(run.calls)]
    for k in range(len(out) - 1):
        here, after = out[k], out[k + 1]
        if here.done is not None and after.sent is not None and after.sent >= here.done:
            out[k] = CallTiming(here.call, here.message, here.sent, here.done, here.model_ms, here.first_byte_ms,
                                _ms(after.sent - here.done), here.derived)
    return out


def run_timing(timings: list[CallTiming]) -> RunTiming | None:
    """The run's totals, or None when no call recorded a time at all."""
    sents = [t.sent for t in timings if t.sent is not None]
    if not sents:
        return None
    ends = [t.done or t.sent for t in timings if t.sent is not None]
    wall = _ms(max(ends) - min(sents)) if ends else None
    model = sum(t.model_ms for t in timings if t.model_ms is not None)
    loop = sum(t.loop_ms for t in timings if t.loop_ms is not None)
    timed = sum(1 for t in timings if t.model_ms is not None)
    return RunTiming(wall, round(model, 3), round(loop, 3), timed, len(timings), any(t.derived for t in timings))


def duration(ms: float | None, compact: bool = False) -> str:
    """``840 ms``, ``12.4 s``, ``3 min 05 s``, ``2 h 04 min``; ``—`` for None. ``compact`` (a list's
    column): ``840ms``, ``12.4s``, ``3m05s``, ``2h04m``, ``3d07h``."""
    if ms is None:
        return "—"
    ms_, s_, min_, h_ = ("ms", "s", "m", "h") if compact else (" ms", " s", " min ", " h ")
    if ms < 1000:
        return f"{ms:.0f}{ms_}"
    seconds = ms / 1000.0
    if seconds < 60:
        return f"{seconds:.1f}{s_}"
    minutes, sec = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes}{min_}{sec:02d}{s_}"
    hours, minutes = divmod(minutes, 60)
    if compact and hours >= 24:
        days, hours = divmod(hours, 24)
        return f"{days}d{hours:02d}h"
    return f"{hours}{h_}{minutes:02d}{min_.rstrip()}"
