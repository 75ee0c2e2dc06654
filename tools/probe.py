"""Replay issue 12's outside probe against a running server (`make run`, loopback) and say, per item,
whether the server held. Standard library only; the server's own data is touched only through
the API (it creates one game named probe-*).

    python tools/probe.py [--url http://127.0.0.1:8000] [--pin PIN] [--pid SERVER_PID] [--skip-memory]

--pin: the server's TABLE_PIN, to check the throttle (item 5) and still write. --pid: the server's
process id, to report its resident memory (peak and now) around four 7071x7071 PNG uploads
(item 7; needs a model in models/). Exit status 1 when any check failed. A full disk (item 8)
and kills are not replayed here: tests/test_app_hardening.py and test_app_durability.py do them.
"""
from __future__ import annotations

import argparse
import http.client
import json
import struct
import sys
import threading
import time
import uuid
import zlib
from urllib.parse import urlsplit

FETCH = {"X-Requested-With": "fetch"}
HAND = {"concealed": "EEESSSWWWNN123m55p", "winning_tile": "5p", "self_drawn": True}


class Server:
    def __init__(self, url: str, pin: str | None):
        parts = urlsplit(url)
        self.host, self.port, self.pin = parts.hostname, parts.port or 80, pin

    def call(self, method, path, body=None, headers=None, content_type="application/json", timeout=120):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        h = {**FETCH, **({"X-Table-Pin": self.pin} if self.pin else {}), **(headers or {})}
        if body is not None:
            h.setdefault("Content-Type", content_type)
            if isinstance(body, str):
                body = body.encode()
        conn.request(method, path, body=body, headers=h)
        r = conn.getresponse()
        data = r.read()
        conn.close()
        return r.status, data, dict(r.getheaders())


def png(width: int, height: int) -> bytes:
    """A black RGB PNG, written without PIL (zlib squeezes the zeros to ~0.1%)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = zlib.compressobj(9)
    rows = b"".join(raw.compress(b"\0" + b"\0" * (3 * width)) for _ in range(height)) + raw.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", rows) + chunk(b"IEND", b""))


def multipart(field: str, data: bytes, extra: dict | None = None) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in (extra or {}).items()]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="p.png"\r\n'
                 "Content-Type: image/png\r\n\r\n".encode() + data + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


RESULTS: list[tuple[str, bool, str]] = []


def check(item: str, ok: bool, detail: str = "") -> None:
    RESULTS.append((item, ok, detail))
    print(f"{'PASS' if ok else 'FAIL'}  {item}{'  — ' + detail if detail else ''}", flush=True)


def nested_json(s: Server) -> None:
    deep = "[" * 100000 + "]" * 100000
    for route in ("/api/score", "/api/waits", "/api/advise", "/api/pin", "/api/games", "/api/games/import",
                  "/api/examples"):
        status = s.call("POST", route, deep)[0]
        check(f"1 nested body on {route}", status == 400, str(status))
    status = s.call("POST", "/api/score", '{"concealed": ' + "[" * 5000 + "]" * 5000 + "}")[0]
    check("1 5,000 levels in concealed", status == 400, str(status))
    body, ctype = multipart("frame", png(8, 8), {"melds": deep})
    status = s.call("POST", "/api/live", body, content_type=ctype)[0]
    check("1 nested melds on /api/live", status in (400, 503), str(status))


def poisoned_game(s: Server) -> str:
    status, data, _ = s.call("POST", "/api/games", json.dumps({"players": ["probe-A", "B", "C", "D"]}))
    gid = json.loads(data)["id"]
    poison = '{"type": "win", "winner": 0, "tai": 1, "scored": ' + '{"a":' * 977 + "1" + "}" * 977 + "}"
    status = s.call("POST", f"/api/games/{gid}/hands", poison)[0]
    check("2 deep scored refused", status == 400, str(status))
    game = json.loads(s.call("GET", f"/api/games/{gid}")[1])
    check("2 nothing committed", game["hands"] == [], f"{len(game['hands'])} hands")
    for path in (f"/api/games/{gid}", f"/api/games/{gid}/export.json", "/api/games"):
        status = s.call("GET", path)[0]
        check(f"2 read {path}", status == 200, str(status))
    return gid


def odd_numbers(s: Server, gid: str) -> None:
    s.call("POST", f"/api/games/{gid}/hands", json.dumps({"type": "draw"}))
    for version in ("%C2%B2", "9" * 5000):
        status = s.call("DELETE", f"/api/games/{gid}/hands/1?version={version}")[0]
        check(f"3 version {version[:8]}…", status == 400, str(status))
    status, data, _ = s.call("POST", "/api/score", json.dumps(dict(HAND, stakes={"base": 1e308, "per_tai": 1e308})))
    check("3 stakes 1e308", status == 400 and b"Infinity" not in data, str(status))
    status = s.call("POST", "/api/waits", json.dumps({"concealed": "123456789m123456p5s",
                                                      "context": {"seen": "1m" * 500000}}))[0]
    check("3 seen 500,000 x 1m", status == 400, str(status))


def thin_images(s: Server) -> None:
    for w, h in ((1, 4096), (4096, 1), (40000, 1)):
        for route, field in (("/api/recognize", "photo"), ("/api/live", "frame")):
            body, ctype = multipart(field, png(w, h))
            status = s.call("POST", route, body, content_type=ctype)[0]
            check(f"4 {w}x{h} PNG to {route}", status in (200, 503), str(status))


def pin_brute_force(s: Server) -> None:
    if not s.pin:
        check("5 PIN throttle", True, "skipped: no --pin given")
        return
    codes = [s.call("POST", "/api/score", json.dumps(HAND), {"X-Table-Pin": f"{i:04d}"})[0] for i in range(12)]
    check("5 wrong X-Table-Pin headers are throttled", 429 in codes, str(codes))
    status, _, headers = s.call("POST", "/api/pin", json.dumps({"pin": s.pin}))
    wait = int(headers.get("Retry-After", "0"))
    check("5 the right PIN waits only briefly", status == 200 or (status == 429 and wait <= 60), f"{status}, {wait} s")
    time.sleep(wait + 0.5)
    status = s.call("POST", "/api/pin", json.dumps({"pin": s.pin}))[0]
    check("5 the right PIN works after the wait", status == 200, str(status))


def rebinding(s: Server) -> None:
    name = f"rebind.example:{s.port}"
    status = s.call("POST", "/api/games", json.dumps({"players": list("ABCD")}),
                    {"Host": name, "Origin": f"http://{name}"})[0]
    check("6 a rebound Host is refused", status == 400, str(status))
    status = s.call("POST", "/api/score", json.dumps(HAND), {"Origin": f"https://{s.host}:{s.port}"})[0]
    check("6 Origin with another scheme is refused", status == 403, str(status))


def rss(pid: int) -> tuple[int, int]:
    """(peak, now) resident MiB of a process, from /proc."""
    fields = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status"))
    return int(fields["VmHWM"].split()[0]) // 1024, int(fields["VmRSS"].split()[0]) // 1024


def memory(s: Server, pid: int | None) -> None:
    body, ctype = multipart("photo", png(7071, 7071))
    before = rss(pid) if pid else None
    statuses = []
    threads = [threading.Thread(target=lambda: statuses.append(
        s.call("POST", "/api/recognize", body, content_type=ctype, timeout=600)[0])) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check("7 four 7071x7071 PNGs at once", all(x in (200, 503) for x in statuses), str(statuses))
    if pid:
        time.sleep(2)
        peak, now = rss(pid)
        check("7 server peak under 1 GiB", peak < 1024, f"peak {peak} MiB (before {before[0]}), idle after {now} MiB")


def smaller(s: Server) -> None:
    status, _, headers = s.call("GET", "/")
    check("9 pages carry a Content-Security-Policy", "Content-Security-Policy" in headers, str(status))
    status, data, _ = s.call("POST", "/api/score", json.dumps({"concealed": "x" * 1_000_000}))
    check("9 errors do not echo a huge input", status == 400 and len(data) < 2000, f"{len(data)} bytes")
    body, ctype = multipart("frame", png(8, 8), {"seen": "1m" * 300000})
    status, data, _ = s.call("POST", "/api/live", body, content_type=ctype)
    check("9 a big form field says so", status == 413 and b"20 MB" not in data.split(b"(")[0], str(status))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default="http://127.0.0.1:8000")
    ap.add_argument("--pin")
    ap.add_argument("--pid", type=int)
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument("--only-memory", action="store_true")
    args = ap.parse_args()
    s = Server(args.url, args.pin)
    if not args.only_memory:
        nested_json(s)
        odd_numbers(s, poisoned_game(s))
        thin_images(s)
        rebinding(s)
        smaller(s)
        pin_brute_force(s)  # last: it leaves this address waiting a little
    if not args.skip_memory:
        memory(s, args.pid)
    failed = [r for r in RESULTS if not r[1]]
    print(f"\n{len(RESULTS) - len(failed)} of {len(RESULTS)} checks held")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
