"""The notifier (``kahuna/server/notify/notifier.py``), in process: a moment is made a notice once
and handed to every channel that takes its kind as it happens, and to no other; a channel that
fails spares the others, and stopping waits for the notices under way and then stops the channels.
The end-to-end mails and pushes are tests/server/test_notifications.py and test_push.py."""

from __future__ import annotations

import asyncio
from pathlib import Path

from kahuna.server.accounts.notifications import Notice
from kahuna.server.db.store import open_engine
from kahuna.server.db.writer import Writer
from kahuna.server.notify.notifier import Notifier


class Recording:
    """A channel that keeps what it is handed (``fails``: it raises instead, as a channel whose
    database is away does)."""

    def __init__(self, kinds: tuple[str, ...], fails: bool = False) -> None:
        self.kinds_now = kinds
        self.fails = fails
        self.got: list[Notice] = []
        self.running = False

    def start(self) -> None:
        self.running = True

    async def stop(self) -> None:
        self.running = False

    async def deliver(self, notice: Notice) -> None:
        await asyncio.sleep(0)  # handed over in a task of its own: the caller did not wait for this
        if self.fails:
            raise ConnectionError("database away")
        self.got.append(notice)


def test_each_moment_reaches_the_channels_that_take_its_kind(tmp_path: Path) -> None:
    pushes = Recording(("your_turn", "deadline", "challenge", "tournament"))
    mails = Recording(("challenge",))
    broken = Recording(("challenge",), fails=True)
    notifier = Notifier(Writer(open_engine(f"sqlite:///{tmp_path / 'n.db'}")), [broken, pushes, mails])

    async def scenario() -> None:
        notifier.start()
        assert pushes.running and mails.running
        notifier.challenge(7, "c1", "ana", expires=1e12)
        notifier.tournament_game(8, "g1", 1, "ben", "/play/g1?tournament=t#seat:1")
        assert pushes.got == [] and mails.got == []  # both calls returned before any channel ran
        await notifier.stop()

    asyncio.run(scenario())
    print(f"\nfigure: notices handed to push {len(pushes.got)}, to mail {len(mails.got)}, to the broken one 0")
    challenge = Notice("challenge", 7, "c1", None, "ana", "/lobby", 1e12)
    assert mails.got == [challenge]
    by_kind = {n.kind: n for n in pushes.got}  # each in a task of its own: in no given order
    assert sorted(by_kind) == ["challenge", "tournament"] and len(pushes.got) == 2
    assert by_kind["challenge"] == challenge and challenge.key == "challenge:c1"
    tournament = by_kind["tournament"]
    assert (tournament.account_id, tournament.subject, tournament.seat, tournament.key) == (8, "g1", 1, "tournament:g1")
    assert not pushes.running and not mails.running and not broken.running
