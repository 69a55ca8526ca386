"""The run model and the pure analyses over it.

Nothing under ``tui.core`` imports Textual (a test checks this in a subprocess), so the
command line, the branch runner and the benchmarks load without the UI.
"""
