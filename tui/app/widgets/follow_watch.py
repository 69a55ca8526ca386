"""``FollowWatch``: an invisible widget that polls a followed file and posts what it found.

Twice a second, while ``following.on``, it runs ``Follower.poll`` in a thread worker (a poll
reads only what was appended: a few milliseconds) and posts ``FollowWatch.Updated`` with the
update for the stepper to show, or ``FollowWatch.Failed`` when the file, loaded again whole
after it was replaced, cannot be read. All the logic is in ``tui.formats.follow``.
"""

from __future__ import annotations

from textual import work
from textual.message import Message
from textual.widget import Widget

from tui.core.errors import LoadError, UsageError
from tui.formats.follow import Following, Update

class FollowStarted(Message):
    """F on a run opened without ``--follow``: the file is read again and followed from now on."""

    def __init__(self, following: Following) -> None:
        super().__init__()
        self.following = following


#: Seconds between polls: new lines show within a second of being written.
INTERVAL = 0.5


class FollowWatch(Widget):
    """Polls ``following``'s file while following is on; never drawn."""

    DEFAULT_CSS = "FollowWatch { display: none; }"

    class Updated(Message):
        """More of the file was read (or it was loaded again whole)."""

        def __init__(self, update: Update) -> None:
            super().__init__()
            self.update = update

    class Failed(Message):
        """The file could not be read again."""

        def __init__(self, problem: str) -> None:
            super().__init__()
            self.problem = problem

    def __init__(self, following: Following, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.following = following

    def on_mount(self) -> None:
        self.set_interval(INTERVAL, self.poll_now)

    def poll_now(self) -> None:
        if self.following.on:
            self._poll()

    @work(thread=True, exclusive=True, group="follow")
    def _poll(self) -> None:
        try:
            update = self.following.follower.poll()
        except (LoadError, UsageError) as exc:
            self.post_message(self.Failed(exc.line_text() if isinstance(exc, LoadError) else str(exc)))
            return
        if update is not None:
            self.post_message(self.Updated(update))
