"""``turnscope record``: a recording reverse proxy in front of the Messages API.

``recording`` turns one finished exchange into one claude-trace log line (credentials left
out) and appends it to a locked file; ``proxy`` is the aiohttp server and upstream client
that forward every request unchanged and hand the Messages API exchanges to the recording.
"""
