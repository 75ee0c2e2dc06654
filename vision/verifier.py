"""The tile check: is what the detector boxed a whole tile, face up or face down, really there?

The detector fires on things shaped or printed like tiles: big characters on a printed
tablecloth, a coin or a drawn ring, a tile's side or shadow, a face without its body. The
classifier then reads them as some tile at middling confidence, and the screening's rules
(vision/screen.py) have no measure of "not a tile" to drop them by. This small network looks at
each box with more of its surroundings (VERIFY_MARGIN) than the classifier does, so that it sees
whether a tile body with its edges is there, and returns p(tile). The screening drops or flags
boxes by it (`inference.screen.not_tile` in recognizer.json).
Trained by training/train_verifier.py on the detector's own boxes: those on labelled tiles and
those on nothing, in procedural table photos and the data set's train photos.
"""
from __future__ import annotations

import numpy as np

from vision.crops import cut_crop

VERIFIER_FILE = "verifier.onnx"
VERIFY_INPUT = 48  # network input side
VERIFY_MARGIN = 0.25  # context around the box, a share of its width / height each side


def verifier_crops(image: np.ndarray, boxes, aspect: float = 1.0) -> np.ndarray:
    """(N, VERIFY_INPUT, VERIFY_INPUT, 3) uint8 crops of xyxy boxes, long side vertical (aspect
    undoes a squashed photo's stretch, as for the classifier's crops)."""
    crops = [cut_crop(image, b, VERIFY_INPUT, VERIFY_MARGIN, turned=(b[2] - b[0]) * aspect > b[3] - b[1])[0]
             for b in boxes]
    return np.stack(crops) if crops else np.zeros((0, VERIFY_INPUT, VERIFY_INPUT, 3), np.uint8)


def to_tensor(crops: np.ndarray) -> np.ndarray:
    """uint8 BGR crops (N, H, W, 3) -> the network's float input (N, 3, H, W)."""
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), np.float32) / 255.0


class TileVerifier:
    """The tile check's ONNX session: p_tile(image, boxes) -> (N,) probabilities."""

    def __init__(self, session):
        self.session = session

    def p_tile(self, image: np.ndarray, boxes, aspect: float = 1.0) -> np.ndarray:
        if not len(boxes):
            return np.zeros(0, np.float32)
        x = to_tensor(verifier_crops(image, boxes, aspect))
        return self.session.run(["p_tile"], {"image": x})[0].reshape(-1)  # sigmoid inside the graph
