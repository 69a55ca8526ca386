"""turnscope: a terminal replay debugger for LLM agent runs.

The import package is ``tui``; ``tui.core`` holds the run model and pure analyses,
``tui.formats`` the loaders, ``tui.app`` the Textual stepper and ``tui.cli`` the verbs.
"""

__version__ = "0.1.0"
