"""What the detector is given and what it gives back: a photo fitted to the network's input at
its own aspect, and the raw head's output decoded into boxes in the photo's pixels after
non-maximum suppression."""
from __future__ import annotations

import cv2
import numpy as np


def input_shape(h: int, w: int, size: int, stride: int = 32) -> tuple[int, int, float]:
    """Network input (height, width) and scale for an h x w image: the long side goes to size,
    the short side to what the aspect leaves, rounded up to the network's stride, so a 4:3 photo
    costs a 4:3 input, not a padded square. (Giving a squashed photo's stretched version more
    pixels than that was tried: its smeared tiles were found less often, not more.)"""
    scale = size / max(h, w)
    up = lambda v: max(stride, int(np.ceil(v * scale / stride)) * stride)
    return up(h), up(w), scale


def letterbox(image: np.ndarray, size: int, shape: tuple[int, int, float] | None = None
              ) -> tuple[np.ndarray, float, float, float]:
    """Fit image into shape (height, width, scale), default size x size keeping aspect, grey
    padding around; returns (img, scale, pad_x, pad_y)."""
    h, w = image.shape[:2]
    out_h, out_w, scale = shape if shape else (size, size, min(size / h, size / w))
    nh, nw = min(out_h, max(1, round(h * scale))), min(out_w, max(1, round(w * scale)))
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    px, py = (out_w - nw) // 2, (out_h - nh) // 2
    out = np.full((out_h, out_w, 3), 114, np.uint8)
    out[py:py + nh, px:px + nw] = resized
    return out, scale, float(px), float(py)


def detector_input(image: np.ndarray, size: int, square: bool = False) -> tuple[np.ndarray, float, float, float]:
    """The detector's network input of a BGR image (1, 3, h, w RGB in [0, 1]: at its own aspect, or a
    size x size square for a fixed-input export) and the scale and padding that map its boxes back."""
    lb, scale, px, py = letterbox(image, size, None if square else input_shape(*image.shape[:2], size))
    x = cv2.cvtColor(lb, cv2.COLOR_BGR2RGB).transpose(2, 0, 1)[None].astype(np.float32) / 255.0
    return x, scale, px, py


def decode_detections(raw: np.ndarray, conf: float, iou: float) -> tuple[np.ndarray, np.ndarray]:
    """Raw YOLO head output (1, 4+1, anchors) -> (boxes xyxy in network pixels, scores) after NMS."""
    pred = raw[0].T  # anchors x (cx, cy, w, h, score)
    keep = pred[:, 4] >= conf
    pred = pred[keep]
    if not len(pred):
        return np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
    cx, cy, w, h, s = pred.T
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1)
    idx = nms(boxes, s, conf, iou)
    return boxes[idx].astype(np.float32), s[idx].astype(np.float32)


def nms(boxes: np.ndarray, scores: np.ndarray, min_score: float, iou: float) -> np.ndarray:
    """Indices of the xyxy boxes kept by non-maximum suppression, surest first."""
    idx = cv2.dnn.NMSBoxes([[float(b[0]), float(b[1]), float(b[2] - b[0]), float(b[3] - b[1])] for b in boxes],
                           scores.astype(float).tolist(), min_score, iou)
    return np.array(idx, np.int64).reshape(-1)


def stretch(image: np.ndarray, factor: float, max_side: int) -> tuple[np.ndarray, float, float]:
    """The image with its width/height ratio multiplied by factor; returns (image, fx, fy), the
    scales applied to x and y. The result's long side is at most max_side: given the detector's
    input size, the image is resized once, straight to what the detector takes (measured: a
    second resize in the letterbox cost a few tiles), and a big photo stretched 6x never has to
    fit in memory."""
    h, w = image.shape[:2]
    fx, fy = (factor, 1.0) if factor >= 1 else (1.0, 1.0 / factor)
    shrink = min(1.0, max_side / max(w * fx, h * fy))
    fx, fy = fx * shrink, fy * shrink
    size = (max(1, round(w * fx)), max(1, round(h * fy)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA if shrink < 1 else cv2.INTER_LINEAR), fx, fy
