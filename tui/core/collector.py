"""The garbage-collector policy, in one place: every ``gc`` call of turnscope is here.

A loaded run is millions of acyclic objects (dicts, lists, strings). The cyclic collector
would walk them again and again for nothing, so:

- ``paused()`` — while a file is parsed the collector is off (collecting objects half built
  costs a third of the parse), and back as it was afterwards;
- ``one_shot()`` — a one-shot verb runs without it from start to end (``tui.cli``);
- ``keep_out_loaded()`` — once a run is loaded and read-only, the objects alive now leave the
  collector's walks (``gc.freeze``), so no later collection pauses a step to walk the run.
  The app calls it for the run it starts on and for every run opened later (from the picker
  or a branch), accepting that the app's own few cyclic objects alive then are kept too;
- ``for_the_app()`` — before a verb hands over to the app: the runs loaded so far are kept
  out, and the collector is on for the app's own cycles while it runs;
- ``settle()`` — in the app, at a quiet moment (the keys idle a moment, a piece of an analysis'
  result taken in): the young generations are collected (their cycles freed: a few milliseconds),
  then what survives leaves the walks too. A full collection walks every object not kept out: with
  the analyses' results (~200,000 objects: traces, token rows) and Textual's drawn rows in it, one
  took 300-700 ms and paused a step every few seconds; settled, it walks what the last moments
  made. The price: an object alive at a settle that later dies in a cycle is not freed (the app's
  garbage cycles are almost all young, and the young generations are collected first);
- ``for_steps()`` — the app's youngest generation is collected every ``YOUNG`` allocations, not
  every 700: drawing a step makes thousands of short-lived objects (Textual's strips), and most
  are freed by their counts before a collection has to look at them;
- ``stepped()`` — at each step (a key that moves the index), what the steps before it left alive
  leaves the walks (``gc.freeze``: it moves the generations' lists, whatever their length), so the
  youngest generation holds one step's survivors, far below ``YOUNG``, and no collection falls
  inside a step. What a step keeps (drawn rows, caches: about 500 objects a step) filled the youngest
  generation every 40 steps or so, and walking those 20,000 objects paused that step by 5-12 ms on
  the 100 MB run; a key held down or keys in quick succession never let ``settle`` run. The price is
  ``settle``'s: a cycle alive at a step that dies later is not freed. A step makes none (its drawn
  rows' cycle is broken in ``tui.app.strip_cycles``; a test steps the stepper and finds no cycle).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Allocations between collections of the youngest generation in the app (Python's default: 700).
YOUNG = 20_000


@contextmanager
def paused() -> Iterator[None]:
    """The collector off inside, then as it was before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


one_shot = paused  # a one-shot verb: the same rule for the whole run of the verb


def keep_out_loaded() -> None:
    """Everything alive now (the run just loaded) leaves the collector's walks for good."""
    gc.freeze()


def for_the_app() -> None:
    """The runs loaded so far kept out, the collector on for the app's own cycles."""
    gc.freeze()
    gc.enable()


def settle() -> None:
    """The young generations collected, then everything alive kept out of later walks (the app, quiet)."""
    gc.collect(1)
    gc.freeze()


def for_steps() -> None:
    """The app's collection thresholds: the youngest generation every ``YOUNG`` allocations."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, old)


def stepped() -> None:
    """A step: what is alive now leaves the collector's walks (``gc.freeze``; the young generation starts empty)."""
    gc.freeze()
