"""Recorded HTTP exchanges with the Messages API (trace logs, cassettes): decoding and grouping.

``exchange`` reads one exchange from whatever a recorder kept, ``sse`` puts a streamed answer
back together, ``conversations`` groups exchanges into runs whose prefixes are exact.
"""
