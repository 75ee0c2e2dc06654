"""models/README.md: what the shipped models are, how they were made and how well they do."""
from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

from training.quantize import INT8_READERS
from vision.group_readers import reader_settings


def _pct(v) -> str:
    return "n/a" if v is None else f"{100 * v:.1f}%"


def _cls_rounds(info: dict) -> str:
    cls = info.get("classifier", {})
    last = f"{cls.get('epochs')} epochs in {cls.get('train_minutes', 0):.0f} min"
    rounds = info.get("cls_rounds", [])
    if not rounds:
        return f"AdamW, cosine schedule over a {info.get('cls_minutes_budget')} min budget: {last}"
    done = [f"{e} epochs in {m:.0f} min (peak lr {lr:g})" for e, m, lr in rounds]
    tuned = "; ".join(done[1:] + [f"{last} (peak lr {info.get('cls_lr', 3e-3):g})"])
    return (f"AdamW with a cosine schedule over a time budget, from scratch {done[0]}; then fine-tuned, "
            f"each round from the last one's weights: {tuned}")


def _members(info: dict) -> str:
    """How the classifier's further members were made, and that they are read together."""
    members = info.get("cls_members", [])
    if not members:
        return ""
    made = "; ".join(f"{m.get('epochs')} epochs in {m.get('train_minutes', 0):.0f} min, peak lr {m.get('lr', 0):g}, "
                     f"seed {m.get('seed')}" + (f", {m['date']}, kept as `training/rounds/{m['weights']}`: {m['data']}"
                                                if m.get("weights") and m.get("data") else "")
                     for m in members)
    return (f". Read together with {len(members)} more member{'s' if len(members) > 1 else ''} fine-tuned from "
            f"these weights on other seeds ({made}; `training/ensemble.py`): each crop is read by every member and "
            f"their probabilities averaged, in one ONNX graph (`training/cls_net.TileEnsemble`)")


def _classifier_what(info: dict) -> str:
    n = 1 + len(info.get("cls_members", []))
    return "small residual CNN" if n == 1 else f"{n} small residual CNNs read together, their probabilities averaged"


def _lead_name(info: dict) -> str:
    """Which member leads the cascade (training/ensemble.LEAD, noted by the members stage)."""
    n = 1 + len(info.get("cls_members", []))
    lead = info.get("cascade_lead", -1) % n
    return "first member" if lead == 0 else "last member" if lead == n - 1 else f"member {lead + 1}"


def _cascade_line(info: dict) -> str:
    if not info.get("cls_members") or info.get("cascade_below") is None:
        return ""
    newest = ", fine-tuned on the newest data," if _lead_name(info) == "last member" else ""
    return (f"the {_lead_name(info)} of the ensemble{newest} reads every crop, and where it is under "
            f"{info['cascade_below']:g} sure the whole ensemble reads it again; ")


def _first_row(info: dict) -> str:
    if not info.get("cls_members"):
        return ""
    return (f"| `classifier_first.onnx` | the ensemble's {_lead_name(info)} alone, int8, tagged with the ensemble's id: "
            "serving reads every crop with it first and with the whole ensemble only where it is under "
            "`inference.cascade_below` sure (`vision/model.py`) | as the classifier | "
            f"{info.get('classifier_first_mb', 0):.1f} MB |\n")


def _ensemble_row(ens: dict | None) -> str:
    if not ens:
        return ""
    return (f"| the members read together, on ground-truth boxes | {_pct(ens.get('crop_accuracy'))} "
            f"(flowers+seasons {_pct(ens.get('flower_season_recall'))}) | |\n")


def _total_minutes(info: dict) -> tuple[float, float]:
    """Training minutes of the shipped detector and classifier, every round and member counted."""
    det = sum(r[1] for r in info.get("det_rounds", [])) + (info.get("det_minutes") or 0)
    cls = (sum(r[1] for r in info.get("cls_rounds", [])) + info.get("classifier", {}).get("train_minutes", 0)
           + sum(m.get("train_minutes", 0) for m in info.get("cls_members", [])))
    return det, cls


def _gpu_minutes(info: dict) -> str:
    g = info.get("det_gpu_round")
    return f" (then {g['minutes']:.1f} min on the GPU)" if g else ""


def _peer_section(peer: dict | None) -> str:
    if not peer:
        return ""
    return f"""
## Against the open peer (`make bench-peer`, {peer.get('date')})

`mahjong-detector` 0.0.6 (a YOLO11n ONNX riichi detector, 34 classes, no flowers), on {peer['photos']} valid
photos ({peer['labels']} labelled tiles), both run in one process on this 2-core CPU, {peer.get('repeat', 3)} timed runs each:

| | ours | peer |
|---|---:|---:|
| labelled tiles right | {_pct(peer['ours_share_right'])} | {_pct(peer['peer_share_right'])} |
| on the 34 kinds the peer knows | {_pct(peer['ours_share_right_known'])} | {_pct(peer['peer_share_right_known'])} |
| median latency per photo | {peer['ours_median_ms']:.1f} ms | {peer['peer_median_ms']:.1f} ms |
| median of per-photo ratios ours/peer | {peer['latency_ratio']:.2f} | |
""" + (f"\n{peer['note']}\n" if peer.get("note") else "") + _earlier_peer_runs(peer.get("earlier", []))


def _earlier_peer_runs(earlier: list) -> str:
    """The peer bench's runs before the one shown, newest first, each with its own note."""
    if not earlier:
        return ""
    lines = [f"- {run.get('date')}: ours {run['ours_median_ms']:.1f} ms, peer {run['peer_median_ms']:.1f} ms, "
             f"ratio {run['latency_ratio']:.2f}" + (f". {run['note']}" if run.get("note") else "")
             for run in earlier]
    return "\nEarlier runs, newest first:\n\n" + "\n".join(lines) + "\n"


def _zoom_section(bench: dict | None) -> str:
    if not bench:
        return ""
    rows = "\n".join(f"| {r['fill']:.2f} | {_pct(r['zoom']['tiles_right'])} | {_pct(r['plain']['tiles_right'])} | "
                     f"{_pct(r['zoom']['photos_all_right'])} | {_pct(r['plain']['photos_all_right'])} | "
                     f"{r['zoom']['latency_ms_median']:.0f} / {r['plain']['latency_ms_median']:.0f} ms |"
                     for r in bench["rows"])
    return f"""
## A hand that fills little of the photo (`make bench-zoom`, {bench.get('date')})

Every {bench.get('every')}th valid photo, enlarged 2x and placed in a table-coloured canvas so that it spans
the given share of the photo's side (at 0.33 the tiles are about 13 px tall at the detector's input):

| share | tiles right, zoom | without | photos all right, zoom | without | median latency, zoom / without |
|---:|---:|---:|---:|---:|---:|
{rows}
{_notes(bench)}"""


def _seconds(v) -> str:
    return f"{v:.0f} s" if v else "-"


def _detector_cell(d: dict | None) -> str:
    """What adapt did to the detector, in a table cell."""
    if not d:
        return "-"
    if d.get("skipped"):
        return f"not tuned ({d['skipped']})"
    held = (f"held part ({d['held_photos']} photo{'s' if d['held_photos'] > 1 else ''}"
            f"{'' if d['held_by_photo'] else ', the same photo changed'}): {d['old_held_errors']} -> "
            f"{d['new_held_errors']} errors")
    if "composed_photos" in d:  # since 2026-12-04: the held tiles laid anew count too
        held += (f"; {d['composed_photos']} photos composed of its tiles: {d['old_composed_errors']} -> "
                 f"{d['new_composed_errors']} errors")
    return f"{'installed' if d['installed'] else 'kept the old one'}; {held}; {d['epochs']} epochs, {_seconds(d['seconds'])}"


def _adapt_sections(info: dict) -> str:
    """The KDE set's study (`adapt_study`) first, then one section per procedural set studied
    (`adapt_study:<set>`, training.adapt_study.card_key)."""
    keys = sorted(k for k in info if k.startswith("adapt_study:"))
    return _adapt_section(info.get("adapt_study")) + "".join(
        _adapt_section(info[k], f"python -m training.adapt_study --set {k.split(':', 1)[1]}") for k in keys)


def _adapt_section(study: dict | None, command: str = "make bench-adapt") -> str:
    if not study:
        return ""
    def row(r: dict) -> str:
        extras = f"{r['extras_per_photo']:.2f}" if "extras_per_photo" in r else "-"
        return (f"| {r['name']} | {_pct(r['tiles_right'])} | {_pct(r.get('tiles_found'))} | "
                f"{_pct(r['photos_all_right'])} | {_pct(r.get('photos_exactly_right'))} | {extras} | "
                f"{_pct(r.get('flower_recall'))} | {_seconds(r.get('seconds'))} | {_detector_cell(r.get('detector'))} |")

    rows = "\n".join(row(r) for r in study["rows"])
    return f"""
## Adapting to an unfamiliar tile set (`{command}`, {study.get('date')})

{study['description']} These photos' labels are complete: every extra is a phantom, and "exactly
right" means no tile missing, none wrong, none extra. Errors on the held part: tiles missed plus
tiles invented, full pipeline.

| model | tiles right | tiles found | photos all right | exactly right | extras / photo | flowers + seasons | adapt time | detector |
|---|---:|---:|---:|---:|---:|---:|---:|---|
{rows}
"""


def _adapt_detector_section(st: dict | None) -> str:
    if not st:
        return ""
    rows = "\n".join(
        f"| {r['name']} | failed: {r['error']} | | | |" if "error" in r else
        f"| {r['name']} | {_pct(r['tiles_found'])} | {r['extras']} ({r['extras_per_photo']:.2f}) | "
        f"{_pct(r['photos_exactly_right'])} | {_detector_cell(r.get('detector'))} |" for r in st["rows"])
    return f"""
## Adapting the detector (`python -m training.adapt_study --detector-only`, {st.get('date')})

`adapt` fine-tunes the detector too (`training/adapt_detector.py`), after the classifier, when the
pipeline misses or invents tiles on the corrected photos against the boxes the player confirmed:
ultralytics from `models/detector.pt`, AdamW lr 0.001 falling to 0.0001 (since 2026-12-06 lr 0.0003
with the BatchNorm statistics kept: "The detector's adapt keeps its BatchNorm statistics"; the rows
below are of lr 0.001), no warm-up, mosaic but the
last quarter of the epochs, batch up to 4 with `nbs` = batch (ultralytics otherwise accumulates 64
images, and four photos would never reach an optimizer step), at the detector's imgsz, on the CPU. One
photo in four is held out; the old and the new detector are scored there with the full pipeline
(tiles missed + tiles invented), the new one (same ONNX export as `training/train_detector.py`) is
installed only with fewer errors, the old `detector.pt` / `detector.onnx` kept in `models/previous/`,
and then tuned once more on every photo. Measured here with the classifier as shipped, on the adapt
study's KDE set ({st['photos']} test photos, {st['tiles']} tiles, complete labels):

| detector | tiles found | extras (per photo) | exactly right | what adapt did |
|---|---:|---:|---:|---|
{rows}
{"".join(f"{chr(10)}- {w}" for w in st.get("why", []))}
"""


NORM_STUDY_VARIANTS = (("updated_1e-3", "statistics updated, lr 0.001 (before)"),
                      ("kept_1e-3", "statistics kept, lr 0.001"), ("kept_3e-4", "statistics kept, lr 0.0003 (now)"))


def _norm_study_section(st: dict | None) -> str:
    """The detector's adapt with its BatchNorm statistics kept: test-photo errors (held-photo errors)
    of each way of tuning, per detector and seed, and the whole adapt_detector before -> after."""
    if not st:
        return ""
    cell = lambda r: f"{r['test']} ({r['held']})" if r else "n/a"  # noqa: E731
    rows = "".join(f"| {r['detector']} | {r['seed']} | {r['before']['test']} ({r['before']['held']}) | "
                   + " | ".join(cell(r.get(k)) for k, _ in NORM_STUDY_VARIANTS) + " |\n" for r in st["rows"])
    whole = "".join(f"| {r['detector']} | {r['way']} | {r['before']} | {r['after']} | {r['held']} | "
                    f"{'yes' if r['installed'] else 'no'} | {r['seconds']:.0f} s |\n" for r in st.get("whole", []))
    return f"""
## The detector's adapt keeps its BatchNorm statistics ({st.get('date')})

{st['text']}

| detector | seed | not tuned | {" | ".join(t for _, t in NORM_STUDY_VARIANTS)} |
|---|---:|---:|{"---:|" * len(NORM_STUDY_VARIANTS)}
{rows}
`adapt_detector` itself (seed 0: the held check, then the refit on all five photos), test-photo errors:

| detector | way | before | after | held photo's errors | installed | time |
|---|---|---:|---:|---|---|---:|
{whole}{_notes(st)}"""


# the batch of the flower and group readers' training (their BATCH): the card is rendered without
# torch, which importing them would need; a test checks the two agree
READER_BATCH = 64
SCREEN_RULES = """- `drop_below` {drop_below}: detector score x class probability under this is dropped, unless the
  detector scores the box `sure_box` {sure_box} or more (then its low confidence flags it);
- `contained` {contained}: a box this share inside a bigger box the detector is at least as sure of is
  dropped, from `flag_contained` {flag_contained} it is kept and flagged (a face or one stick column
  inside a tile: IoU NMS keeps it, since their IoU is small);
- `sliver` {sliver}: a box within {edge_px:g} px of the border whose short side is under this share of the
  photo's typical tile (median short side of boxes scored {sure_score} or more clear of the border) is
  dropped, under `flag_sliver` {flag_sliver} flagged;
- `blank_min_score` {blank_min_score}: a back or 白板 on a box the detector scores under this is flagged
  (a patch of felt, a gap between tiles or a tile's side reads as a blank face with a sure classifier)."""
NOT_TILE_RULE = """
- `not_tile` {not_tile}: a box the tile check (`verifier.onnx`, `vision/verifier.py`) gives p(tile) under
  this is dropped and under `flag_not_tile` {flag_not_tile} flagged (characters and rings printed on a
  tablecloth, things of a tile's size that are no tile). It is asked only about boxes the detector scores under `not_tile_sure` {not_tile_sure} (a surer box
  is kept whatever it says), in photos the detector read stretched at most `not_tile_stretch` {not_tile_stretch:g}x."""


# the decision studies that added screening rules after the screen study's tables were measured
SCREEN_DECISIONS = ("blank_check", "straddling_boxes", "verifier_face_down", "verifier_table_parts",
                    "two_doubts", "same_tile", "flagged_unread")


def _screen_section(st: dict | None, later: tuple[str, ...] | list[str] = ()) -> str:
    """The screen study's rules and tables; later: the titles of the sections of rules added since."""
    if not st:
        return ""
    added = ("\n\nRules added since these tables were measured, each with its own section above: "
             + "; ".join(f'"{t}"' for t in later) + ".") if later else ""
    parts = []
    for f in st["folders"]:
        rows = "\n".join(f"| {r['name']} | {r['tiles_found']:.2%} | {r['tiles_right']:.2%} | "
                          f"{_pct(r['photos_all_right'])} | {r['extras']} | {r['extras_on_labelled']} | "
                          f"{r['extras_flagged']} | {r['right_but_suspect']} | {_pct(r['photos_exactly_right'])} |"
                          for r in f["rows"])
        parts.append(f"""
{f.get('title', f['folder'])}, {f['photos']} photos:

| screening | tiles found | tiles right | photos all right | extras | on a labelled tile | extras flagged | right tiles flagged | exactly right |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
{rows}
""")
    return f"""
## Phantom tiles (`python -m training.screen_study`, {st.get('date')})

After NMS, `vision/screen.py` screens the boxes (settings `inference.screen` in `recognizer.json`). A rule
drops a box only where the measurement below found no labelled tile read right among those it drops;
nearer the line it keeps the tile with a `suspect` reason, which the pipeline flags for the player:

{SCREEN_RULES.format(**{'sure_box': 'n/a', **st['settings']})}{NOT_TILE_RULE.format(**st['settings']) if 'not_tile' in st['settings'] else ''}{added}

Extras are boxes matching no label (IoU 0.5). The valid split's labels leave discards and other hands
out, so there an extra may be a real tile; "on a labelled tile" (an extra lying mostly inside a labelled
tile: a duplicate or a fragment) is the part that is a phantom whatever the labels omit, and "exactly
right" (no tile missing, none wrong, none extra) assumes complete labels, a lower bound there. The adapt
study's photos (below) have complete labels.
{"".join(parts)}{"".join(f"{chr(10)}- {w}" for w in st.get("why", []))}
"""


def _procedural_photos(info: dict) -> str:
    n = info.get("det_procedural") or 0
    if n:
        return f"The shipped detector's last round trained on {n} of them."
    return ("The shipped detector predates them (a round with them is compared under \"Tile styles seen and "
            "unseen\"); `python -m vision train --det-procedural N` adds N.")


def style_rows(rows: list[dict]) -> str:
    """The style study's table (training/style_study.card_summary rows), header included."""
    body = "\n".join(f"| {r['models']} | {r['set']} | {_pct(r['tiles_right'])} | {_pct(r['tiles_found'])} | "
                     f"{_pct(r['photos_exactly_right'])} | {r['extras_per_photo']:.2f} | "
                     f"{_pct(r.get('flower_tiles_right'))} | {_pct(r.get('flower_tiles_right_taiwan'))} |"
                     for r in rows)
    return ("| models | photos | tiles right | tiles found | photos exactly right | extras / photo | "
            "flowers by printed number | flowers under `taiwan` |\n|---|---|---:|---:|---:|---:|---:|---:|\n" + body)


def _style_section(st: dict | None) -> str:
    if not st:
        return ""
    left_out = ", ".join(f"{k} {v}" for k, v in st.get("leave_out", {}).items())
    return f"""
## Tile styles seen and unseen (`python -m training.style_study`, {st.get('date')})

Leave-one-style-out: the procedural tile sets that training draws (`training/procedural.py`) never use
the left-out style ({left_out}); each row below is {st['photos_per_set']} labelled photos (labels complete:
every extra is a phantom) of 6 sets. `seen`: new sets of the styles training draws from; `held-out`: sets
drawn only in the left-out style, also on red bodies with light ink, on ivory bodies and as close-ups of
one to three tiles filling most of the photo (`held-out-closeup`); `kde-traditional`: the adapt study's photos of KDE's `traditional` set (never trained on). Flowers: the
share of flower and season tiles given the right tile (1f-8f) under the default tile set, which takes
the number read off each tile (their sets print 菊/竹 3 and 4 either way).

{style_rows(st["rows"])}
{"".join(f"{chr(10)}- {w}" for w in st.get("why", []))}
"""


def _det_rounds(info: dict) -> str:
    """The detector's training rounds: [epochs, minutes(, max rotation)] each, the last one apart."""
    rounds = info.get("det_rounds", [])
    deg = lambda d: f", +-{d:g} deg rotation" if d != 10.0 else ""
    last = f"{info.get('det_epochs', 'n/a')} epochs in {info.get('det_minutes') or 0:.0f} min" + \
        deg(info.get("det_degrees", 10.0))
    if not rounds:
        return "from scratch, " + last
    done = [f"{r[0]} epochs in {r[1]:.0f} min" + deg(r[2] if len(r) > 2 else 10.0) for r in rounds]
    tuned = "; ".join(done[1:] + [last])
    return (f"from scratch {done[0]}; then fine-tuned, each round from the last one's checkpoint "
            f"(AdamW, lr 0.0005, no warm-up): {tuned}")


def _gpu_round(info: dict) -> str:
    """The detector round trained on a lent GPU (training/gpu_round.py), with the designs it was chosen from."""
    g = info.get("det_gpu_round")
    if not g:
        return ""
    rows = "\n".join(f"| {r['name']} | {_pct(r['tiles_right'])} | {_pct(r['photos_all_right'])} | "
                     f"{_pct(r['photos_all_right_published'])} | {r['map50']:.3f} / {r['map50_95']:.3f} | "
                     f"{_pct(r['precision'])} |" for r in g.get("comparison", []))
    return f"""
- Detector, last round on a GPU ({g['device']}, {g['date']}, `python -m training.gpu_round`): fine-tuned from
  the CPU rounds' checkpoint, {g['epochs']} epochs in {g['minutes']:.1f} min, batch {g['batch']}, {g['optimizer']},
  +-{g['degrees']:g} deg rotation, on the train photos with **pseudo labels**: the CPU detector's boxes (score
  >= {g['pseudo_min_score']}) for about {g['pseudo_boxes']} tiles the published labels leave out (discards, other
  hands, a few missed hand tiles). Without them a longer run learns the data set's habit of labelling only the
  hand in front and stops finding tiles that lie askew or loose, which on a user's table are melds and
  flowers. One-class mAP50 / mAP50-95 on all valid photos (ultralytics val, published labels):
  {g['base_map50_1class_full_valid']:.3f} / {g['base_map50_95_1class_full_valid']:.3f} before this round,
  {g['map50_1class_full_valid']:.3f} / {g['map50_95_1class_full_valid']:.3f} after it.

Detector designs trained side by side on the GPU, each measured here with the full pipeline on the
valid split (the same classifier; reviewed labels, except the published-labels column):

| detector | tiles right | photos all right | as published | mAP50 / mAP50-95 | precision |
|---|---:|---:|---:|---:|---:|
{rows}
"""


def _pub(ev: dict, key: str) -> str:
    """A figure scored on the labels as published, where reviewed fixes were applied."""
    return _pct(ev["as_labelled"].get(key)) if "as_labelled" in ev else "same"


def _pub_map(ev: dict) -> str:
    a = ev.get("as_labelled")
    return f"{a['map50']:.3f} / {a['map50_95']:.3f}" if a and "map50" in a else "same"


def _fixes_line(ev: dict) -> str:
    if not ev.get("label_fixes"):
        return "Scored on the labels as published."
    return (f"Scored with {ev['label_fixes']} reviewed label fixes (`training/label_fixes.json`): labels that contradict "
            "the printed tile (four dots labelled 5p, 伍萬 labelled 5p) or repeat another label on the same tile, "
            "and whole face-up tiles the labels leave out (`add`). "
            "Only tiles where the model and the label disagreed were reviewed, so the fixes can only raise the "
            "figures; the last column scores the same predictions on the labels as published.\n")


def _reader_precision(name: str) -> str:
    return ("int8 with its softmax float (`training/quantize.py`)" if name in INT8_READERS
            else "fp32, softmax inside")


def _flower_row(info: dict) -> str:
    fr = info.get("flower_reader")
    if not fr:
        return ""
    return (f"| `flower_reader.onnx` | the classifier's network with 8 classes (春夏秋冬梅蘭菊竹) and its printed-number head, "
            f"started from the classifier's weights (`training/train_flower_reader.py`), "
            f"{_reader_precision('flower_reader')}: run only on "
            f"crops the classifier puts in the flower and season group (`vision/flowers.py`) | {fr.get('input')}x{fr.get('input')} "
            f"BGR crop cut from the photo at {fr.get('store')} px (box + 20%), long side vertical | "
            f"{info.get('flower_reader_mb', 0):.1f} MB |\n")


def _group_rows(info: dict) -> str:
    """The group readers' rows of the files table."""
    return "".join(
        f"| `{name}.onnx` | the classifier's network with {text['classes']}, started from the classifier's "
        f"weights (`training/train_group_reader.py`){_members(info[name])}, {_reader_precision(name)}: "
        f"run only on crops the classifier "
        f"puts in the {text['group']} group and is unsure of (`vision/group_readers.py`) | as `flower_reader.onnx` | "
        f"{info.get(f'{name}_mb', 0):.1f} MB |\n"
        for name, text in GROUP_READER_TEXT.items() if info.get(name))


def _members(reader: dict) -> str:
    """How many rounds of a reader are read together (a TileEnsemble), where more than one."""
    n = reader.get("members", 1)
    return f", {n} rounds of it read together, their probabilities averaged" if n > 1 else ""


# what the card says of each group reader: its section's title, why it reads, its classes, its
# group, its tiles
GROUP_READER_TEXT = {
    "character_reader": {
        "title": "Numerals above 萬 (the character reader)",
        "why": "Each set writes the numerals above 萬 in its own hand (brush, Kai, Ming; 伍 or 五; a 七 like 乜), and the\n"
               "training photos' HK sets also print the number in a corner, which the classifier can lean on.",
        "classes": "9 classes (1m-9m)", "group": "萬", "tiles": "萬 tiles", "key": "char", "real": "real 萬"},
    "suit_reader": {
        "title": "Circles and sticks (the suit reader)",
        "why": "Each set draws its circles and sticks in its own shapes and lays them out its own ways (6條 in two rows\n"
               "of three or in three rows of two), and on drawn sets of styles never seen the classifier read 6條 as 4條\n"
               "more often than it made any other error.",
        "classes": "18 classes (1p-9p, 1s-9s)", "group": "筒 and 條", "tiles": "筒 and 條 tiles", "key": "suit", "real": "real 筒 and 條"},
    "honour_reader": {
        "title": "Winds, 中 and 發 (the honour reader)",
        "why": "Each set writes 東南西北, 中 and 發 in its own hand too, and on drawn close-ups of light ink the classifier\n"
               "read 東 as 中 and 南 as 發.",
        "classes": "6 classes (東南西北 中 發)", "group": "winds, 中 and 發", "tiles": "winds, 中 and 發",
        "key": "hon", "real": "real winds, 中 and 發"},
}


def _group_sections(info: dict) -> str:
    return "".join(_group_section(info, name) for name in GROUP_READER_TEXT)


def _group_section(info: dict, name: str) -> str:
    cr, text = info.get(name), GROUP_READER_TEXT[name]
    if not cr:
        return ""
    crops = " | ".join(f"{_pct(cr.get(k, {}).get('right'))} ({cr.get(k, {}).get('crops')})"
                       for k in ("valid", "held_out_style", "seen_styles"))
    runs, key = cr.get("pipeline", []), text["key"]
    table = ""
    if runs:
        table = (f"\nThe whole recognizer without the reader -> with it (`inference.{name}`: null turns it "
                 f"off), where each set's {text['tiles']} are read:\n\n| photos | {text['tiles']} right | tiles right | "
                 "photos exactly right | photos all right |\n|---|---|---|---|---|\n" + "".join(
                     f"| {r['name']} | {r[key + '_before']} -> {r[key + '_after']} | {r['tiles_before']} -> {r['tiles_after']} | "
                     f"{r['exact_before']} -> {r['exact_after']} | {r['all_before']} -> {r['all_after']} |\n" for r in runs))
    return f"""## {text['title']}

{text['why']} Tiles the
classifier puts in the {text['group']} group (at least half its probability) are cut again from the photo at
{cr.get('store')} px and read at {cr.get('input')} px by `{name}.onnx`; its reading joins the classifier's inside
the group, weighted by `inference.{name}.weight` ({reader_settings(name)['weight']}; whether the tile is in the group stays the
classifier's call); only crops the classifier is under `below` (0.9) sure of are read, and a light-ink
set's crops both as photographed and as dark ink, the two averaged (`both_looks`). Trained {cr.get('train_minutes', 0):.0f} min ({cr.get('steps')} steps of {READER_BATCH}, lr {cr.get('lr')}, from the
{"reader's own weights" if cr.get('init') == 'reader' else "classifier's weights"}): {int(100 * (1 - cr.get('real_share', 0.3)))}% of each batch is {text['tiles']} of 24 procedural sets drawn fresh every
epoch (never the held-out style), the rest the data set's {cr.get('real_train_crops')} {text['real']} crops, {int(100 * cr.get('corner_erase_share', 0))}% of them with
two to four corners painted over (where HK sets print their index). The reader alone on crops cut at the
labelled boxes:

| valid split, {text['real']} (crops) | procedural sets, held-out style | procedural sets, styles seen |
|---|---|---|
| {crops} |
{_further_rounds(cr)}{table}{chr(10) + cr["note"] + chr(10) if cr.get("note") else ""}
"""


def _further_rounds(cr: dict) -> str:
    """The rounds a group reader had after the one the table above measures, each from the
    reader's own weights, with what its data added and the reader alone after it."""
    lines = []
    for r in cr.get("rounds", []):
        after = "; ".join(f"{what} {_pct(r.get(k, {}).get('right'))} ({r.get(k, {}).get('crops')})"
                          for k, what in (("valid", "valid split"), ("held_out_style", "held-out style"),
                                          ("seen_styles", "styles seen")))
        lines.append(f"\nThen a further round ({r.get('date')}), from the reader's own weights: "
                     f"{r.get('train_minutes', 0):.0f} min ({r.get('steps')} steps of {READER_BATCH}, lr {r.get('lr')}), "
                     f"{r.get('data')} The reader alone after it: {after}.\n")
    return "".join(lines)


def _notes(record: dict) -> str:
    """A card record's notes, each a paragraph of its own."""
    return "".join(f"\n{n}\n" for n in record.get("notes", []))


def _framing_rows(study: dict) -> str:
    """A framing study's table: the whole recognizer before -> after, per set of photos."""
    rows = "".join(f"| {r['name']} | {r['flowers_before']} -> {r['flowers_after']} ({r['flowers_tiles']}) | "
                   f"{r['wan_before']} -> {r['wan_after']} ({r['wan_tiles']}) | {r['tiles_before']} -> {r['tiles_after']} | "
                   f"{r['exact_before']} -> {r['exact_after']} | {r['all_before']} -> {r['all_after']} | "
                   f"{r.get('extras_before', 'n/a')} -> {r.get('extras_after', 'n/a')} |\n"
                   for r in study.get("rows", []))
    notes = _notes(study)
    return ("| photos | flowers right (tiles) | 萬 right (tiles) | tiles right | photos exactly right | photos all right "
            "| extras |\n|---|---|---|---|---|---|---|\n" + rows + notes)


def _framings_section(info: dict) -> str:
    """Second looks at other framings: the classifier's (inference.tta_scales) and the readers'
    (inference.flower_reader.scales, inference.character_reader.scales), each measured on the
    whole recognizer, one framing -> several."""
    cls, readers = info.get("classifier_scales"), info.get("reader_scales")
    if not cls and not readers:
        return ""
    out = """## Second looks at other framings

A detector's box frames a tile looser or tighter than the crops the networks learnt from: on the
drawn sets its boxes take in the tile's side, and the flower reader read a red set's flowers 30 of
41 right at them but 35 at the same boxes shrunk 15%, while on the data set's real flowers growing
them 15% read best. No one framing suits every set, so a crop a network is unsure of is read again
at its box grown and shrunk, and the readings are averaged. Figures: the whole recognizer, one
framing -> several; flowers and 萬 are the share of those tiles read right, extras the boxes
matching no label (on the valid split and the pink session mostly real tiles the labels leave out).
"""
    if cls:
        scales = " and ".join(f"{s:g}" for s in cls.get("scales", []))
        out += f"""
**The classifier** reads a crop it is under {cls.get("below", 0.9):g} sure of (`inference.tta_below`) upside down,
as before, and now also at its box scaled by {scales} (`inference.tta_scales`), all in one run of the
classifier pair, and averages the looks ({cls.get("date", "")}):

{_framing_rows(cls)}"""
    if readers:
        scales = ", ".join(f"{s:g}" for s in readers.get("scales", []))
        out += f"""
**The flower and character readers** read each crop at the box scaled by {scales}
(`inference.flower_reader.scales`, `inference.character_reader.scales`), in every look, and average
the readings; the scales after the first only where the first reading is under
{readers.get("scales_below", 1.0):g} sure (`scales_below`) ({readers.get("date", "")}; the classifier's own second look as before):

{_framing_rows(readers)}"""
    return out + "\n"


# Changes to how the recognizer decides, each measured on the whole recognizer before -> after:
# recognizer.json training[key] holds the date, the rows (training/evaluate figures per set of
# photos) and notes; here, the section's title and what changed.
DECISION_STUDIES = {
    "group_call": {
        "title": "The readers keep the classifier's group",
        "text": """A reader's reading joins the classifier's inside its group by averaging, the group's total kept. Two
unsure readings averaged spread that total over the group's classes, so a class outside it could
come out on top though the group holds at least half the tile's probability. Now, where the
classifier's own top class is in the group and the merged top is outside it, the two classes swap
their shares (`vision/flowers.py` `merge`, every reader): the reader says which tile of the group,
and the classifier whether it is one. Where the classifier's top class is outside the group the
merged answer stands as before, so a reader can still bring a tile into its group."""},
    "overlapping_neighbours": {
        "title": "Overlapping neighbours are not parts",
        "text": """The screening drops a box lying mostly (`contained`, 0.6) inside a bigger box the detector is at least
as sure of: a face, a stick column or a reflection inside a tile. But tiles piled or tilted in a
row have boxes that overlap that much, and the smaller one was dropped though it was a whole tile
read surely (a 7條 at 0.98 lay 0.69 inside a box read 4條 at 0.26). Now a box less than
`neighbour_below` (0.9) inside the bigger one that reads another class more surely than the bigger
one reads its own is kept as a neighbour, and flagged (`vision/screen.py`). A box wholly inside,
or reading the bigger one's class, or less surely, is a part as before."""},
    "blank_check": {
        "title": "Blank faces always meet the tile check",
        "text": """The tile check is asked only about boxes the detector is less sure of than `not_tile_sure` (0.7): a
surer box is kept whatever it says. But a plain blob (a painted disc on the table, a dark rack, a
shadow) has no face to read, so the classifier calls it a back, and the detector is as sure of it as
of a face-down tile. Now every box read as a blank face (a back or 白板) is asked whatever the
detector's score (`screen.check_blank`, `vision/screen.py`), and dropped or flagged by the same
thresholds as the others."""},
    "straddling_boxes": {
        "title": "A box across two tiles is no tile",
        "text": """Between two tiles of a row or a pile the detector sometimes boxes the gap: half of one tile and half of
the next, which the classifier reads as some tile at low confidence. No rule caught it: it lies
inside neither tile's box. Now a box that two or more surer boxes cover, each at least
`straddle_part` (0.2) of it, is dropped where they cover `straddle` (0.85) of it together, and
flagged "across two tiles" from `flag_straddle` (0.7) (`vision/screen.py`)."""},
    "verifier_face_down": {
        "title": "Face-down tiles are tiles to the tile check",
        "text": """The screening asks the tile check about every box read as a blank face ("Blank faces always meet the
tile check"), but the check had learnt tiles only from face-up ones: no photo it trained on held a
face-down tile as a tile. So it dropped face-down tiles the detector had found, silently. It is
now trained also on face-down tiles drawn with their bodies (runs of one to four in procedural
hands, `compose.turn_face_down`) and backs pasted into the data set's train photos, with every
白板 of those photos (`training/train_verifier.py` `drawn_examples`), and the screening drops a box
the check gives p(tile) under `not_tile` 0.1 (0.05 before). The notes say how it was found and
what was tried."""},
    "verifier_table_parts": {
        "title": "An automatic table's parts are no tiles: a second tile check",
        "text": """Most Taiwanese games are played on automatic tables. On the pink session's photos the table's own
parts were the phantoms left: its dark plates of a tile's size (lift covers, card holders) read as
face-down tiles, and its carbon centre panel's chrome dial knobs read as 1筒. `scenes.add_table_parts`
draws such parts (a carbon panel with knurled knobs and a lit display at an edge of the photo, dark
plates with a notch panel, the lift doors' seams, none over a tile), and a second check was trained
on the detector's boxes on 300 procedural photos of them as well (the examples of the shipped check
and 300 new photos mined in 3 min, 20 min of training: `python -m training.train_verifier --photos 700
--drawn 400 --minutes 20 --table-parts 300`, then joined by `--join models/verifier.pt --weights` its
weights; `--join` with the training flags does both, as `make train` does): 70% of those photos show a
run of face-down tiles, half of their sets with backs about as dark as the plates. Alone it dropped
real tiles (the notes); asked together with the shipped check, p(tile) the geometric mean of the two
(`CheckEnsemble`, one ONNX file), with `not_tile` unchanged at 0.1, it drops no tile the shipped check
kept, on any set; `flag_not_tile` went 0.3 -> 0.4 (the notes)."""},
    "two_doubts": {
        "title": "Two doubts drop a blank face or a cut tile",
        "text": """The pink session's last phantoms were flagged, never dropped: an automatic table's dark plates read
as backs, which the tile check doubts (p(tile) 0.15-0.47) but not below `not_tile` (0.1), and a tile
cut by the photo's bottom edge. A flag still costs the player a correction. A blank face has
nothing for the classifier to vouch for, and a cut tile's box is a part of a tile, so for these two
the tile check's doubt (p(tile) under `flag_not_tile`, 0.5) is now enough together with one other
doubt: a back or 白板 the detector scores under `blank_drop_score` (0.55) is dropped, and so is a box
cut by the photo's edge to under `flag_sliver` (0.7) of the photo's typical tile
(`vision/screen.py`). A face the check doubts on a box of its own is still only flagged."""},
    "quarters_for_small_tiles": {
        "title": "Small tiles across the whole photo: a look at its quarters",
        "text": """A hand photographed with the table around it comes to the detector with tiles about 25 px tall, and
on hard tables it finds only some of them: on the red adapt study's photo 000 the left half of
both rows, 16 of 34 tiles (`tests/fixtures/vision-small-tiles-spread`). The closer look at the
part of the photo holding the tiles (`zoom`) gains nothing there, since the rows span the photo.
Now, where the first pass's sure tiles are under `zoom.grid_below_px` (28) px tall at the
detector's input and it hints at a tile it could not be sure of (a box scored from
`zoom.grid_hint_score`, 0.05, under `det_conf`, of a tile's height, that no box overlaps; the
first pass's own output read at a lower floor, so it costs nothing), the detector also looks at
the photo's four overlapping quarters, where each tile is 1.67 times larger. The sure tiles it
finds there that no first-pass box overlaps are added; boxes touching a quarter's inner border are
left out, since the quarter beside holds that tile whole (`Recognizer._add_from_quarters`). Without
the hint the quarters were searched on most drawn photos (+40 to +65 ms a photo) for the same
tiles found."""},
    "closer_at_few": {
        "title": "A hand in a corner of a big photo: a closer look at a few big boxes",
        "text": """`make bench-zoom` had not been run since 2026-11-30. Run again it showed the hand placed in a
quarter of the photo's side read far worse: 92.6% -> 71.2% of tiles right. Not the int8 detector
(the float one: 70.8%) but the procedural detector rounds of 2026-12-01: with the 2026-11-30 detector
and everything else as shipped, 90.0%. At about 10 px a tile at its input, that detector boxes rows
and clusters of tiles as a few tiles 40-110 px tall, which `zoom_region` then takes for tiles too
big to look at closer, and which stop the quarters' search (it is for a photo sure of fewer than
three). Now a big photo (a long side of 3 detector inputs or more) whose first pass is sure of at
most `zoom.few_max_sure` (6) boxes, lying within half the photo's side (`few_min_gain`), gets a
look at the square part around them, at most three times closer (`few_max_gain`: a real tile of a
close-up seen three times closer stays whole); its boxes replace the first pass's there where it is
sure of more, they are under half as tall and under twice `below_px` (48 px) at its own input (a
close-up tile's circles seen closer are bigger) (`vision/look_again.py` `few_part`, `vision/model.py` `_closer_at_few`)."""},
    "suit_reader_share": {
        "title": "The suit reader's share",
        "text": """The suit reader (`suit_reader.onnx`) reads again the 筒 and 條 tiles the classifier is under 0.9
sure of, and its probabilities join the classifier's inside the group with a weight. That weight
was 0.5 for both group readers, swept for the character reader only. On KDE's `traditional` art the
reader read 6條 (three rows of two sticks) and 4筒 right where the classifier read 4條 and 5筒
(reader 0.5-0.8 for the right class, the classifier's choice 0.4-0.6 after the average), and the
average kept the classifier's answer. The weight was swept on every set at hand with the whole
recognizer (detections cached, everything after them re-run): 0.6 fixed 26 tiles and broke 4 on
the drawn sets and the adapt studies' test photos, and changed no tile of the valid split or the
pink session; 0.7 read red bodies (94.5% -> 93.9%), styles seen and face-down tiles worse and
lost a photo of the valid split. The suit reader's weight is now 0.6 (`vision/group_readers.py`
`READERS`, recognizer.json `inference.suit_reader.weight`); the character reader's stays 0.5."""},
    "join_parts": {
        "title": "A close tile boxed as its parts, joined again",
        "text": """Close up, the detector boxed a 4筒's circles one by one: the drawn close-ups' two worst photos each
answered four or three 1筒 and missed the 4筒, and the issue's real close-ups show the same with a
條's stick columns. The close-up passes (a shrunk photo, the close-up detector) did not find those
tiles whole. Now a group of the tiles the screening keeps that are read as the same 筒 or 條 tile,
lie together (gaps under half their short side), are each at most 0.4 of the box round them (two
real tiles side by side are half each), whose box is tile-shaped (at most 1.6 times as long as
wide) and holds no other tile (a block of real tiles, a pair above a pair, holds the block's other
tiles) is read again as one box, grown 15% each side; where the classifier is at least 0.8 sure it
is a tile of the same suit holding all their circles or sticks and the tile check gives it 0.5, it
replaces them (`vision/parts.py`, `Recognizer._join_parts`, `inference.join_parts`; null turns it
off). Before the tile-holding test, 2x2 blocks of real tiles on the valid split were such groups
(three 1筒 of one block read as a 4筒 at 0.93); with it no group of real tiles on any set passes."""},
    "join_unsure_parts": {
        "title": "Parts read as nothing sure, joined too",
        "text": """The join above asks only about parts read as one 筒 or 條 class. On the style study's close-ups
drawn again on 2026-12-06 (seed 0, the training fonts installed) the close-ups read 75.9% of their
tiles, and the commonest error was a close tile of circles on a coloured body boxed circle by circle
with each circle read as something else: a 5筒 on a black body as four 西 and a 白板 at 0.16-0.24, a
4筒 as three 白板 and a 梅 at 0.12-0.15. Such a tile is no class the classifier knows, and its parts
say so. Now kept boxes read under 0.4 (detector score x class probability), whatever their classes,
that no group of one class holds are grouped by the same tests (lying together, each at most 0.4
of the box round them, a tile's shape, no other tile inside), and the box round a group replaces
them where the classifier reads it at least `min_p` sure as a 筒 or 條 tile holding at least as
many circles or sticks as there are parts, and the tile check gives it 0.5 (`inference.join_parts.
unsure_below`; null asks only about parts of one class, as before). `min_p` went 0.8 -> 0.6 for
both kinds of group: a 6筒's six parts, read as 西, 白板, 梅 and 秋, read it at 0.68 round them,
and of the 26 candidates refused on the 15 sets below none read a 筒 or 條 tile at 0.6 or more
(0.54 at most, that one doubted by the tile check at 0.04)."""},
    "read_further": {
        "title": "A close-up read unsure, looked at from further",
        "text": """After both joins the close-ups were still the weakest drawn set (81.0% and 84.2% of tiles right),
and their commonest error was still a close tile boxed as its parts: a 5條's five stick clusters,
a 9筒's nine circles, an 8筒's eight, each boxed sure and tile-shaped, so that neither close-up
pass was asked (the first pass looked like a photo of normal tiles), and each read as nothing sure
(backs, 中, 夏 at 0.01-0.56). Shrunk to 0.25 of the scale the detector first saw the photo at, the
detector boxed every tile of the 11 close-ups it had missed tiles of, one sure box each.
What gives such a photo away is its reading, not its boxes: every tile read unsure. Now, where the
tiles the screening keeps are 2 to 16 and their median confidence (detector score x class
probability) is under 0.4, the detector looks again at the photo shrunk by 0.35 and by 0.25. A
shrunk pass's sure (0.25), tile-shaped boxes, at most six, those the tile check gives under 0.5
left out, replace the answer where they hold the first answer's tiles as parts (0.8 of them lie
0.6 or more inside one, and one holds two or more: a photo of tiles read unsure for their art
finds the same tiles again, one each) and are read surer by 0.15 (median confidence;
`vision/further.py`, `Recognizer._read_further`, `inference.read_further`; null turns it off).
It runs after the joins, only on photos read unsure, so a photo read surely costs nothing more."""},
    "read_further_each_whole": {
        "title": "From further, each whole replaces its own parts",
        "text": """The look from further replaces the whole answer or nothing: its boxes must hold 0.8 of the first
answer's tiles. A close-up of two or three tiles in a row also shows parts of their neighbours cut
by the photo's edge, and those parts, boxed as tiles too, lie in no whole box: on the close-ups
cut from drawn photos (`training/closeup_crops.py`) the shrunk pass boxed the three tiles of a
red-bodied 東, 7筒 and 2筒 whole and sure (0.64-0.76), and was refused for the circles of the cut
neighbour beside them (with the change below the 7筒 and the 2筒 replace their circles; the 東,
whose one part is no group, stays missed). Now, where no shrunk pass replaces the whole answer, each of its boxes that
holds two or more of the first answer's kept tiles as parts (each 0.6 inside it and at most 0.4 of
its area: two real tiles side by side are half each) and is read surer than their median by 0.15
replaces those parts alone, surest first; the rest of the answer stays (`vision/further.py`
`wholes_of_parts`, `inference.read_further.each_whole`; false: the whole answer or nothing, as
before). "before" is the look from further as it shipped first."""},
    "read_further_from_dropped": {
        "title": "From further, where the screening kept one tile or none",
        "text": """The look from further judges the first answer by the tiles the screening keeps, and asks for two
or more. A close tile whose parts are each read as nothing is often screened out whole: a 6條 of
the drawn close-ups was boxed at 0.3 over part of its face and read at 0.3 (0.09, under
`drop_below`), its three other boxes dropped as unread too, so the answer was empty and the look
never ran; a cut close-up's 8萬 came apart beside a sure 8筒, one tile kept. Now, where the
screening keeps fewer than two tiles, every box the detector found is the first answer the look
judges by (its median confidence, the parts a whole box must hold); the rest of the look is as
before (`inference.read_further.from_dropped`; false: kept tiles only). "before" is the look with
each whole replacing its own parts."""},
    "unlike_faces": {
        "title": "Faces unlike the photo's faces",
        "text": """Every face of a set is printed on one ground (white, ivory, a red or jade body), and ink covers the
smaller part of it: even a 1筒's big circle leaves its corners bare. Things on the table that the
detector takes for tiles have none of that ground: an automatic table's dark card holder and
carbon dial in the pink session, the green felt's woven texture above a row of standing tiles in
the valid split (six boxes in one photo), a dark patch in drawn scenes. The classifier reads them as
some face, unsure, and the tile check often passes them (a card holder at p(tile) 0.99). Now each
box's share of face pixels within 35 (8-bit Lab) of the median face colour of the photo's other
sure faces (three or more, read at 0.5 or more, not blank) is measured (`vision/face_ground.py`,
`inference.face_ground`), and a box read as a face (not a back or 白板) under 0.4 confidence with
under 0.02 of it is dropped (`inference.screen.unlike_share`, `unlike_below`; `face_ground` null
turns it off). Measured first on the boxes the screening kept, over 13 of the sets below and the
cut close-ups (15,908 boxes): of the 1,435 labelled tiles read as faces under 0.4, none lay under
0.02 (the lowest, 0.037, a 3條 of a valid photo read right at 0.09, lighter than its other faces), and
23 of the 578 unlabelled boxes read as faces did. At under 0.05 two right tiles and one wrong one
would go too; at a distance of 25 instead of 35, two right tiles lay under 0.02. Each face's
commonest colour (the mean of its fullest 16-wide Lab cell) in place of its median, meant for
photos of dense faces whose median is ink, did worse: 5 labelled tiles under 0.02 for 35
phantoms. Backs are left out: a set's backs are rightly another colour than its faces, and no
measure of a back box tried (its gap to the nearest tile, its neighbours, p(tile), the spread of
its grey levels) parted the pink session's four phantom backs (felt, card holders) from the 163
labelled backs of the drawn face-down photos and the cut close-ups."""},
    "blank_runs": {
        "title": "Face-coloured blanks in a row of faces",
        "text": """Blank faces by colour (below) reads a face-coloured box read as a back as 白板, but only where a
photo shows one such blank: a whole-body set's face-down tiles have the faces' colour too. So a
red hand holding two 白板 kept both as backs, the commonest error left on the drawn red hands
(white -> back on 10 of their 60 photos). Where a photo shows two or more, where each lies now
decides (`vision/blanks.py` `beside`, `inference.blank_faces.run_gap` 0.25; null: the count
alone): a blank in a row of face-up tiles (one beside it, the gap under a quarter of a tile's
short side, facing it over half its side or more) and beside no other face-coloured blank is a
白板 held in a hand; one beside another is in a run of face-down tiles (a concealed kong, a wall)
and one beside nothing (tiles scattered face down for a shuffle) is left as read. Tried first:
every blank beside no other blank read 白板, also those beside nothing. It read the drawn
face-down photos' scattered whole-body backs as 白板 (96.1% -> 95.3% right, two photos worse)."""},
    "read_further_twins": {
        "title": "From further, the same tile read surer",
        "text": """The look from further replaced only boxes a shrunk pass's box holds as parts. A close tile
boxed as itself (not as its parts) and read unsure stayed so: a red-bodied 2條 of a cut close-up,
boxed at 0.47 and read at 0.31 (0.15 in all), which the photo shrunk boxes at 0.75 and reads at
0.6. Now, after the wholes replace their parts, each remaining
first box that a shrunk pass boxes again as the same tile (intersection over union 0.6 or more)
and reads surer by `margin` (0.15) takes that box and its reading (`vision/further.py`
`surer_twins`, `inference.read_further.twins`, `twin_iou`; false: parts only). The look still runs
only on photos whose few tiles are all read unsure. "before" is the look as shipped before,
with faces unlike the photo's faces and blanks in a row of faces."""},
    "loose_boxes": {
        "title": "A loose box round a lone tile, drawn tight",
        "text": """On the red adapt study's test photos a loose tile of the red-bodied set was boxed with table all
round, 1.5-2.6 times its area: after `adapt --folder` 8 of the 16 tiles still missed were such
boxes (IoU 0.33-0.49 with the tile, so the tile missed and the box an extra), and many more were
matched only just (IoU 0.5-0.6), their crops framed looser than the classifier learnt. The detector
was not tuned by adapt (the five photos showed it no error), and the quarters' tighter boxes could
not be told from the first pass's by any gate ("Loose tiles standing about 20 px"). Now a box the
detector is less sure of than 0.8, that no other box overlaps, whose four edges look like the strip
just outside them, is read against the ring of table round it (25% of its size, other boxes left
out): the pixels differing from the table more than the table differs from itself (1.5 times its
95th percentile, at least 15) make the tile, and where the largest blob of them lies clear of
the box's edges, fills 0.6 of its bounds and 0.85 of its rotated rectangle, is a tile's shape
(short side at most 0.85 of the long) and 0.3-0.75 of the box, its bounds replace the box before
anything reads it (`vision/loose_boxes.py`, `inference.tighten`; null: boxes as found). A
squashed photo is left alone. Without the rotated rectangle's tests, a 1筒 of a white set on a
light cloth and of a red set on red felt was boxed as its circle, and 7 tiles of the valid split
were lost."""},
    "same_tile": {
        "title": "One tile boxed twice",
        "text": """The screening drops a box lying mostly inside a bigger box the detector is at least as sure of. A
close-up 1筒's circle, boxed at 0.72 inside the 1筒's own box at 0.28, was kept beside it: one
tile twice in the answer. The drawn sets held five such pairs, both boxes read as the same class,
one at least 0.7 inside the other; in four the smaller box was the labelled tile (the bigger one a
loose box round it), in one the bigger. In all five the box whose crop the classifier read more
surely was the labelled one (it learnt tiles framed whole), with or without the join of a close
tile's parts before it; the detector's score times that probability picked the circle over its
1筒 where the parts were not joined. But `make bench-zoom` then lost a tile: a loose box the
detector scored 0.24, over a 3筒 and its neighbour, read 3筒 at 0.95, round the 3筒's own box
scored 0.74 and read 0.92. Now, of two kept boxes read as the same class with one at least
`same_tile` (0.7) inside the other, the one the classifier reads less surely by
`same_tile_margin` (0.15) or more is dropped, and within that margin the one the detector scores
lower (`vision/screen.py`, `inference.screen.same_tile`; over 1 turns it off). The drawn pairs
differ by 0.20-0.42, the bench's by 0.03. Read as two classes, they are left to the rules before."""},
    "flower_round_4": {
        "title": "The flower reader's fourth round",
        "text": """On the drawn sets the flowers and seasons are the weakest group (77% of styles seen read right, 77% of
red bodies), and their errors stay inside the group: a season read as a plant or one plant as
another, the classifier's group call right. The reader had a fourth round of 30 min from its own
weights at a lower peak learning rate than the third (0.0002), on the same training data
(`python -m vision train --models <copy> --skip-detector --skip-closeup-detector --skip-classifier
--skip-character-reader --skip-suit-reader --skip-verifier --flower-init <copy>/flower_reader.pt
--flower-lr 2e-4 --flower-minutes 30`, 63 epochs, 2976 steps); on crops cut at the labelled boxes
its tiles right went 84.0% -> 87.1% on the held-out style and 93.6% -> 94.8% on the valid split's
real flowers (styles seen 87.5% -> 87.1%). It ships: the whole recognizer reads no set worse."""},
    "flower_round_no_number": {
        "title": "The flower reader says when no number is printed",
        "text": """Every season, 梅 and 蘭 print their own number and 菊 and 竹 3 or 4 as the set chooses, so the
default table takes a flower's tile from the number read 0.6 sure (`vision/tilesets.json`). Some sets
print a flower's name alone (xmahjongg's scanned set), and the reader's number head, with four answers
only, read a number off each of them: on xmahjongg's faces 梅 4 at 0.90, 菊 4 at 0.97, 竹 4 at 0.96, so
a 竹 read right became 8f. Drawn flowers that print their name alone (one style in five) only skipped
the number's loss. The head now has a fifth answer, "no number printed" (`training/train_flower_reader.py`
`with_none`: the four numbers keep their weights, the fifth starts below them), taught on those drawn
flowers and, in `adapt`, on the rehearsal flowers; the four numbers get only what the reader leaves
them (`vision/flowers.py` `merge`), so a number it doubts is printed falls under 0.6 and the name
decides. Drawn names are now printed in red or green three times in ten too (xmahjongg writes 春夏秋冬
in red). The round: 35 min from the shipped reader's weights, peak lr 0.0002, seed 11 (2388 steps of
64, two cores shared with other work part of the time). On crops cut at the labelled boxes, before ->
after: flowers printing no number said "none" 0% -> 98.4% (held-out style) and 0% -> 87.5% (styles
seen); printed numbers read 97.9% -> 93.8% and 97.5% -> 96.2%, the valid split's real ones 96.0% ->
94.8%; tile right 84.8% -> 84.8%, 81.2% -> 87.5% and 94.8% -> 94.2%. On xmahjongg's scanned set the
fifth answer did not carry over (its flowers still read as printing 1-4, at 0.56-0.95), and read by
their names alone they are still wrong (梅 read 冬, 蘭 read 菊, 菊 read 竹): 19 of its 51 flowers right
before and after. By the number they print (what scoring uses; `training.style_study.score_folder` on
the same photos): held-out style 74.5% -> 78.7% (35 -> 37 of 47); styles seen 80.9%, red bodies
83.0%, ivory 86.8%, close-ups 2 of 4, face down 77.1%, the valid split 98.3%, xmahjongg 37.3% and
KDE `traditional` 2.0% unchanged. In the whole recognizer (below, where a flower is right when
its class is: the season or plant read, not the tile its number makes) photos exactly right rose on two
sets and fell on none; two 筒 or 條 tiles the classifier put half among the flowers, so that the
reader was asked, are read wrong now (one of the held-out style, one of the red bodies), and six
flowers more are read right. It ships: by print no set reads a flower worse."""},
    "flower_round_english": {
        "title": "Flower names printed in English",
        "text": """Sets sold abroad, and computer sets, print a flower's name in English, often with no number and no
Chinese name: SPRING or SPR, SUMMER or SUM, AUTUMN, AUT or FALL, WINTER or WIN, PLUM, ORCHID, ORCH or
ORC, CHRYSANTHEMUM, MUM or CHRYS, BAMBOO or BAM. The reader had never seen one, and read KDE's
`traditional` art by its pictures: 7 of its 51 flowers right on crops cut at the labelled boxes, 2.0%
in the whole recognizer. The procedural sets now print English names in about one style in three
(`training/procedural.py` `ENGLISH_NAMES`, `english_name`: alone, or beside the Chinese name; whole
words or cut short; along the bottom or the top edge, the name and number then in the other edge's
corners; in plain and bold sans and serif faces of fonts-dejavu-core and fonts-liberation). Two rounds
from the shipped reader's weights, 35 min each at peak lr 0.0002: the first (seed 12) with a quarter
of the styles in English and three bold faces; the second (seed 13, from the first) with a third and
eight faces. After the first, KDE's flowers read on crops 7 of 51 as before and the whole recognizer's
flowers by print fell on xmahjongg's set (37.3% -> 29.4%) and the held-out style (78.7% -> 74.5%): it
was not installed. After the second, on crops: KDE's 22 of 51 (冬 7 of 8, 蘭 4 of 4, 竹 4 of 5; 春 read
冬 7 times, 菊 read 梅 7 times), the number head saying "none" on 32 of them (KDE prints no number); drawn
crops of the held-out style with English names among them 65.2% -> 73.4% tile right, styles seen 86.7%
-> 86.3%, the valid split's real flowers 94.2% -> 93.6% (one crop). In the whole recognizer (below),
the classifier still decides whether a tile is a flower, and it puts only 16 of KDE's 51 flowers in
the group (at least half its probability), so KDE gains one flower: the reader is not asked about the
rest. By the number printed (`training.style_study.score_folder`): xmahjongg 37.3% -> 39.2%, red bodies
83.0% -> 85.1%, ivory 86.8% -> 92.1%, close-ups 2 -> 3 of 4, face down 77.1% -> 80.0%, styles seen 80.9%
unchanged, the held-out style 78.7% -> 74.5% (35 of 47 against 37). Photos exactly right rose on four
sets and fell on none; tiles right rose on seven and fell on one (styles seen, 96.9% -> 96.6%: a 冬 and
two 竹 read as other flowers, one 竹 mended). The valid split and the pink session read the same. It
ships. Left: the classifier's share, for a set whose flowers it cannot tell from suit tiles, and the
held-out style's two flowers by print. KDE's art, its words and this measure were looked at while
choosing the words and fonts, so KDE's gain is measured where it was chosen."""},
    "flower_min_group": {
        "title": "The flower reader asked from a third of the classifier's probability, not shipped",
        "text": """After the English round above, KDE's flowers were still mostly not asked about: the reader reads a
tile only where the classifier gives the flowers together at least half its probability
(`inference.flower_reader.min_group` 0.5), and it gave 16 of KDE's 51 that much. Tried with 0.3 (the
shipped models otherwise, the same photos, 2026-12-07): KDE's flowers 3.9% -> 7.8% (two more), one of
its 筒 or 條 read wrong, tiles right 88.6% -> 88.7%; on styles seen one extra fewer; no other set
changed a tile. Asked, KDE's flowers still join the classifier's reading of the group at the
reader's weight 0.5, and the classifier reads most of them as other flowers. A threshold that moves
two tiles of the one set it was tried for is not shipped: 0.5 stays."""},
    "classifier_round_english_not_shipped": {
        "title": "A fourth classifier member on today's drawn sets, not shipped",
        "text": """The drawn sets' commonest errors left are the classifier's: a 1條 bird of an art it never saw read
as a flower (three photos of the held-out style, nine of the red-bodied draw, at 0.1-0.3 confidence),
and KDE's flowers, which print an English word under a picture, put in the flower group 16 times of
51, so that the flower reader (which learnt English names at stop 60) is asked about few of them. No
classifier member had trained on the procedural sets since the flower styles gained English names.
A round: 40 min from the ensemble's first member, as each member before it, peak lr 0.001, seed 4,
13 epochs on two cores, `training/train_classifier.py` `train_classifier` on the classifier data of
2026-12-07. On crops cut at the labelled boxes (float weights): the held-out style's 17 1條 read right
by the members 41%, 47% and 53% (first, brush, red fives) and by the new one 65%; styles seen 67%,
80%, 87% and 73%; KDE's 51 flowers given at least half the flower group's probability 37%, 31%, 49%
and 33%: the English names did not teach the classifier KDE's flowers. Three ensembles were read
whole (python -m training.decision_study, every other model as shipped): the new member fourth and
leading the cascade ("after" below); fourth with the red-fives member still leading (the same pink
session and red adapt study losses, but only the held-out style +1 photo exactly right and red
bodies +1 all right); and in the red-fives member's place, three members as now (the pink session's
萬 98.6% -> 98.1%, photos all right 91.4% -> 88.6%). With the new member leading, the drawn sets gained
five photos exactly right (styles seen +2, held-out, red bodies and face down +1 each) and KDE's and
xmahjongg's sets a few tiles, while the real photos lost one: on the pink session IMG_2772's part of a
tile boxed inside another, read 2筒, now at confidence 0.122 against 0.113, just over
`flag_drop_below` 0.12 (`tests/fixtures/vision-flagged-unread`); the valid split holds that photo
too, and besides it an extra 4萬 box at a photo's bottom edge made one photo wrong while another lost
its extra 9條; the red adapt study read a 1筒 as 夏. With `flag_drop_below` off, the lowest
flagged box on a labelled tile read right is at 0.168 on these eleven sets with either classifier;
the threshold was not moved for the one box (the card's rule, and a drawn 菊 once flagged at 0.134).
Not shipped: the one real unfamiliar set loses a photo for five drawn ones, and a fourth member
makes the cascade's second step a third longer. The weights were not kept."""},
    "suit_round_2_not_shipped": {
        "title": "A further suit reader round, not shipped",
        "text": """After the flower reader's fourth round the suit reader had one too: 30 min from its own weights at
peak lr 0.0002 (`python -m vision train --models <copy> --skip-detector --skip-closeup-detector
--skip-classifier --skip-flower-reader --skip-character-reader --skip-verifier --suit-init
<copy>/suit_reader.pt --suit-lr 2e-4 --suit-minutes 30`, 47 epochs, 3143 steps; on crops cut at the
labelled boxes 99.2% of the valid split's real 筒 and 條, 99.8% of the held-out style's, 99.5% of
styles seen). The whole recognizer read KDE's art and the valid split a little better but red
bodies worse and made an extra on the pink session, so the shipped reader stays. "after" is the
recognizer with it in place of the shipped one."""},
    "flower_round_english_not_shipped": {
        "title": "A flower reader round on flowers that print English names, not shipped",
        "text": """KDE's `traditional` art prints its flowers and seasons as a picture over an English name (SPR, SUM,
AUT, WIN, PLUM, ORC, MUM, BAM), as sets made for Western players do, and the whole recognizer read 1
of its 51 right. For this round the procedural sets printed the names in English in one style of
five (whole, cut short or in title case; across the bottom, the number then in a top corner, or in
the name's corner), and the flower reader had a round on them: 25 min from its own weights at peak
lr 0.0003, seed 5 (`training/train_flower_reader.py` `train_flower_reader`, 1939 steps). On crops cut
at the labelled boxes the valid split's real flowers 94.8% -> 95.4%, the held-out style (drawn anew,
with English names among its styles) 60.5% -> 70.3%, styles seen 87.1% -> 85.5%. The whole
recognizer, "after" with it in place of the shipped reader, every other model as shipped, on cached
detector boxes: KDE's flowers stayed at 2.0%, because half of them never reach the reader (the
classifier puts a butterfly 春 among the 條, a sun 夏 among the 萬, below half its probability among
the flowers), and those that reach it were still read as other flowers; the drawn sets lost flowers
(held-out style 100% -> 96.9%, red bodies 79.1% -> 74.4%, face down 92.5% -> 87.5%). So neither the
reader nor the English names in the procedural sets were kept: the classifier would have to learn
such flowers as flowers first."""},
    "detector_scores_not_shipped": {
        "title": "A detector round that trains its scores alone, not shipped",
        "text": """The detector rounds before this one lost real photos that the shipped detector reads right, and
part of that loss was the framing: the readers were tuned on the shipped detector's boxes, and
boxes 3% larger cost the pink session a tenth of its photos all right. This round kept the
framing by design: only the detect head's score branch learnt (`gpu_round train --runs
cpu_scores`: every layer but `model.23.cv3` frozen, the box branch and its distribution layer
included, and every BatchNorm statistic kept as `adapt` keeps them), so every candidate box stays
where the shipped detector draws it, and only which of them score high may change. The branch holds 49k of
the network's 2.59M weights. Pack: `gpu_round pack --pseudo models --procedural 800 --photo-seed
51 --hard-tables 0.3 --face-down 0.3 --table-parts 0.3` (the train photos with pseudo labels and
800 new procedural photos, 17 min); then `train --runs cpu_scores --device cpu --threads 2
--minutes 50 --batch 16 --every-epoch` (AdamW, lr 0.0005, no warm-up; 3 min an epoch on
the 2150 photos). It was stopped after epoch 4 because the real photos had
lost from epoch 1 on (notes). Each epoch was exported int8 as the shipped detector is; the
shipped weights exported the same way read the pink session box for box as shipped. "after" is
epoch 4 in place of the shipped detector."""},
    "flower_other_not_shipped": {
        "title": "A flower reader that also says \"no flower\", not shipped",
        "text": """On the drawn sets the classifier read a 條 tile as a flower 31 times, most often the 1條 bird (a
picture, as the flowers are), and the issue's real Taiwanese set had a 菊 read as 7筒: whether a tile is a flower is
the classifier's call alone, and the flower reader, which reads only crops the classifier puts
among the flowers, can say which flower but not whether. For this round the reader was given a ninth
class, "no flower" (commit 7a84bab; `python -m vision train --flower-other`): a quarter of each
batch was every other face and a back, the 1條 bird three times as often, from 12 procedural sets
drawn fresh each epoch and 2040 crops of the data set's train photos. The pipeline pooled the
reader's 1 - p(no flower) with the classifier's flower mass by the reader's weight (0.5), the other
classes sharing the rest as the classifier spread it, and asked such a reader also about crops the
classifier was under 0.5 sure of that held 0.15 of flower mass or more. The round: 35 min from the
shipped reader's weights at peak lr 0.0003, seed 9 (39 epochs, 1826 steps). On crops cut at the
labelled boxes it said "no flower" of 98% of the valid split's other tiles and 88% of the held-out
style's, but of 2.9% of the valid split's real flowers too, and it read flowers worse (tile right:
valid 94.8% -> 93.6%, held-out style 91.0% -> 87.5%, styles seen 91.0% -> 88.7%, on this seed's
draws). In the whole recognizer the birds it was made for went the other way: where the classifier
read a 1條 bird first but held half its mass among the flowers, the reader said "flower" and the
pooled mass brought a flower on top. Over all sets 35 labelled tiles were broken and 18 mended;
without the doubtful crops (`doubt_group` null) the pink session was as before but the drawn sets
were not (styles seen 95.8% -> 94.7%, red adapt study 96.3% -> 95.95%). Neither the reader nor the code was kept
(the next commit takes it out); a reader that judges whether would need to tell a bird from a
flower far better than 88% first. "after" is the recognizer with this reader in place of the
shipped one, asked about the doubtful crops too."""},
    "character_reader_rows_not_shipped": {
        "title": "The character reader trained on tiles lying in a row, not shipped",
        "text": """The readers learn mostly from procedural crops, each a tile drawn alone on a table, where a real
crop of a hand (the box and a fifth of it round each side) shows slices of the neighbours' faces in
its margin. The shipped character reader reads the pink session's 七萬 lying between two neighbours
(IMG_2768) as 伍萬 at 0.65. So 60% of the procedural crops not askew were drawn lying in a row
(each side's neighbour, there 85% of the time, a random tile of the same set, touching or up to 5%
of a tile apart, a row's slight waver), and the reader had a further round from its own weights
(30 min, 1917 steps of 64 on two cores shared with other work, lr 0.0002, seed 7). Alone on crops cut
at the labelled boxes: the valid split's real 萬 98.95% (the shipped reader 99.1%), the held-out
style and the styles seen 100% (288 each). It read IMG_2768's 七萬 伍萬 surer (0.65 -> 0.78). "after"
below is the recognizer with it in place of the shipped reader, every other model as shipped."""},
    "sticks_rounds_not_shipped": {
        "title": "Sticks that touch, flare or take two inks: a suit reader round and a classifier round, not shipped",
        "text": """KDE's `traditional` art (never trained on) was read 88.5% right, and its largest error was 6條 read
4條 (21 times): two columns of three short sticks touching end to end, their ends flared, one column
grey and one green, pushed away from the index in the top right corner. The classifier read them 4條
at about 0.45, the suit reader pulled them toward 6條 but not past it. Its 白, a frame with a band of
checks, was read 1條 or 8條 (17 times). Real sets draw those ways too, so the procedural styles were
given them (commit 3c3e7f6): sticks with flared ends (3 sets in 10), sticks as long as their rows'
pitch (3 in 10), the left column in a second ink (4 in 10), the layout drawn at 0.86 of the face away
from a corner index (half the sets that print one), and a 白 of checks (two in five framed sets).
On that data the suit reader had a further round, 30 min from its own weights at peak lr 0.00015,
seed 6 (`training/train_group_reader.py` `train_group_reader`, 37 epochs, 2429 steps; on crops cut at
the labelled boxes the valid split's real 筒 and 條 98.97%, against 99.2% for the shipped reader), and
the classifier's leading member a round of 40 min from its own weights (the red fives' member) at peak
lr 0.0005, seed 7 (`training/train_classifier.py` `train_classifier`, 10 epochs; 99.37% of the valid
split's crops), installed in its place beside the other two members. Measured on the cached detector
boxes of every set, every other model as shipped. "after" below is the recognizer with the new suit
reader alone in place of the shipped one."""},
    "flower_round_5_not_shipped": {
        "title": "A flower reader round on flowers that print names alone, not shipped",
        "text": """xmahjongg's scanned real set prints each flower's name (春, 梅, ...) and no number, and the whole
recognizer read 18 of its 51 flowers right: it went by the pictures. The procedural sets now print
names alone in one style of five (`procedural.py` `flower_number`; such a flower teaches its name
and no number), and the flower reader had a fifth round on them: 30 min from its own weights at
peak lr 0.0002 (`python -m vision train --models <copy> --skip-detector --skip-closeup-detector
--skip-classifier --skip-character-reader --skip-suit-reader --skip-honour-reader --skip-verifier
--flower-init <copy>/flower_reader.pt --flower-lr 2e-4 --flower-minutes 30`; 1584 steps, half the
last round's, the two cores shared with the measuring). On crops cut at the labelled boxes the
valid split's real flowers 94.8% -> 95.4%, styles seen 87.1% -> 91.4%, the held-out style 87.1% ->
85.5%. The whole recognizer read flowers worse on red bodies, the seed-5 face-down draw and the red
adapt study, and xmahjongg's names no better (18 of 51 by print either way), so the shipped reader
stays. "after" is the recognizer with it in place of the shipped one, on the same cached detector
boxes; flowers by print (`style_study.score_folder`'s rule on the cached readings): styles seen
(seed 5) 97 -> 100 of 120, red bodies 33 -> 31 of 43, face down (seed 5) 91 -> 88 of 109."""},
    "detector_hard_tables": {
        "title": "A detector round on hard tables, not shipped",
        "text": """The drawn sets' misses are tiles the detector never boxed: six ivory tiles lying on big dark print, red
tiles on a table of almost their colour. A round was fine-tuned from the shipped detector on this
machine's two cores (the GPU lent to this task could not be had: new loans were paused):
`python -m training.gpu_round pack --pseudo models
--procedural 1200 --photo-seed 31 --hard-tables 0.3`, then `python -m training.gpu_round train --runs
cpu_ft --device cpu --threads 2 --minutes 62 --batch 16` (AdamW, lr 0.0005, no warm-up, 18 epochs in
63 min, the best by the valid half's mAP50-95 kept), on the train photos with pseudo labels and
1200 new procedural photos, 30% of them on bold dark print or a cloth of the tiles' own colour
(`scenes.table_top`). It is not shipped: the real photos lost what the drawn ones gained (notes
below the table), and "after" is the recognizer with it in place of the shipped detector."""},
    "detector_face_down": {
        "title": "A detector round with face-down runs, each epoch judged by the whole recognizer, not shipped",
        "text": """The detector rounds before this one were picked by the valid half's mAP, which rose while the real
photos read worse. This round kept every epoch's weights (`python -m training.gpu_round train
--every-epoch`) so that each could be judged by the whole recognizer, and its procedural photos
showed runs of face-down tiles (`gpu_round pack --face-down`), which no detector round had drawn:
`pack --pseudo models --procedural 800 --photo-seed 41 --hard-tables 0.3 --face-down 0.3`, then
`train --runs cpu_ft --device cpu --threads 2 --minutes 50 --batch 16 --every-epoch` (AdamW, lr
0.0005, no warm-up, 8 epochs in 50 min on two cores shared with an adapt run), fine-tuned from the
shipped detector on the train photos with pseudo labels and the 800 new photos. Each epoch was
exported int8 as the shipped one is and put in its place. No epoch kept the pink session (notes);
"after" is the last epoch."""},
    "adapt_pink": {
        "title": "`adapt --folder` on a real set: five photos of the pink session",
        "text": """The first measure of `adapt` on real photos of a set the models never saw: five of the pink
session's 35 photos (every seventh from the fourth, by name: IMG_2745, 2752, 2759, 2767, 2774;
IMG_2745's 六萬 labelled as it is printed, `training/label_fixes.json`) as the player's corrected
photos, `python -m vision adapt --folder` on a copy of the shipped models (1207 s on two cores),
scored on the other 30. The run had the detector's composed and rehearsal photos on (40 each, the
section below; they were on by mistake, and are off as shipped). The classifier was kept (held
crops 100% -> 94.7% with the tuned one), the tile check too (0 -> 0 errors), the close-up
detector skipped (fewer than two photos of at most six tiles); the detector was installed (held
photo 1 -> 0 errors, the 10 photos composed of its tiles 18 -> 4; 453 s). As shipped, without
composed photos, the detector tuned on four of the photos erred more on the held one (1 -> 3) and
was not installed: as shipped, `adapt --folder` keeps the classifier and the detector there."""},
    "adapt_half_check": {
        "title": "The held check tunes half as long",
        "text": """Since the held check of two photos in turn (the section below), `adapt --folder` tunes each model
three times: once without each held photo, to judge whether tuning helps, and once on every
photo, the model it installs. Fine-tuning is almost all of its time (under the profiler on KDE's
`traditional` art, 829 of 848 s: the classifier's three tunings 135 s each, the readers' eleven 38 s
each). The check's models are never installed, and the question they answer, whether the
player's photos teach the model to read their other photos better, does not need the full
length: they are now tuned half as many steps (`training/adapt.py` `CHECK_SHARE`); the model
installed is tuned as before, so where the check decides the same, the same weights are installed.
One calibration photo has no held photos and is judged on the model it installs, at full length,
as before. On KDE's art the classifier and the four readers were installed either way, their
weights byte for byte those of the full check; 843 -> 690 s (the full check's run under the
profiler). On the red-bodied set the classifier, the 萬 and the 筒/條 readers were installed and the
flower reader kept either way, the same weights; the honour reader, installed by the full check by
a hair (mean probability of the right class 0.971 -> 0.972), was kept by the half-length one
(0.971 -> 0.963), and the test photos read the same with either; 1011 -> 621 s, one run after the
other on two cores. "before" is `adapt --folder` with the full-length check, "after" with the
half-length one, on copies of the shipped models and the same five photos, scored on the study's
40 test photos."""},
    "held_check": {
        "title": "The held check of `adapt`: two photos in turn, by probability",
        "text": """`adapt` installs a tuned classifier or reader only where it reads a held part of the player's
photos better than the one installed. That part was one of the five photos (15 to 20 tiles; a
reader saw one to eight of its group's), judged by the share of four jittered looks at each tile
read right, so two or three looks decided. On xmahjongg's scanned set the tuned classifier read
the held photo's 15 tiles 85.0% against 88.3% (51 against 53 looks of 60) and the shipped one was
kept; installed regardless (measured on a copy), the tuned one read the test photos 93.4% ->
97.7%. A reader saw fewer still: on the pink session the character reader was installed on 5
held 萬 (90% -> 95% of 20 looks). Now two photos are held out in turn, each left out of one
fine-tuning (`training/adapt.py` `held_folds`), the held tiles are read in 16 looks a tile (the
classifier's at tiles drawn at random, a reader's 16 of each), and the score
is the mean probability given to the right class (a flower whose number is known: to its group
times to its number), which a look or two does not flip (`held_reading`, `pooled`); the readers
are judged on the same photos (a photo holding none of a reader's tiles is skipped). One
calibration photo is judged on its own tiles in other looks, as before. The score favours a
sharper model where two read equally right (a proper score, log loss or Brier, would not). On the
photos below it installed the classifier where that helped xmahjongg's set, installed it on KDE's
`traditional` art as the old check did (the same figures; 1020 s against 755 s, both on cores
shared with another run), and kept it on the pink session, where installing it regardless (measured on a copy) mended three tiles (both 七萬
read 伍萬, a 二萬 read 三萬) and broke three (two 西 read 南, a 伍萬 read 一萬), with three
extras more. What it costs: one fine-tuning more for each model: `adapt --folder` on two cores
325 -> 807 s on xmahjongg's set (600 s with the readers judged the old way), 616 s on the pink
session (552 s with the old check, on cores shared with another run). "before" is `adapt --folder`
with the old check, "after" with the new, on the same models and photos."""},
    "detector_adapt_composed": {
        "title": "The detector's adapt from photos composed of the player's tiles, not shipped",
        "text": """`adapt --folder` fine-tunes the detector on the player's confirmed photos, but five photos are ten
optimizer steps of one arrangement at one scale, and on the red-bodied adapt study the tuned
detector never beat the shipped one on its held photo, so it was never installed. Tried: every
confirmed tile cut out and the cut-outs laid anew (`training/adapt_paste.py`: touching rows or
loose, other sizes, quarter turns, on a tile-free piece of the player's table or a drawn one,
boxes exact), 40 such photos beside the five, and 40 procedural photos of other sets as
rehearsal: `python -m training.adapt_study --set procedural-red --seed S --detector-only
--det-pasted 40 --det-rehearsal 40` (10 epochs, lr 0.001, 416 px; 345 s on two cores for both
fine-tunes). On both of the study's draws of 40 test photos its check passed and `adapt`
installed it; the rows are the recognizer with it, the classifier as shipped. Not shipped: one
draw gained 2 points of tiles right and the other lost 7, and the outcome swings more with the
draw of composed photos than between the settings tried (notes)."""},
    "detector_int8": {
        "title": "The detector in int8",
        "text": """The detector took half of a median photo's time: 23 of 49 ms for the valid split's middle 80 photos
(the classifier's two networks 10 ms, the tile check 3, the readers 3, the rest cutting crops), and
`make bench-peer` sat at a ratio of about 1.0 to the peer. It now ships in int8 (ONNX Runtime static
quantization, QDQ, weights per channel, `training/quantize.py` `quantize_detector`), calibrated on 96
train photos letterboxed to 416 x 416 (they are square: as serving feeds them), ranges from the
99.999th percentile: 23.4 -> 14.2 ms a photo (0.62x) on this machine's VNNI cores, 10.4 -> 4.4 MB.
The head's decoding stays float (it concatenates box pixels with scores, which one 8-bit scale
cannot hold), and so do the head's convolutions but its class branch's depthwise ones (19 of the
network's 88 convolutions stay float). `make train`
quantizes the detector it trains; `adapt` quantizes a tuned one on the photos it was tuned on
before it is scored against the installed one, so the detector it installs is the one it scored.
Boxes move about 0.2 px on average (95% under 0.7 px), scores 0.008; the notes say what that did
to the readings, and why `flag_not_tile` went 0.4 -> 0.5."""},
    "blank_faces": {
        "title": "Blank faces by colour",
        "text": """From above, a face-down tile and a 白板 are both a blank rectangle; on a real set
colour tells them apart, a set's backs being a layer of another colour than its faces. The
classifier does not know the colours of a set it never saw, and read the drawn red-bodied set's
blank 白板 as backs: 11 of its errors on the style study's red draws, 33 -> 42 the commonest. Now a
box read as a back whose face (the median colour inside its box, less a fifth of each side) lies
within `face_like` (20, OpenCV 8-bit Lab) of the photo's faces is read 白板: its back and 白板
probabilities swap (`vision/blanks.py`, `inference.blank_faces`). The faces' colour is the median
over the boxes read as a face-up tile at 0.5 or more, at least three. A whole-body set (one colour
through) shows its backs in its faces' colour, and there a back and a frameless 白板 look the same;
face-down tiles come in runs (a concealed kong, a wall) and a 白板 most often alone, so only a
photo's one face-coloured blank is read 白板 (`max_white` 1), two or more are left as read."""},
    "red_fives": {
        "title": "Red fives (aka dora): a third classifier member and a suit reader round",
        "text": """Japanese sets print one 5萬, 5筒 and 5條 each all in red, and some Taiwanese sets a red 伍萬. Models
trained without them read a red 5筒 as 6筒 and a red 5條 as 7筒, 9條 or a flower: its colour is
6筒's and 7筒's, its count 5. Now a fifth of the procedural fives in the classifier's and the group
readers' data are drawn red (`procedural.maybe_red_five`, `train_classifier.RED_FIVE_SHARE`). The
suit reader had a further round on that data (see its section), and the classifier a third
member: fine-tuned from its first member on that data, seed 3, which leads the cascade (reads every
crop first); the three members' probabilities are averaged where it is under 0.9 sure."""},
    "flagged_unread": {
        "title": "A flagged box nothing reads is no tile",
        "text": """The screening flags a box it doubts is a whole tile (the tile check's doubt, a box inside another
tile, a tile cut by the photo's edge, a box across two tiles, a blank face on an unsure box) and
keeps it for the player to check. A box the classifier also cannot read was kept all the same
where the detector scored it 0.5 or more (`sure_box`: a real tile of a class the classifier was not
adapted to reads unsure): the pink session's automatic-table plate read as a back at 0.11, part of
a tile boxed inside it and read 2筒 at 0.11, a 5萬 cut by the photo's edge at 0.11 (the issue names a
sliver at the photo's edge kept as 白板 at 0.06). Now a flagged box that reads under `flag_drop_below` (0.12, detector score x class
probability) is dropped (`vision/screen.py`, `inference.screen.flag_drop_below`; 0 turns it off).
Over the thirteen sets of photos below, flagged boxes on a labelled tile read right reach down to
0.134 (a drawn 菊 the tile check doubted); the one flagged labelled box under 0.12 was a 冬 read
as a back at 0.067, wrong either way (now missed instead). Unflagged boxes are left to
`drop_below` as before."""},
    "set_copies": {
        "title": "A photo shows one set: no tile more often than it holds",
        "text": """The classifier reads each box on its own, so two flowers of an art it never saw could both read 春,
though a set holds one of each flower and four of every other tile: the answer then held a tile
the set does not have, and the engine refuses such a hand. Now, where the tiles the screening kept
read a class more often than `copies` in `vision/classes.json` allows, the surplus boxes move, one
at a time: of the boxes of an over-full class, the one that loses least log-probability goes to
its likeliest class with room (`vision/copies.py`, `inference.set_copies`; false for a photo of two
sets mixed). The probabilities are left as read, so a moved tile's confidence is its new class's
probability, under the flagging confidence: the player is asked to check it. 白板 has no limit, as
sets carry spares (two photos of the valid split show five), and nor do face-down tiles."""}
}


# the columns of a decision study's table: each row's key (key_before, key_after) and its title
DECISION_COLUMNS = (("wan", "萬 right"), ("suits", "筒 and 條 right"), ("flowers", "flowers right"),
                    ("tiles", "tiles right"), ("found", "tiles found"), ("all", "photos all right"), ("exact", "photos exactly right"),
                    ("extras", "extras"))


def _decision_sections(info: dict) -> str:
    return "".join(_decision_section(info.get(key), text) for key, text in DECISION_STUDIES.items())


def _decision_section(study: dict | None, text: dict) -> str:
    """One change to how the recognizer decides: what changed, and the whole recognizer before ->
    after per set of photos, with the tiles of each group."""
    if not study:
        return ""
    rows = "".join(f"| {r['name']} | " + " | ".join(f"{r[k + '_before']} -> {r[k + '_after']}" for k, _ in DECISION_COLUMNS)
                   + " |\n" for r in study.get("rows", []))
    notes = _notes(study)
    return f"""## {text['title']} ({study.get("date", "")})

{text['text']} The whole recognizer before -> after:

| photos | {" | ".join(title for _, title in DECISION_COLUMNS)} |
|---|{"---|" * len(DECISION_COLUMNS)}
{rows}{notes}
"""


def _detector_int8(info: dict) -> str:
    n = info.get("det_int8_photos")
    if not n:
        return ", fp32"
    return (f", int8 after ONNX Runtime static quantization calibrated on {n} train photos, its head's decoding "
            "and most of the head's convolutions float (`training/quantize.py`; \"The detector in int8\")")


def _closeup_row(info: dict) -> str:
    c = info.get("closeup_detector")
    if not c:
        return ""
    return (f"| `detector_closeup.onnx` | the detector fine-tuned {c.get('epochs')} epochs ({c.get('minutes', 0):.0f} min) "
            f"with close-ups of one to three tiles (`python -m vision train`, close-up stage; one-class mAP50 "
            f"{c.get('map50_1class', 0):.3f}): asked only about photos whose first pass may be of a close-up, its "
            f"answer kept only when surer (`inference.closeup_detector`); fp32 | as `detector.onnx` | "
            f"{info.get('detector_closeup_mb', 0):.1f} MB |\n")


def _closeup_line(info: dict) -> str:
    if not info.get("closeup_detector"):
        return ""
    return ("A photo whose first pass may be of a close-up (at most six sure boxes, or any of the above) is also "
            "read by `detector_closeup.onnx`, and its answer replaces the others where it is surer by 0.05 "
            "(`inference.closeup_detector`). ")


def _verifier_row(info: dict) -> str:
    v = info.get("verifier")
    if not v:
        return ""
    t = info.get("verifier_tables")
    what = (f"two small CNNs asked together, p(tile) the geometric mean of theirs (`training/train_verifier.py` "
            f"`CheckEnsemble`; {(v.get('params', 0) + t.get('params', 0)) / 1e6:.2f} M parameters in all, the second "
            f"trained also on an automatic table's parts)" if t else
            f"a small CNN (`training/train_verifier.py`, {v.get('params', 0) / 1e6:.2f} M parameters)")
    return (f"| `verifier.onnx` | the tile check: {what}, p(tile) for each detector box, fp32, sigmoid inside "
            f"(`vision/verifier.py`); the screening "
            f"drops or flags boxes by it | {v.get('input')}x{v.get('input')} BGR crop, box + 25% each side, long side "
            f"vertical | {info.get('verifier_mb', 0):.1f} MB |\n")


def _verifier_training(info: dict) -> str:
    v = info.get("verifier")
    if not v:
        return ""
    c = v.get("counts", {})
    return (f"\n- Tile check (`training/train_verifier.py`): the detector's own boxes on {v.get('photos')} procedural "
            f"table photos (labels complete; {c.get('procedural_detector_tiles')} on tiles, "
            f"{c.get('procedural_detector_phantoms')} on nothing or on part of a tile) and on the data set's train photos "
            f"(a few boxes on labelled tiles each, and every box that is a fragment of one: "
            f"{c.get('real_detector_phantoms')}), labelled boxes jittered and random boxes on the table"
            + (f"; drawn without the detector (`drawn_examples`, {v['drawn']} procedural photos with face-down tiles, and "
               f"as many train photos with backs pasted; flat marks painted on both): {c.get('drawn_tiles')} face-down "
               f"tiles, 白板 and a few other tiles"
               + (f", {c.get('drawn_marks')} flat marks as no tile" if v.get("drawn_marks") else "")
               if v.get("drawn") else "")
            + f": {v.get('examples')} crops, {v.get('tiles')} of them tiles; mined in {c.get('mine_minutes', 0):.0f} min, "
            f"trained {v.get('train_minutes', 0):.0f} min ({v.get('steps')} balanced batches of 128, AdamW, cosine, "
            f"flips, colour, blur, noise, JPEG). On a tenth of the crops held out: {_held_check(v)}."
            + _tables_member(info.get("verifier_tables")))


def _held_check(v: dict) -> str:
    """What a check said of the tenth of its crops held out."""
    held = v.get("held", {}).get("0.05", {})
    return (f"p(tile) under 0.05 for {_pct(held.get('tiles_below'))} of the tiles and "
            f"{_pct(held.get('phantoms_below'))} of the others")


def _tables_member(t: dict | None) -> str:
    """The check's second member, trained also on an automatic table's parts."""
    if not t:
        return ""
    return (f" Its second member (`--table-parts {t.get('table_parts')} --join`): the same examples and the "
            f"detector's boxes on {t.get('table_parts')} procedural photos of an automatic table "
            f"(`scenes.add_table_parts`, `table_part_examples`; {t['counts'].get('parts_tiles')} crops of tiles, "
            f"{t['counts'].get('parts_not')} of no tile): {t.get('examples')} crops, trained {t.get('train_minutes', 0):.0f} min "
            f"({t.get('steps')} batches); on its held tenth {_held_check(t)}.")


def _reader_rounds(fr: dict) -> str:
    """How long the reader trained: from the classifier's weights, then each further round from its own."""
    rounds = [*fr.get("rounds", []), {k: fr.get(k) for k in ("train_minutes", "steps", "lr", "jitter")}]
    said = [f"{r.get('train_minutes') or 0:.0f} min ({r.get('steps')} steps of {READER_BATCH}, lr {r.get('lr')}"
            + (f", box jitter up to {r['jitter']:g}x the classifier's" if (r.get("jitter") or 1) > 1 else "") + ")"
            for r in rounds]
    return said[0] + " from the classifier's weights" + "".join(
        f", then {s} from its own" for s in said[1:])


def _flower_section(info: dict) -> str:
    fr = info.get("flower_reader")
    if not fr:
        return ""

    def row(name: str, before: dict, after: dict) -> str:
        cells = " | ".join(f"{_pct(before.get(k))} -> {_pct(after.get(k))}" for k in ("season_or_plant", "number", "tile"))
        return f"| {name} ({after.get('crops')} crops) | {cells} |"

    b = fr.get("before", {})
    rows = "\n".join(row(name, b.get(k, {}), fr.get(k, {})) for name, k in (
        ("valid split, real HK flowers", "valid"), ("procedural sets, held-out style", "held_out_style"),
        ("procedural sets, styles seen", "seen_styles")))
    return f"""## Flowers by what they print (the flower reader)

Sets draw the plants their own way and disagree on which plant carries 3 and 4, but every flower and
season tile prints its name and number, about 8 px tall at the classifier's 64 px input. Tiles the
classifier puts in the flower and season group (at least half its probability) are cut again from the
photo at {fr.get('store')} px and read at {fr.get('input')} px by `flower_reader.onnx`: its reading of season or plant,
and of the printed number, joins the classifier's inside the group, weighted by
`inference.flower_reader.weight` in `recognizer.json` (1: the reader's alone); whether the tile is a
flower stays the classifier's call. The default tile set then maps the tile by its number
(`vision/tilesets.json`; a set can still be chosen). `adapt` tunes the reader too, on the player's
flower crops (`training/adapt_readers.py`).
Trained {_reader_rounds(fr)} on the data
set's {fr.get('real_train_crops')} real flower crops (30% of each batch) and the flowers of 24 procedural sets drawn fresh
every epoch (never the held-out style). Its figures on crops cut at the labelled boxes, the
classifier's network at {fr.get('input')} px before training -> the reader ("tile": season or plant and number
both right, what scoring uses):

| crops | season or plant | number | tile |
|---|---|---|---|
{rows}
{_round_start(fr)}
"""


def _round_start(fr: dict) -> str:
    """The tile figures the reader had when its last round began, if that round started from its own weights."""
    start = fr.get("round_start")
    if not start:
        return ""
    said = ", ".join(f"{name} {_pct(start.get(k, {}).get('tile'))}" for name, k in (
        ("valid", "valid"), ("held-out style", "held_out_style"), ("styles seen", "seen_styles")))
    return f"\nWhen its last round began (the reader as shipped before it), tile: {said}.\n"


def model_card(info: dict) -> str:
    """info: settings, timings and the evaluation reports written by training.train."""
    ev = info.get("valid_report", {})
    boxes = info.get("boxes_only_report", {})
    cls = info.get("classifier", {})
    fl = ", ".join(f"{k} {_pct(v)}" for k, v in ev.get("per_class_recall", {}).items()
                   if k in ("spring", "summer", "autumn", "winter", "plum", "orchid", "chrysanthemum", "bamboo"))
    conf = ", ".join(f"{c['true']}->{c['predicted']} x{c['count']}" for c in ev.get("confusions", [])[:8])
    return f"""# Tile recognition models

ONNX models run by `vision/model.py` (onnxruntime, CPU):

| file | what | input | size |
|---|---|---|---|
| `detector.onnx` | YOLO11n (ultralytics, trained from scratch, no pretrained weights), one class "tile" (face-up or face-down){_detector_int8(info)} | RGB, long side {info.get('det_imgsz')}, short side as the photo's aspect leaves (rounded up to 32) | {info.get('detector_mb', 0):.1f} MB |
| `classifier.onnx` | {_classifier_what(info)} (`training/cls_net.py`, {info.get('cls_params', 0) / 1e6:.2f} M parameters in all, int8 after ONNX Runtime static quantization calibrated on 512 training crops: `training/quantize.py`): 43 classes, a 4-way rotation head and a 4-way printed-number head (flowers) | {cls.get('input')}x{cls.get('input')} BGR crop, box + 10% margin, long side vertical | {info.get('classifier_mb', 0):.1f} MB |
{_closeup_row(info)}{_first_row(info)}{_flower_row(info)}{_group_rows(info)}{_verifier_row(info)}| `classifier.pt` | the classifier's PyTorch weights, the starting point of `python -m vision adapt` | | |
| `detector.pt` | the detector's ultralytics weights (optimizer stripped), the starting point of the next training round | | |
{"| `detector_closeup.pt` | the close-up detector's ultralytics weights | | |" + chr(10) if info.get("closeup_detector") else ""}| `recognizer.json` | inference settings and the figures below | | |

Classes (index: name): 0-8 1m-9m (萬), 9-17 1p-9p (筒), 18-26 1s-9s (條), 27-30 east south west north,
31-33 red green white (中發白), 34-37 spring summer autumn winter (春夏秋冬),
38-41 plum orchid chrysanthemum bamboo (梅蘭菊竹), 42 back (a face-down tile).
Rotation: the classifier also says how many quarter turns the tile in the crop is from upright;
with the crop's own turn this gives upright / upside_down / sideways.

## Data

- **Chinese Mahjong Detection** v4, riichimahjongdetection, Roboflow Universe, **CC BY 4.0**
  (`../shared/data/rf-chinese-mahjong-detection-v4`): train split ({info.get('train_images')} photos,
  {cls.get('train_crops')} tiles) for training, valid split ({ev.get('photos')} photos, {ev.get('labelled_tiles')} tiles)
  for the figures below only. Photos are HK-style tiles, squashed to 640x640 by the publisher.
  The splits share table sessions, so valid is an in-domain check, not an unseen-table test.
- **Synthetic tiles** rendered by `training/synth.py` from artwork faces: Wikimedia "Unicode Mahjong Tiles
  (color)" (public domain), FluffyStuff riichi-mahjong-tiles (CC0; suits and honours, rendered from SVG
  at training time) and GNOME Mahjongg themes smooth / edu_kang_xi / postmodern (GPL-2+, used only
  to train; no artwork is shipped). Faces drawn on a plain tile body get their strokes thickened or
  thinned a pixel, or their ink recoloured, on some tiles: sets differ in both. Face-down tiles
  (`back`) exist only as synthetic renders (plain coloured bodies with bevel), also pasted into {int(100 * info.get('back_share', 0))}% of the detector's training photos.
  Each classifier epoch adds {cls.get('synthetic_per_epoch')} fresh synthetic tiles (300 per flower/season class,
  1500 backs, 100 per other class); real flower/season crops are repeated 3x.
- **Procedural tile sets** drawn by `training/procedural.py` with no artwork at all: characters, winds,
  dragons and flower names from CJK fonts of Debian packages (`training/fonts.json`: Kai, Ming, Hei, Yuan, brush
  styles; `make train-fonts`; no font is shipped), 萬 with 五 or 伍, 筒 circles and 條 sticks drawn in several
  ways and colours, 一條 as a bird, a peacock or a stick, 白 blank or framed, flowers as a picture with
  their name and number (菊 or 竹 printing 3), on white, ivory or cream fronts with coloured backs, or
  jade, red, black or blue bodies with light ink, glossy or matte, their thickness showing from four sides.
  Each classifier epoch draws {info.get('styles_per_epoch', 24)} new sets and {cls.get('procedural_per_epoch', 'n/a')} of their tiles. One font family and
  one way of drawing circles are never drawn in training (`procedural.LEAVE_OUT`), to measure an unseen style.
- **Procedural table photos** for the detector (`training/train_detector.py` `write_procedural_photos`,
  a new set every 8 photos): rows and loose tiles from a tilted camera on felt, wood, plastic or printed
  paper (`training/scenes.py`), with sleeves, racks, phones, coins and glare that carry no label.
  {_procedural_photos(info)}

## Training

`python -m vision train` (see `training/train.py`), seed {info.get('seed')}, CPU only ({info.get('threads')} thread{'s' if info.get('threads') != 1 else ''}), {info.get('date')}.

- Detector: yolo11n.yaml from scratch, imgsz {info.get('det_imgsz')}, batch 16, mosaic, flips (fine for a
  class-agnostic detector), +-10 deg rotation, {_det_rounds(info)}.{_gpu_round(info)}
- Classifier: {_cls_rounds(info)}{_members(info)}. Crops cut with the box's long side vertical; augmentation:
  all four quarter turns, box jitter (shift, scale, aspect, +-8 deg), colour, blur, noise, JPEG,
  resolution loss; never mirrored; on {int(100 * info.get('classifier_corner_erase', 0))}% of the real character and wind/dragon crops two face corners
  are painted over (HK sets print an index there, Taiwanese sets don't); 30% of the synthetic tiles lie askew (up to 45 deg, framed by
  their upright bounding box). Rotation head trained on portrait boxes (taken as upright),
  landscape boxes (upright or upside down after the turn) and synthetic tiles. A third head reads the
  number (1-4) printed on a flower or season: trained on the real HK flowers (梅1 蘭2 菊3 竹4) and the
  procedural ones (whichever number their set prints); its loss skips every other tile.{_verifier_training(info)}

Training time of the shipped models on this 2-core CPU, every round counted: detector
{_total_minutes(info)[0]:.0f} min{_gpu_minutes(info)}, classifier {_total_minutes(info)[1]:.0f} min. `make train` (`python -m vision train`
with its defaults) rebuilds every model from scratch in one sitting: a 0.8 h detector budget, a 35 min classifier
budget and a 40 min budget for each of its two further members, a 30 min flower reader budget, a 25 min character reader budget, a 40 min suit reader budget, a 25 min honour reader budget, the tile check (900 photos drawn
and mined, about 40 min, then a 20 min budget), the close-up detector (1 h from the detector just trained, with
500 new procedural photos, 35% of them close-ups) and the evaluation, about 7 h on two cores; `--det-init` / `--cls-init` add fine-tuning rounds.

Inference (`recognizer.json`): detector score >= {info.get('det_conf', 0.2)}, NMS IoU 0.5. When the first pass finds
few sure, tile-shaped boxes (a photo squashed in width or height, as the publisher's 640x640 resize left
about one valid photo in seven), the detector runs again on the photo stretched by 1/10 to 10 and keeps the
surest pass. When the sure tiles are under 24 px tall at the detector's input (a hand filling a corner of
a big photo), it looks again at the part of the photo holding them, and a big photo where it is sure of
fewer than three tiles is searched in four overlapping quarters first. A close-up (a box over 150 px long at
the detector's 416 px input, a first pass unsure of everything, or two to 12 boxes lying together
that could be the circles or stick columns of one close tile) is also looked at shrunk onto a canvas of
its own edge pixels, and the shrunk pass replaces the first where its few big tiles hold the first
pass's boxes as their parts (`inference.zoom_out`). {_closeup_line(info)}Each tile is cropped from the full-resolution photo and turned by its true shape; {_cascade_line(info)}crops the
classifier is under 90% sure of get a second look turned 180 deg, the two averaged; confidence =
detector score x class probability. Then phantom boxes are screened out or flagged (see "Phantom tiles").

## Figures (valid split, full pipeline: detector + classifier, IoU >= 0.5)

{_fixes_line(ev)}
| measure | value | labels as published |
|---|---|---|
| tiles found with the right class | {_pct(ev.get('tiles_right'))} | {_pub(ev, 'tiles_right')} |
| tiles found (any class) | {_pct(ev.get('tiles_found'))} | {_pub(ev, 'tiles_found')} |
| precision (unlabelled background tiles count as wrong) | {_pct(ev.get('precision'))} | {_pub(ev, 'precision')} |
| photos with every labelled tile right | {_pct(ev.get('photos_all_right'))} | {_pub(ev, 'photos_all_right')} |
| mAP50 / mAP50-95 (42 classes) | {ev.get('map50', 0):.3f} / {ev.get('map50_95', 0):.3f} | {_pub_map(ev)} |
| flowers + seasons recall | {_pct(ev.get('flower_recall'))} | {_pub(ev, 'flower_recall')} |
| classifier alone on ground-truth boxes | {_pct(cls.get('crop_accuracy'))} (flowers+seasons {_pct(cls.get('flower_season_recall'))}) | |
{_ensemble_row(info.get('ensemble'))}| rotation (portrait valid tiles, upright vs turned 180) | {_pct(cls.get('rotation_accuracy_portrait'))} | |
| detector alone, one class "tile", mAP50 (ultralytics val) | {info.get('det_map50_1class') or 0:.3f} | |
| detector on boxes-only photos (7 photos, 123 tiles) | found {_pct(boxes.get('tiles_found'))} | |
| latency per photo (2 threads) | median {ev.get('latency_ms_median', 0):.0f} ms, p90 {ev.get('latency_ms_p90', 0):.0f} ms | |

Flowers and seasons: {fl or 'n/a'}.
Worst confusions: {conf or 'none'}.

{_flower_section(info)}{_group_sections(info)}{_decision_sections(info)}{_framings_section(info)}{_style_section(info.get('style_study'))}{_screen_section(info.get('screen_study'), [DECISION_STUDIES[k]['title'] for k in SCREEN_DECISIONS if info.get(k)])}{_peer_section(info.get('peer'))}{_adapt_sections(info)}{_adapt_detector_section(info.get('adapt_detector_study'))}{_norm_study_section(info.get('detector_adapt_norms'))}{_zoom_section(info.get('zoom_bench'))}
## Limits

- Trained on HK-style tiles with corner indices; Taiwanese sets without indices and with other flower art
  will score lower until adapted (`python -m vision adapt --calibration photo.jpg` or `--folder corrected/`).
- `back` was never seen in a real photo; treat face-down detection as approximate.
- Rotation labels come from box shape, not from annotation.
{"".join(f"- {note}{chr(10)}" for note in info.get("notes", []))}
Card written {_dt.date.today().isoformat() if not info.get('date') else info['date']}.
"""


def write_card(models_dir) -> Path:
    """Render models_dir/README.md from the figures kept in models_dir/recognizer.json."""
    models_dir = Path(models_dir)
    info = json.loads((models_dir / "recognizer.json").read_text())["training"]
    out = models_dir / "README.md"
    out.write_text(model_card(info))
    return out


def record(models_dir, key: str, value: dict) -> Path:
    """Keep a measured result (peer bench, adapt study) under training[key] and re-render the card.

    The entry it replaces, with whatever was written by hand into it (a note on the run), moves
    to the front of the new entry's "earlier" list: a run's history is kept, never overwritten.
    """
    path = Path(models_dir) / "recognizer.json"
    config = json.loads(path.read_text())
    entry = {**value, "date": _dt.date.today().isoformat()}
    old = config["training"].get(key)
    if old:
        entry["earlier"] = [{k: v for k, v in old.items() if k != "earlier"}] + list(old.get("earlier", []))
    config["training"][key] = entry
    path.write_text(json.dumps(config, indent=1) + "\n")
    return write_card(models_dir)


if __name__ == "__main__":
    import sys

    print(write_card(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "models"))
