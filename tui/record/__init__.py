"""``turnscope record``: a recording reverse proxy in front of the Messages API.

``recording`` turns one finished exchange into one claude-trace log line (credentials left
out) and appends it to a locked file; ``proxy`` is the server and the upstream client
(asyncio protocols, httptools parsing the HTTP) that forward every request unchanged and
hand the Messages API exchanges to the recording.
"""
