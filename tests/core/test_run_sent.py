"""The run the app sends a spawned analyses' process (``background.run_pieces`` / ``received``) is the run it
holds, field for field: every sample and real run, and text JSON would not carry (a lone surrogate, NaN, an
integer past 64 bits); one that cannot be pickled is not sent (the process loads the file instead)."""

from __future__ import annotations

import math
import multiprocessing
import threading
from types import SimpleNamespace

from loader_helpers import every_run
from tui.core.run import Run
from tui.core.view.background import SEND, _send_run, fingerprint, received, run_pieces


class Inbox:
    """The process's end of the pipe, reading what ``run_pieces`` gave."""

    def __init__(self, pieces):
        self.pieces = iter(list(pieces))

    def recv_bytes(self) -> bytes:
        return next(self.pieces)


def test_every_sample_and_real_run_arrives_as_the_app_holds_it(realruns):
    count = 0
    for _, run in every_run(realruns):
        held = (list(run.messages), fingerprint(run))
        got = received(Inbox(run_pieces(run)))
        assert type(got) is type(run) and got == run, run.source.path
        assert got.messages is not run.messages and (list(run.messages), fingerprint(run)) == held  # not touched
        count += 1
    assert count >= 40, count


def test_what_json_would_not_carry_arrives_exactly():
    text = "lone \ud800 surrogate"
    messages = [{"role": "user", "content": [{"type": "text", "text": text}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "n",
                                                   "input": {"nan": math.nan, "big": 2 ** 70, "t": (1, 2)}}]}]
    # more than one piece of messages and of model calls
    messages += [{"role": ("user", "assistant")[k % 2], "content": f"m{k}"} for k in range(4 * SEND + 2)]
    run = Run(messages=messages)
    assert len(run.calls) > 2 * SEND
    got = received(Inbox(run_pieces(run)))
    value = got.messages[1]["content"][0]["input"]
    assert got.messages[0]["content"][0]["text"] == text and math.isnan(value["nan"])
    assert value["big"] == 2 ** 70 and value["t"] == (1, 2) and got.messages[2:] == messages[2:]
    assert got.calls == run.calls and [got.call_index(c.message) for c in got.calls] == list(range(len(run.calls)))


def test_nothing_is_sent_while_the_user_steps():
    """The sending thread waits while the keys are not quiet (the gate closed), then sends all of it."""
    run = Run(messages=[{"role": ("user", "assistant")[k % 2], "content": f"m{k}"} for k in range(3 * SEND)])
    quiet = threading.Event()  # closed: the user is stepping
    inbox, outbox = multiprocessing.Pipe(duplex=False)
    worker = SimpleNamespace(outbox=outbox, _stopped=threading.Event(), quiet=quiet)
    sender = threading.Thread(target=_send_run, args=(run, [worker]), daemon=True)
    sender.start()
    assert not inbox.poll(0.5) and sender.is_alive()  # nothing while the keys come
    quiet.set()
    assert received(inbox) == run
    sender.join(5)
    assert not sender.is_alive() and outbox.closed


def test_a_run_that_cannot_be_pickled_is_not_sent():
    run = Run(messages=[{"role": "user", "content": "hi"}], meta={"lock": threading.Lock()})
    assert list(run_pieces(run)) == [b""] and received(Inbox(run_pieces(run))) is None
