"""The start-up banner: the LAN address and its QR code, found without sending a packet."""
from __future__ import annotations

import socket

from webapp import lan


def test_local_host_gets_a_plain_line():
    assert lan.banner("127.0.0.1", 8000) == "Serving on http://127.0.0.1:8000/"


def test_all_interfaces_print_the_lan_address_and_a_qr_code(monkeypatch):
    monkeypatch.setattr(lan, "lan_address", lambda: "192.168.1.23")
    text = lan.banner("0.0.0.0", 8080)
    assert "http://192.168.1.23:8080/" in text
    qr = text.split("\n", 1)[1]
    assert len(qr.splitlines()) > 10 and "█" in qr


def test_the_address_comes_from_the_host_name_first(monkeypatch):
    monkeypatch.setattr(socket, "gethostname", lambda: "table-pi")
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.1.1", 0)),
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("192.168.0.7", 0))])

    class NoSocket:
        def __init__(self, *a, **k):
            raise AssertionError("no socket should be needed")
    monkeypatch.setattr(socket, "socket", NoSocket)
    assert lan.lan_address() == "192.168.0.7"


def test_the_fallback_socket_only_connects_and_never_sends(monkeypatch):
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: [])
    calls = []

    class Udp:
        def __init__(self, family, kind):
            assert kind == socket.SOCK_DGRAM

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def connect(self, addr):
            calls.append(("connect", addr))

        def getsockname(self):
            return ("10.0.0.5", 40000)

        def __getattr__(self, name):  # send, sendto, … would land here
            raise AssertionError(f"{name} must not be called")
    monkeypatch.setattr(socket, "socket", Udp)
    assert lan.lan_address() == "10.0.0.5" and calls == [("connect", lan.PROBE)]
