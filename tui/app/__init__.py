"""The stepper app (Textual): screens, widgets, one stylesheet, typed messages.

``launch.launch(argv)`` is what ``turnscope FILE`` runs; ``factory.make_app`` builds the
app for the CLI, the tests and the screenshot script. ``app.py`` composes and routes;
``screens/`` and ``widgets/`` hold the parts; ``runview``, ``lines``, ``blocks``,
``sections``, ``rawbody``, ``search`` and ``sources`` are the plain-Python pieces they draw
from. Only this package imports Textual.
"""

import os

#: Textual draws a frame when something changed, on a timer of 1/TEXTUAL_FPS seconds resumed by the change:
#: at its default 60 a step's key waited for that tick after its work was done, about 16 ms of a 44 ms step
#: on a 100 MB run (bench/bench_stepper.py: p50 44 ms at 60, 29-32 ms at 120, the same CPU). At 120 a frame
#: that takes longer than a period (a step's does) leaves the timer asleep for one to two more periods before
#: it can tick again, so a key handled within 8-17 ms of the last frame (keys back to back, a key held down)
#: waited again: from the screen asking for the frame to the tick, 5.3 ms median and 11 ms at most over 40
#: such steps; at 240, 0.0 and 0.1 ms. A screen that streams draws more often only while its changes come
#: faster than 120 a second. A user's own TEXTUAL_FPS is kept; set before this package's first Textual
#: import, which is the only one in turnscope.
FRAMES_PER_SECOND = "240"
os.environ.setdefault("TEXTUAL_FPS", FRAMES_PER_SECOND)
