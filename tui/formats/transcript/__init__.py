"""Claude Code transcripts: the line index (``records``), which lines make a thread (``thread``),
and the message list and calls a thread amounts to (``assemble``)."""
