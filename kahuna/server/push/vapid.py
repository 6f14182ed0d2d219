"""The server's VAPID key (RFC 8292): the key pair that identifies this server to the browsers'
push services. A browser subscribes with its public key (``GET /api/push/key``) and the push
service accepts only pushes signed with its private key, so the key must stay the same for the
server's life (a new key orphans every subscription) and be the same on every instance.

``kahuna serve --vapid-key PATH`` names a PEM file; without it the key is ``vapid.pem`` in the data
directory, made on first start (readable by its owner only), like the SQLite database beside it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid02, b64urlencode

from kahuna.datadir import data_dir
from kahuna.server.common.config import PushSettings

TOKEN_SECONDS = 12 * 3600
"""How long a signed VAPID token holds (RFC 8292 allows at most 24 hours)."""


class KeyFileError(ValueError):
    """The VAPID key file cannot be read or made (the message names the file)."""


def default_key_path() -> Path:
    return data_dir() / "vapid.pem"


def _create(path: Path) -> None:
    """Write a new key to ``path``, whole or not at all: written beside it, then linked into place,
    which fails if another process (an instance starting at the same time) linked its key first;
    then that one is used."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = Vapid02()
    fresh.generate_keys()
    draft = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(fresh.private_pem())
    try:
        os.link(draft, path)
    except FileExistsError:
        pass
    finally:
        draft.unlink()


class VapidKey:
    """The loaded key: the public key for browsers, and the ``Authorization`` of each push."""

    def __init__(self, vapid: Vapid02, subject: str) -> None:
        self._vapid = vapid
        self.subject = subject
        raw = vapid.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.public_key = b64urlencode(raw)
        """The application server key, base64url (what ``pushManager.subscribe`` takes)."""

    @classmethod
    def load_or_create(cls, path: Path, subject: str) -> VapidKey:
        """The key in ``path`` (PEM), made there first if the file does not exist
        (:class:`KeyFileError` if it cannot be made or read, or is not a P-256 private key)."""
        try:
            if not path.exists():
                _create(path)
            pem = path.read_bytes()
        except OSError as exc:
            raise KeyFileError(f"{path}: {exc.strerror or exc}") from exc
        try:
            vapid = Vapid02.from_pem(pem)
        except Exception as exc:  # py_vapid raises whatever cryptography raised
            raise KeyFileError(f"{path} holds no VAPID private key (a P-256 key in PEM)") from exc
        return cls(vapid, subject)

    @classmethod
    def of(cls, settings: PushSettings) -> VapidKey:
        """The key ``--vapid-key`` names, or the one in the data directory (``kahuna serve`` and
        ``kahuna worker`` alike)."""
        path = Path(settings.key_path) if settings.key_path else default_key_path()
        return cls.load_or_create(path, settings.subject)

    def authorization(self, endpoint: str, now: float | None = None) -> str:
        """The ``Authorization`` header of a push to ``endpoint``: a token for its origin."""
        parts = urlsplit(endpoint)
        claims = {
            "aud": f"{parts.scheme}://{parts.netloc}",
            "sub": self.subject,
            "exp": int((now or time.time()) + TOKEN_SECONDS),
        }
        return str(self._vapid.sign(claims)["Authorization"])
