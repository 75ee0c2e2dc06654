"""The adaptation study's synthetic photos: labels that match the tiles drawn, calibration order."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from training import adapt_study as study
from training import compose
from vision.calibration import CALIBRATION_ORDER, calibration_labels, rows_of
from training.dataset import labels_to_xyxy, read_labels
from training.evaluate import iou_matrix

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="module")
def tileset(tmp_path_factory):
    """The KDE `traditional` set, rendered once; CI without ../shared or librsvg skips."""
    if not (DATA / study.KMAHJONGG / "traditional.svgz").exists():
        pytest.skip("no kmahjongglib artwork under ../shared/data")
    if not study.rsvg_available():
        pytest.skip("librsvg / cairo not installed")
    return study.render_tileset(DATA, "traditional", tmp_path_factory.mktemp("tilesets"))


def test_every_class_has_a_face_and_the_bodies_hold_them(tileset):
    assert sorted(tileset["faces"]) == list(range(42))
    assert len(tileset["bodies"]) == 4
    fh, fw = tileset["faces"][0].shape[:2]
    for body in tileset["bodies"]:
        bh, bw = body["bgra"].shape[:2]
        x, y = body["face_xy"]
        assert 0 <= x <= bw - fw and 0 <= y <= bh - fh
        # the face sits on the opaque top of the tile, not on its side or shadow
        assert body["bgra"][y:y + fh, x:x + fw, 3].mean() > 250


@pytest.mark.parametrize("kind, seed", [("hand", 0), ("hand", 5), ("scatter", 1)])
def test_photo_labels_match_the_tiles_drawn(tileset, tmp_path, kind, seed):
    rng = np.random.default_rng(seed)
    image, cls, boxes = compose.compose_photo(tileset, kind, rng)
    h, w = image.shape[:2]
    assert 1000 <= w <= 1600 and image.dtype == np.uint8
    assert len(cls) == len(boxes) >= (13 if kind == "hand" else 8)
    assert ((cls >= 0) & (cls < 42)).all()
    assert (boxes[:, :2] >= 0).all() and (boxes[:, 2] <= w).all() and (boxes[:, 3] <= h).all()
    tall = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    assert (tall > 45).all() and (tall < 220).all()
    # one box per tile: neighbours in a row touch, none is labelled twice
    iou = iou_matrix(boxes, boxes)
    assert iou[~np.eye(len(boxes), dtype=bool)].max() < 0.3
    path = compose.write_photo(tmp_path, "p", image, cls, boxes)
    back_cls, back_boxes = labels_to_xyxy(read_labels(tmp_path / "labels" / "p.txt"), w, h)
    assert path.exists()
    assert (back_cls == cls).all()
    assert np.abs(back_boxes - boxes).max() < 0.01


def test_hand_rows_do_not_overlap_and_melds_lie_sideways():
    for seed in range(20):
        placed = compose.hand_layout(np.random.default_rng(seed), 0.8)
        rows = {}
        for p in placed:
            rows.setdefault(p["y"] < -0.6, []).append(p)  # the second row lies 1.15-1.8 tiles behind
        for row in rows.values():
            assert 13 <= len(row) <= 17 + 3
            spans = sorted((p["x"] - (1 if p["turn"] else 0.8) / 2, p["x"] + (1 if p["turn"] else 0.8) / 2)
                           for p in row)
            assert all(a[1] <= b[0] + 1e-9 for a, b in zip(spans, spans[1:]))
        assert all(p["turn"] in (0, 1) for p in placed)


def test_scattered_tiles_keep_apart():
    placed = compose.scatter_layout(np.random.default_rng(3), 0.8)
    xy = np.array([[p["x"], p["y"]] for p in placed])
    dist = np.hypot(*(xy[:, None] - xy[None]).transpose(2, 0, 1))
    assert 8 <= len(placed) <= 30
    assert dist[~np.eye(len(xy), dtype=bool)].min() > 1.25


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_calibration_photo_reads_back_in_calibration_order(tileset, seed):
    image, cls, boxes = compose.compose_photo(tileset, "calibration", np.random.default_rng(seed))
    assert len(boxes) == 42
    order = [i for row in rows_of(boxes) for i in row]
    assert tuple(cls[order]) == CALIBRATION_ORDER
    assert (calibration_labels(boxes) == cls).all()


def _sheet_gif(path: Path, sheet: dict) -> None:
    """A GIF laid out as sheet: every cell one grey, 2 x its class + 10."""
    from PIL import Image

    image = np.full((sheet["ys"][-1], sheet["xs"][-1]), 255, np.uint8)
    for r, row in enumerate(sheet["rows"]):
        for c, cls in enumerate(row):
            image[sheet["ys"][r]:sheet["ys"][r + 1], sheet["xs"][c]:sheet["xs"][c + 1]] = 2 * cls + 10
    Image.fromarray(image).convert("RGB").save(path)


def test_an_xmahjongg_sheet_is_cut_into_the_classes_its_data_names(tmp_path):
    pytest.importorskip("PIL")
    from training.xmahjongg import SHEETS, sheet_faces

    sheet = SHEETS["xmahjongg-real"]
    _sheet_gif(tmp_path / sheet["file"], sheet)
    faces = sheet_faces("xmahjongg-real", tmp_path)
    assert sorted(faces) == list(range(42))  # every face class once; the credits' cells are left out
    for cls, face in faces.items():
        assert face.shape[2] == 4 and abs(float(face[..., :3].mean()) - (2 * cls + 10)) <= 2, cls
    with pytest.raises(OSError, match="xmahjongg"):
        sheet_faces("xmahjongg-real", tmp_path / "none")


def test_the_study_composes_photos_of_xmahjonggs_real_set_where_it_is_installed(tmp_path):
    from training.xmahjongg import TILES_DIR

    if not (TILES_DIR / "real.gif").exists():
        pytest.skip("Debian's xmahjongg is not installed")
    tileset = study.load_set(DATA, "xmahjongg-real", tmp_path, 0)
    assert sorted(tileset["faces"]) == list(range(42)) and tileset["bodies"] == []
    four, one = (tileset["faces"][k][:70, :50, :3].astype(int) for k in (3, 0))
    assert np.abs(four - one).mean() > 3  # cells of the grid, not one cell twice
    assert study.card_key("xmahjongg-real") == "adapt_study:xmahjongg-real"
