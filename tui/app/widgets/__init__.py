"""The stepper's widgets: the Line API views (message list, request pane, raw lines) and the rest."""
