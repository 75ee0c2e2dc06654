"""Rehearsal tiles for `adapt`: procedural tiles drawn in the player's look, every class.

Five corrected photos rarely show all 42 tiles. Fine-tuned on them alone, the classifier forgets
the ones they lack: on the adapt study's red-bodied set (training/adapt_study.py, 2026-12-01) the
five photos had no 1p, and after `adapt --folder` the test photos' 1p were read as west (88% of
them right before, 6% after). Mixed into every fine-tuning batch, tiles of every class drawn by
training/procedural.py on the body colour and in the ink the player's crops show keep the whole
class list in that look while the player's own crops teach their art. The styles drawn are the
ones training draws (never procedural.LEAVE_OUT), so the studies' held-out style stays unseen.

Its 白板 are never blank: on the ivory adapt study blank ones on the player's ground colour taught
the classifier to read gaps and patches of table as 白板 (17 extras on 40 photos, 12 without them;
a blank 白板 of the player's own set is still learnt from their crops).

Needs the CJK fonts training draws with (`make train-fonts`); without them adapt goes on without
rehearsal and says so in its report.
"""
from __future__ import annotations

import cv2
import numpy as np
import torch
from torch.nn import functional as F

from training import procedural
from training.train_classifier import procedural_crop
from vision.crops import CROP_STORE, dark_ink, face

REPLAY_SETS = 8  # procedural sets drawn per adapt
REPLAY_PER_CLASS = 3  # tiles of each class per set: 8 x 3 x 42 = 1008 crops, about 8 s
REPLAY_SHARE = 0.3  # of each fine-tuning batch
OWN_INK_SHARE = 0.5  # of the sets drawn in the ink colour read off the player's tiles (else a palette)
DARK_INK_SHARE = 0.5  # light-ink sets: crops also shown as dark ink, the recognizer's second look
INK_CONTRAST = 40  # grey levels between the ground and what counts as ink


def player_look(crops: np.ndarray, light_ink: bool) -> dict:
    """The ground (face body) and ink colours (BGR) of the player's tiles: the ground is the median
    of each face's middle grey levels, the ink the median of the pixels of every face at least
    INK_CONTRAST lighter (light_ink) or darker than their face's ground (pooled: a 1m shows little
    ink, a 白板 none); white or black ink when no face shows any."""
    grounds, inks = [], []
    for crop in crops:
        part = face(crop)
        f = part.reshape(-1, 3).astype(np.float32)
        grey = cv2.cvtColor(part, cv2.COLOR_BGR2GRAY).reshape(-1).astype(np.float32)
        lo, hi = np.percentile(grey, (35, 65))
        grounds.append(np.median(f[(grey >= lo) & (grey <= hi)], axis=0))
        level = np.median(grey)
        inks.append(f[grey >= level + INK_CONTRAST] if light_ink else f[grey <= level - INK_CONTRAST])
    ink = np.concatenate(inks)
    ink = np.median(ink, axis=0) if len(ink) else np.full(3, 245.0 if light_ink else 30.0)
    return {"ground": np.median(grounds, axis=0).round().tolist(), "ink": ink.round().tolist(),
            "light_ink": bool(light_ink)}


def look_style(look: dict, rng: np.random.Generator) -> dict:
    """A procedural style of the ones training draws, on the player's ground, its ink light or dark
    as theirs, in their ink colour on OWN_INK_SHARE of the sets."""
    style = procedural.random_style(rng)
    if style["white"] == "blank":  # a blank 白板 on the player's ground taught gaps to be 白板 (module doc)
        style["white"] = "frame"
    style["scheme"] = "dark" if look["light_ink"] else "light"  # "dark": a coloured body, light ink
    style["front"] = [float(v) for v in look["ground"]]
    if look["light_ink"] and rng.random() < 0.6:  # whole bodies in one colour, as random_style
        style["back"] = style["front"]
    if rng.random() < OWN_INK_SHARE:
        style["ink"] = [float(v) for v in look["ink"]]
    return style


def replay_tiles(look: dict, seed: int, sets: int = REPLAY_SETS, per_class: int = REPLAY_PER_CLASS,
                 classes=range(42)) -> dict:
    """{"crops" (CROP_STORE crops), "cls", "numbers" (printed number of a flower, else 0)} of `sets`
    procedural sets in the player's look. Raises OSError without the fonts (make train-fonts)."""
    rng = np.random.default_rng((seed, 11))
    crops, cls, numbers = [], [], []
    for _ in range(sets):
        tileset = procedural.make_tileset(look_style(look, rng), rng)
        for c in classes:
            for _ in range(per_class):
                crop = procedural_crop(tileset, c, rng, None, size=CROP_STORE)
                if look["light_ink"] and rng.random() < DARK_INK_SHARE:
                    crop = dark_ink(crop)
                crops.append(crop)
                cls.append(c)
                numbers.append(tileset["numbers"].get(c, 0))
    return {"crops": np.stack(crops), "cls": np.array(cls, np.int64), "numbers": np.array(numbers, np.int64)}


def rehearsed_class_loss(logits: torch.Tensor, own: np.ndarray, present: np.ndarray,
                         rehearsal: np.ndarray | torch.Tensor | None = None) -> torch.Tensor:
    """Class loss of a fine-tuning batch whose first len(own) rows are the player's crops and the
    rest rehearsal tiles (targets rehearsal): the player's crops teach only among the classes they
    show (present), so that a tile missing from their photos is not taught away; the rehearsal
    tiles teach every class. Each part weighs by its rows."""
    n_own = len(own)
    within = np.zeros(int(present.max()) + 1, np.int64)
    within[present] = np.arange(len(present))  # class index -> position among the present ones
    loss = F.cross_entropy(logits[:n_own, present], torch.as_tensor(within[own]), label_smoothing=0.05) * n_own
    if rehearsal is not None:
        loss = loss + F.cross_entropy(logits[n_own:], torch.as_tensor(rehearsal), label_smoothing=0.05) * len(rehearsal)
    return loss / len(logits)


def replay_for(crops: np.ndarray, light_ink: bool, seed: int) -> tuple[dict | None, dict]:
    """(rehearsal tiles or None, what the report says of them) for the player's crops."""
    look = player_look(crops, light_ink)
    try:
        tiles = replay_tiles(look, seed, REPLAY_SETS, REPLAY_PER_CLASS)  # read now: tests draw fewer
    except OSError as exc:  # no CJK font installed: adapt without rehearsal
        return None, {"skipped": str(exc), "look": look}
    report = {"crops": int(len(tiles["cls"])), "sets": REPLAY_SETS, "share": REPLAY_SHARE, "look": look}
    missing = procedural.missing_font_files()
    if missing:  # drawn in fewer styles than the measured adapt's rehearsal
        report["fonts_missing"] = len(missing)
        report["note"] = procedural.missing_fonts_warning(missing, "the rehearsal tiles")
    return tiles, report
