"""A Web Push service for tests, on 127.0.0.1: what a browser vendor's push service does with a
push, checked as strictly as the RFCs say, and the browser's side of a subscription.

- :class:`Device`: a browser's subscription keys (a P-256 key pair and a 16-byte auth secret), and
  the decryption of what was pushed to it (RFC 8291 ``aes128gcm``, written here from the RFC with
  ``cryptography`` alone, so that the server's encryption is checked against an independent reading).
- :class:`PushService`: an HTTP server that takes ``POST /push/NAME``, checks the ``Content-Encoding``,
  the ``TTL`` and the VAPID ``Authorization`` (RFC 8292: an ES256 JWT for this origin, signed by the
  key it names, that key the server's public key), decrypts the body for the device ``NAME`` and
  keeps the payload; it answers ``201``, or the status a test set for that device (``410``: gone).
"""

from __future__ import annotations

import base64
import json
import os
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _hkdf(salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def _point(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


@dataclass
class Device:
    """A browser's push subscription: its keys, and its endpoint on a :class:`PushService`."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self) -> dict[str, Any]:
        """What ``PushSubscription.toJSON()`` gives."""
        keys = {"p256dh": b64url(_point(self.key.public_key())), "auth": b64url(self.auth)}
        return {"endpoint": self.endpoint, "expirationTime": None, "keys": keys}

    def decrypt(self, body: bytes) -> bytes:
        """RFC 8291 §3.4 and RFC 8188 §2: one record, its padding delimiter 2."""
        salt, record_size, id_length = body[:16], struct.unpack("!L", body[16:20])[0], body[20]
        sender = body[21 : 21 + id_length]
        ciphertext = body[21 + id_length :]
        assert len(ciphertext) <= record_size, "a push is a single record"
        sender_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender)
        shared = self.key.exchange(ec.ECDH(), sender_key)
        info = b"WebPush: info\x00" + _point(self.key.public_key()) + sender
        ikm = _hkdf(self.auth, shared, info, 32)
        cek = _hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
        nonce = _hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
        plain = AESGCM(cek).decrypt(nonce, ciphertext, None).rstrip(b"\x00")
        assert plain.endswith(b"\x02"), "the last record's delimiter is 2"
        return plain[:-1]


def check_vapid(authorization: str, audience: str, server_key: str) -> dict[str, Any]:
    """The claims of a valid ``vapid t=JWT, k=KEY`` header (RFC 8292); ``AssertionError`` if not."""
    scheme, _, params = authorization.partition(" ")
    assert scheme == "vapid", authorization
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert fields["k"] == server_key, "signed with the server's key"
    header_b64, claims_b64, signature_b64 = fields["t"].split(".")
    assert json.loads(unb64url(header_b64)) == {"typ": "JWT", "alg": "ES256"}
    raw = unb64url(signature_b64)
    assert len(raw) == 64
    signature = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(fields["k"]))
    try:
        public.verify(signature, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise AssertionError("the VAPID token's signature is wrong") from None
    claims: dict[str, Any] = json.loads(unb64url(claims_b64))
    assert claims["aud"] == audience
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600
    assert claims["sub"].startswith(("mailto:", "https://"))
    return claims


class PushService:
    """The push service: ``received[NAME]`` the payloads pushed to device ``NAME``, decrypted."""

    def __init__(self) -> None:
        self.devices: dict[str, Device] = {}
        self.answers: dict[str, int] = {}
        """The status to answer for a device (default 201)."""
        self.received: dict[str, list[dict[str, Any]]] = {}
        self.errors: list[str] = []
        self.server_key = ""
        """The server's VAPID public key (``GET /api/push/key``), set by the test."""
        self._lock = threading.Lock()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.origin = f"http://127.0.0.1:{self._http.server_address[1]}"
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    def start(self) -> PushService:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()

    def device(self, name: str) -> Device:
        device = self.devices[name] = Device(f"{self.origin}/push/{name}")
        return device

    def got(self, name: str) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.received.get(name, []))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                name = self.path.removeprefix("/push/")
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                status = service.answers.get(name, 201)
                try:
                    device = service.devices[name]
                    assert self.headers["Content-Encoding"] == "aes128gcm"
                    assert int(self.headers["TTL"]) > 0
                    check_vapid(self.headers["Authorization"], service.origin, service.server_key)
                    payload = json.loads(device.decrypt(body))
                except Exception as exc:
                    with service._lock:
                        service.errors.append(f"{name}: {type(exc).__name__}: {exc}")
                    status = 400
                else:
                    if status == 201:
                        with service._lock:
                            service.received.setdefault(name, []).append(payload)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        return Handler
