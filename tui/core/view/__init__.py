"""The Textual-free view model of one run: lookups per index (``run_view``) and the review analyses (``analyses``)."""
