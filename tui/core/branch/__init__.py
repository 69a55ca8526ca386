"""Branch mode: edit a block at index N of a run and re-run the real model from there.

- ``patch``: the edit, an RFC 6902 JSON Patch against the parent request at N, quick
  edits that build one, and the grammar check that decides whether it can be sent.
- ``runner``: ``start``/``resume`` a branch and ``Runner``, which streams each model call
  through the anthropic SDK, answers tool calls with a resolver and saves every turn.
- ``resolvers``: recorded, stop, python:MODULE:FUNCTION, and the manual hook for the app.
- ``events``: the typed events a runner reports (what the CLI prints, what the app renders).
- ``store``: branch files (native run + lineage), where they are saved, a run's branch tree.
- ``api``: the SDK call, the API key from the environment, failures in the API's words.

Nothing here imports Textual, and the SDK is imported only when a model call is made.
"""
