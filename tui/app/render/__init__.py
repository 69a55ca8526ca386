"""Rich-only builders of what the stepper draws: rows, blocks, sections, traces, diffs, raw bodies, styles.

No Textual import here (the import contract test holds it): a widget asks these modules for
``rich.text.Text`` rows and draws them through the Line API.
"""
