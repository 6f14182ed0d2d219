"""A crowd that connects at once (every player reconnecting after a restart, a round of the bench at
people's pace) waits in the kernel's queue while the server's event loop is busy, instead of being
dropped: behind nginx a dropped connection is a 504 after nginx's 2 s connect timeout
(``stacks.LISTEN_BACKLOG``, docs/scaling.md)."""

from __future__ import annotations

import os
import resource
import selectors
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from server_harness import ROOT, free_port, wait_for

CROWD = 2_500
"""More connections than uvicorn's default backlog (2,048) holds."""


def _raise_open_files(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            pytest.skip(f"the hard limit of open files ({hard}) is below {needed}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


def test_a_crowd_connecting_at_once_waits_for_a_stopped_server_instead_of_being_dropped(tmp_path: Path) -> None:
    somaxconn = int(Path("/proc/sys/net/core/somaxconn").read_text())
    if somaxconn < CROWD:
        pytest.skip(f"net.core.somaxconn is {somaxconn}: the kernel holds fewer than {CROWD} connections")
    _raise_open_files(CROWD + 256)
    port = free_port()
    command = [sys.executable, "-m", "kahuna", "serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 'k.db'}"]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    crowd: list[socket.socket] = []
    try:
        assert server.stdout is not None and f":{port}/" in server.stdout.readline()
        wait_for(lambda: _answers(port), "the server to answer")
        os.kill(server.pid, signal.SIGSTOP)  # its event loop accepts nothing from now on
        with selectors.DefaultSelector() as waiting:
            for _ in range(CROWD):
                sock = socket.socket()
                sock.setblocking(False)
                crowd.append(sock)
                sock.connect_ex(("127.0.0.1", port))
                waiting.register(sock, selectors.EVENT_WRITE)
            connected = 0

            def all_connected() -> bool:  # a socket is writable once the kernel completed its handshake
                nonlocal connected
                for key, _ in waiting.select(timeout=0.1):
                    sock = key.fileobj
                    assert isinstance(sock, socket.socket)
                    assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
                    waiting.unregister(sock)
                    connected += 1
                return connected == CROWD

            wait_for(all_connected, f"{CROWD} connections to a stopped server to be completed by the kernel")
    finally:
        os.kill(server.pid, signal.SIGCONT)
        for sock in crowd:
            sock.close()
        server.terminate()
        server.wait(10)


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"GET /api/levels HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return sock.recv(12).startswith(b"HTTP/1.1 200")
    except OSError:
        return False
