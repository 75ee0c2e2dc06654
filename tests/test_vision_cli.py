"""`python -m vision`: error paths as a user meets them (subprocess), output with a stand-in recognizer."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.__main__ as cli

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"


def run_cli(*args: str, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vision", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def assert_one_line_error(proc: subprocess.CompletedProcess, *words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for word in words:
        assert word in lines[0]


def _photo(path: Path) -> Path:
    img = np.full((300, 500, 3), 90, np.uint8)
    for k in range(5):  # five light tile-like blocks in a row
        cv2.rectangle(img, (40 + 80 * k, 100), (110 + 80 * k, 200), (235, 235, 235), cv2.FILLED)
    cv2.imwrite(str(path), img)
    return path


def test_missing_photo(tmp_path):
    proc = run_cli("recognize", str(tmp_path / "nope.jpg"))
    assert_one_line_error(proc, "nope.jpg", "no such file")


def test_text_file_named_jpg(tmp_path):
    fake = tmp_path / "fake.jpg"
    fake.write_text("hello\n")
    assert_one_line_error(run_cli("recognize", str(fake)), "fake.jpg", "not an image")


def test_empty_photo(tmp_path):
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    assert_one_line_error(run_cli("recognize", str(empty), "--json"), "empty")


def test_no_models(tmp_path):
    empty_models = tmp_path / "models"
    empty_models.mkdir()
    proc = run_cli("recognize", str(_photo(tmp_path / "p.png")), "--models", str(empty_models))
    assert_one_line_error(proc, "no models found", str(empty_models))


@pytest.mark.parametrize("damage", ["junk onnx", "empty settings"])
def test_damaged_models_are_one_line(tmp_path, damage):
    import shutil

    models = tmp_path / "models"
    shutil.copytree(MODELS, models, ignore=shutil.ignore_patterns("*.pt"))
    if damage == "junk onnx":
        (models / "classifier.onnx").write_bytes(b"junk")
    else:
        (models / "recognizer.json").write_text("{}")
    proc = run_cli("recognize", str(_photo(tmp_path / "p.png")), "--models", str(models))
    assert_one_line_error(proc, "cannot load the models")


def test_evaluate_missing_folder(tmp_path):
    assert_one_line_error(run_cli("evaluate", str(tmp_path / "none")), "no such folder")


@pytest.mark.parametrize("line, words", [
    ("99 0.5 0.5 0.1 0.1", ("line 2", "class must be a whole number 0-42")),
    ("-3 0.5 0.5 0.1 0.1", ("class must be",)),
    ("5.7 0.5 0.5 0.1 0.1", ("class must be",)),
    ("five 0.5 0.5 0.1 0.1", ("not numbers",)),
    ("3 nan 0.5 0.1 0.1", ("not finite",)),
    ("3 1.5 2.5 0.1 0.1", ("0 to 1",)),
    ("3 0.5 0.5 0 0.1", ("no size",)),
    ("3 0.5 0.5", ("class xc yc w h",)),
    ("3 0.5 0.5 0.5 0.5 0.5 0.5", ("polygon of no size",)),
])
def test_evaluate_names_a_label_line_that_is_no_tile(tmp_path, line, words):
    """Each was read as some tile (class -3 as 菊, a NaN box as a labelled tile) or a traceback."""
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    _photo(tmp_path / "images" / "a.png")
    (tmp_path / "labels" / "a.txt").write_text("0 0.2 0.5 0.14 0.33\n" + line + "\n")
    assert_one_line_error(run_cli("evaluate", str(tmp_path), "--as-published"), "a.txt", *words)


def test_evaluate_needs_photos_and_labels(tmp_path):
    assert_one_line_error(run_cli("evaluate", str(tmp_path)), "no photos in")
    _photo(tmp_path / "a.png")
    assert_one_line_error(run_cli("evaluate", str(tmp_path)), "no label files")


def test_labels_may_start_with_a_byte_order_mark(tmp_path):
    from training.dataset import read_labels

    path = tmp_path / "a.txt"
    path.write_bytes("\ufeff16 0.5 0.5 0.1 0.2\r\n3 0.25 0.5 0.1 0.2 \r\n\r\n".encode())
    assert np.allclose(read_labels(path), [[16, 0.5, 0.5, 0.1, 0.2], [3, 0.25, 0.5, 0.1, 0.2]])


@pytest.mark.parametrize("value", ["-1", "nan", "5"])
def test_low_confidence_is_a_share(value):
    with pytest.raises(SystemExit) as exit_:
        cli._parser().parse_args(["recognize", "p.jpg", f"--low-confidence={value}"])
    assert exit_.value.code == 2


def test_unknown_tileset_is_a_usage_error(tmp_path):
    proc = run_cli("recognize", str(tmp_path / "p.jpg"), "--tileset", "mars")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr and "Traceback" not in proc.stderr


def test_help_lists_commands():
    proc = run_cli("--help")
    assert proc.returncode == 0
    for command in ("recognize", "evaluate", "train", "adapt"):
        assert command in proc.stdout


# --- output, with a stand-in recognizer (no model files needed) --------------------------------

class StandIn:
    """Returns a fixed reading: three concealed tiles, a lone winning tile, a flower."""
    def recognize(self, image):
        return [{"cls": 0, "box": [40, 100, 110, 200], "confidence": 0.9, "rotation": "upright"},
                {"cls": 1, "box": [120, 100, 190, 200], "confidence": 0.9, "rotation": "upright"},
                {"cls": 2, "box": [200, 100, 270, 200], "confidence": 0.4, "rotation": "upright"},
                {"cls": 41, "box": [280, 100, 350, 200], "confidence": 0.9, "rotation": "upright"},
                {"cls": 33, "box": [400, 100, 470, 200], "confidence": 0.8, "rotation": "upright"}]


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setattr(cli, "_recognizer", lambda models: StandIn())


def test_recognize_json_and_draw(tmp_path, stand_in, capsys):
    out = tmp_path / "drawn.jpg"
    assert cli.main(["recognize", str(_photo(tmp_path / "p.png")), "--json", "--draw", str(out)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [t["tile"] for t in result["tiles"]] == ["1m", "2m", "3m", "7f", "P"]
    assert result["tiles"][0] == {"tile": "1m", "box": [40.0, 100.0, 110.0, 200.0],
                                  "confidence": 0.9, "rotation": "upright"}
    layout = result["layout"]
    assert layout["concealed"] == ["1m", "2m", "3m"] and layout["flowers"] == ["7f"]
    assert layout["winning_tile"] == "P" and layout["flagged"] == [2]
    drawn = cv2.imread(str(out))
    assert drawn.shape == (300, 500, 3)


def test_recognize_summary_with_hk_tileset(tmp_path, stand_in, capsys):
    assert cli.main(["recognize", str(_photo(tmp_path / "p.png")), "--tileset", "hk-index"]) == 0
    text = capsys.readouterr().out
    assert "concealed: 1m 2m 3m" in text and "flowers:   8f" in text and "winning:   P" in text
    assert "check:     tile 2 3m" in text


def test_unwritable_draw_path(tmp_path, stand_in, capsys):
    code = cli.main(["recognize", str(_photo(tmp_path / "p.png")), "--draw", str(tmp_path / "no" / "x.jpg")])
    assert code == 2 and "cannot write" in capsys.readouterr().err


# --- with the real models, once they are in models/ --------------------------------------------

def test_recognize_with_real_models(tmp_path):
    if not any(MODELS.glob("*.onnx")):
        pytest.skip("models/ has no weights yet (make train)")
    out = tmp_path / "drawn.jpg"
    proc = run_cli("recognize", str(_photo(tmp_path / "p.png")), "--json", "--draw", str(out))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert set(result) == {"tileset", "tiles", "layout"}
    for t in result["tiles"]:
        assert set(t) == {"tile", "box", "confidence", "rotation"}
    assert out.stat().st_size > 0


def test_adapt_says_what_is_wrong_with_its_input_in_one_line_and_exits_2(tmp_path, capsys):
    """Each was a traceback (exit 1), some after a minute of work; class -3 was trained as 菊."""
    pytest.importorskip("torch")
    from training.adapt import main

    (tmp_path / "f" / "images").mkdir(parents=True)
    (tmp_path / "f" / "labels").mkdir()
    _photo(tmp_path / "f" / "images" / "a.png")
    (tmp_path / "f" / "labels" / "a.txt").write_text("3 0.5 0.5 0.1 0.1\n-3 0.5 0.5 0.1 0.1\n")
    cases = [(["--folder", str(tmp_path / "none")], "no such folder"),
             (["--folder", str(tmp_path / "f" / "images" / "a.png")], "no such folder"),
             (["--folder", str(tmp_path / "f")], "line 2"),
             (["--folder", str(tmp_path / "f" / "images")], "no labelled photos"),
             (["--calibration", str(tmp_path / "nope.jpg")], "no such photo"),
             (["--folder", str(tmp_path / "f"), "--epochs", "0"], "--epochs must be 1 or more"),
             (["--folder", str(tmp_path / "f"), "--models", str(tmp_path / "none")], "no classifier.pt")]
    for argv, words in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("vision: ") and words in err[0], (argv, err)
