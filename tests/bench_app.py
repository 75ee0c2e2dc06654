"""App benchmark (`make bench-app`): the real server's time for /api/score, /api/waits and
/api/recognize, against the bare recognizer on the same photos in this run, and the server's
resident memory with the model loaded. Figures, not pass/fail of a unit test.

Run: python -m tests.bench_app [N]
"""
from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = sorted((ROOT / "tests" / "fixtures" / "vision" / "images").glob("*.jpg"))
HEADERS = {"X-Requested-With": "fetch"}
SCORE = {"concealed": "123m456m789m123p45p77s", "winning_tile": "3p", "seat_wind": "S", "discarder": "W"}
WAITS = {"concealed": "123m456m789m123p45p77s"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url: str, body: bytes, content_type: str) -> tuple[float, int]:
    req = urllib.request.Request(url, data=body, headers={**HEADERS, "Content-Type": content_type})
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            resp.read()
            status = resp.status
    except urllib.error.HTTPError as e:
        status = e.code
    return time.perf_counter() - t0, status


def multipart(field: str, filename: str, data: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{filename}\"\r\n"
            f"Content-Type: image/jpeg\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def rss_mib(pid: int) -> tuple[float, float]:
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    kib = lambda k: int(fields[k].split()[0]) / 1024  # noqa: E731
    return kib("VmRSS"), kib("VmHWM")


def median_ms(times) -> float:
    return statistics.median(times) * 1000


def main(argv=None) -> int:
    n = int((argv or sys.argv[1:] or ["200"])[0])
    port = free_port()
    data = tempfile.mkdtemp(prefix="bench-app-")
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "MAHJONG_DATA": data}
    server = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(base + "/api/health", timeout=1) as r:
                    health = json.loads(r.read())
                break
            except OSError:
                time.sleep(0.1)
        else:
            print("the server did not start", file=sys.stderr)
            return 1
        rows = []
        idle_rss, _ = rss_mib(server.pid)
        for route, body in (("/api/score", SCORE), ("/api/waits", WAITS)):
            payload = json.dumps(body).encode()
            post(base + route, payload, "application/json")
            times = [post(base + route, payload, "application/json")[0] for _ in range(n)]
            rows.append((f"{route} (request round trip)", f"{median_ms(times):.2f} ms", "< 20 ms"))
        if health.get("model"):
            from vision.image_io import load_image
            from vision.model import Recognizer
            bare = Recognizer(ROOT / "models")
            images = [load_image(p.read_bytes()) for p in PHOTOS]
            for img in images:
                bare.recognize(img)
            bare_t, app_t = [], []
            for _ in range(3):
                for photo, img in zip(PHOTOS, images):
                    t0 = time.perf_counter()
                    bare.recognize(img)
                    bare_t.append(time.perf_counter() - t0)
                    body, ctype = multipart("photo", photo.name, photo.read_bytes())
                    took, status = post(base + "/api/recognize", body, ctype)
                    if status != 200:
                        print(f"/api/recognize answered {status}", file=sys.stderr)
                        return 1
                    app_t.append(took)
            ratio = median_ms(app_t) / median_ms(bare_t)
            rows.append(("bare recognizer, median per photo", f"{median_ms(bare_t):.1f} ms", ""))
            rows.append(("/api/recognize, median per photo", f"{median_ms(app_t):.1f} ms", ""))
            rows.append(("/api/recognize / bare recognizer", f"{ratio:.2f}×", "≤ 1.5×"))
        else:
            rows.append(("/api/recognize", "no model installed", ""))
        rss, peak = rss_mib(server.pid)
        rows.append(("server resident memory, idle", f"{idle_rss:.0f} MiB", ""))
        loaded = "model loaded" if health.get("model") else "no model"
        rows.append((f"server resident memory, {loaded} (peak)", f"{rss:.0f} MiB ({peak:.0f})", "fits 2 GB"))
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"# app benchmark: {n} requests per route, {len(PHOTOS)} photos × 3, loopback\n")
    print("| measure | figure | goal |\n|---|---:|---|")
    for name, fig, goal in rows:
        print(f"| {name} | {fig} | {goal} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
