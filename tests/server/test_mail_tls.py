"""``--smtp`` over TLS against a real SMTP server that speaks it (aiosmtpd with a certificate made
for the test, trusted through ``SSL_CERT_FILE``, which the server's default TLS context reads):
``smtps://`` (TLS on connect) and ``smtp://…?starttls=1`` with a password, which the mail server
accepts only after STARTTLS; and a certificate nobody vouches for gets no mail."""

from __future__ import annotations

import json
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import loopback
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword
from mail_harness import Inbox
from server_harness import Server, free_port, wait_for

pytestmark = pytest.mark.slow

PASSWORD = "tide-pool-basalt"


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subject = ("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1")
    files = ("-keyout", str(key), "-out", str(cert))
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", *subject, *files],
        check=True,
        capture_output=True,
    )
    return cert, key


def tls_context(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(certificate[0]), str(certificate[1]))
    return context


def only_kahuna(server: SMTP, session: object, envelope: object, mechanism: str, auth_data: object) -> AuthResult:
    right = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (b"kahuna", b"p:ss")
    return AuthResult(success=right, handled=False)


def mail_one(server: Server, username: str, address: str) -> None:
    with httpx.Client(verify=loopback.NO_CA, base_url=server.url, timeout=10) as http:
        assert http.post("/api/accounts", json={"username": username, "password": PASSWORD}).status_code == 201
        assert http.post("/api/session", json={"username": username, "password": PASSWORD}).status_code == 200
        answer = http.put("/api/me/email", json={"email": address}, headers={"X-CSRF-Token": http.cookies["csrf"]})
        assert answer.status_code == 202


@pytest.fixture
def trusted(certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))  # the server process inherits it
    yield


def test_smtps_sends_over_tls(tmp_path: Path, certificate: tuple[Path, Path], trusted: None) -> None:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port, ssl_context=tls_context(certificate))
    controller.start()
    server = Server(tmp_path, args=("--smtp", f"smtps://127.0.0.1:{port}")).start()
    try:
        mail_one(server, "tls1", "tls1@example.org")
        inbox.wait("tls1@example.org")
    finally:
        server.stop()
        controller.stop()


def test_starttls_with_a_password(tmp_path: Path, certificate: tuple[Path, Path], trusted: None) -> None:
    inbox = Inbox()
    port = free_port()
    controller = Controller(
        inbox,
        hostname="127.0.0.1",
        port=port,
        tls_context=tls_context(certificate),
        require_starttls=True,
        authenticator=only_kahuna,
        auth_required=True,
    )
    controller.start()
    server = Server(tmp_path, args=("--smtp", f"smtp://kahuna:p%3Ass@127.0.0.1:{port}?starttls=1")).start()
    try:
        mail_one(server, "tls2", "tls2@example.org")
        inbox.wait("tls2@example.org")
        assert "p:ss" not in server.log() and "p%3Ass" not in server.log()  # the password is never shown
    finally:
        server.stop()
        controller.stop()


def test_a_certificate_nobody_vouches_for_gets_no_mail(tmp_path: Path, certificate: tuple[Path, Path]) -> None:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port, ssl_context=tls_context(certificate))
    controller.start()
    server = Server(tmp_path, args=("--smtp", f"smtps://127.0.0.1:{port}", "--limit", "mail_retry_seconds=3600"))
    server.start()
    try:
        mail_one(server, "tls3", "tls3@example.org")

        def delayed() -> list[dict[str, object]]:
            return [json.loads(line) for line in server.log().splitlines() if '"event":"mail_delayed"' in line]

        wait_for(lambda: len(delayed()) == 1, "the attempt refused")
        assert delayed()[0]["error"] == "SSLCertVerificationError"
        assert inbox.to("tls3@example.org") == []
    finally:
        server.stop()
        controller.stop()
