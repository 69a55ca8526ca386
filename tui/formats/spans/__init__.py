"""Spans and trace observations read into runs (shared by the otel and langfuse loaders)."""
