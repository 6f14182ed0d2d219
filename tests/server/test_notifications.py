"""Notification settings, reminder mails and their one-click unsubscribe, against a real server and
a real SMTP server (aiosmtpd): your turn, a deadline near, a challenge and a tournament, each mailed
once, never when turned off, and turned off by its link (docs/accounts.md, *Notifications*).

The thresholds are seconds here (``--limit your_turn_after_seconds=1``, a scan every 0.1 s); the
tests wait for the mails they expect. That a mail was *not* sent is shown by a mail that the same
scan would have sent after it (the scan and the sender both go in the order the turns began).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any

import httpx
import loopback
import pytest
from mail_harness import MailServer, body, mail_options, smtp
from server_harness import Server, connect, run, wait_for
from test_accounts import PASSWORD, csrf, token_request
from test_mail import events, verified

__all__ = ["smtp"]  # the module-scoped mail server fixture, shared from mail_harness

SCAN = ("--limit", "notice_scan_seconds=0.1", "--limit", "your_turn_after_seconds=1")
BUDGETS = ("--limit", "signups_burst=100", "--limit", "logins_burst=200", "--limit", "mails_per_account_burst=100")


def serve(tmp: Any, smtp: MailServer, *more: str) -> Server:
    args = mail_options(smtp)
    return Server(tmp, args=(*args, *SCAN, *BUDGETS, *more)).start()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, smtp: MailServer) -> Iterator[Server]:
    running = serve(tmp_path_factory.mktemp("notify"), smtp)
    yield running
    running.stop()


def player(server: Server, smtp: MailServer, name: str, lang: str = "en") -> httpx.Client:
    return verified(server, smtp, name, f"{name}@example.org", lang)


def game(first: httpx.Client, second: httpx.Client, first_name: str, second_name: str) -> str:
    """A correspondence game (one day a turn) where ``first`` is seat 0, to move; its id."""
    made = first.post(
        "/api/games",
        json={"opponent": "human", "seat": "first", "clock": {"days": 1}, "name": first_name},
        headers=csrf(first),
    )
    assert made.status_code == 201, made.text
    invite = made.json()["invite_url"].rsplit("/", 1)[1]
    joined = second.post(f"/api/join/{invite}", json={"name": second_name}, headers=csrf(second))
    assert joined.status_code == 200, joined.text
    return str(made.json()["game_id"])


def of_kind(smtp: MailServer, address: str, subject: str) -> list[EmailMessage]:
    return [mail for mail in smtp.inbox.to(address) if mail["Subject"] == subject]


TURN = "Kahuna: it is your turn"


def wait_turn(smtp: MailServer, name: str, game_id: str) -> EmailMessage:
    """The your-turn mail to ``name`` about ``game_id``, once it arrived."""
    address = f"{name}@example.org"
    wait_for(lambda: any(game_id in body(m) for m in of_kind(smtp, address, TURN)), f"turn mail to {name}")
    (mail,) = [m for m in of_kind(smtp, address, TURN) if game_id in body(m)]
    return mail


def unsubscribe_url(mail: EmailMessage) -> str:
    header = str(mail["List-Unsubscribe"])
    assert header.startswith("<") and header.endswith(">"), header
    return header[1:-1]


# ----------------------------------------------------------------- settings


def test_settings_start_all_on_and_change_by_kind_and_channel(server: Server, smtp: MailServer) -> None:
    browser = player(server, smtp, "setter1")
    everything = {kind: {"mail": True, "push": True} for kind in ("your_turn", "deadline", "challenge", "tournament")}
    assert browser.get("/api/me/notifications").json() == {"kinds": everything, "channels": ["mail", "push"]}
    changed = browser.put("/api/me/notifications", json={"kinds": {"deadline": {"mail": False}}}, headers=csrf(browser))
    assert changed.status_code == 200, changed.text
    assert changed.json()["kinds"]["deadline"] == {"mail": False, "push": True}
    assert changed.json()["kinds"]["your_turn"] == {"mail": True, "push": True}
    again = browser.put(
        "/api/me/notifications", json={"kinds": {"deadline": {"mail": True}, "challenge": {"push": False}}},
        headers=csrf(browser),
    )  # fmt: skip
    assert again.json()["kinds"]["deadline"] == {"mail": True, "push": True}
    assert again.json()["kinds"]["challenge"] == {"mail": True, "push": False}


def test_an_unknown_kind_or_channel_is_refused_and_changes_nothing(server: Server, smtp: MailServer) -> None:
    browser = player(server, smtp, "setter2")
    before = browser.get("/api/me/notifications").json()
    for change, code in (
        ({"your_turn": {"mail": False}, "gossip": {"mail": False}}, "unknown_kind"),
        ({"your_turn": {"mail": False}, "deadline": {"pigeon": False}}, "unknown_channel"),
        ({"your_turn": {"mail": False}, "gossip": {}}, "unknown_kind"),
    ):
        answer = browser.put("/api/me/notifications", json={"kinds": change}, headers=csrf(browser))
        assert answer.status_code == 422
        assert answer.json()["error"] == code
        assert answer.json()["name"] in ("gossip", "pigeon")
    assert (
        browser.put(
            "/api/me/notifications", json={"kinds": {"deadline": {"mail": "no"}}}, headers=csrf(browser)
        ).status_code
        == 422
    )
    assert browser.get("/api/me/notifications").json() == before


def test_tokens_read_the_settings_and_only_the_session_changes_them(server: Server, smtp: MailServer) -> None:
    browser = player(server, smtp, "setter3")
    made = browser.post("/api/tokens", json=token_request("reader", PASSWORD, ("read",)), headers=csrf(browser))
    assert made.status_code == 201, made.text
    bearer = {"Authorization": f"Bearer {made.json()['token']}"}
    assert loopback.get(f"{server.url}/api/me/notifications", headers=bearer).status_code == 200
    refused = loopback.put(f"{server.url}/api/me/notifications", json={"kinds": {}}, headers=bearer)
    assert refused.status_code == 403
    assert loopback.get(f"{server.url}/api/me/notifications").status_code == 401


# ----------------------------------------------------------------- reminders


def test_a_turn_reminder_arrives_and_its_link_turns_the_kind_off(server: Server, smtp: MailServer) -> None:
    ana, ben = player(server, smtp, "ana_r"), player(server, smtp, "ben_r", "de")
    first = game(ana, ben, "ana_r", "ben_r")
    mail = wait_turn(smtp, "ana_r", first)
    assert "ben_r" in body(mail)
    assert f"{server.url}/play/{first}" in body(mail)
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = unsubscribe_url(mail)
    assert link.startswith(f"{server.url}/unsubscribe/") and link in body(mail)

    # a browser that opens the link gets the page, which changes nothing
    assert loopback.get(link).status_code == 200
    token = link.rsplit("/", 1)[1]
    assert loopback.get(f"{server.url}/api/unsubscribe/{token}").json() == {"kind": "your_turn", "mail": True}
    # forged links change nothing
    flipped = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    for forged in (flipped, token.replace(".your_turn.", ".deadline."), "1.your_turn.x", "..%2Fapi"):
        answer = loopback.post(f"{server.url}/unsubscribe/{forged}", data={"List-Unsubscribe": "One-Click"})
        assert answer.status_code == 404, forged
        assert answer.json()["error"] in ("token_invalid", "not_found")
    assert ana.get("/api/me/notifications").json()["kinds"]["your_turn"]["mail"] is True

    # the mail client's one click (RFC 8058)
    clicked = loopback.post(link, data={"List-Unsubscribe": "One-Click"})
    assert clicked.status_code == 200, clicked.text
    assert clicked.json() == {"kind": "your_turn", "mail": False}
    assert ana.get("/api/me/notifications").json()["kinds"]["your_turn"] == {"mail": False, "push": True}
    assert ana.get("/api/me/notifications").json()["kinds"]["deadline"]["mail"] is True

    # ana's turn in a new game: no mail; ben's turn that began after it: his mail comes
    mine = game(ana, ben, "ana_r", "ben_r")
    his = game(ben, ana, "ben_r", "ana_r")
    address = "ben_r@example.org"
    wait_for(lambda: any(his in body(m) for m in of_kind(smtp, address, "Kahuna: Du bist am Zug")), "ben's, in German")
    assert [m for m in of_kind(smtp, "ana_r@example.org", TURN) if mine in body(m)] == []
    assert len(of_kind(smtp, "ana_r@example.org", TURN)) == 1


def test_a_kind_turned_off_in_the_settings_sends_nothing(server: Server, smtp: MailServer) -> None:
    cleo, dan = player(server, smtp, "cleo_r"), player(server, smtp, "dan_r")
    off = cleo.put("/api/me/notifications", json={"kinds": {"your_turn": {"mail": False}}}, headers=csrf(cleo))
    assert off.status_code == 200
    quiet = game(cleo, dan, "cleo_r", "dan_r")
    loud = game(dan, cleo, "dan_r", "cleo_r")
    wait_turn(smtp, "dan_r", loud)
    assert [m for m in smtp.inbox.to("cleo_r@example.org") if quiet in body(m)] == []


def test_a_deadline_warning_comes_once_half_the_turn_is_gone(server: Server, smtp: MailServer) -> None:
    eve, fay = player(server, smtp, "eve_r"), player(server, smtp, "fay_r")
    game_id = game(eve, fay, "eve_r", "fay_r")
    wait_turn(smtp, "eve_r", game_id)
    # the turn began 13 hours ago, as the database says (the server's own clock in memory is not
    # what the reminders read): 11 hours are left of the day
    with sqlite3.connect(server.db.removeprefix("sqlite:///")) as conn:
        conn.execute("UPDATE clocks SET since = since - 13 * 3600 WHERE game_id = ?", (game_id,))
    subject = "Kahuna: your time to move runs out soon"
    wait_for(lambda: len(of_kind(smtp, "eve_r@example.org", subject)) == 1, "the deadline warning")
    (warning,) = of_kind(smtp, "eve_r@example.org", subject)
    assert "in 11 hours" in body(warning) and game_id in body(warning)
    assert warning["List-Unsubscribe"] is not None


def test_a_challenge_and_a_tournament_are_mailed(server: Server, smtp: MailServer) -> None:
    gil, hal = player(server, smtp, "gil_r"), player(server, smtp, "hal_r", "es")
    made = gil.post(
        "/api/challenges", json={"opponent": "hal_r", "clock": {"days": 2}, "rated": False}, headers=csrf(gil)
    )
    assert made.status_code == 201, made.text
    wait_for(lambda: len(of_kind(smtp, "hal_r@example.org", "Kahuna: te han desafiado")) == 1, "the challenge mail")
    (challenge,) = of_kind(smtp, "hal_r@example.org", "Kahuna: te han desafiado")
    assert "gil_r" in body(challenge) and challenge["Content-Language"] == "es"

    starts = datetime.now(UTC) + timedelta(minutes=10)
    event = gil.post(
        "/api/tournaments",
        json={"kind": "swiss", "name": "Reef Cup", "clock": {"initial": 300}, "rounds": 2,
              "starts_at": starts.isoformat()},
        headers=csrf(gil),
    )  # fmt: skip
    assert event.status_code == 201, event.text
    tid = event.json()["tournament_id"]
    for who in (gil, hal):
        assert who.post(f"/api/tournaments/{tid}/join", headers=csrf(who)).status_code == 204
    wait_for(lambda: len(of_kind(smtp, "gil_r@example.org", "Kahuna: your tournament starts soon")) == 1, "gil's")
    wait_for(lambda: len(of_kind(smtp, "hal_r@example.org", "Kahuna: tu torneo empieza pronto")) == 1, "hal's")
    (notice,) = of_kind(smtp, "gil_r@example.org", "Kahuna: your tournament starts soon")
    assert "Reef Cup" in body(notice) and f"/tournaments/{tid}" in body(notice)
    assert "in 10 minutes" in body(notice) or "in 9 minutes" in body(notice)


def test_a_seat_with_a_connection_is_not_reminded_until_it_has_been_away(server: Server, smtp: MailServer) -> None:
    ivy, jon = player(server, smtp, "ivy_r"), player(server, smtp, "jon_r")
    made = ivy.post(
        "/api/games", json={"opponent": "human", "seat": "first", "clock": {"days": 1}, "name": "ivy_r"},
        headers=csrf(ivy),
    )  # fmt: skip
    watched, token = made.json()["game_id"], made.json()["token"]
    invite = made.json()["invite_url"].rsplit("/", 1)[1]

    async def scenario() -> None:
        tab = await connect(server, watched, token)
        path = server.db.removeprefix("sqlite:///")

        def seen() -> bool:
            with sqlite3.connect(path) as conn:
                return (
                    conn.execute("SELECT 1 FROM seat_seen WHERE game_id = ? AND seat = 0", (watched,)).fetchone()
                    is not None
                )

        wait_for(seen, "ivy's open tab recorded")
        assert jon.post(f"/api/join/{invite}", json={"name": "jon_r"}, headers=csrf(jon)).status_code == 200
        later = game(jon, ivy, "jon_r", "ivy_r")  # jon's turn began after ivy's
        wait_turn(smtp, "jon_r", later)
        assert [m for m in smtp.inbox.to("ivy_r@example.org") if watched in body(m)] == []
        await tab.close()

    run(scenario())
    wait_turn(smtp, "ivy_r", watched)  # away for the threshold now


# ----------------------------------------------------------------- once, bounded


def test_each_notice_is_sent_once_across_a_restart_budgets_drop_the_rest_and_old_rows_go(
    tmp_path_factory: pytest.TempPathFactory, smtp: MailServer
) -> None:
    tmp = tmp_path_factory.mktemp("restart")
    budget = ("--limit", "notice_mails_per_account_burst=2")
    running = serve(tmp, smtp, *budget)
    try:
        kim, lou = player(running, smtp, "kim_r"), player(running, smtp, "lou_r")
        games = [game(kim, lou, "kim_r", "lou_r") for _ in range(3)]
        wait_for(lambda: len(of_kind(smtp, "kim_r@example.org", TURN)) == 2, "two turn mails")
        wait_for(lambda: any(e.get("status") == "dropped" for e in events(running, "notice")), "the third dropped")
        running.stop()
        path = running.db.removeprefix("sqlite:///")
        month_ago = time.time() - 31 * 86400
        with sqlite3.connect(path) as conn:  # rows older than any turn can last: pruned at start
            conn.execute("INSERT INTO notices VALUES ('challenge', 'old-offer', 0, 1, 'queued', ?)", (month_ago,))
            conn.execute("INSERT INTO seat_seen VALUES (?, 1, ?)", (games[0], month_ago))
        running.start()  # same port and database: the clients' sessions still work

        def pruned() -> bool:
            with sqlite3.connect(path) as conn:
                old = conn.execute("SELECT count(*) FROM notices WHERE subject = 'old-offer'").fetchone()[0]
                return int(old) + int(conn.execute("SELECT count(*) FROM seat_seen").fetchone()[0]) == 0

        wait_for(pruned, "the month-old rows pruned")
        later = game(lou, kim, "lou_r", "kim_r")  # lou's turn began after all of kim's
        wait_turn(smtp, "lou_r", later)
        kims = of_kind(smtp, "kim_r@example.org", TURN)
        assert len(kims) == 2
        assert len({g for g in games for m in kims if g in body(m)}) == 2  # two games, one mail each
        with sqlite3.connect(running.db.removeprefix("sqlite:///")) as conn:
            rows = conn.execute("SELECT kind, subject, status FROM notices WHERE kind = 'your_turn'").fetchall()
        assert sorted(status for _, subject, status in rows if subject in games) == ["dropped", "queued", "queued"]
    finally:
        running.stop()


def test_the_notice_budget_of_a_mailbox_is_shared_by_its_spellings(
    tmp_path_factory: pytest.TempPathFactory, smtp: MailServer
) -> None:
    """Two accounts whose addresses are two spellings of one mailbox (``mo+a@``, ``mo+b@``), two
    turns each, a budget of two notices a mailbox: two turn mails reach the mailbox, two notices
    are dropped (issue 45: the notices counted each spelling apart)."""
    running = serve(tmp_path_factory.mktemp("mailbox"), smtp, "--limit", "notice_mails_per_address_burst=2")
    try:
        spellings = {"mo_a": "mo+a@example.org", "mo_b": "mo+b@example.org"}
        players = {name: verified(running, smtp, name, address) for name, address in spellings.items()}
        rival = player(running, smtp, "nat_r")
        for name, browser in players.items():
            for _ in range(2):
                game(browser, rival, name, "nat_r")

        def dropped() -> int:
            return sum(1 for e in events(running, "notice") if e.get("status") == "dropped")

        def mailed() -> int:
            return sum(len(of_kind(smtp, address, TURN)) for address in spellings.values())

        wait_for(lambda: dropped() + mailed() == 4, "the four notices decided and the queued ones sent")
        sent = mailed()
        print(f"\nfigure: turn mails to one mailbox through two spellings, budget 2: {sent} of 4")
        assert sent == 2
    finally:
        running.stop()
