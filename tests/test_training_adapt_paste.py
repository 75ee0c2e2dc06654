"""The photos adapt composes from the player's confirmed tiles (training/adapt_paste.py)."""
import numpy as np
import pytest

from training.adapt_paste import cut_tiles, free_patches, pasted_photos

TILE_COLOURS = ((0, 0, 255), (0, 255, 0), (255, 0, 0), (0, 255, 255))


def photo(n: int = 4):
    """A grey table with n flat-coloured tiles in a row, and their boxes."""
    img = np.full((200, 300, 3), 100, np.uint8)
    boxes = []
    for i in range(n):
        x0 = 20 + 40 * i
        img[60:110, x0:x0 + 36] = TILE_COLOURS[i % len(TILE_COLOURS)]
        boxes.append([x0, 60, x0 + 36, 110])
    return img, np.array(boxes, np.float32)


def test_every_box_frames_a_pasted_tile_whole():
    for img, boxes in pasted_photos([photo()], 12, np.random.default_rng(3), side=256):
        assert img.shape == (256, 256, 3) and len(boxes)
        assert (boxes >= 0).all() and (boxes <= 256).all() and (boxes[:, 2:] > boxes[:, :2]).all()
        for x0, y0, x1, y1 in boxes.astype(int):
            inner = img[y0 + 2:y1 - 2, x0 + 2:x1 - 2].reshape(-1, 3).astype(int)
            # one flat tile colour inside (light and blur change it a little), no table grey
            assert inner.max(0).tolist() != [100, 100, 100] and np.ptp(inner, 0).max() <= 20


def test_boxes_never_overlap_and_respect_max_tiles():
    for _, boxes in pasted_photos([photo()], 12, np.random.default_rng(5), side=256, max_tiles=3):
        assert 1 <= len(boxes) <= 3
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                w = min(a[2], b[2]) - max(a[0], b[0])
                h = min(a[3], b[3]) - max(a[1], b[1])
                assert w <= 0 or h <= 0 or w * h < 0.1 * (a[2] - a[0]) * (a[3] - a[1])


def test_tiles_are_cut_at_one_scale_and_thin_boxes_skipped():
    img, boxes = photo(3)
    tiles = cut_tiles([(img, np.vstack([boxes, [[200, 10, 203, 60]]]))])
    assert len(tiles) == 3 and all(t.shape[0] == 100 for t in tiles)


def test_the_players_table_is_cut_from_where_no_tile_lies():
    img, boxes = photo()
    for patch in free_patches([(img, boxes)]):
        assert (patch == 100).all()


@pytest.mark.parametrize("photos", [[], [(np.zeros((50, 50, 3), np.uint8), np.zeros((0, 4)))]])
def test_nothing_to_cut_composes_nothing(photos):
    assert pasted_photos(photos, 5, np.random.default_rng(0)) == []


def test_the_same_seed_composes_the_same_photos():
    a = pasted_photos([photo()], 3, np.random.default_rng(9), side=128)
    b = pasted_photos([photo()], 3, np.random.default_rng(9), side=128)
    assert all((x[0] == y[0]).all() and (x[1] == y[1]).all() for x, y in zip(a, b))
