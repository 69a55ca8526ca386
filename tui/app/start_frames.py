"""The first screen drawn once: no frame drawn inside Textual's start-up batch, no layout for a resize to
the same size.

Textual starts an app inside a batch (``App.batch_update``: its compose, resize and mount), which holds
the output back. The app pushes its first screen there, so that screen was laid out and drawn in the
batch (``Screen._compositor_refresh``) and ``App._display`` threw the frame away: on the stepper of the
100 MB run a full render of the screen, then drawn again once the batch ended. Textual also lays a
screen out in full on every ``Resize`` it is sent (``Screen._screen_resized``), and a start sends the
first screen more than one of the same size.

``StartFrames`` is a mixin for a screen: until its first frame is out, a frame asked for while the
batch holds the output is not drawn, and the app draws the screen when the batch is over (a
``call_later`` of the app runs after it); a resize to the size the screen is laid out at lays
nothing out again (a widget that needs a layout still asks for one). Both override private methods
of Textual's ``Screen``: a Textual without them (or with other names) draws as it always did.

``after_first_frame(callback)``: work that would share the CPU with the drawing of the first frame
(the stepper starts its analyses' processes) is called once that frame is out; with a Textual that
does not call ``_compositor_refresh``, after the first refresh, as ``call_after_refresh`` does.
"""

from __future__ import annotations

from typing import Callable

from textual.geometry import Size
from textual.screen import Screen

#: Whether Textual draws a screen's frames in the method ``StartFrames`` overrides (else it never runs).
HOOKED = callable(getattr(Screen, "_compositor_refresh", None))


class StartFrames:
    """Mixin for a ``Screen``: no first frame drawn to be thrown away, no layout for a same-size resize; work
    put off until the first frame is out (``after_first_frame``)."""

    _first_frame_out = False
    _frame_held = False
    _after_first: list[Callable[[], object]] | None = None

    def after_first_frame(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` (on the app's thread) once this screen's first frame is out; now drawn: after the
        next refresh."""
        if self._first_frame_out or not HOOKED:
            self.call_after_refresh(callback)  # type: ignore[attr-defined]
        else:
            self._after_first = [*(self._after_first or []), callback]

    def _compositor_refresh(self) -> None:
        app = self.app  # type: ignore[attr-defined]
        if not self._first_frame_out and app._batch_count and self is app.screen and not app.is_inline:
            if not self._frame_held:  # the frame App._display would drop: drawn once the batch is over
                self._frame_held = True
                app.call_later(self.refresh)
            return
        first = self is app.screen and not self._first_frame_out
        if first:
            self._first_frame_out = True
        super()._compositor_refresh()  # type: ignore[misc]
        if first and self._after_first:
            waiting, self._after_first = self._after_first, None
            for callback in waiting:
                self.call_later(callback)  # type: ignore[attr-defined]

    def _screen_resized(self, size: Size) -> None:
        if size == self._size and self.is_attached and self.stack_updates:  # type: ignore[attr-defined]
            return  # laid out at this size already
        super()._screen_resized(size)  # type: ignore[misc]
