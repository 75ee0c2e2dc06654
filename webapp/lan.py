"""Telling the players where to point their phones: the LAN address and a terminal QR code.

No packet is ever sent: the address comes from the host's own name, and failing that from a
UDP socket that is connected (which only picks a route) but never written to.
"""
from __future__ import annotations

import io
import ipaddress
import socket

PROBE = ("10.255.255.255", 1)  # any private address: connect() on UDP only chooses a source address


def _usable(addr: str) -> bool:
    ip = ipaddress.ip_address(addr)
    return ip.version == 4 and not ip.is_loopback and not ip.is_link_local and not ip.is_unspecified


def lan_address() -> str | None:
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        for info in infos:
            addr = info[4][0]
            if _usable(addr) and ipaddress.ip_address(addr).is_private:
                return addr
    except OSError:
        pass
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(PROBE)
            addr = s.getsockname()[0]
            return addr if _usable(addr) else None
    except OSError:
        return None


def qr_text(url: str) -> str:
    import qrcode
    code = qrcode.QRCode(border=1)
    code.add_data(url)
    out = io.StringIO()
    code.print_ascii(out=out)
    return out.getvalue()


def banner(host: str, port: int) -> str:
    """What the terminal shows at start-up."""
    if host not in ("0.0.0.0", "::"):
        return f"Serving on http://{host}:{port}/"
    addr = lan_address()
    if addr is None:
        return f"Serving on port {port} of every network interface (no LAN address found)"
    url = f"http://{addr}:{port}/"
    return f"Serving on {url} — open it on a phone on the same network:\n{qr_text(url)}"
