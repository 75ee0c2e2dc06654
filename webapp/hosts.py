"""Which names this server answers to, against DNS rebinding.

A web page on rebind.example can re-point its own name at 127.0.0.1 (or at the table's LAN
address); the browser then treats the server as rebind.example, same origin, and sends our
CSRF header and Origin check along happily. Only the Host header gives it away, so every request
must name a host the server is really serving: the loopback names, the address it was started on
(or, started on every interface, the LAN address it printed and the machine's own name), and the
names configured in MAHJONG_HOSTS (e.g. a reverse proxy's public name).
"""
from __future__ import annotations

import ipaddress
import socket

LOOPBACK = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("0.0.0.0", "::", "")


def host_name(host: str) -> str:
    """The name part of a Host header: no port, no IPv6 brackets, lower case, no trailing dot."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def served_hosts(serve_host: str, extra: str | list | tuple = ()) -> frozenset[str]:
    """The names a request may carry in Host, for a server bound to `serve_host`."""
    if isinstance(extra, str):
        extra = extra.split(",")
    names = set(LOOPBACK) | {host_name(n) for n in extra if n.strip()}
    if serve_host in WILDCARDS:
        from .lan import lan_address
        address = lan_address()
        if address:
            names.add(address)
        own = socket.gethostname().lower()
        names |= {own, f"{own}.local"}  # what mDNS (Bonjour, Avahi) calls this machine
    else:
        names.add(host_name(serve_host))
    return frozenset(names)


def is_served(name: str, served: frozenset[str]) -> bool:
    """A Host name this server answers: a served name, or any IP address written as such.

    Rebinding always arrives under the attacker's domain name, never as a bare address, so an
    address is safe to accept; it keeps the table reachable when a Pi's DHCP lease changes or it
    has both Wi-Fi and Ethernet.
    """
    if name in served:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True
