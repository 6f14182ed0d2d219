"""The floor's recorded frames (``kahuna.bench.floor``): a whole game, as the server encodes it."""

from __future__ import annotations

import json

from kahuna.bench.floor import record
from kahuna.bot.follow import Follower


def test_a_recording_is_a_whole_game_in_the_servers_frames_for_each_seat() -> None:
    recording = record(5)
    assert len(recording.updates) == len(recording.movers) > 20
    first = [json.loads(text) for text in recording.syncs]
    assert [sync["seat"] for sync in first] == [0, 1]
    assert bool(first[0]["legal"]) and not first[1]["legal"]  # Black moves first
    followers = {(seat, protocol): Follower() for seat in (0, 1) for protocol in (2, 3)}
    for (seat, _), follower in followers.items():
        follower.follow(first[seat])
    for version, (texts, mover) in enumerate(zip(recording.updates, recording.movers, strict=True), start=1):
        updates = [json.loads(texts[seat, 1]) for seat in (0, 1)]
        assert [u["version"] for u in updates] == [version, version] and updates[0]["seat_acted"] == mover
        assert [u["view"]["seat"] for u in updates] == [0, 1]  # each seat's own view
        for seat, protocol in followers:  # protocol 2's and 3's frames, followed, are protocol 1's
            assert followers[seat, protocol].follow(json.loads(texts[seat, protocol])) == updates[seat]
    assert json.loads(recording.updates[-1][0, 1])["result"] is not None
    assert record(5) == recording  # the same seed, the same frames
