"""training.bench_pi's arithmetic: the interleaved timing and the Pi figures computed from it."""
from __future__ import annotations

import pytest

from training import bench_pi


def test_side_by_side_runs_every_runtime_on_every_input_in_turn():
    calls = []
    fns = {"a": lambda x: calls.append(("a", x)), "b": lambda x: calls.append(("b", x))}
    out = bench_pi.side_by_side(fns, [1, 2], repeat=3)
    assert set(out) == {"a", "b"} and all(v >= 0 for v in out.values())
    # per input: one warm call each, then a b a b a b
    assert calls[:8] == [("a", 1), ("b", 1)] + [("a", 1), ("b", 1)] * 3
    assert len(calls) == 16


def test_pi_figures_scale_this_machine_by_the_published_pi5_time():
    report = {"yolo11n_640_ms_here": {"onnxruntime": bench_pi.PI5_PUBLISHED["onnxruntime"] / 2},
              "photo_ms": {"onnxruntime_t2": 100.0}, "live_frame_ms_t2": 50.0,
              "live_detector_ms": {"onnxruntime_t2": 25.0}}
    pi = bench_pi.project(report)
    assert pi["pi5_over_here"] == pytest.approx(2.0)
    assert pi["pi5"]["photo_ms"] == pytest.approx(200.0)
    assert pi["pi5"]["live_fps"] == pytest.approx(10.0)
    assert pi["pi4"]["photo_ms"] == pytest.approx(200.0 * bench_pi.PI4_OVER_PI5)
    # half the frame is the detector; NCNN runs it in 88.0/168.1 of ONNX Runtime's time on a Pi 5
    gain = bench_pi.PI5_PUBLISHED["ncnn"] / bench_pi.PI5_PUBLISHED["onnxruntime"]
    assert pi["pi5"]["live_fps_ncnn_detector"] == pytest.approx(1000 / (100 * (0.5 + 0.5 * gain)))
    # the shipped detector in int8 (15 ms) stands in for fp32's 25 ms, which NCNN would run at its gain
    report["live_detector_ms"] = {"onnxruntime_t2": 15.0, "onnxruntime_fp32_t2": 25.0}
    pi = bench_pi.project(report)
    assert pi["pi5"]["live_fps"] == pytest.approx(10.0)
    assert pi["pi5"]["live_fps_ncnn_detector"] == pytest.approx(1000 / (2 * (50 - 15 + 25 * gain)))


def test_ncnn_export_finds_the_boxes_onnx_runtime_finds(tmp_path):
    """The bench's NCNN runner reads the network input it is given (a regression: the C-order
    copy of the input was a temporary that ncnn.Mat does not hold, and 0% of boxes agreed)."""
    pytest.importorskip("ncnn")
    pytest.importorskip("ultralytics")
    folder = bench_pi.ncnn_detector(tmp_path, 416)
    images = bench_pi.photos(2)
    onnx = bench_pi.detector(bench_pi.ort_runner(bench_pi.ort_session(bench_pi.fp32_detector(tmp_path, 416), 1)),
                             416, 0.2, 0.5)
    ncnn = bench_pi.detector(bench_pi.ncnn_runner(folder, 1), 416, 0.2, 0.5, square=True)
    assert sum(len(onnx(img)) for img in images) >= 10
    assert bench_pi.agreement(onnx, ncnn, images) >= 0.95
