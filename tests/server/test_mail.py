"""E-mail against a real server and a real SMTP server (aiosmtpd): the address and its verification
link, the password reset by mail, dead links, the budgets, a mail server that is down, and a restart
with mail waiting (docs/accounts.md, *E-mail*)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import loopback
import pytest
from mail_harness import MailServer, body, link_token, mail_options, smtp
from server_harness import Server, free_port, wait_for
from test_accounts import PASSWORD, client, csrf, signed_in

from kahuna.server.mail import smtp_url, templates

__all__ = ["smtp"]  # the module-scoped mail server fixture, shared from mail_harness

NEW_PASSWORD = "lagoon-ember-tern"


def events(server: Server, kind: str) -> list[dict[str, object]]:
    out = []
    for line in server.log().splitlines():
        if line.startswith("{") and f'"event":"{kind}"' in line:
            out.append(json.loads(line))
    return out


def statuses(server: Server) -> list[str]:
    with sqlite3.connect(server.db.removeprefix("sqlite:///")) as conn:
        return [status for (status,) in conn.execute("SELECT status FROM mail_queue ORDER BY id")]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, smtp: MailServer) -> Iterator[Server]:
    args = mail_options(smtp)
    limits = ("--limit", "signups_burst=100", "--limit", "logins_burst=200")
    running = Server(tmp_path_factory.mktemp("mail"), args=(*args, *limits)).start()
    yield running
    running.stop()


def verified(server: Server, smtp: MailServer, username: str, address: str, lang: str = "en") -> httpx.Client:
    """A signed-in client whose account verified ``address`` (through its mailed link)."""
    browser = signed_in(server, username)
    answer = browser.put("/api/me/email", json={"email": address, "lang": lang}, headers=csrf(browser))
    assert answer.status_code == 202, answer.text
    _, token = link_token(smtp.inbox.wait(address)[-1])
    assert loopback.post(f"{server.url}/api/email/verify", json={"token": token}).status_code == 204
    return browser


# ----------------------------------------------------------------- the address


def test_the_address_counts_once_its_mailed_link_is_opened(server: Server, smtp: MailServer) -> None:
    browser = signed_in(server, "mailer1")
    assert browser.get("/api/me/email").json() == {"enabled": True, "email": None, "pending": None}
    answer = browser.put("/api/me/email", json={"email": "Ana@Example.org"}, headers=csrf(browser))
    assert answer.status_code == 202
    assert answer.json() == {"enabled": True, "email": None, "pending": "Ana@Example.org"}
    (mail,) = smtp.inbox.wait("Ana@Example.org")
    assert mail["From"] == "Kahuna <games@kahuna.test>"
    assert mail["Subject"] == "Kahuna: confirm your e-mail address"
    assert mail["Auto-Submitted"] == "auto-generated"
    assert mail["Content-Language"] == "en"
    assert mail["List-Unsubscribe"] is None  # transactional: nothing to unsubscribe from
    assert "mailer1" in body(mail)
    link, token = link_token(mail)
    assert link.startswith(f"{server.url}/email/verify#")
    assert loopback.get(link).status_code == 200  # the page that posts the token
    assert loopback.post(f"{server.url}/api/email/verify", json={"token": token}).status_code == 204
    assert browser.get("/api/me/email").json() == {"enabled": True, "email": "Ana@Example.org", "pending": None}
    again = loopback.post(f"{server.url}/api/email/verify", json={"token": token})
    assert (again.status_code, again.json()["error"]) == (410, "token_used")
    unknown = loopback.post(f"{server.url}/api/email/verify", json={"token": "x" * 43})
    assert (unknown.status_code, unknown.json()["error"]) == (404, "token_unknown")
    with sqlite3.connect(server.db.removeprefix("sqlite:///")) as conn:
        stored = [row[0] for row in conn.execute("SELECT digest FROM mail_tokens")]
        bodies = [row[0] for row in conn.execute("SELECT body FROM mail_queue WHERE status = 'sent'")]
    assert token not in stored and all(len(d) == 64 for d in stored)  # only digests
    assert bodies and set(bodies) == {None}  # a sent mail's link is erased


def test_a_new_address_waits_for_its_own_link_and_voids_the_older_one(server: Server, smtp: MailServer) -> None:
    browser = verified(server, smtp, "mailer2", "first@example.org")
    browser.put("/api/me/email", json={"email": "second@example.org"}, headers=csrf(browser))
    _, old = link_token(smtp.inbox.wait("second@example.org")[-1])
    browser.put("/api/me/email", json={"email": "third@example.org"}, headers=csrf(browser))
    _, new = link_token(smtp.inbox.wait("third@example.org")[-1])
    # the verified address stays until the new one is verified
    assert browser.get("/api/me/email").json()["email"] == "first@example.org"
    assert loopback.post(f"{server.url}/api/email/verify", json={"token": old}).json()["error"] == "token_unknown"
    assert loopback.post(f"{server.url}/api/email/verify", json={"token": new}).status_code == 204
    assert browser.get("/api/me/email").json()["email"] == "third@example.org"
    assert browser.delete("/api/me/email", headers=csrf(browser)).status_code == 204
    assert browser.get("/api/me/email").json() == {"enabled": True, "email": None, "pending": None}


@pytest.mark.parametrize(
    "address", ["no-at-sign", "a@b", "a b@example.org", "a@example.org\r\nBcc: x@example.org", "ä@example.org"]
)
def test_what_is_not_an_address_is_refused(server: Server, address: str) -> None:
    browser = signed_in(server, "mailer3")
    answer = browser.put("/api/me/email", json={"email": address}, headers=csrf(browser))
    assert (answer.status_code, answer.json()["error"]) == (422, "invalid_email")
    assert browser.get("/api/me/email").json()["pending"] is None


def test_setting_the_address_needs_a_session_and_its_csrf_header(server: Server) -> None:
    browser = signed_in(server, "mailer4")
    assert browser.put("/api/me/email", json={"email": "x@example.org"}).json()["error"] == "csrf"
    assert loopback.get(f"{server.url}/api/me/email").status_code == 401


def test_mails_to_one_address_are_limited(server: Server, smtp: MailServer) -> None:
    browser = signed_in(server, "mailer5")
    answers = [
        browser.put("/api/me/email", json={"email": "flood@example.org"}, headers=csrf(browser)).status_code
        for _ in range(4)
    ]
    assert answers == [202, 202, 202, 429]  # mails_per_address_burst: 3, the account's own for the mailbox
    refused = browser.put("/api/me/email", json={"email": "FLOOD+again@example.org"}, headers=csrf(browser))
    assert refused.status_code == 429 and "Retry-After" in refused.headers  # one mailbox, however spelled
    other = signed_in(server, "mailer6")  # another account has its own budget: it learns nothing
    assert other.put("/api/me/email", json={"email": "FLOOD@example.org"}, headers=csrf(other)).status_code == 202
    smtp.inbox.wait("flood@example.org", 3)
    smtp.inbox.wait("FLOOD@example.org", 1)


def test_mails_for_one_account_are_limited(server: Server) -> None:
    browser = signed_in(server, "mailer7")
    answers = [
        browser.put("/api/me/email", json={"email": f"a{n}@example.org"}, headers=csrf(browser)).status_code
        for n in range(6)
    ]
    assert answers == [202] * 5 + [429]  # mails_per_account_burst: 5


# ----------------------------------------------------------------- password reset


def test_a_password_reset_by_mail_signs_out_everywhere(server: Server, smtp: MailServer) -> None:
    browser = verified(server, smtp, "resetter1", "reset1@example.org", lang="de")
    token_answer = browser.post(
        "/api/tokens", json={"name": "bot", "password": PASSWORD, "scopes": ["read"]}, headers=csrf(browser)
    )
    api_token = token_answer.json()["token"]
    assert loopback.post(f"{server.url}/api/password-reset", json={"email": "RESET1@example.org"}).status_code == 202
    mail = smtp.inbox.wait("reset1@example.org", 2)[-1]
    assert mail["Subject"] == "Kahuna: Wähle ein neues Passwort"  # the account's language
    link, token = link_token(mail)
    assert link.startswith(f"{server.url}/password-reset#")
    assert loopback.get(link).status_code == 200
    weak = loopback.post(f"{server.url}/api/password-reset/{token}", json={"password": "kahuna2026"})
    assert (weak.status_code, weak.json()["error"]) == (422, "invalid")  # the password rules apply
    assert weak.json()["reason"]["code"] == "password_guessable"
    done = loopback.post(f"{server.url}/api/password-reset/{token}", json={"password": NEW_PASSWORD})
    assert done.status_code == 204
    assert browser.get("/api/me").status_code == 401  # the session is over
    bearer = loopback.get(f"{server.url}/api/me", headers={"Authorization": f"Bearer {api_token}"})
    assert bearer.status_code == 401  # the token is revoked
    again = loopback.post(f"{server.url}/api/password-reset/{token}", json={"password": NEW_PASSWORD + "x"})
    assert (again.status_code, again.json()["error"]) == (410, "token_used")
    old = client(server).post("/api/session", json={"username": "resetter1", "password": PASSWORD})
    assert old.status_code == 401
    new = client(server).post("/api/session", json={"username": "resetter1", "password": NEW_PASSWORD})
    assert new.status_code == 200


def test_the_reset_answer_is_the_same_for_a_known_and_an_unknown_address(server: Server, smtp: MailServer) -> None:
    verified(server, smtp, "resetter2", "known@example.org")
    answers = [
        loopback.post(f"{server.url}/api/password-reset", json={"email": address})
        for address in ("known@example.org", "unknown@example.org", "not an address")
    ]
    assert {(a.status_code, a.content, a.headers.get("content-type")) for a in answers} == {(202, b"", None)}
    wait_for(lambda: len(events(server, "password_reset_asked")) >= 2, "both resets looked up")
    smtp.inbox.wait("known@example.org", 2)
    assert smtp.inbox.to("unknown@example.org") == []
    mails = sorted(int(str(e["mails"])) for e in events(server, "password_reset_asked"))
    assert 0 in mails and 1 in mails


def test_a_pending_address_resets_nothing(server: Server, smtp: MailServer) -> None:
    browser = signed_in(server, "resetter3")
    browser.put("/api/me/email", json={"email": "pending@example.org"}, headers=csrf(browser))
    smtp.inbox.wait("pending@example.org")
    before = len(events(server, "password_reset_asked"))
    loopback.post(f"{server.url}/api/password-reset", json={"email": "pending@example.org"})
    wait_for(lambda: len(events(server, "password_reset_asked")) > before, "the reset looked up")
    assert events(server, "password_reset_asked")[-1]["mails"] == 0
    assert len(smtp.inbox.to("pending@example.org")) == 1


def test_an_expired_reset_link_is_refused(server: Server, smtp: MailServer) -> None:
    verified(server, smtp, "resetter4", "late@example.org")
    loopback.post(f"{server.url}/api/password-reset", json={"email": "late@example.org"})
    _, token = link_token(smtp.inbox.wait("late@example.org", 2)[-1])
    with sqlite3.connect(server.db.removeprefix("sqlite:///")) as conn:  # an hour goes by
        conn.execute("UPDATE mail_tokens SET expires = expires - 3601 WHERE kind = 'reset' AND used IS NULL")
    late = loopback.post(f"{server.url}/api/password-reset/{token}", json={"password": NEW_PASSWORD})
    assert (late.status_code, late.json()["error"]) == (410, "token_expired")
    nothing = loopback.post(f"{server.url}/api/password-reset/{'y' * 43}", json={"password": NEW_PASSWORD})
    assert (nothing.status_code, nothing.json()["error"]) == (404, "token_unknown")
    signed_in(server, "resetter4")  # the password is unchanged


def test_a_deleted_account_forgets_its_address_and_its_links(server: Server, smtp: MailServer) -> None:
    browser = verified(server, smtp, "leaver1", "leaver@example.org")
    loopback.post(f"{server.url}/api/password-reset", json={"email": "leaver@example.org"})
    _, token = link_token(smtp.inbox.wait("leaver@example.org", 2)[-1])
    gone = browser.request("DELETE", "/api/me", json={"password": PASSWORD}, headers=csrf(browser))
    assert gone.status_code == 204
    late = loopback.post(f"{server.url}/api/password-reset/{token}", json={"password": NEW_PASSWORD})
    assert (late.status_code, late.json()["error"]) == (404, "token_unknown")
    with sqlite3.connect(server.db.removeprefix("sqlite:///")) as conn:
        kept = conn.execute(
            "SELECT count(*) FROM account_emails WHERE email = 'leaver@example.org' OR pending = 'leaver@example.org'"
        ).fetchone()
    assert kept == (0,)


# ----------------------------------------------------------------- a mail server that is down


def queue_verifications(server: Server, count: int) -> list[str]:
    addresses = []
    for n in range(count):
        browser = signed_in(server, f"waiting{n}")
        address = f"waiting{n}@example.org"
        assert browser.put("/api/me/email", json={"email": address}, headers=csrf(browser)).status_code == 202
        addresses.append(address)
    return addresses


@pytest.mark.slow
def test_a_mail_server_down_then_back_gets_every_mail_once(tmp_path: Path) -> None:
    port = free_port()
    args = ("--smtp", f"smtp://127.0.0.1:{port}", "--limit", "mail_retry_seconds=0.2")
    server = Server(tmp_path, args=args).start()
    mail_server = MailServer(port)
    try:
        addresses = queue_verifications(server, 3)
        wait_for(lambda: len(events(server, "mail_delayed")) >= 6, "two failed attempts per mail")
        mail_server.start()
        wait_for(lambda: statuses(server) == ["sent"] * 3, "every mail sent")
        assert sorted(mail["To"] for mail in mail_server.inbox.mails) == addresses  # each once
        assert len({mail["Message-ID"] for mail in mail_server.inbox.mails}) == 3
        print(f"\n{len(events(server, 'mail_delayed'))} failed attempts, then {len(mail_server.inbox.mails)} mails")
    finally:
        server.stop()
        mail_server.stop()


@pytest.mark.slow
def test_mail_waiting_in_the_queue_survives_a_restart(tmp_path: Path) -> None:
    port = free_port()
    args = ("--smtp", f"smtp://127.0.0.1:{port}", "--limit", "mail_retry_seconds=3600")
    server = Server(tmp_path, args=args).start()
    addresses = queue_verifications(server, 3)
    wait_for(lambda: len(events(server, "mail_delayed")) == 3, "one failed attempt per mail")
    server.stop()
    mail_server = MailServer(port).start()
    try:
        server.start()  # the same database: the mails are due at once, not in an hour
        wait_for(lambda: statuses(server) == ["sent"] * 3, "every mail sent after the restart")
        assert sorted(mail["To"] for mail in mail_server.inbox.mails) == addresses
        _, token = link_token(mail_server.inbox.to(addresses[0])[0])
        assert loopback.post(f"{server.url}/api/email/verify", json={"token": token}).status_code == 204
    finally:
        server.stop()
        mail_server.stop()


# ----------------------------------------------------------------- e-mail off, settings


@pytest.mark.slow
def test_without_smtp_the_server_says_e_mail_is_off(tmp_path: Path) -> None:
    server = Server(tmp_path).start()
    try:
        browser = signed_in(server, "offline1")
        assert browser.get("/api/me/email").json() == {"enabled": False, "email": None, "pending": None}
        answer = browser.put("/api/me/email", json={"email": "a@example.org"}, headers=csrf(browser))
        assert (answer.status_code, answer.json()["error"]) == (404, "mail_off")
        assert server.get("/api/password-reset").json() == {"enabled": False}
        assert server.post("/api/password-reset", {"email": "a@example.org"}).json()["error"] == "mail_off"
    finally:
        server.stop()


def test_the_smtp_url_says_how_to_reach_the_mail_server() -> None:
    plain = smtp_url.parse("smtp://127.0.0.1:2525", None, "https://kahuna.example/")
    assert (plain.host, plain.port, plain.security, plain.username) == ("127.0.0.1", 2525, "plain", None)
    assert plain.mail_from == "Kahuna <noreply@kahuna.example>" and plain.public_url == "https://kahuna.example"
    tls = smtp_url.parse("smtps://me%40x.org:p%3Ass@mail.example", "games@kahuna.example", "https://k.example")
    assert (tls.port, tls.security, tls.username, tls.password) == (465, "tls", "me@x.org", "p:ss")
    starttls = smtp_url.parse("smtp://u:p@mail.example?starttls=1", None, "https://k.example")
    assert (starttls.port, starttls.security) == (587, "starttls")
    for bad in (
        "http://mail.example",
        "smtp://u:p@mail.example",  # a password in the clear to another machine
        "smtp://mail.example?starttls=yes",
        "smtps://mail.example?starttls=1",
        "smtp://mail.example?tls=1",
        "smtp://",
    ):
        with pytest.raises(ValueError):
            smtp_url.parse(bad, None, "https://k.example")
    assert smtp_url.parse("smtp://u:p@127.0.0.1:25", None, "http://127.0.0.1:8000").username == "u"
    with pytest.raises(ValueError):
        smtp_url.parse("smtp://127.0.0.1", "games@kahuna.example\r\nBcc: x@y.z", "https://k.example")


def test_the_language_of_a_mail() -> None:
    assert templates.language(None, "de-CH,de;q=0.9,en;q=0.8") == "de"
    assert templates.language(None, "fr;q=1, es;q=0.5, da;q=0.7") == "da"
    assert templates.language("nl", "de") == "nl"
    assert templates.language(None, "fr") == "en"
    for kind in templates.KINDS:
        subjects = {templates.render(kind, lang, username="u", link="L", hours=1)[0] for lang in templates.LANGUAGES}
        assert len(subjects) == 5


def test_the_serve_command_checks_the_mail_options(tmp_path: Path) -> None:
    import subprocess
    import sys

    for args, words in (
        (["--smtp", "http://x"], "--smtp: the URL starts with smtp:// or smtps://"),
        (["--mail-from", "a@b.c"], "--mail-from needs --smtp"),
        (["--host", "0.0.0.0", "--smtp", "smtp://127.0.0.1:25"], "--smtp needs --public-url"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "kahuna", "serve", "--port", "0", "--db", f"sqlite:///{tmp_path / 'x.db'}", *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2 and words in done.stderr, done.stderr
