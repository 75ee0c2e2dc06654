"""What runs at the table needs only requirements.txt: no torch, no ultralytics, no training code.

The serving path is exercised in a child Python whose import system refuses the training-only
packages, as on a Raspberry Pi installed with `make run`; adapting says how to add them.
"""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

from tests.app_support import FETCH, READY_16, FakeRecognizer, fixture_photo, make_app, row

ROOT = Path(__file__).resolve().parent.parent
# Packages of requirements-train*.txt and requirements-dev.txt that code could import.
ABSENT = ("torch", "torchvision", "ultralytics", "onnx", "pytest", "playwright", "mahjong", "mahjong_detector",
          "hypothesis", "matplotlib", "polars")
TRAINING_ONLY = ABSENT + ("training",)  # and our own package that builds the models
SERVING_CODE = [ROOT / "app.py", *sorted((ROOT / "vision").glob("*.py")), *sorted((ROOT / "webapp").glob("*.py"))]

# Installed first in the child: any import of a training-only package fails as if it were absent.
BLOCKER = f"""
import importlib.abc, sys
class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {ABSENT!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Absent())
"""


def run_without_training(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCKER + code, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_the_app_reads_a_photo_and_scores_without_training_packages(tmp_path):
    code = f"""
import io, json
from app import create_app
app = create_app({{"DATA_DIR": {str(tmp_path / 'data')!r}, "TESTING": True}})
c = app.test_client()
photo = open({str(ROOT / 'tests/fixtures/vision/images')!r} + "/" + sorted(__import__('os').listdir({str(ROOT / 'tests/fixtures/vision/images')!r}))[0], "rb").read()
r = c.post("/api/recognize", data={{"photo": (io.BytesIO(photo), "hand.jpg")}}, headers={{"X-Requested-With": "fetch"}},
           content_type="multipart/form-data")
s = c.post("/api/score", json={{"concealed": "123m456m789m123p5p", "melds": [{{"type": "pong", "tiles": "EEE"}}],
           "winning_tile": "5p", "self_drawn": True}}, headers={{"X-Requested-With": "fetch"}})
a = c.get("/api/adapt")
import sys
print(json.dumps({{"training_code": sorted(m for m in sys.modules if m.split(".")[0] == "training"),"recognize": r.status_code, "tiles": len(r.get_json().get("tiles", [])),
                  "score": s.status_code, "win": s.get_json().get("win"), "adapt": a.get_json()}}))
"""
    done = run_without_training(code)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["training_code"] == []
    assert out["recognize"] == 200 and out["tiles"] >= 13
    assert out["score"] == 200 and out["win"] is True
    # the real check (find_spec) sees no torch here: the page is told what to install
    assert "torch" in out["adapt"]["training_missing"] and out["adapt"]["install_command"] == "make train-deps"


def test_the_vision_cli_reads_a_photo_without_training_packages():
    photo = sorted((ROOT / "tests/fixtures/vision/images").glob("*.jpg"))[0]
    done = run_without_training("import sys, runpy; sys.argv = ['vision', 'recognize', '--json', sys.argv[1]];"
                                "runpy.run_module('vision', run_name='__main__')", str(photo))
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(json.loads(done.stdout)["tiles"]) >= 13


def test_training_commands_name_the_install_command_when_packages_are_absent():
    done = run_without_training("import sys; from vision.__main__ import main; sys.exit(main(['adapt', '--help']))")
    assert done.returncode == 2
    assert "make train-deps" in done.stderr and "Traceback" not in done.stderr


def test_no_serving_module_imports_training_code():
    """Static check as well: a lazy import inside a function would escape the child's run."""
    bad = []
    for path in SERVING_CODE:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            bad += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in TRAINING_ONLY]
    assert not bad


def test_serving_requirements_hold_no_training_or_test_package():
    names = [re.split(r"[=<>\[ ]", line.strip())[0].lower() for name in ("requirements.txt", "requirements-nodeps.txt")
             for line in (ROOT / name).read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert not {"torch", "torchvision", "ultralytics", "onnx", "pytest", "playwright", "opencv-python"} & set(names)
    assert "opencv-python-headless" in names and "onnxruntime" in names


def test_adapt_without_training_packages_names_the_command_and_runs_once_installed(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    (models / "classifier.pt").write_bytes(b"weights")
    installed = []
    command = [sys.executable, "-c", "print('adapting')"]
    c = make_app(tmp_path, RECOGNIZER=FakeRecognizer(row(READY_16)), ADAPT_COMMAND=command,
                 TRAINING_MISSING=lambda: [] if installed else ["torch", "ultralytics"]).test_client()
    pid = c.post("/api/recognize", data={"photo": (__import__("io").BytesIO(fixture_photo()), "h.jpg")},
                 headers=FETCH, content_type="multipart/form-data").get_json()["photo_id"]
    c.post("/api/examples", json={"photo_id": pid, "tiles": [{"tile": "1m", "box": [0, 0, 9, 9]}]}, headers=FETCH)
    status = c.get("/api/adapt").get_json()
    assert status["training_missing"] == ["torch", "ultralytics"] and status["install_command"] == "make train-deps"
    r = c.post("/api/adapt", headers=FETCH)
    assert r.status_code == 503 and r.get_json()["code"] == "adapt_needs_training"
    assert "make train-deps" in r.get_json()["error"]
    assert c.get("/api/adapt").get_json()["status"] == "idle"    # nothing started
    installed.append(True)                                        # `make train-deps` ran meanwhile
    assert c.post("/api/adapt", headers=FETCH).status_code == 202
    c.application.extensions["mahjong"].adapt.wait(20)
    assert c.get("/api/adapt").get_json()["status"] == "done"
