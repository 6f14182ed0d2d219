"""Which hosts a push may go to: public addresses only, whatever the spelling of the host.

An endpoint comes from a browser, so from anyone: without this, the server would POST to any
address its network reaches (the cloud's metadata service, a database on the private network).
Two checks, because neither is enough alone:

- when a device subscribes (:func:`literal`): a host that the resolver reads as an address, in
  any of the spellings ``inet_aton`` accepts (``127.1``, ``0177.0.0.1``, ``0x7f.0.0.1``,
  ``2130706433``, ``169.254.43518``), or a name with a trailing dot, is refused;
- when a push is sent (:class:`PublicOnly`): the host name is resolved, and the connection goes to
  one of the addresses found that is public (:func:`public`), or nowhere; the address checked is
  the address connected to, so a name that resolves differently the second time gains nothing.

The hosts the operator allowed (``--push-insecure-host``, a test's push service on 127.0.0.1) are
the exception, taken as written.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from typing import Any

import httpcore

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class PrivateAddress(Exception):
    """The endpoint's host is not (or does not resolve to) a public address."""


def literal(host: str) -> Address | None:
    """The address ``host`` spells, in any form the system's resolver accepts; ``None`` for a name."""
    host = host.removeprefix("[").removesuffix("]").removesuffix(".")
    try:
        return _unmapped(ipaddress.ip_address(host))
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def _unmapped(address: Address) -> Address:
    """``::ffff:127.0.0.1`` is 127.0.0.1 (and so are the other ways IPv6 embeds IPv4)."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is not None:
            return embedded
        if address in _NAT64:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def public(address: Address) -> bool:
    """Whether the address is on the public internet: not loopback, private, link-local, multicast,
    reserved or unspecified (v4 and v6)."""
    address = _unmapped(address)
    return address.is_global and not (address.is_multicast or address.is_reserved or address.is_link_local)


class PublicOnly(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, which connects only to public addresses (or an allowed host).

    TLS still checks the certificate against the endpoint's host name: httpcore passes the name,
    not the address connected to, as the server name."""

    def __init__(self, allowed_hosts: Iterable[str]) -> None:
        self.allowed = frozenset(allowed_hosts)
        self.backend = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        if host.lower() in self.allowed:
            return await self.backend.connect_tcp(host, port, timeout, local_address, socket_options)
        name = host.removesuffix(".")
        found = literal(name)
        if found is not None:
            addresses = [found]
        else:
            try:
                infos = await asyncio.wait_for(
                    asyncio.get_running_loop().getaddrinfo(name, port, type=socket.SOCK_STREAM), timeout
                )
            except (OSError, TimeoutError) as exc:
                raise httpcore.ConnectError(f"{name}: {exc}") from None
            addresses = [_unmapped(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])) for info in infos]
        allowed = [a for a in dict.fromkeys(addresses) if public(a)]
        if not allowed:
            raise PrivateAddress(f"{name} is not a public address")
        error: Exception | None = None
        for address in allowed:
            try:
                return await self.backend.connect_tcp(str(address), port, timeout, local_address, socket_options)
            except httpcore.ConnectError as exc:
                error = exc
        assert error is not None
        raise error

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise PrivateAddress("a push never goes to a local socket")

    async def sleep(self, seconds: float) -> None:
        await self.backend.sleep(seconds)
