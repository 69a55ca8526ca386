"""What the stepper hands down to its views: the index N and which of the run's analyses have arrived.

One frozen value, ``RunState``, held by ``StepperScreen.run_state`` (a Textual ``var``) and set in
one place, ``StepperScreen.set_run_state``. A view that shows the index or an analysis binds to it
in the screen's ``compose`` (``.data_bind(StepperScreen.run_state)``) and reacts in its own
``watch_run_state(old, new)``: a new view subscribes there, not by a line in each worker's handler.
The analyses themselves live in the view model (``RunView``, ``RunAnalyses``); the state carries
a counter per analysis, bumped when a worker's result is taken in, so a watcher asks what moved
with ``new.changed(old)``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

#: What can change: the index (``step`` counts the moves, so going to the same index again is a move
#: too), the grammar and content findings, the token report, the provenance notes.
PARTS = ("step", "findings", "tokens", "unsourced")


@dataclass(frozen=True)
class RunState:
    """The index shown and a counter per analysis of the run; ``note`` is the Tokens view's line about
    how the counts were made (or why exact counting failed)."""

    index: int = 0
    step: int = 0
    findings: int = 0
    tokens: int = 0
    unsourced: int = 0
    note: str | None = None

    def changed(self, old: RunState) -> frozenset[str]:
        """The parts (``PARTS``) that moved since ``old``."""
        return frozenset(name for name in PARTS if getattr(self, name) != getattr(old, name))

    def bumped(self, *parts: str, **values: object) -> RunState:
        """This state with each of ``parts`` counted once more and ``values`` set."""
        known = {f.name for f in fields(self)}
        assert set(parts) <= set(PARTS) and set(values) <= known, (parts, values)
        return replace(self, **{name: getattr(self, name) + 1 for name in parts}, **values)
