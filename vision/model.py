"""Inference: ONNX tile detector + ONNX tile classifier (+ the group readers, the flower reader
and the tile check where the models folder has them: vision/group_readers.py, vision/flowers.py,
vision/verifier.py), run with onnxruntime.

Recognizer(models_dir).recognize(image_bgr) -> [{"cls", "box", "confidence", "rotation"}], and
"suspect" (why) on a tile kept but worth the player's check (vision/screen.py), and on a
flower or season "number" (1-4, read off the tile) with "number_confidence".
Sessions are created once; onnxruntime's run() is thread-safe, and nothing else here is
mutated after construction, so one Recognizer can serve concurrent requests.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.blanks import DEFAULTS as BLANK_DEFAULTS
from vision.blanks import blank_faces
from vision.classes import COPIES, FLOWER_CLASSES
from vision.copies import within_copies
from vision.crops import CROP_MARGIN, CROP_STORE, cut_crop, dark_ink, light_ink_set, to_input
from vision.face_ground import DEFAULTS as GROUND_DEFAULTS
from vision.face_ground import ground_shares
from vision.flowers import DEFAULTS as FLOWER_DEFAULTS
from vision.detector_io import decode_detections, detector_input, nms, stretch
from vision.flowers import READER_FILE, FlowerReader
from vision.further import (FURTHER_DEFAULTS, holds_as_parts, is_better_look, surer_twins, wants_further_look,
                            wholes_of_parts)
from vision.group_readers import READERS, GroupReader, reader_file, reader_settings
from vision.loose_boxes import DEFAULTS as TIGHTEN_DEFAULTS
from vision.look_again import (centres_in, could_be_parts, few_part, inside_part, new_boxes, pass_quality,
                               tile_shaped, zoom_region)
from vision.loose_boxes import tightened
from vision.parts import JOIN_DEFAULTS, is_whole_of, part_groups
from vision.runtime import make_session
from vision.screen import SCREEN_DEFAULTS, inside_share, screen, to_check, unlike_face_asked
from vision.verifier import VERIFIER_FILE, TileVerifier

DETECTOR_FILE = "detector.onnx"
CLASSIFIER_FILE = "classifier.onnx"
# a second detector, trained with close-ups of one to three tiles (training/train.py), asked
# only about photos that may be close-ups
CLOSEUP_DETECTOR_FILE = "detector_closeup.onnx"
# one member of an ensemble classifier alone, tagged with the ensemble it belongs to
# (training/ensemble.py LEAD): read first, the whole ensemble only where it is unsure
CLASSIFIER_FIRST_FILE = "classifier_first.onnx"
ENSEMBLE_ID = "ensemble_id"
CONFIG_FILE = "recognizer.json"
CUT_PX = 2.0  # a box this near a part's inner border is a tile cut by it (Recognizer._quarters)
DEFAULTS = {"det_imgsz": 416, "det_conf": 0.2, "nms_iou": 0.5, "cls_input": 64,
            # the 180-degree second look runs only on crops the first look is less sure of, and
            # so do looks at the box grown and shrunk 10% (tta_scales): valid split photos all
            # right 93.4% -> 94.5%, the pink session 82.9% -> 85.7% (2026-12-03, models/README.md
            # "Second looks at other framings"); 0.85/1.15 gained less
            "tta": True, "tta_below": 0.9, "tta_scales": [0.9, 1.1],
            # an ensemble classifier (two networks) reads a crop with one member alone
            # (classifier_first.onnx) when that member is at least cascade_below sure, and with
            # the whole ensemble otherwise: at 0.9 most crops skip the other member, and on the
            # pink session, the valid split and the style study it scored at least the whole
            # ensemble's figures (models/README.md); null: the whole ensemble reads every crop
            "cascade_below": 0.9,
            # a photo shows one set: no class read more often than the set holds it (classes.json
            # `copies`; vision/copies.py). false for a photo of two sets mixed
            "set_copies": True,
            # A photo whose width or height was squashed (a fixed-size resize, a webcam in the wrong
            # mode, a screenshot) leaves tiles too thin or too flat to find. When the first pass
            # finds few sure tiles, the detector runs again on the photo stretched by each factor
            # (width / height) and keeps the pass whose tiles it is surest of. Up to tenfold: a row
            # of 18 standing tiles, a panorama squashed into the publisher's 640x640 square, needs
            # about ten, and at six its boxes were still too thin to count as tiles.
            "aspect_retry": {"min_sure": 3, "sure_score": 0.25, "good_quality": 0.6, "tile_shape": [0.5, 1.0],
                             "count_share": 0.5, "margin": 0.05,
                             "factors": [0.1, 0.167, 0.25, 0.4, 0.625, 1.6, 2.5, 4.0, 6.0, 10.0]},
            # A hand that fills little of a big photo (the whole table in view, a webcam beside it)
            # shrinks to a few pixels a tile at the detector's input. When the sure tiles look
            # smaller than below_px there and the photo has the pixels, the detector looks again
            # at the part of the photo that holds them (margin: tile heights around them).
            # A big photo (long side at least grid_from detector inputs) whose first pass is sure of
            # fewer than min_sure tiles is searched in four overlapping quarters first. Tiles
            # under grid_below_px spread too wide for one closer look (a hand across the photo) are
            # looked for in the quarters too, where the first pass hints at a tile (a box scored
            # grid_hint_score or more, under det_conf, that no box overlaps), and those no
            # first-pass box overlaps are added. A big photo whose first pass is sure of at most
            # few_max_sure boxes within 1/few_min_gain of its side gets a closer look there (at
            # most few_max_gain closer): tiles of about 10 px are boxed as rows.
            "zoom": {"below_px": 24, "margin_tiles": 1.5, "min_gain": 1.5, "grid_from": 3.0, "grid_below_px": 28,
                     "grid_hint_score": 0.05, "few_max_sure": 6, "few_min_gain": 2.0, "few_max_gain": 3.0},
            # A close-up (a tile or three filling the photo) shows tiles far taller than any the
            # detector trained on, and it finds parts of them (a 條 tile's stick columns) or
            # nothing. When a box the detector found is taller than above_px at its input, it
            # looks again at the photo shrunk onto a canvas of the same input size, so that
            # the tiles stand target_px tall, and keeps the pass it is clearly surer of.
            # A first pass unsure of everything may have missed a tile too big to find at all: the
            # photo is also shrunk by each of blind. So is one whose boxes could be the parts of a
            # close tile, each sure and no bigger than a normal tile (an 8筒's eight circles):
            # two to parts_count boxes lying together, the box round them at most parts_span
            # times their median long side (could_be_parts).
            # A shrunk pass counts only if its sure tiles are at most max_tiles, at least min_px
            # long at the first pass's scale (a close-up's tiles, not a normal photo's tiles or
            # rows), and hold (most of a box's area inside one of them) at least `hold` of the
            # first pass's boxes, at most max_parts each: the parts of the close-up's tiles. Up to
            # max_parts_unstretched (a 9筒's nine circles) where no stretch of the photo read
            # better: a squashed photo's slivers, six to a tile, made six big boxes of its 26 tiles.
            # It must be surer than the first by margin, or by parts_margin (below zero: a little
            # less sure) where each of its tiles holds two parts or more.
            # A close-up's tiles are bigger than any the main detector trained on, and the passes
            # above still found only 82% of the style study's close-up tiles (a 條 tile came
            # apart into its stick columns). A detector fine-tuned with close-ups finds them whole
            # (98%) but reads real photos of rows worse (its boxes run 2-3% larger, and the
            # classifier's close calls flip). So it is asked only when the first pass may be of a
            # close-up (at most max_sure sure boxes, a box taller than zoom_out's above_px, an
            # unsure pass, or boxes that could be one tile's parts), and its answer replaces the
            # others only when surer by margin than the one they settle on. Null: never asked.
            "closeup_detector": {"max_sure": 6, "margin": 0.05},
            "zoom_out": {"above_px": 150, "target_px": 80, "blind": [0.5, 0.3], "min_px": 120, "max_tiles": 6,
                         "hold": 0.8, "max_parts": 4, "max_parts_unstretched": 9, "margin": 0.05,
                         "parts_count": 12, "parts_span": 5.0, "parts_margin": -0.05},
            # A set whose ink is lighter than its bodies (red, black or jade bodies with white or
            # gold line art) is read twice: as photographed and as dark ink on a light ground,
            # the probabilities averaged. A photo's set counts as light-ink when more than
            # photo_share of its crops are (vision/crops.py inks_are_light, ratio): on the
            # style study's photos, 86-100% of a red set's tiles and at most 31% of a white one's.
            "light_ink": {"ratio": 1.5, "photo_share": 0.5},
            # the flower reader's second look at tiles the classifier puts in the flower and
            # season group at min_group or more (vision/flowers.py), averaged with the classifier's
            "flower_reader": dict(FLOWER_DEFAULTS),
            # the group readers' second looks at tiles the classifier puts in the 萬 group and in
            # the 筒 and 條 groups (vision/group_readers.py), likewise averaged with the classifier's
            **{name: reader_settings(name) for name in READERS},
            # a box read as a back whose face has the colour of the photo's faces is a 白板
            # (vision/blanks.py); null: backs stay as the classifier reads them
            "blank_faces": dict(BLANK_DEFAULTS),
            # a loose box round a lone tile drawn tight to the tile by its colour against the
            # table (vision/loose_boxes.py), in a photo read at its own aspect; null: boxes as found
            "tighten": dict(TIGHTEN_DEFAULTS),
            # each box's share of face pixels with the colour of the photo's faces, which the
            # screening asks about unsure faces (vision/face_ground.py); null: not measured
            "face_ground": dict(GROUND_DEFAULTS),
            # phantom boxes (inside another tile, slivers at the edge, unreadable): vision/screen.py
            "screen": SCREEN_DEFAULTS,
            # a close tile the detector boxed as its circles or stick columns, joined again where
            # the box round them reads as that tile (vision/parts.py); null: parts stay tiles
            "join_parts": dict(JOIN_DEFAULTS),
            # a photo of a few tiles all read unsure looked at again shrunk, where a close tile
            # the detector boxed as its parts is boxed whole (vision/further.py); null: never
            "read_further": dict(FURTHER_DEFAULTS)}
ROTATION_NAMES = ("upright", "sideways", "upside_down", "sideways")  # by quarter turns clockwise


def image_rotation(rot_probs: np.ndarray, turned: bool) -> str:
    """Rotation of the tile in the photo from the rotation head on the (maybe turned) crop.

    The head says how many quarter turns clockwise the tile in the crop is from upright; a
    turned crop was itself rotated a quarter turn clockwise out of the photo.
    """
    t = 1 if turned else 0
    p = np.array([rot_probs[(r + t) % 4] for r in range(4)])
    scores = {"upright": p[0], "upside_down": p[2], "sideways": p[1] + p[3]}
    return max(scores, key=scores.get)


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def leading_member_session(models_dir: Path, classifier, threads: int = 2):
    """The session of the ensemble's leading member beside the classifier, or None: none is
    there, or it belongs to another ensemble (a classifier installed after it)."""
    path = Path(models_dir) / CLASSIFIER_FIRST_FILE
    if not path.exists():
        return None
    first = make_session(path, threads)
    mine = classifier.get_modelmeta().custom_metadata_map.get(ENSEMBLE_ID)
    return first if mine and first.get_modelmeta().custom_metadata_map.get(ENSEMBLE_ID) == mine else None


def load_config(models_dir) -> dict:
    """DEFAULTS with what the models folder's recognizer.json says for inference."""
    cfg_path = Path(models_dir) / CONFIG_FILE
    config = dict(DEFAULTS)
    if cfg_path.exists():
        config.update(json.loads(cfg_path.read_text())["inference"])
    return config


class Recognizer:
    def __init__(self, models_dir, threads: int = 2):
        models_dir = Path(models_dir)
        self.config = load_config(models_dir)
        for name in (DETECTOR_FILE, CLASSIFIER_FILE):
            if not (models_dir / name).exists():
                raise OSError(f"missing {name} in {models_dir}")
        self.detector = make_session(models_dir / DETECTOR_FILE, threads)
        self.classifier = make_session(models_dir / CLASSIFIER_FILE, threads)
        # "cascade_below": null in recognizer.json reads every crop with the whole ensemble
        self.classifier_first = (leading_member_session(models_dir, self.classifier, threads)
                                 if self.config.get("cascade_below") is not None else None)
        # classifiers since 2026-12-01 also read the number printed on flowers and seasons
        self._has_number = len(self.classifier.get_outputs()) >= 3
        # optional, like the flower reader and the tile check below
        closeup, closeup_cfg = models_dir / CLOSEUP_DETECTOR_FILE, self.config.get("closeup_detector")
        self.closeup_detector = make_session(closeup, threads) if closeup.exists() and closeup_cfg else None
        self._closeup = {**DEFAULTS["closeup_detector"], **(closeup_cfg or {})}
        det_in = self.detector.get_inputs()[0]
        self._det_input = det_in.name
        # a detector exported with a fixed input takes only size x size squares
        self._det_rect = not all(isinstance(d, int) for d in det_in.shape[2:])
        self._retry = {**DEFAULTS["aspect_retry"], **(self.config.get("aspect_retry") or {})}
        # "screen": null in recognizer.json turns the phantom screening off
        screen_cfg = self.config.get("screen")
        self._screen = None if screen_cfg is None else {**SCREEN_DEFAULTS, **screen_cfg}
        # the flower reader is optional (models trained before it have none); "flower_reader": null
        # in recognizer.json turns it off
        self.flowers = None
        if (models_dir / READER_FILE).exists() and self.config.get("flower_reader", {}) is not None:
            self.flowers = FlowerReader(make_session(models_dir / READER_FILE, threads), self.config.get("flower_reader"))
        # the group readers, likewise optional; "character_reader": null (or "suit_reader") turns one off
        self.group_readers = {
            name: GroupReader(make_session(models_dir / reader_file(name), threads), kind["classes"],
                              self.config.get(name))
            for name, kind in READERS.items()
            if (models_dir / reader_file(name)).exists() and self.config.get(name, {}) is not None}
        # the tile check, likewise optional; "verifier": null turns it off
        self.verifier = None
        if (models_dir / VERIFIER_FILE).exists() and self.config.get("verifier", {}) is not None:
            self.verifier = TileVerifier(make_session(models_dir / VERIFIER_FILE, threads))

    def detect(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Tile boxes (N, 4) in image pixels and their detector scores."""
        boxes, scores, _ = self.detect_with_aspect(image)
        return boxes, scores

    def detect_with_aspect(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """Boxes and scores as detect(), and the width/height stretch that undoes a squashed photo
        (1.0 for a normal one): a box w x h in the photo is a tile of w*stretch x h in reality."""
        zoom = self.config.get("zoom")
        hint = float((zoom or {}).get("grid_hint_score", self.config["det_conf"]))
        boxes, scores = self._detect_once(image, conf=min(hint, float(self.config["det_conf"])))
        # boxes under det_conf are no answer, only a hint of tiles a closer look may find (NMS
        # keeps the surer boxes the same whatever the floor)
        low = scores < float(self.config["det_conf"])
        hints = boxes[low]
        if low.any():
            boxes, scores = boxes[~low], scores[~low]
        closeup = self._closeup_pass(image, boxes, scores)

        def unless_closeup(answer):  # the close-up detector's answer where clearly surer
            if closeup is not None and \
                    closeup[2] > self._any_count_quality(*answer) + float(self._closeup["margin"]):
                return closeup[0], closeup[1], 1.0
            return answer

        if zoom:
            zoomed = self._zoom_in(image, boxes, scores, zoom, hints=hints)
            if zoomed[0] is not boxes:  # small tiles were looked at closer: not a squashed photo
                return unless_closeup((zoomed[0], zoomed[1], 1.0))
        found = self._aspect_retry(image, boxes, scores)
        if self.config.get("zoom_out"):
            # a squashed photo's slivers look like a close-up's parts: the stretched passes and
            # the shrunk ones compete, each judged with its own stretch undone
            floor = self._any_count_quality(*found)
            shrunk = self._zoom_out(image, boxes, scores, self.config["zoom_out"], floor, found[2] != 1.0)
            if shrunk is not None:
                return unless_closeup((shrunk[0], shrunk[1], 1.0))
        return unless_closeup(found)

    def _closeup_pass(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, float] | None:
        """The close-up detector's boxes, scores and pass quality on a photo whose first pass
        (boxes, scores) may be of a close-up (DEFAULTS["closeup_detector"]); None when it is not
        asked or is sure of no tile or of more than a close-up holds."""
        if self.closeup_detector is None:
            return None
        out = self.config.get("zoom_out") or DEFAULTS["zoom_out"]
        sure_score = float(self._retry["sure_score"])
        max_sure = int(self._closeup["max_sure"])
        tallest, blind = self._closeup_signs(boxes, scores, int(self.config["det_imgsz"]) / max(image.shape[:2]), out)
        if not ((scores >= sure_score).sum() <= max_sure or tallest >= float(out["above_px"]) or blind):
            return None
        b, s = self._detect_once(image, self.closeup_detector)
        if not 0 < (s >= sure_score).sum() <= max_sure:
            return None
        return b, s, self._any_count_quality(b, s)

    def _closeup_signs(self, boxes: np.ndarray, scores: np.ndarray, scale: float, cfg: dict) -> tuple[float, bool]:
        """What a first pass (boxes, scores; photo pixels times scale = the detector's input) shows
        of a close-up, with the zoom_out settings cfg: the longest box side at the input (a
        stick column is as tall as its tile, a sideways tile as wide), and whether a tile may have
        been too big to find at all (an unsure pass) or found as its parts, each sure and
        tile-sized (the eight circles of an 8筒)."""
        tallest = float(np.max(np.maximum(boxes[:, 3] - boxes[:, 1], boxes[:, 2] - boxes[:, 0]), initial=0.0)) * scale
        blind = (self._any_count_quality(boxes, scores) < float(self._retry["good_quality"])
                 or could_be_parts(boxes, int(cfg.get("parts_count", 0)), float(cfg.get("parts_span", 0.0))))
        return tallest, blind

    def _zoom_in(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, zoom: dict, depth: int = 2,
                 hints: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Second looks at small tiles: on the part of the photo holding them (see zoom_region),
        whose boxes replace the first pass's there when it is sure of at least as many tiles, and
        again inside that part (depth); on the four overlapping quarters of a big photo where the
        first pass is sure of fewer than min_sure tiles (tiles too small to find at all). Where no
        part is worth that look: at the few big boxes of a big photo (_closer_at_few), else in the
        quarters for small tiles spread wide that the first pass hints at (_add_from_quarters;
        hints: its boxes under det_conf)."""
        sure, min_sure = float(self._retry["sure_score"]), int(self._retry["min_sure"])
        size = int(self.config["det_imgsz"])
        h, w = image.shape[:2]
        if depth <= 0:
            return boxes, scores
        scale = size / max(h, w)
        # a sure tile already as tall as below_px at the input is no tile too small to find: a
        # close-up of one or two tiles in a big phone photo, whose quarters hold only its parts
        sure_tall = ((boxes[:, 3] - boxes[:, 1])[scores >= sure] * scale >= float(zoom["below_px"])).any()
        if (scores >= sure).sum() < min_sure and max(h, w) >= float(zoom.get("grid_from", 3.0)) * size \
                and not sure_tall:
            b, s = self._quarters(image)
            found = b[s >= sure]
            # only small tiles count: big ones missed by the first pass are a squashed photo's
            if len(found) <= (scores >= sure).sum() or \
                    np.median(found[:, 3] - found[:, 1]) * size / max(h, w) >= float(zoom["below_px"]):
                return boxes, scores
            boxes, scores = b, s
        region = zoom_region(boxes, scores, (h, w), size, sure,
                             float(zoom["below_px"]), float(zoom["margin_tiles"]), float(zoom["min_gain"]))
        if region is None:
            closer = self._closer_at_few(image, boxes, scores, zoom, depth)
            if closer is not None:
                return closer
            return self._add_from_quarters(image, boxes, scores, float(zoom.get("grid_below_px", 0.0)), hints)
        x1, y1, x2, y2 = region
        part = image[y1:y2, x1:x2]
        b, s = self._detect_once(part)
        b, s = self._zoom_in(part, b, s, inside_part(zoom), depth - 1)
        b = b + np.array([x1, y1, x1, y1], np.float32)
        inside = centres_in(boxes, region)
        if (s >= sure).sum() < (scores[inside] >= sure).sum():
            return boxes, scores
        return np.concatenate([boxes[~inside], b]), np.concatenate([scores[~inside], s])

    def _closer_at_few(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, zoom: dict, depth: int
                       ) -> tuple[np.ndarray, np.ndarray] | None:
        """A closer look at the few boxes of a big photo (few_part): tiles so small at the
        detector's input (about 10 px) that it boxed rows and clusters of them as tiles, too
        tall for zoom_region to call small. The look's boxes replace the first pass's in the part
        when it is sure of more, under half as tall (rows' tiles, not the same tiles) and under
        twice below_px at its own input (small tiles still, not a close-up tile's circles seen
        closer; the look is also at most few_max_gain closer); else None."""
        sure = float(self._retry["sure_score"])
        h, w = image.shape[:2]
        if max(h, w) < float(zoom.get("grid_from", 3.0)) * int(self.config["det_imgsz"]):
            return None
        part = few_part(boxes[scores >= sure], (h, w), int(zoom.get("few_max_sure", 0)),
                        float(zoom.get("few_min_gain", 2.0)), float(zoom.get("few_max_gain", 3.0)))
        if part is None:
            return None
        x1, y1, x2, y2 = part
        shift = np.array([x1, y1, x1, y1], np.float32)
        b, s = self._detect_once(image[y1:y2, x1:x2])
        inside = centres_in(boxes, part)
        first = boxes[inside & (scores >= sure)]
        found_h = np.median(b[s >= sure, 3] - b[s >= sure, 1]) if (s >= sure).any() else 0.0
        # small tiles at the look's own input too: a close-up tile's circles seen closer are not
        if (s >= sure).sum() <= len(first) or found_h >= 0.5 * np.median(first[:, 3] - first[:, 1]) or \
                found_h * int(self.config["det_imgsz"]) / max(y2 - y1, x2 - x1) >= 2 * float(zoom["below_px"]):
            return None
        # and closer again inside the part, as for any small tiles
        b, s = self._zoom_in(image[y1:y2, x1:x2], b, s, inside_part(zoom), depth - 1)
        return np.concatenate([boxes[~inside], b + shift]), np.concatenate([scores[~inside], s])

    def _add_from_quarters(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, below_px: float,
                           hints: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """boxes and scores with the sure tiles of the photo's four quarters (whole ones: see
        _quarters) that no box of them overlaps added, where the first pass's sure tiles are
        under below_px tall at the detector's input and it hints at a tile it was unsure of (a
        box of hints of a tile's height that no box overlaps); the arrays themselves where
        nothing is added. At 26 px the detector found the left half of two rows of red tiles on
        green felt and only hinted at the right half; in a quarter each tile is 1.67 times larger."""
        sure = float(self._retry["sure_score"])
        ok = scores >= sure
        h, w = image.shape[:2]
        if below_px <= 0 or hints is None or not len(hints) or ok.sum() < int(self._retry["min_sure"]):
            return boxes, scores
        tile = float(np.median(boxes[ok, 3] - boxes[ok, 1]))
        if tile * int(self.config["det_imgsz"]) / max(h, w) >= below_px or not len(new_boxes(hints, boxes, tile)):
            return boxes, scores
        b, s = self._quarters(image, whole_only=True)
        b, s = b[s >= sure], s[s >= sure]
        new = new_boxes(b, boxes)
        if not len(new):
            return boxes, scores
        return np.concatenate([boxes, b[new]]), np.concatenate([scores, s[new]])

    def _zoom_out(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, cfg: dict, floor: float,
                  stretched: bool = False) -> tuple[np.ndarray, np.ndarray] | None:
        """The close-up passes (DEFAULTS["zoom_out"]) after a first pass that found boxes, scores:
        the surest shrunk photo's boxes and scores if clearly surer than floor (the quality of the
        answer so far, read from the photo stretched or not), else None."""
        max_parts = int(cfg["max_parts"] if stretched else cfg.get("max_parts_unstretched", cfg["max_parts"]))
        scale = int(self.config["det_imgsz"]) / max(image.shape[:2])
        retry = self._retry
        tallest, blind = self._closeup_signs(boxes, scores, scale, cfg)
        shrinks = [float(cfg["target_px"]) / tallest] if tallest >= float(cfg["above_px"]) else []
        if blind:
            shrinks += [float(f) for f in cfg["blind"]]
        best = (floor + float(cfg["margin"]), None, None)
        for shrink in shrinks:
            b, s = self._detect_shrunk(image, scale * shrink)
            sure = b[s >= float(retry["sure_score"])]
            long_side = np.maximum(sure[:, 2] - sure[:, 0], sure[:, 3] - sure[:, 1]) * scale
            # only a few big tiles count: a shrunk photo of normal tiles finds fewer, or rows
            # (or a squashed photo's runs of slivers) as tiles
            if not 0 < len(sure) <= int(cfg["max_tiles"]) or np.median(long_side) < float(cfg["min_px"]):
                continue
            # and they hold what the first pass found, a few boxes each (a close-up tile's
            # parts), not a hand's tiles that a wrong big box (a row, a phone) passes over
            held = inside_share(boxes, sure) >= 0.6
            if len(boxes) and (held.any(1).mean() < float(cfg["hold"]) or held.sum(0).max() > max_parts):
                continue
            q = self._any_count_quality(b, s)
            # every tile found holding two parts or more explains the first pass's boxes
            # as parts: no margin is asked of it beyond parts_margin
            if len(boxes) and held.sum(0).min() >= 2:
                q += float(cfg["margin"]) - float(cfg.get("parts_margin", cfg["margin"]))
            if q > best[0]:
                best = (q, b, s)
        return None if best[1] is None else (best[1], best[2])

    def _any_count_quality(self, boxes: np.ndarray, scores: np.ndarray, factor: float = 1.0) -> float:
        """pass_quality without its penalty for few tiles: a close-up holds one to three."""
        retry = self._retry
        return pass_quality(boxes, scores, factor, float(retry["sure_score"]), 1, tuple(retry["tile_shape"]))

    def _detect_shrunk(self, image: np.ndarray, f: float) -> tuple[np.ndarray, np.ndarray]:
        """Detections on the photo scaled by f (< the detector's own scale) in the middle of a
        canvas the size of the detector's input, in the photo's pixels. The canvas repeats the
        photo's edge pixels outwards: on a grey canvas the photo's own border made a tile-shaped
        rectangle, and the detector found one tile the size of an empty photo."""
        size = int(self.config["det_imgsz"])
        h, w = image.shape[:2]
        scale = size / max(h, w)
        nh, nw = max(1, round(h * f)), max(1, round(w * f))
        out_h, out_w = max(nh, round(h * scale)), max(nw, round(w * scale))
        py, px = (out_h - nh) // 2, (out_w - nw) // 2
        canvas = cv2.copyMakeBorder(cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA),
                                    py, out_h - nh - py, px, out_w - nw - px, cv2.BORDER_REPLICATE)
        b, s = self._detect_once(canvas)
        b = np.clip((b - np.array([px, py, px, py], np.float32)) / f, 0, [w, h, w, h]).astype(np.float32)
        keep = (b[:, 2] - b[:, 0] >= 1) & (b[:, 3] - b[:, 1] >= 1)  # boxes on the canvas's border alone
        return b[keep], s[keep]

    def _quarters(self, image: np.ndarray, share: float = 0.6, whole_only: bool = False
                  ) -> tuple[np.ndarray, np.ndarray]:
        """Detections on four corner parts of the photo, each share of its width and height (they
        overlap, so no tile is cut by every part), merged by NMS. whole_only leaves out each
        part's boxes that touch a border it shares with the photo's inside: a tile cut there lies
        whole in the part beside it."""
        h, w = image.shape[:2]
        ph, pw = max(1, int(h * share)), max(1, int(w * share))  # a 1-pixel-thin photo has thin parts too
        found_b, found_s = [], []
        for y0 in (0, h - ph):
            for x0 in (0, w - pw):
                b, s = self._detect_once(image[y0:y0 + ph, x0:x0 + pw])
                if whole_only:
                    cut = np.zeros(len(b), bool)
                    if x0 > 0:
                        cut |= b[:, 0] <= CUT_PX
                    if x0 + pw < w:
                        cut |= b[:, 2] >= pw - CUT_PX
                    if y0 > 0:
                        cut |= b[:, 1] <= CUT_PX
                    if y0 + ph < h:
                        cut |= b[:, 3] >= ph - CUT_PX
                    b, s = b[~cut], s[~cut]
                found_b.append(b + np.array([x0, y0, x0, y0], np.float32))
                found_s.append(s)
        boxes, scores = np.concatenate(found_b), np.concatenate(found_s)
        if not len(boxes):
            return boxes.reshape(0, 4), scores
        keep = nms(boxes, scores, 0.0, float(self.config["nms_iou"]))
        return boxes[keep], scores[keep]

    def _aspect_retry(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, float]:
        """The squashed-photo passes (DEFAULTS["aspect_retry"]) when the first finds few sure tiles."""
        retry = self._retry
        sure, min_sure, shape = float(retry["sure_score"]), int(retry["min_sure"]), tuple(retry["tile_shape"])
        first = pass_quality(boxes, scores, 1.0, sure, min_sure, shape)
        if not retry.get("factors") or first >= float(retry["good_quality"]):
            return boxes, scores, 1.0
        # a pass's count: its sure boxes that are tile-shaped with its stretch undone (a detector
        # sure of 22 slivers of a squashed photo's 9 tiles must not set the count to beat)
        count = lambda b, s, f: int(tile_shaped(b[s >= sure], f, shape).sum())  # noqa: E731
        passes = [(first, count(boxes, scores, 1.0), boxes, scores, 1.0)]
        size = int(self.config["det_imgsz"])
        # no stretched pass keeps more than size pixels along either side, so a big photo is
        # shrunk once (still twice that, each side) instead of eight times from full size
        pre = min(1.0, 2 * size / min(image.shape[:2]))
        source = image if pre == 1.0 else cv2.resize(image, None, fx=pre, fy=pre, interpolation=cv2.INTER_AREA)
        for factor in retry["factors"]:
            stretched, fx, fy = stretch(source, float(factor), size)
            b, s = self._detect_once(stretched)
            b = b / np.array([fx * pre, fy * pre, fx * pre, fy * pre], np.float32)
            passes.append((pass_quality(b, s, float(factor), sure, min_sure, shape), count(b, s, float(factor)),
                           b, s, float(factor)))
        # a wrong stretch can merge a row into one sure "tile": only passes that find at least
        # half as many sure tile-shaped boxes as the most fruitful one compete, and the photo as it is wins
        # unless another pass is clearly surer. A pass none of whose sure boxes is tile-shaped
        # (quality 0) found no tiles however many boxes it has: a detector that cut a squashed
        # photo's 12 tiles into 47 slices outvoted the stretch that found them.
        most = max((p[1] for p in passes if p[0] > 0), default=0)
        best = max((p for p in passes if p[1] >= float(retry["count_share"]) * most), key=lambda p: p[0])
        if best[0] <= first + float(retry["margin"]):
            return boxes, scores, 1.0
        return best[2], best[3], best[4]

    def _detect_once(self, image: np.ndarray, session=None, conf: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Boxes (photo pixels) and scores the detector (or session) finds at det_conf or conf."""
        if not image.shape[0] or not image.shape[1]:  # an empty part of a thin photo holds no tile
            return np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
        x, scale, px, py = detector_input(image, int(self.config["det_imgsz"]), square=not self._det_rect)
        raw = (self.detector if session is None else session).run(None, {self._det_input: x})[0]
        boxes, scores = decode_detections(raw, float(self.config["det_conf"] if conf is None else conf),
                                          float(self.config["nms_iou"]))
        boxes = (boxes - np.array([px, py, px, py], np.float32)) / scale
        h, w = image.shape[:2]
        boxes = np.clip(boxes, 0, [w, h, w, h]).astype(np.float32)
        return boxes, scores

    def is_light_ink(self, crops: np.ndarray) -> bool:
        """Is this photo's set one with light ink on coloured bodies (DEFAULTS["light_ink"])?
        Decided over all of one photo's crops."""
        return light_ink_set(crops, self.config.get("light_ink"))

    def classify_crops(self, crops: np.ndarray, light_ink: bool | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Stored-format crops (N, 96, 96, 3) -> class probs (N, 43), rotation probs (N, 4) and
        printed-number probs (N, 4: 1-4, for flowers and seasons), None from a classifier
        without a number head. Pass one photo's crops together: whether the set's ink is light
        is decided over all of them unless light_ink says."""
        if not len(crops):
            return (np.zeros((0, 43), np.float32), np.zeros((0, 4), np.float32),
                    np.zeros((0, 4), np.float32) if self._has_number else None)
        probs = self._classify(crops)
        if self.is_light_ink(crops) if light_ink is None else light_ink:
            second = self._classify(np.stack([dark_ink(c) for c in crops]))
            probs = tuple(None if a is None else (a + b) / 2 for a, b in zip(probs, second))
        return probs

    def _classify(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        x = np.stack([to_input(c, out=int(self.config["cls_input"])) for c in crops])
        x = x.transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        p_cls, p_rot, p_num = self._probabilities(x)
        unsure = p_cls.max(1) < float(self.config.get("tta_below", 1.0)) if self.config.get("tta") \
            else np.zeros(len(p_cls), bool)
        if unsure.any():
            # a second look at the same tile turned upside down, only where the first was unsure
            # (most tiles are sure; this keeps the cost down): classes agree, rotations shift by two;
            # and looks at the box grown and shrunk (tta_scales): a detector's box frames a tile
            # looser or tighter than the crops the classifier learnt from. All in one run.
            size = int(self.config["cls_input"])
            scales = [float(s) for s in self.config.get("tta_scales") or ()]
            looks = [np.ascontiguousarray(x[unsure][:, :, ::-1, ::-1])] + [
                np.stack([to_input(c, out=size, scale=s) for c in crops[unsure]]).transpose(0, 3, 1, 2)
                .astype(np.float32) / 255.0 for s in scales]
            out = [softmax(o).reshape(len(looks), int(unsure.sum()), -1)
                   for o in self.classifier.run(None, {"image": np.concatenate(looks)})]
            out[1][0] = np.roll(out[1][0], 2, axis=1)  # the upside-down look's rotations
            n = len(looks) + 1
            p_cls[unsure] = (p_cls[unsure] + out[0].sum(0)) / n
            p_rot[unsure] = (p_rot[unsure] + out[1].sum(0)) / n
            if p_num is not None:
                p_num[unsure] = (p_num[unsure] + out[2].sum(0)) / n
        return p_cls, p_rot, p_num

    def _probabilities(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Class, rotation and number probabilities of network inputs x: the classifier's, or,
        with an ensemble's leading member at hand, that member's where it is at least
        cascade_below sure and the whole ensemble's elsewhere."""
        reader = self.classifier if self.classifier_first is None else self.classifier_first
        probs = [softmax(o) for o in reader.run(None, {"image": x})]
        if self.classifier_first is not None:
            doubt = probs[0].max(1) < float(self.config["cascade_below"])
            if doubt.any():
                for p, o in zip(probs, self.classifier.run(None, {"image": np.ascontiguousarray(x[doubt])})):
                    p[doubt] = softmax(o)
        return probs[0], probs[1], probs[2] if self._has_number else None

    def read(self, image: np.ndarray) -> dict:
        """Everything recognize() decides from, before the phantom screening: boxes, detector
        scores, the photo's stretch (aspect), class and rotation probabilities, crop turns, and
        the tile check's p(tile) (None without one)."""
        boxes, scores, aspect = self.detect_with_aspect(image)
        if aspect == 1.0:  # a squashed photo's boxes are not its tiles' shapes
            boxes = tightened(image, boxes, scores, self.config.get("tighten"))[0]
        found = self._read_at(image, boxes, scores, aspect)
        kept = self._kept(found)
        joined = self._join_parts(image, found, kept)
        if joined is not None:
            found, kept = joined, self._kept(joined)
        further = self._read_further(image, found, kept)
        return found if further is None else further

    def _kept(self, found: dict) -> np.ndarray | None:
        """Indices of found's boxes the screening keeps (None without a screening): the joins and
        the look from further ask about these, and share one screening of a photo."""
        if self._screen is None:
            return None
        return np.flatnonzero(screen(found["boxes"], found["scores"], found["p_cls"], found["shape"],
                                     found["aspect"], self._screen, found["p_tile"], found.get("face_share"))[0])

    def _read_further(self, image: np.ndarray, found: dict, kept: np.ndarray | None) -> dict | None:
        """read()'s result from the photo shrunk, where found's few tiles (kept: those the screening
        keeps) are all read unsure and a shrunk pass boxes them as the parts of tiles it reads surer
        (vision/further.py); None where none does. Needs the screening and the tile check;
        "read_further": null turns it off."""
        cfg = self.config.get("read_further")
        if cfg is None or kept is None or self.verifier is None:
            return None
        cfg = {**FURTHER_DEFAULTS, **cfg}
        if len(kept) < 2 and cfg.get("from_dropped"):
            kept = np.arange(len(found["boxes"]))
        first_conf = found["scores"][kept] * found["p_cls"][kept].max(1)
        if not wants_further_look(first_conf, cfg):
            return None
        scale = int(self.config["det_imgsz"]) / max(image.shape[:2])
        passes = [self._shrunk_pass(image, scale * float(f), cfg) for f in cfg["shrinks"]]
        readings: dict[int, dict] = {}

        def read(k: int) -> dict:  # each shrunk pass's boxes read once, by either way below
            if k not in readings:
                readings[k] = self._read_at(image, passes[k][1], passes[k][2], 1.0)
            return readings[k]

        best, best_conf = None, first_conf
        for k, (count, b, s) in enumerate(passes):
            if not 0 < count <= int(cfg["max_new"]) or not holds_as_parts(found["boxes"][kept], b, cfg):
                continue
            conf = s * read(k)["p_cls"].max(1)
            if is_better_look(best_conf, conf, cfg):
                best, best_conf = read(k), conf
        if best is None and cfg.get("each_whole"):
            return self._parts_from_further(image, found, kept, first_conf, passes, read, cfg)
        return best

    def _shrunk_pass(self, image: np.ndarray, f: float, cfg: dict) -> tuple[int, np.ndarray, np.ndarray]:
        """The look from further at the photo scaled by f: how many sure, tile-shaped boxes it
        found, and those of them the tile check passes (no table part joins in), with scores."""
        b, s = self._detect_shrunk(image, f)
        sure = (s >= float(cfg["sure_score"])) & tile_shaped(b, 1.0, tuple(cfg["tile_shape"]))
        b, s = b[sure], s[sure]
        if not len(b):
            return 0, b, s
        tile = self.verifier.p_tile(image, b) >= float(cfg["min_tile"])
        return len(b), b[tile], s[tile]

    def _parts_from_further(self, image: np.ndarray, found: dict, kept: np.ndarray, first_conf: np.ndarray,
                            passes: list, read, cfg: dict) -> dict | None:
        """found with each group of its kept boxes that a shrunk pass's box (passes, read(k) its
        reading) holds as parts, and reads surer, replaced by that box (vision/further.py
        wholes_of_parts), and then each kept box it boxes again and reads surer (surer_twins, with
        `twins`); None where none is."""
        boxes, taken, wholes, whole_scores = found["boxes"][kept], np.zeros(len(kept), bool), [], []
        ways = [wholes_of_parts] + ([surer_twins] if cfg.get("twins") else [])
        for k, (_, b, s) in enumerate(passes):
            used = np.zeros(len(b), bool)  # a shrunk box replaces one group of the first answer's boxes
            for way in ways:
                if not len(b) or taken.all() or used.all():
                    continue
                left, free = np.flatnonzero(~taken), np.flatnonzero(~used)
                conf = s[free] * read(k)["p_cls"][free].max(1)
                for j, parts in way(boxes[left], first_conf[left], b[free], conf, cfg):
                    taken[left[parts]] = True
                    used[free[j]] = True
                    wholes.append(b[free[j]])
                    whole_scores.append(s[free[j]])
        if not wholes:
            return None
        rest = np.setdiff1d(np.arange(len(found["boxes"])), kept[taken])
        return self._read_at(image, np.concatenate([found["boxes"][rest], np.stack(wholes)]).astype(np.float32),
                             np.concatenate([found["scores"][rest], whole_scores]).astype(np.float32), 1.0)

    def _read_at(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, aspect: float) -> dict:
        """read()'s result for these boxes and scores of the photo."""
        # a squashed photo's boxes have the wrong shape: turn by the tile's true shape
        cut = [cut_crop(image, b, CROP_STORE, CROP_MARGIN, turned=(b[2] - b[0]) * aspect > b[3] - b[1])
               for b in boxes]
        crops = np.stack([c for c, _ in cut]) if cut else np.zeros((0, CROP_STORE, CROP_STORE, 3), np.uint8)
        turned = [t for _, t in cut]
        light = self.is_light_ink(crops)
        p_cls, p_rot, p_num = self.classify_crops(crops, light)
        for reader in self.group_readers.values():  # the numeral above 萬, the circles and sticks, at a larger crop
            p_cls = reader.refine(image, boxes, turned, p_cls, light)
        if self.flowers is not None:  # what flowers and seasons print, read at a larger crop
            p_cls, p_num = self.flowers.refine(image, boxes, turned, p_cls, p_num, light)
        p_cls = blank_faces(crops, p_cls, self.config.get("blank_faces"), boxes)
        p_tile = None
        if self.verifier is not None and self._screen is not None:  # asked only where its answer counts
            ask = to_check(scores, aspect, self._screen, p_cls.argmax(1))
            p_tile = np.ones(len(boxes), np.float32)
            p_tile[ask] = self.verifier.p_tile(image, boxes[ask], aspect)
        return {"boxes": boxes, "scores": scores, "aspect": aspect, "p_cls": p_cls, "p_rot": p_rot, "p_num": p_num,
                "turned": turned, "shape": image.shape[:2], "p_tile": p_tile,
                "face_share": self._face_shares(crops, scores, p_cls)}

    def _face_shares(self, crops: np.ndarray, scores: np.ndarray, p_cls: np.ndarray) -> np.ndarray | None:
        """Each box's share of face pixels of the photo's face colour (vision/face_ground.py),
        measured only on the boxes the screening asks about: faces read under unlike_below; None
        without a screening or with "face_ground": null."""
        if self._screen is None or self.config.get("face_ground") is None:
            return None
        return ground_shares(crops, p_cls, self.config["face_ground"], unlike_face_asked(scores, p_cls, self._screen))

    def _join_parts(self, image: np.ndarray, found: dict, kept: np.ndarray | None) -> dict | None:
        """found with each close tile the detector boxed as its parts (circles, stick columns)
        as one tile again (vision/parts.py), or None where no group of the tiles the screening
        keeps (kept) is one. Needs the screening and the tile check; "join_parts": null turns it off."""
        cfg = self.config.get("join_parts")
        if cfg is None or kept is None or self.verifier is None or len(found["boxes"]) < 2:
            return None
        p_kept = found["p_cls"][kept]
        groups = part_groups(found["boxes"][kept], p_kept.argmax(1), found["shape"], cfg,
                             found["scores"][kept] * p_kept.max(1))
        if not groups:
            return None
        wholes = np.stack([whole for _, whole, _ in groups])
        seen = self._read_at(image, wholes, np.ones(len(wholes), np.float32), found["aspect"])
        p_tile = self.verifier.p_tile(image, wholes, found["aspect"])
        parts, joined = [], []
        for k, (members, _, part_cls) in enumerate(groups):
            if is_whole_of(part_cls, len(members), seen["p_cls"][k], float(p_tile[k]), cfg):
                parts += list(kept[members])
                joined.append(k)
        if not joined:
            return None
        rest = np.setdiff1d(np.arange(len(found["boxes"])), parts)
        # a joined tile is as sure a box as its surest part
        scores = [found["scores"][kept[groups[k][0]]].max() for k in joined]
        return self._read_at(image, np.concatenate([found["boxes"][rest], wholes[joined]]).astype(np.float32),
                             np.concatenate([found["scores"][rest], scores]).astype(np.float32), found["aspect"])

    def recognize(self, image_bgr: np.ndarray) -> list[dict]:
        image = image_bgr if image_bgr.ndim == 3 else cv2.cvtColor(image_bgr, cv2.COLOR_GRAY2BGR)
        return tiles_from(self.read(image[..., :3]), self._screen, COPIES if self.config.get("set_copies") else None)


def tiles_from(found: dict, screen_settings: dict | None, copies: Sequence[int | None] | None = None) -> list[dict]:
    """Recognizer.read's result -> the tiles recognize() returns, screened (vision/screen.py)
    unless screen_settings is None; with copies (one per class, None: no limit), no class is read
    more often than that (vision/copies.py)."""
    boxes, scores, p_cls, p_rot = found["boxes"], found["scores"], found["p_cls"], found["p_rot"]
    keep, suspect = (screen(boxes, scores, p_cls, found["shape"], found["aspect"], screen_settings,
                            found.get("p_tile"), found.get("face_share"))
                     if screen_settings is not None else (np.ones(len(boxes), bool), [None] * len(boxes)))
    kept = np.flatnonzero(keep)
    classes = np.asarray(p_cls).argmax(1) if len(boxes) else np.zeros(0, np.int64)
    if copies is not None and len(kept):
        classes[kept] = within_copies(p_cls[kept], copies)
    out = []
    for i, box in enumerate(boxes):
        if not keep[i]:
            continue
        cls = int(classes[i])
        out.append({"cls": cls, "box": [float(v) for v in box],
                    "confidence": float(scores[i] * p_cls[i, cls]),
                    "rotation": image_rotation(p_rot[i], found["turned"][i])})
        if suspect[i]:
            out[-1]["suspect"] = suspect[i]  # kept, and flagged for the player to check
        p_num = found.get("p_num")
        if p_num is not None and cls in FLOWER_CLASSES:
            n = int(p_num[i].argmax())
            out[-1]["number"] = n + 1  # what the tile prints, 1-4
            out[-1]["number_confidence"] = float(p_num[i, n])
    # reading order: top to bottom in rough rows, then left to right
    out.sort(key=lambda d: (round((d["box"][1] + d["box"][3]) / 2 / max(1.0, d["box"][3] - d["box"][1])),
                            d["box"][0]))
    return out
