"""The stepper app (Textual): screens, widgets, one stylesheet, typed messages.

``launch.launch(argv)`` is what ``turnscope FILE`` runs; ``factory.make_app`` builds the
app for the CLI, the tests and the screenshot script. ``app.py`` composes and routes;
``screens/`` and ``widgets/`` hold the parts; ``runview``, ``lines``, ``blocks``,
``sections``, ``rawbody``, ``search`` and ``sources`` are the plain-Python pieces they draw
from. Only this package imports Textual.
"""
