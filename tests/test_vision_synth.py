"""Synthetic training tiles: SVG artwork rendered into face folders, ink variation, crops."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from training import synth
from training.svg_render import render_file, rsvg_available

needs_rsvg = pytest.mark.skipif(not rsvg_available(), reason="librsvg / cairo not installed")

# a black bar on a transparent 30x40 face: its pixels are known exactly
BAR_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="30" height="40" viewBox="0 0 30 40">'
           '<rect x="10" y="0" width="10" height="40" fill="#000000"/></svg>')


@needs_rsvg
def test_render_file_draws_the_whole_document(tmp_path):
    (tmp_path / "bar.svg").write_text(BAR_SVG)
    img = render_file(tmp_path / "bar.svg", 80)
    assert img.shape == (80, 60, 4)
    assert img[:, 25:35, 3].min() == 255 and img[:, :15, 3].max() == 0
    assert img[:, 25:35, :3].max() == 0


@needs_rsvg
def test_svg_sets_render_once_into_class_numbered_faces(tmp_path, monkeypatch):
    art = tmp_path / "art" / "bars"
    art.mkdir(parents=True)
    for name in ("One", "Two"):
        (art / f"{name}.svg").write_text(BAR_SVG)
    monkeypatch.setattr(synth, "SVG_SETS", {"bars": ("bars", {0: "One", 1: "Two"}), "bars-two": ("bars", {5: "Two"})})
    folders = synth.render_svg_sets(tmp_path / "art", tmp_path / "cache", log=lambda s: None)
    assert [p.name for p in sorted(folders[0].glob("*.png"))] == ["00_One.png", "01_Two.png"]
    stamp = (folders[0] / "00_One.png").stat().st_mtime_ns
    synth.render_svg_sets(tmp_path / "art", tmp_path / "cache", log=lambda s: None)
    assert (folders[0] / "00_One.png").stat().st_mtime_ns == stamp  # cached, not drawn again
    faces = synth.load_faces(tmp_path / "no-artwork-here", folders[:1])
    assert [(f["cls"], f["has_body"], f["rgba"].shape) for f in faces] == [(0, False, (300, 225, 4)), (1, False, (300, 225, 4))]
    # a face of the same artwork under another class, in a set of its own (the red fives)
    assert [p.name for p in folders[1].glob("*.png")] == ["05_Two.png"]
    assert [f["cls"] for f in synth.load_faces(tmp_path / "no-artwork-here", folders)] == [0, 1, 5]


def test_ink_variation_keeps_the_face_and_changes_only_strokes():
    art = np.zeros((40, 30, 4), np.float32)
    art[:, 10:20] = (0, 0, 0, 255)
    changed = 0
    for seed in range(40):
        out = synth._ink_variation(art.copy(), np.random.default_rng(seed))
        assert out.shape == art.shape
        assert out[:, 13:17, 3].min() == 255  # a 10 px stroke survives thinning
        assert out[:, :5, 3].max() == 0 and out[:, 25:, 3].max() == 0  # the blank stays blank
        changed += not np.array_equal(out, art)
    assert 0 < changed < 40


def test_rendered_crop_shows_a_tile_on_its_background():
    face = np.zeros((300, 225, 4), np.uint8)
    face[100:200, 80:145] = (0, 0, 200, 255)
    crop = synth.render_crop(0, {0: [{"cls": 0, "rgba": face, "has_body": False}]}, np.random.default_rng(0))
    assert crop.shape[:2] == (synth.CROP_STORE, synth.CROP_STORE)
    centre = crop[crop.shape[0] // 3: 2 * crop.shape[0] // 3, crop.shape[1] // 3: 2 * crop.shape[1] // 3]
    red = (centre[..., 2].astype(int) - centre[..., 1].astype(int)) > 60
    assert red.mean() > 0.2  # the face's red block sits in the middle of the crop
    assert cv2.imencode(".png", crop)[0]


KMAHJONGG = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "artwork" / "kmahjongglib"


@needs_rsvg
@pytest.mark.skipif(not (KMAHJONGG / "default.desktop").exists(), reason="no kmahjongglib artwork under ../shared/data")
def test_kde_training_sets_render_all_faces_and_never_the_measured_ones(tmp_path):
    artwork = KMAHJONGG.parent
    folders = synth.render_kde_sets(artwork, tmp_path, log=lambda s: None)
    assert [f.parent.name for f in folders] == list(synth.KDE_TRAIN_SETS)
    assert not {"traditional", "classic", "jade"} & set(synth.KDE_TRAIN_SETS)  # measured, never trained on
    faces = synth.load_faces(tmp_path / "no-artwork-here", folders)
    assert sorted({f["cls"] for f in faces}) == list(range(42))
    assert all(not f["has_body"] and f["rgba"].shape[2] == 4 for f in faces)


def test_kde_training_sets_are_skipped_without_their_artwork(tmp_path):
    logged = []
    assert synth.render_kde_sets(tmp_path / "artwork", tmp_path / "cache", log=logged.append) == []
    assert logged and "default" in logged[0]
