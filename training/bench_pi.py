"""The recognizer's runtimes side by side, and what they mean for a Raspberry Pi.

    python -m training.bench_pi [--photos N] [--repeat R] [--json] [--record]

In one run, on the same photos: the whole photo read (vision.pipeline) with ONNX Runtime at 1, 2
and 4 threads; the detector alone on a live frame as shipped (ONNX Runtime int8, training/quantize.py),
in ONNX Runtime fp32 (exported anew from models/detector.pt) and in NCNN fp32 (ultralytics' export
through pnnx), each with the share of its boxes that agree with the shipped detector; the real
server's resident memory at idle, with the models loaded and at its worst under four concurrent
uploads. Every time is also printed as a ratio to the shipped set-up (ONNX Runtime, 2 threads)
measured in the same run.

The Raspberry Pi figures are computed, not measured: the same YOLO11n network at 640 px (fp32, as
published) is timed here and set against the Raspberry Pi 5 times Ultralytics published for it
(PI5_PUBLISHED), and a Pi 4 is taken as PI4_OVER_PI5 times slower. --record writes the figures to models/pi_bench.json.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import date
from pathlib import Path

import cv2
import numpy as np

from training.dataset import list_pairs, list_split
from vision.detector_io import decode_detections, detector_input
from vision.image_io import load_image
from vision.model import Recognizer
from vision.pipeline import recognize_image

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"
FIXTURES = ROOT / "tests/fixtures/vision"
DATA = ROOT.parent / "shared/data/rf-chinese-mahjong-detection-v4"
RECORD = MODELS / "pi_bench.json"
LIVE_FRAME = (480, 640)  # what the live page sends (height, width)

# Ultralytics, "Quick Start Guide: Raspberry Pi with Ultralytics YOLO11", Raspberry Pi 5 benchmarks
# (ultralytics 8.3.39, FP32, 640 px, YOLO11n, ms per image):
# https://docs.ultralytics.com/guides/raspberry-pi/#detailed-comparison-table
PI5_PUBLISHED = {"onnxruntime": 168.082, "ncnn": 88.026, "source": "docs.ultralytics.com/guides/raspberry-pi"}
# Raspberry Pi Ltd. states the Pi 5's CPU at 2-3x a Pi 4's ("Introducing Raspberry Pi 5",
# raspberrypi.com/news/introducing-raspberry-pi-5, 2023-09-28); the pessimistic end is used.
PI4_OVER_PI5 = 3.0
GOALS = {"photo_ms_pi5": 300, "live_fps_pi5": 2.0, "rss_worst_mib": 1024}


def side_by_side(fns: dict, inputs: list, repeat: int) -> dict:
    """Median ms per input of each fn, run in turn on each input (A B C A B C ...), so that a
    load beside the bench slows every runtime alike and their ratios stay fair."""
    times = {name: [] for name in fns}
    for x in inputs:
        for fn in fns.values():
            fn(x)  # warm
        for _ in range(repeat):
            for name, fn in fns.items():
                t = time.perf_counter()
                fn(x)
                times[name].append((time.perf_counter() - t) * 1000)
    return {name: statistics.median(v) for name, v in times.items()}


def photos(limit: int) -> list[np.ndarray]:
    paths = [p for p, _ in list_pairs(FIXTURES)]
    if DATA.is_dir():
        paths += [p for p, _ in list_split(DATA, "valid")]
    return [load_image(str(p)) for p in paths[:limit]]


def live_frame(image: np.ndarray) -> np.ndarray:
    h, w = LIVE_FRAME
    return cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)


def detector(run, size: int, conf: float, iou: float, square: bool = False):
    """image -> tile boxes in image pixels, through one runtime's raw network call."""
    def detect(image: np.ndarray) -> np.ndarray:
        x, scale, px, py = detector_input(image, size, square)
        boxes, _ = decode_detections(run(x), conf, iou)
        return (boxes - np.array([px, py, px, py], np.float32)) / scale
    return detect


# --- the runtimes ------------------------------------------------------------------------------------

def ort_session(path: Path, threads: int):
    from vision.runtime import make_session
    return make_session(path, threads)


def ort_runner(session):
    name = session.get_inputs()[0].name
    return lambda x: session.run(None, {name: x})[0]


def fp32_detector(work: Path, size: int) -> Path:
    """The shipped detector's weights exported in float, as before it shipped in int8."""
    from training.train_detector import export_detector

    return export_detector(MODELS / "detector.pt", work / "detector.fp32.onnx", imgsz=size)


def ncnn_detector(work: Path, size: int) -> Path | None:
    """ultralytics' NCNN export of the shipped detector weights (pnnx); None without ncnn/pnnx."""
    try:
        import ncnn  # noqa: F401
        from ultralytics import YOLO
    except ImportError:
        return None
    folder = work / f"ncnn{size}"  # one export per input size: the param file fixes it
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy2(MODELS / "detector.pt", folder / "detector.pt")
    return Path(YOLO(str(folder / "detector.pt")).export(format="ncnn", imgsz=size, half=False, verbose=False))


def ncnn_runner(folder: Path, threads: int):
    import ncnn

    net = ncnn.Net()
    net.opt.num_threads = threads
    net.opt.use_vulkan_compute = False
    net.load_param(str(folder / "model.ncnn.param"))
    net.load_model(str(folder / "model.ncnn.bin"))

    def run(x: np.ndarray) -> np.ndarray:
        # ncnn.Mat wraps the array's memory without holding it, so both must outlive the
        # extraction: a temporary is freed while the extractor still reads it and the network
        # sees garbage (seen: scores near 0, or no box agreeing). detector_input's array is in
        # HWC memory order (astype keeps a transpose's strides), so the C-order copy is made here.
        data = np.ascontiguousarray(x[0])
        mat = ncnn.Mat(data)
        with net.create_extractor() as ex:
            ex.input("in0", mat)
            _, out = ex.extract("out0")
            return np.array(out)[None]
    return run


def agreement(reference, candidate, images) -> float:
    """Share of the reference's boxes that the candidate finds too (IoU >= 0.5)."""
    from training.evaluate import iou_matrix

    found = total = 0
    for image in images:
        ref, got = reference(image), candidate(image)
        total += len(ref)
        if len(ref) and len(got):
            found += int((iou_matrix(ref, got).max(1) >= 0.5).sum())
    return found / max(total, 1)


# --- the real server's memory -----------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mib(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def post_photo(port: int, data: bytes, name: str = "hand.jpg") -> int:
    boundary = "benchpi"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"{name}\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/recognize", data=body, method="POST", headers={
        "Content-Type": f"multipart/form-data; boundary={boundary}", "X-Requested-With": "fetch"})
    try:
        with urllib.request.urlopen(req, timeout=300) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def server_memory(uploads: list[bytes]) -> dict:
    """RSS of `python app.py` at idle, after one photo (models loaded), and its peak (VmHWM)
    while four clients upload at once, twice over."""
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "MAHJONG_DATA": data}
        proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            for _ in range(300):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1)
                    break
                except OSError:
                    time.sleep(0.1)
            idle = rss_mib(proc.pid)
            post_photo(port, uploads[0])
            loaded = rss_mib(proc.pid)
            statuses = []
            for _ in range(2):
                threads = [threading.Thread(target=lambda d=d: statuses.append(post_photo(port, d)))
                           for d in uploads[:4]]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
            return {"idle_mib": idle, "loaded_mib": loaded, "worst_mib": rss_mib(proc.pid, "VmHWM"),
                    "after_mib": rss_mib(proc.pid), "statuses": sorted(set(statuses))}
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(20)


def big_uploads(image: np.ndarray) -> list[bytes]:
    """Four uploads at their worst: two full-size phone photos (12 MP JPEG) and the fixture."""
    big = cv2.resize(image, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    big_jpeg = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
    small = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()
    return [small, big_jpeg, big_jpeg, small]


# --- the run -----------------------------------------------------------------------------------------

def run(n_photos: int, repeat: int) -> dict:
    timed = photos(n_photos)
    rec = Recognizer(MODELS)
    size, conf, iou = int(rec.config["det_imgsz"]), float(rec.config["det_conf"]), float(rec.config["nms_iou"])
    report = {"date": date.today().isoformat(), "machine": f"{platform.machine()}, {os.cpu_count()} cores",
              "photos": len(timed), "repeat": repeat, "photo_ms": {}, "live_detector_ms": {}, "agreement": {}}

    # the whole read of a photo, threads 1/2/4 (the shipped server uses 2)
    readers = {f"onnxruntime_t{t}": Recognizer(MODELS, threads=t) for t in (1, 2, 4)}
    report["photo_ms"] = side_by_side({k: (lambda img, r=r: recognize_image(img, r)) for k, r in readers.items()},
                                      timed, repeat)
    frames = [live_frame(img) for img in timed]
    report["live_frame_ms_t2"] = side_by_side({"t2": lambda img: recognize_image(img, rec)}, frames, repeat)["t2"]

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        runs = {f"onnxruntime_t{t}": (ort_runner(ort_session(MODELS / "detector.onnx", t)), False) for t in (1, 2, 4)}
        fp32 = fp32_detector(work, size)
        runs.update({f"onnxruntime_fp32_t{t}": (ort_runner(ort_session(fp32, t)), False) for t in (1, 2, 4)})
        ncnn_dir = ncnn_detector(work, size)
        if ncnn_dir:  # pnnx fixes the anchors of the traced input: square frames only
            runs.update({f"ncnn_t{t}": (ncnn_runner(ncnn_dir, t), True) for t in (1, 2, 4)})
        detectors = {k: detector(fn, size, conf, iou, square) for k, (fn, square) in runs.items()}
        report["live_detector_ms"] = side_by_side(detectors, frames, repeat)
        for name, fn in detectors.items():
            if name.endswith("_t2"):
                report["agreement"][name[:-3]] = agreement(detectors["onnxruntime_t2"], fn, timed)

        # the published Pi 5 figures are for the bare network on 640 px squares: the same here
        square = [detector_input(cv2.resize(img, (640, 640)), 640, square=True)[0] for img in timed[:2]]
        nets = {"onnxruntime": runs["onnxruntime_fp32_t2"][0]}  # the published figure is fp32's
        if ncnn_dir:
            nets["ncnn"] = ncnn_runner(ncnn_detector(work, 640), 2)
        here_640 = side_by_side(nets, square, repeat)
    report["yolo11n_640_ms_here"] = here_640
    report["memory"] = server_memory(big_uploads(timed[0]))
    report["pi"] = project(report)
    return report


def project(report: dict) -> dict:
    """Pi 5 and Pi 4 figures computed from this machine's times and the published Pi 5 times."""
    pi5_over_here = PI5_PUBLISHED["onnxruntime"] / report["yolo11n_640_ms_here"]["onnxruntime"]
    photo = report["photo_ms"]["onnxruntime_t2"] * pi5_over_here
    live = report["live_frame_ms_t2"] * pi5_over_here
    ncnn_gain = PI5_PUBLISHED["ncnn"] / PI5_PUBLISHED["onnxruntime"]  # measured on the Pi, not here
    # NCNN's gain is over ONNX Runtime fp32: the frame without the shipped detector, plus fp32's time
    # at that gain
    det = report["live_detector_ms"]
    live_ncnn = live * (1 - (det["onnxruntime_t2"] - det.get("onnxruntime_fp32_t2", det["onnxruntime_t2"]) * ncnn_gain)
                        / report["live_frame_ms_t2"])
    out = {"pi5_over_here": pi5_over_here, "source": PI5_PUBLISHED["source"], "pi4_over_pi5": PI4_OVER_PI5}
    for board, factor in (("pi5", 1.0), ("pi4", PI4_OVER_PI5)):
        out[board] = {"photo_ms": photo * factor, "live_fps": 1000 / (live * factor),
                      "live_fps_ncnn_detector": 1000 / (live_ncnn * factor)}
    return out


def format_report(r: dict) -> str:
    ref = r["photo_ms"]["onnxruntime_t2"]
    lines = [f"bench_pi {r['date']} on {r['machine']}: {r['photos']} photos, median of {r['repeat']} runs each",
             "", "whole photo read (ms, ratio to ONNX Runtime 2 threads):"]
    lines += [f"  {k:24s} {v:8.1f}  {v / ref:5.2f}x" for k, v in r["photo_ms"].items()]
    lines += [f"  live frame {LIVE_FRAME[1]}x{LIVE_FRAME[0]}, ORT t2  {r['live_frame_ms_t2']:8.1f}", "",
              "detector alone on a live frame (ms, ratio to the shipped int8 detector, ONNX Runtime 2 threads; "
              "boxes agreeing):"]
    dref = r["live_detector_ms"]["onnxruntime_t2"]
    for k, v in r["live_detector_ms"].items():
        agree = r["agreement"].get(k[:-3]) if k.endswith("_t2") else None
        lines.append(f"  {k:24s} {v:8.1f}  {v / dref:5.2f}x" + (f"  {agree:.1%} agree" if agree is not None else ""))
    h = r["yolo11n_640_ms_here"]
    lines += ["", "YOLO11n 640 px here (2 threads): " + ", ".join(f"{k} {v:.1f} ms" for k, v in h.items()),
              f"published Raspberry Pi 5: onnxruntime {PI5_PUBLISHED['onnxruntime']} ms, ncnn "
              f"{PI5_PUBLISHED['ncnn']} ms ({PI5_PUBLISHED['source']})"]
    m = r["memory"]
    lines += ["", f"server memory (MiB): idle {m['idle_mib']:.0f}, models loaded {m['loaded_mib']:.0f}, "
              f"worst under 4 concurrent uploads {m['worst_mib']:.0f} (goal <= {GOALS['rss_worst_mib']}), "
              f"after {m['after_mib']:.0f}; answers {m['statuses']}"]
    p = r["pi"]
    lines += ["", f"computed, not measured (Pi 5 = {p['pi5_over_here']:.2f}x this machine; Pi 4 = "
              f"{p['pi4_over_pi5']:.0f}x Pi 5):"]
    for board in ("pi5", "pi4"):
        b = p[board]
        lines.append(f"  {board}: photo {b['photo_ms']:.0f} ms, live {b['live_fps']:.1f} frames/s "
                     f"({b['live_fps_ncnn_detector']:.1f} with an NCNN detector)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.bench_pi", description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=int, default=12, help="photos timed (default 12)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per photo (default 3)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--record", action="store_true", help=f"write the figures to {RECORD.relative_to(ROOT)}")
    args = ap.parse_args(argv)
    report = run(args.photos, args.repeat)
    if args.record:
        RECORD.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(report, ensure_ascii=False) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
