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
"""

from __future__ import annotations

from textual.geometry import Size


class StartFrames:
    """Mixin for a ``Screen``: no first frame drawn to be thrown away, no layout for a same-size resize."""

    _first_frame_out = False
    _frame_held = False

    def _compositor_refresh(self) -> None:
        app = self.app  # type: ignore[attr-defined]
        if not self._first_frame_out and app._batch_count and self is app.screen and not app.is_inline:
            if not self._frame_held:  # the frame App._display would drop: drawn once the batch is over
                self._frame_held = True
                app.call_later(self.refresh)
            return
        if self is app.screen:
            self._first_frame_out = True
        super()._compositor_refresh()  # type: ignore[misc]

    def _screen_resized(self, size: Size) -> None:
        if size == self._size and self.is_attached and self.stack_updates:  # type: ignore[attr-defined]
            return  # laid out at this size already
        super()._screen_resized(size)  # type: ignore[misc]
