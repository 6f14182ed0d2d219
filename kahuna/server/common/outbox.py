"""Where a message queued by this process goes next: a port given at assembly, like the AI turns.

Mail and pushes are queued in tables (``mail/queue.py``, ``push/queue.py``) in the transaction
that decides them; what sends them is an :class:`Outbox`. A process that sends them itself is given
its sender (``mail/sender.py``, ``push/sender.py``: a task, woken when something is queued here);
one whose queue another process empties (an instance with ``--broker``: ``kahuna worker`` sends)
is given :class:`LeftQueued`, and so is a process with no mail server to send through. Nothing that
queues asks which it has.
"""

from __future__ import annotations

from typing import Protocol


class Outbox(Protocol):
    """What sends the queue's messages from this process."""

    def start(self) -> None:
        """Begin sending (what the queue held when the process stopped goes first)."""
        ...

    async def stop(self) -> None:
        """Stop after the sends under way."""
        ...

    def wake(self) -> None:
        """A message was queued here: look now."""
        ...


class LeftQueued:
    """Nothing is sent from this process: the queue is another process's to empty."""

    def start(self) -> None:
        return

    async def stop(self) -> None:
        return

    def wake(self) -> None:
        return
