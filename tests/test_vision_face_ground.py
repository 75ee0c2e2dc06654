"""Faces unlike the photo's faces (vision/face_ground.py and its rule in vision/screen.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.face_ground import DEFAULTS, ground_shares
from vision.screen import BACK, WHITE, screen

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"
ROW = np.array([[10, 20, 40, 60], [45, 20, 75, 60], [80, 20, 110, 60], [115, 20, 145, 60]], float)


def faces(n: int, p: float = 0.9) -> np.ndarray:
    out = np.full((n, 43), (1 - p) / 42, np.float32)
    out[:, 0] = p
    return out


def white_crops(n: int) -> np.ndarray:
    return np.full((n, 96, 96, 3), 235, np.uint8)


def test_a_dark_box_among_white_faces_has_none_of_their_ground():
    crops = white_crops(5)
    crops[4] = (30, 30, 30)
    assert ground_shares(crops, faces(5), DEFAULTS).tolist() == [1.0, 1.0, 1.0, 1.0, 0.0]


def test_a_face_mostly_ink_still_shows_its_ground():
    # a 1筒's big circle covers the face's middle (the measured face is the middle 42 px of the
    # 96 px crop); its corners are the white ground
    crops = white_crops(4)
    yy, xx = np.mgrid[:96, :96]
    crops[3][(yy - 48) ** 2 + (xx - 48) ** 2 < 20 ** 2] = (40, 90, 30)
    share = ground_shares(crops, faces(4), DEFAULTS)[3]
    assert 0.1 < share < 0.5


def test_without_enough_other_sure_faces_nothing_is_measured():
    crops = white_crops(4)
    crops[3] = 30
    p = faces(4)
    p[1] = faces(1, 0.3)[0]  # two sure faces besides the dark box: fewer than min_faces
    assert ground_shares(crops, p, DEFAULTS).tolist() == [1.0] * 4
    back = np.zeros((1, 43), np.float32)
    back[0, BACK] = 1.0  # blanks give no ground either
    assert ground_shares(crops, np.vstack([faces(2), back, faces(1)]), DEFAULTS).tolist() == [1.0] * 4
    assert ground_shares(crops, faces(4), None) is None


def test_screen_drops_an_unsure_face_unlike_the_photos_faces():
    p = faces(4)
    p[3] = faces(1, 0.3)[0]
    share = np.array([0.8, 0.7, 0.9, 0.0])
    keep, _ = screen(ROW, np.full(4, 0.8), p, (100, 200), face_share=share)
    assert keep.tolist() == [True, True, True, False]
    # the rule's negatives: some ground, a sure reading, a blank face, no measure
    keep, _ = screen(ROW, np.full(4, 0.8), p, (100, 200), face_share=[0.8, 0.7, 0.9, 0.05])
    assert keep.all()
    keep, _ = screen(ROW, np.full(4, 0.8), faces(4, 0.6), (100, 200), face_share=share)
    assert keep.all()
    for blank in (BACK, WHITE):
        q = p.copy()
        q[3] = 0.0
        q[3, blank] = 0.3
        keep, _ = screen(ROW, np.full(4, 0.8), q, (100, 200), face_share=share)
        assert keep.all()
    keep, _ = screen(ROW, np.full(4, 0.8), p, (100, 200))
    assert keep.all()
    keep, _ = screen(ROW, np.full(4, 0.8), p, (100, 200), settings={"unlike_share": 0.0}, face_share=share)
    assert keep.all()


def test_real_things_on_the_table_unlike_the_faces_are_no_tiles(shipped_models_with):
    # tests/fixtures/vision-unlike-faces: green felt texture boxed six times above a row of 17
    # standing tiles, and an automatic table's dark card holder read as 夏
    from training.evaluate import evaluate
    from vision.model import Recognizer

    photos = ROOT / "tests" / "fixtures" / "vision-unlike-faces"
    shipped = evaluate(photos, Recognizer(MODELS), progress=False)
    before = evaluate(photos, Recognizer(shipped_models_with("face_ground", None)), progress=False)
    assert shipped["labelled_tiles"] == before["labelled_tiles"] == 32
    assert shipped["tiles_right"] == before["tiles_right"] == 31 / 32
    # left: the card holder's box at the photo's edge read as a back (a back may be any colour)
    assert before["extras"] == 8 and shipped["extras"] == 1
