"""Plain-HTTP requests to the test servers on 127.0.0.1, made as ``httpx.get`` and its kin make
them (a client of its own for each call: no cookie or connection kept from one call to the next),
but without the CA bundle a new httpx client loads for HTTPS it will never speak here.

Loading it costs about 33 ms of CPU per client: it was a third of the test process's CPU in
``tests/server/test_relations.py`` (106 clients, 3.8 s of 12.6 s), and a server being started
paid it again at every poll of its readiness, every 50 ms, on a machine with two cores.
"""

from __future__ import annotations

import ssl
from typing import Any

import httpx

NO_CA = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
"""The TLS context given to the clients here: no certificate authority loaded, so a request over
HTTPS would fail to verify; the servers of the tests speak plain HTTP."""


def request(method: str, url: str, *, cookies: Any = None, **options: Any) -> httpx.Response:
    """``httpx.request(method, url, ...)``: the same options, the same answer."""
    with httpx.Client(verify=NO_CA, cookies=cookies) as client:
        return client.request(method, url, **options)


def get(url: str, **options: Any) -> httpx.Response:
    return request("GET", url, **options)


def post(url: str, **options: Any) -> httpx.Response:
    return request("POST", url, **options)


def put(url: str, **options: Any) -> httpx.Response:
    return request("PUT", url, **options)


def delete(url: str, **options: Any) -> httpx.Response:
    return request("DELETE", url, **options)
