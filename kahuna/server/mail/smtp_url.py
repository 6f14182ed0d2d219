"""``kahuna serve --smtp URL``: which mail server, how securely, as whom.

- ``smtp://host:port``: plain SMTP (a relay on this machine or its private network; port 25 by
  default);
- ``smtp://host:port?starttls=1``: STARTTLS, required (port 587 by default): if the server does not
  offer it, no mail goes out;
- ``smtps://host:port``: TLS from the first byte (port 465 by default).

``user:password@`` (percent-encoded) signs in. A password is never sent in the clear: credentials
need TLS or STARTTLS unless the mail server is on the loopback address. TLS checks the server's
certificate against the system's certificate authorities.
"""

from __future__ import annotations

import ipaddress
from email.headerregistry import Address
from urllib.parse import parse_qs, unquote, urlsplit

from kahuna.server.common.config import MailSettings

DEFAULT_PORTS = {"plain": 25, "starttls": 587, "tls": 465}


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse(url: str, mail_from: str | None, public_url: str) -> MailSettings:
    """The mail settings of ``--smtp URL`` (``ValueError`` saying what is wrong)."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    unknown = set(query) - {"starttls"}
    if unknown:
        raise ValueError(f"unknown option {sorted(unknown)[0]!r} (known: starttls=1)")
    if parts.scheme == "smtps":
        if query:
            raise ValueError("smtps:// is TLS already: starttls does not apply")
        security = "tls"
    elif parts.scheme == "smtp":
        security = "starttls" if query.get("starttls") == ["1"] else "plain"
        if query and security == "plain":
            raise ValueError("starttls takes 1")
    else:
        raise ValueError("the URL starts with smtp:// or smtps://")
    host = parts.hostname
    if not host:
        raise ValueError("the URL names no host")
    try:
        port = parts.port or DEFAULT_PORTS[security]
    except ValueError as exc:
        raise ValueError(f"bad port: {exc}") from None
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password else None
    if username is not None and security == "plain" and not _loopback(host):
        raise ValueError("a password is never sent in the clear: use smtps:// or ?starttls=1")
    sender = mail_from or f"Kahuna <noreply@{urlsplit(public_url).hostname or 'localhost'}>"
    check_sender(sender)
    return MailSettings(host, port, security, username, password, sender, public_url.rstrip("/"))


def check_sender(sender: str) -> None:
    """``--mail-from``: an address, with a display name or not (``ValueError`` if not)."""
    if any(c in sender for c in "\r\n"):
        raise ValueError("--mail-from holds a line break")
    name, _, rest = sender.rpartition("<")
    address = rest.rstrip(">").strip() if rest.endswith(">") else sender.strip()
    local, at, domain = address.partition("@")
    if not (local and at and domain) or " " in address:
        raise ValueError(f"--mail-from is not an address: {sender!r}")
    Address(display_name=name.strip().strip('"'), username=local, domain=domain)
