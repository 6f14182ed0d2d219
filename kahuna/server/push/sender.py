"""The push sender: a task that sends the queued pushes to the browsers' push services.

Each push is encrypted for its device (RFC 8291: ``aes128gcm``, a fresh sender key and salt per
push) and signed with the server's VAPID key (RFC 8292), then POSTed to the device's endpoint with
a ``TTL`` of what is left of its life. The answer decides:

- 2xx: sent;
- 404 or 410: the subscription is gone (the user revoked it, or the browser dropped it): the device
  is removed and nothing more is sent to it;
- 429, 5xx or no answer (a timeout, a refused connection): tried again after a backoff that doubles
  (``--limit push_retry_seconds``), until the push expires;
- any other 4xx (a payload or a key the service refuses): ``failed``, not tried again;
- an endpoint whose host is not, or does not resolve to, a public address (``push/addresses.py``):
  ``failed`` without a connection (``push_refused`` in the log), not tried again.

It wakes when a push is queued in this process (``wake``), when the next one is due, and every
``poll_seconds`` (pushes queued by another process: :data:`POLL_SECONDS` in a server,
:data:`WORKER_POLL_SECONDS` in ``kahuna worker``, which sends what the instances queue). Pushes go
out in parallel, :data:`CONCURRENCY` at once, at most :data:`PER_HOST` to one push service host and
:data:`PER_ACCOUNT` to one account's devices (fair: an attacker's devices on a host that never
answers hold a few places for :data:`TIMEOUT` each, and everyone else's pushes go by them), each
bounded by :data:`TIMEOUT`; the move that queued a push never waits for it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import json
import os
import time
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

import http_ece
import httpcore
from cryptography.hazmat.primitives.asymmetric import ec

from kahuna.server.common import logs
from kahuna.server.common.tasks import cancel_and_wait
from kahuna.server.db.writer import Writer
from kahuna.server.ops import metrics
from kahuna.server.push import queue, subscriptions
from kahuna.server.push.addresses import PrivateAddress, PublicOnly
from kahuna.server.push.queue import Push
from kahuna.server.push.subscriptions import Subscription
from kahuna.server.push.vapid import VapidKey

POLL_SECONDS = 30.0
WORKER_POLL_SECONDS = 1.0
"""How often ``kahuna worker`` looks for queued pushes: a push waits at most this long for it."""
TIMEOUT = 5.0
"""Seconds one push may take, connection included (a push service answers in well under one)."""
CONCURRENCY = 16
"""Pushes sent at once by one sender."""
PER_HOST = 4
"""Pushes sent at once to one push service host: a host that never answers holds no more places."""
PER_ACCOUNT = 2
"""Pushes sent at once to one account's devices: an account's devices hold no more places."""


def _b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def encrypt(payload: dict[str, Any], device: Subscription) -> bytes:
    """The body of a push to ``device``: the payload encrypted for it alone (RFC 8291)."""
    data = json.dumps(payload, separators=(",", ":")).encode()
    sender_key = ec.generate_private_key(ec.SECP256R1())
    body = http_ece.encrypt(
        data,
        salt=os.urandom(16),
        private_key=sender_key,
        dh=_b64url(device.p256dh),
        auth_secret=_b64url(device.auth),
        version="aes128gcm",
    )
    return bytes(body)


class PushSender:
    """Sends the queue's pushes while the process runs."""

    def __init__(
        self,
        writer: Writer,
        key: VapidKey,
        retry_seconds: float,
        poll_seconds: float = POLL_SECONDS,
        insecure_hosts: tuple[str, ...] = (),
    ) -> None:
        """``poll_seconds``: how often an idle sender looks for pushes queued by other processes
        (``kahuna worker`` sends what the instances queue, and looks often). ``insecure_hosts``:
        the hosts connected to whatever their address (``--push-insecure-host``); any other
        endpoint's host must resolve to a public address (``push/addresses.py``)."""
        self.writer = writer
        self.insecure_hosts = insecure_hosts
        self.key = key
        self.retry_seconds = retry_seconds
        self.poll_seconds = poll_seconds
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._pool: httpcore.AsyncConnectionPool | None = None
        self._sending: set[asyncio.Task[int]] = set()
        self._busy: Counter[str] = Counter()
        """Sends under way per endpoint host (``host:NAME``) and per account (``account:ID``)."""

    def start(self) -> None:
        self._pool = httpcore.AsyncConnectionPool(network_backend=PublicOnly(self.insecure_hosts))
        self._task = asyncio.create_task(self._run(), name="push-sender")

    async def stop(self) -> None:
        """Stop after the pushes under way (bounded by their timeout)."""
        if self._task is not None:
            self._stopping = True
            self._wake.set()
            try:
                await asyncio.wait_for(asyncio.shield(self._task), timeout=TIMEOUT + 5)
            except TimeoutError:
                await cancel_and_wait(self._task)
        if self._sending:
            await asyncio.wait(set(self._sending), timeout=TIMEOUT + 5)
            for task in list(self._sending):
                await cancel_and_wait(task)
        if self._pool is not None:
            await self._pool.aclose()

    def wake(self) -> None:
        """A push was queued: look now."""
        self._wake.set()

    async def _run(self) -> None:
        while not self._stopping:
            try:
                await self.send_due()
                due, waiting = await self.writer.read(queue.next_due_and_waiting)
                metrics.PUSH_QUEUE.set(waiting)
                if len(self._sending) >= CONCURRENCY:
                    due = None  # every place taken: the next look is when a send ends (it wakes this loop)
            except Exception as exc:  # the database unreachable for a moment: try again later
                logs.event("push_queue_error", error=type(exc).__name__)
                due = None
            wait = self.poll_seconds if due is None else max(0.0, min(self.poll_seconds, due - time.time()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=wait)
            self._wake.clear()

    async def send_due(self) -> None:
        """Claim the due pushes, as many as there are free places, and start sending each in a
        task of its own; a push whose host or account has enough sends under way is given back,
        due again once a send of theirs may have finished."""
        while not self._stopping:
            room = CONCURRENCY - len(self._sending)
            if room <= 0:
                return
            batch = await self.writer.transact(functools.partial(queue.claim, now=time.time(), limit=room))
            if not batch:
                return
            for push in batch:
                await self._start(push)

    async def _start(self, push: Push) -> None:
        """Send a claimed push in a task of its own, or give it back if its host or account is busy."""
        device = await self.writer.read(lambda conn: subscriptions.get(conn, push.subscription_id))
        if device is None:  # removed since it was queued
            await self.writer.write(lambda conn: queue.mark(conn, push.id, "gone", time.time()))
            return
        keys = (f"host:{urlsplit(device.endpoint).hostname}", f"account:{device.account_id}")
        if self._busy[keys[0]] >= PER_HOST or self._busy[keys[1]] >= PER_ACCOUNT:
            due = time.time() + TIMEOUT
            await self.writer.write(lambda conn: queue.release(conn, push, due))
            return
        self._busy.update(keys)
        task = asyncio.create_task(self._send(push, device), name="push-send")
        self._sending.add(task)
        task.add_done_callback(functools.partial(self._sent, keys))

    def _sent(self, keys: tuple[str, str], task: asyncio.Task[int]) -> None:
        self._sending.discard(task)
        self._busy.subtract(keys)
        for key in keys:
            if self._busy[key] <= 0:
                del self._busy[key]
        if not task.cancelled() and task.exception() is not None:
            logs.event("push_queue_error", error=type(task.exception()).__name__)
        self._wake.set()  # a place is free: claim again

    async def _send(self, push: Push, device: Subscription) -> int:
        assert self._pool is not None
        headers: dict[str | bytes, str | bytes] = {
            "Content-Encoding": "aes128gcm",
            "Content-Type": "application/octet-stream",
            "TTL": str(max(0, int(push.expires - time.time()))),
            "Urgency": "high",
            "Authorization": self.key.authorization(device.endpoint),
        }
        timeouts = {"connect": TIMEOUT, "read": TIMEOUT, "write": TIMEOUT, "pool": TIMEOUT}
        moment = time.time()
        kind = push.payload.get("kind")
        try:
            async with asyncio.timeout(TIMEOUT):
                answer = await self._pool.request(
                    "POST",
                    device.endpoint,
                    headers=headers,
                    content=encrypt(push.payload, device),
                    extensions={"timeout": timeouts},
                )
            status, error = answer.status, str(answer.status)
        except PrivateAddress:
            metrics.PUSH_FAILURES.inc()
            await self.writer.write(lambda conn: queue.mark(conn, push.id, "failed", moment))
            logs.event("push_refused", push_id=push.id, push_kind=kind, subscription_id=device.id)
            return 0
        except (httpcore.TimeoutException, httpcore.NetworkError, httpcore.ProtocolError, TimeoutError) as exc:
            status, error = 0, type(exc).__name__
        except httpcore.UnsupportedProtocol as exc:
            status, error = 400, type(exc).__name__
        moment = time.time()
        if 200 <= status < 300:
            await self.writer.write(lambda conn: queue.mark(conn, push.id, "sent", moment))
            logs.event("push_sent", push_id=push.id, push_kind=kind, attempt=push.attempts)
            return 1
        metrics.PUSH_FAILURES.inc()
        if status in (404, 410):
            await self.writer.write(lambda conn: subscriptions.remove(conn, device.id))
            logs.event("push_subscription_gone", subscription_id=device.id, status=status)
        elif status == 0 or status == 429 or status >= 500:
            await self.writer.transact(lambda conn: queue.retry_later(conn, push, moment, self.retry_seconds))
            logs.event("push_delayed", push_id=push.id, push_kind=kind, attempt=push.attempts, error=error)
        else:
            await self.writer.write(lambda conn: queue.mark(conn, push.id, "failed", moment))
            logs.event("push_failed", push_id=push.id, push_kind=kind, error=error)
        return 0
