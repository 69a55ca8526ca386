"""Claude Code transcripts: the line index (``records`` reads it, ``index`` holds it and finds a line by
uuid), which lines make a thread (``thread``), and the message list and calls a thread amounts to
(``assemble``)."""
