"""Reviewed label fixes: applied only where photo, centre and published class all match."""
from __future__ import annotations

import cv2
import numpy as np

from training.evaluate import evaluate
from training.label_fixes import FIXES_FILE, apply_fixes, load_fixes
from vision.classes import CLASS_NAMES

P4, P5 = CLASS_NAMES.index("4p"), CLASS_NAMES.index("5p")
ROWS = np.array([[P5, 0.25, 0.5, 0.2, 0.4], [P5, 0.75, 0.5, 0.2, 0.4]], np.float32)


def fix(**kw):
    return {"a.jpg": [{"center": [0.75, 0.5], "labelled": "5p", "fix": "4p", **kw}]}


def test_fix_relabels_the_matching_tile_only():
    fixed, n = apply_fixes("a.jpg", ROWS, fix())
    assert n == 1
    assert fixed[:, 0].tolist() == [P5, P4]
    assert ROWS[1, 0] == P5  # the caller's labels are left alone


def test_fix_does_not_apply_elsewhere():
    assert apply_fixes("b.jpg", ROWS, fix())[1] == 0  # another photo
    assert apply_fixes("a.jpg", ROWS, fix(center=[0.5, 0.5]))[1] == 0  # no label there
    assert apply_fixes("a.jpg", ROWS, fix(labelled="6p"))[1] == 0  # label already different upstream


def test_null_fix_drops_a_repeated_label():
    rows = np.vstack([ROWS, ROWS[1:]])
    fixed, n = apply_fixes("a.jpg", rows, fix(fix=None))
    assert n == 1
    assert fixed[:, 1].tolist() == [0.25, 0.75]


def test_added_label_applies_where_no_label_lies():
    fixes = {"a.jpg": [{"add": "4p", "box": [0.5, 0.5, 0.1, 0.4]}]}
    fixed, n = apply_fixes("a.jpg", ROWS, fixes)
    assert n == 1
    assert fixed[:, :3].tolist() == [[P5, 0.25, 0.5], [P5, 0.75, 0.5], [P4, 0.5, 0.5]]
    assert len(ROWS) == 2  # the caller's labels are left alone


def test_added_label_skipped_where_upstream_labels_the_tile():
    fixes = {"a.jpg": [{"add": "4p", "box": [0.74, 0.52, 0.2, 0.4]}]}
    fixed, n = apply_fixes("a.jpg", ROWS, fixes)
    assert n == 0
    assert fixed.tolist() == ROWS.tolist()


def test_shipped_fixes_are_well_formed():
    fixes = load_fixes(FIXES_FILE)
    entries = [f for per_image in fixes.values() for f in per_image]
    assert len(entries) >= 20
    for f in entries:
        assert f["why"]
        if "add" in f:
            assert f["add"] in CLASS_NAMES and len(f["box"]) == 4
            assert all(0 < v < 1 for v in f["box"])
            continue
        assert f["labelled"] in CLASS_NAMES and (f["fix"] is None or f["fix"] in CLASS_NAMES)
        assert f["fix"] != f["labelled"]


class FixedAnswers:
    """A recognizer that always reads 4p in the right tile and 5p in the left one."""

    def recognize(self, image):
        h, w = image.shape[:2]
        return [{"cls": P5, "confidence": 0.9, "box": [0.15 * w, 0.3 * h, 0.35 * w, 0.7 * h]},
                {"cls": P4, "confidence": 0.9, "box": [0.65 * w, 0.3 * h, 0.85 * w, 0.7 * h]}]


def test_evaluate_reports_both_label_versions(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.full((100, 200, 3), 128, np.uint8))
    (tmp_path / "labels" / "a.txt").write_text("\n".join(" ".join(f"{v:g}" for v in r) for r in ROWS))
    plain = evaluate(tmp_path, FixedAnswers(), progress=False)
    assert plain["tiles_right"] == 0.5 and "as_labelled" not in plain
    fixed = evaluate(tmp_path, FixedAnswers(), progress=False, fixes=fix())
    assert fixed["tiles_right"] == 1.0 and fixed["photos_all_right"] == 1.0
    assert fixed["label_fixes"] == 1
    assert fixed["as_labelled"]["tiles_right"] == 0.5 and fixed["as_labelled"]["photos_all_right"] == 0.0
