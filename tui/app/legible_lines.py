"""Legible without colour: under ``NO_COLOR`` no text is drawn below a 4.5:1 contrast with its background.

Textual's ``NO_COLOR`` filter turns every colour into its grey, so a red error mark became dark
grey on black (1.4:1) and the status bar's error count grey on grey. ``LegibleLines`` runs after
it and lifts any text colour whose contrast with the background it is drawn on is below the
WCAG figure for body text (4.5:1) toward white on a dark background, or black on a light one,
just far enough; text that already reads is untouched, so bold, dim and reverse keep their
meaning where they can. Reversed text (the colours swapped) is measured as drawn. With colour,
the same filter lifts only the severities' own colours (``severity_colours``), so an error
mark on the tinted cursor row still reads and nothing else changes.
"""

from __future__ import annotations

from functools import lru_cache

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.color import Color
from textual.filter import LineFilter

#: The WCAG 2 contrast ratio for body text.
MIN_CONTRAST = 4.5

RGB = tuple[int, int, int]


def luminance(rgb: RGB) -> float:
    """WCAG relative luminance of an sRGB colour."""
    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: RGB, b: RGB) -> float:
    """The WCAG contrast ratio of two colours (1 to 21)."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@lru_cache(4096)
def lifted(fg: RGB, bg: RGB) -> RGB:
    """``fg`` moved toward white (dark ``bg``) or black (light ``bg``) until it reads against ``bg``."""
    if contrast(fg, bg) >= MIN_CONTRAST:
        return fg
    target = (255, 255, 255) if luminance(bg) < 0.18 else (0, 0, 0)
    for step in range(1, 21):
        t = step / 20
        mixed = tuple(round(f + (g - f) * t) for f, g in zip(fg, target))
        if contrast(mixed, bg) >= MIN_CONTRAST:  # type: ignore[arg-type]
            return mixed  # type: ignore[return-value]
    return target


def _rgb(color: RichColor | None) -> RGB | None:
    return tuple(color.triplet) if color is not None and color.triplet is not None else None  # type: ignore[return-value]


_UNSEEN = object()  # a style not looked at yet (None in the memo: looked at, left as it is)


class LegibleLines(LineFilter):
    """Every text colour lifted to a 4.5:1 contrast with the background it is drawn on; with ``only``, just
    those colours (in colour, the severities' reds and yellows: on a cursor row's tint too)."""

    #: Styles lifted (or None: left as they are) by (style, background): a step draws the same few styles
    #: on every new line, so each is measured once; the least recently used forgotten first past this many.
    MEMO = 4096

    def __init__(self, only: frozenset[RGB] | None = None, enabled: bool = True) -> None:
        super().__init__(enabled=enabled)
        self.only = only
        self._memo: LRUCache[tuple[Style, RGB], Style | None] = LRUCache(self.MEMO)

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        base = background.rgb
        memo = self._memo
        out = None  # a copy only once a segment changes
        for n, segment in enumerate(segments):
            style = segment.style
            if style is None or segment.control:
                continue
            new = memo.get((style, base), _UNSEEN)
            if new is _UNSEEN:
                new = self._lifted(style, base)
                memo.set((style, base), new)
            if new is None or not segment.text or segment.text.isspace():
                continue
            if out is None:
                out = list(segments)
            out[n] = Segment(segment.text, new, segment.control)
        return segments if out is None else out

    def _lifted(self, style: Style, base: RGB) -> Style | None:
        """``style`` with its text colour lifted to read against what it is drawn on, or None: it reads."""
        fg, bg = _rgb(style.color), _rgb(style.bgcolor) or base
        if style.reverse:  # the text is drawn in the background colour, on the foreground colour
            text, under = bg, fg or base
        else:
            text, under = fg, bg
        if text is None or (self.only is not None and text not in self.only) or contrast(text, under) >= MIN_CONTRAST:
            return None
        new = RichColor.from_rgb(*lifted(text, under))
        return style + (Style(bgcolor=new) if style.reverse else Style(color=new))


def severity_colours(theme) -> frozenset[RGB]:  # noqa: ANN001 - a rich TerminalTheme
    """The truecolor forms of the severities' text colours (an ANSI name as the app's theme draws it)."""
    from tui.app.render import styles

    found = set()
    for name in (styles.ERROR, styles.WARNING):
        color = Style.parse(name).color
        if color is not None:
            found.add(tuple(color.get_truecolor(theme)))
    return frozenset(found)  # type: ignore[arg-type]
