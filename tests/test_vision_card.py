"""The model card is rendered from the figures kept in recognizer.json."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from training.model_card import model_card, record, write_card

MODELS = Path(__file__).resolve().parent.parent / "models"

PEER = {"photos": 40, "labels": 587, "labels_known_to_peer": 560, "ours_median_ms": 50.0, "peer_median_ms": 64.0,
        "ours_share_right": 0.981, "peer_share_right": 0.157, "ours_share_right_known": 0.98,
        "peer_share_right_known": 0.164, "latency_ratio": 0.78, "repeat": 3}


def test_shipped_card_matches_its_figures():
    """models/README.md is what write_card makes of models/recognizer.json: no hand edits to lose."""
    info = json.loads((MODELS / "recognizer.json").read_text())["training"]
    assert (MODELS / "README.md").read_text() == model_card(info)


def test_record_keeps_the_figure_and_rewrites_the_card(tmp_path):
    for name in ("recognizer.json", "README.md"):
        shutil.copy(MODELS / name, tmp_path / name)
    card = record(tmp_path, "peer", PEER).read_text()
    assert "| labelled tiles right | 98.1% | 15.7% |" in card
    assert "| median latency per photo | 50.0 ms | 64.0 ms |" in card
    kept = json.loads((tmp_path / "recognizer.json").read_text())["training"]["peer"]
    assert kept["photos"] == 40 and "date" in kept
    assert write_card(tmp_path).read_text() == card  # rendering again changes nothing


def test_record_keeps_the_run_it_replaces_with_its_note(tmp_path):
    shutil.copy(MODELS / "README.md", tmp_path / "README.md")
    (tmp_path / "recognizer.json").write_text(json.dumps({"inference": {}, "training": {}}))
    record(tmp_path, "peer", PEER)
    config = json.loads((tmp_path / "recognizer.json").read_text())
    config["training"]["peer"]["note"] = "A slow hour."  # written by hand after the run
    (tmp_path / "recognizer.json").write_text(json.dumps(config))
    card = record(tmp_path, "peer", {**PEER, "ours_median_ms": 40.0, "latency_ratio": 0.62}).read_text()
    kept = json.loads((tmp_path / "recognizer.json").read_text())["training"]["peer"]
    assert kept["ours_median_ms"] == 40.0 and "note" not in kept
    assert [run["ours_median_ms"] for run in kept["earlier"]] == [50.0]
    assert kept["earlier"][0]["note"] == "A slow hour."
    assert "ours 50.0 ms, peer 64.0 ms, ratio 0.78. A slow hour." in card
    record(tmp_path, "peer", PEER)
    runs = json.loads((tmp_path / "recognizer.json").read_text())["training"]["peer"]["earlier"]
    assert [run["ours_median_ms"] for run in runs] == [40.0, 50.0] and "earlier" not in runs[0]


def test_adapt_study_section():
    study = {"date": "2026-11-30", "description": "An unseen set.",
             "rows": [{"name": "shipped", "tiles_right": 0.5, "photos_all_right": 0.0, "flower_recall": 0.25,
                       "seconds": 0},
                      {"name": "after 5 photos", "tiles_right": 0.97, "photos_all_right": 0.8,
                       "flower_recall": 0.95, "seconds": 120}]}
    card = model_card({"adapt_study": study})
    assert "## Adapting to an unfamiliar tile set" in card
    # rows recorded before the detector was adapted have no tiles found, extras or detector
    assert "| after 5 photos | 97.0% | n/a | 80.0% | n/a | - | 95.0% | 120 s | - |" in card
    assert "Adapting" not in model_card({})


def test_adapt_study_section_with_the_detector():
    row = {"name": "after 5 photos", "tiles_right": 0.97, "tiles_found": 0.99, "photos_all_right": 0.8,
           "photos_exactly_right": 0.5, "extras_per_photo": 0.25, "flower_recall": 0.95, "seconds": 300,
           "detector": {"installed": True, "seconds": 120, "epochs": 10, "imgsz": 416, "held_photos": 1,
                        "held_by_photo": True, "old_held_errors": 4, "new_held_errors": 1}}
    card = model_card({"adapt_study": {"date": "2026-12-01", "description": "An unseen set.", "rows": [row]}})
    assert ("| after 5 photos | 97.0% | 99.0% | 80.0% | 50.0% | 0.25 | 95.0% | 300 s | installed; held part "
            "(1 photo): 4 -> 1 errors; 10 epochs, 120 s |") in card


def test_screen_section():
    from vision.screen import SCREEN_DEFAULTS

    rows = [{"name": n, "tiles_found": 0.99, "tiles_right": 0.98, "photos_all_right": 0.9, "extras": e,
             "extras_on_labelled": 3, "extras_flagged": 2, "right_but_suspect": 1, "photos_exactly_right": 0.6}
            for n, e in (("no screening", 10), ("screening as shipped", 4))]
    st = {"date": "2026-12-01", "settings": SCREEN_DEFAULTS, "why": ["Because."],
          "folders": [{"folder": "/x", "title": "Some photos", "photos": 5, "rows": rows}]}
    card = model_card({"screen_study": st})
    assert "## Phantom tiles" in card and "Some photos, 5 photos:" in card
    assert "| screening as shipped | 99.00% | 98.00% | 90.0% | 4 | 3 | 2 | 1 | 60.0% |" in card
    assert f"`drop_below` {SCREEN_DEFAULTS['drop_below']}" in card and "- Because." in card
    assert "## Phantom tiles" not in model_card({}) and "Rules added since" not in card
    card = model_card({"screen_study": st, "straddling_boxes": {"date": "2026-12-04", "rows": []}})
    assert 'Rules added since these tables were measured, each with its own section above: "A box across two' in card


def test_flower_reader_section():
    part = {"crops": 173, "season_or_plant": 0.9, "number": 0.8, "tile": 0.75}
    info = {"flower_reader": {"before": {"valid": {**part, "tile": 0.5}}, "valid": part, "held_out_style": part,
                              "seen_styles": part, "input": 96, "store": 112, "steps": 2000, "lr": 3e-4,
                              "train_minutes": 40, "real_train_crops": 1523},
            "flower_reader_mb": 1.2}
    card = model_card(info)
    assert "## Flowers by what they print (the flower reader)" in card
    assert "| valid split, real HK flowers (173 crops) | 90.0% -> 90.0% | 80.0% -> 80.0% | 50.0% -> 75.0% |" in card
    assert "| procedural sets, held-out style (173 crops) | n/a -> 90.0% |" in card
    assert "| `flower_reader.onnx` |" in card and "1.2 MB" in card
    assert "(the flower reader)" not in model_card({}) and "flower_reader.onnx" not in model_card({})


def test_a_flower_reader_round_with_wider_box_jitter_says_so():
    part = {"crops": 173, "season_or_plant": 0.9, "number": 0.8, "tile": 0.75}
    info = {"flower_reader": {"valid": part, "input": 96, "store": 112, "steps": 900, "lr": 3e-4, "train_minutes": 30,
                              "jitter": 2.0, "rounds": [{"train_minutes": 40, "steps": 1753, "lr": 3e-4, "jitter": None}]}}
    card = model_card(info)
    assert ("40 min (1753 steps of 64, lr 0.0003) from the classifier's weights, then 30 min (900 steps of 64, "
            "lr 0.0003, box jitter up to 2x the classifier's) from its own") in card


def test_framings_section():
    row = {"name": "drawn, red bodies", "photos": 30, "flowers_before": "69.8%", "flowers_after": "72.1%",
           "flowers_tiles": 43, "wan_before": "98.6%", "wan_after": "97.9%", "wan_tiles": 145, "tiles_before": "88.9%",
           "tiles_after": "89.0%", "exact_before": "16.7%", "exact_after": "20.0%", "all_before": "16.7%",
           "all_after": "20.0%"}
    readers = {"date": "2026-12-03", "scales": [1.0, 0.85, 1.15], "scales_below": 0.9, "rows": [row],
               "notes": ["A round not shipped."]}
    card = model_card({"reader_scales": readers})
    assert "## Second looks at other framings" in card and "scaled by 1, 0.85, 1.15" in card
    assert "under\n0.9 sure" in card and "\nA round not shipped.\n" in card and "**The classifier**" not in card
    assert ("| drawn, red bodies | 69.8% -> 72.1% (43) | 98.6% -> 97.9% (145) | 88.9% -> 89.0% | 16.7% -> 20.0% | "
            "16.7% -> 20.0% | n/a -> n/a |") in card
    cls = {"date": "2026-12-03", "scales": [0.9, 1.1], "below": 0.9,
           "rows": [{**row, "extras_before": 15, "extras_after": 13}]}
    card = model_card({"reader_scales": readers, "classifier_scales": cls})
    assert "**The classifier** reads a crop it is under 0.9 sure of" in card and "scaled by 0.9 and 1.1" in card
    assert "| 16.7% -> 20.0% | 15 -> 13 |" in card
    assert "other framings" not in model_card({})


def test_decision_sections():
    row = {"name": "valid split: 289 photos", "wan_before": "99.7%", "wan_after": "99.8%", "suits_before": "99.8%",
           "suits_after": "99.8%", "flowers_before": "99.4%", "flowers_after": "99.4%", "tiles_before": "99.8%",
           "tiles_after": "99.8%", "found_before": "99.9%", "found_after": "100.0%", "all_before": "94.8%",
           "all_after": "95.5%", "exact_before": "74.4%", "exact_after": "74.7%", "extras_before": 408,
           "extras_after": 407}
    card = model_card({"group_call": {"date": "2026-12-03", "rows": [row], "notes": ["Compared, not shipped."]}})
    assert "## The readers keep the classifier's group (2026-12-03)" in card and "`vision/flowers.py` `merge`" in card
    assert ("| valid split: 289 photos | 99.7% -> 99.8% | 99.8% -> 99.8% | 99.4% -> 99.4% | 99.8% -> 99.8% | "
            "99.9% -> 100.0% | 94.8% -> 95.5% | 74.4% -> 74.7% | 408 -> 407 |") in card and "\nCompared, not shipped.\n" in card
    assert "Overlapping neighbours" not in card
    card = model_card({"overlapping_neighbours": {"date": "2026-12-03", "rows": [row]}})
    assert "## Overlapping neighbours are not parts (2026-12-03)" in card and "`neighbour_below` (0.9)" in card
    assert "keep the classifier's group" not in card and "Overlapping" not in model_card({})
    card = model_card({"blank_check": {"date": "2026-12-04", "rows": [row]}})
    assert "## Blank faces always meet the tile check (2026-12-04)" in card and "`screen.check_blank`" in card
    card = model_card({"straddling_boxes": {"date": "2026-12-04", "rows": [row]}})
    assert "## A box across two tiles is no tile (2026-12-04)" in card and "`straddle` (0.85)" in card


def test_the_tile_check_has_its_row_and_training_line():
    info = {"verifier": {"params": 473785, "input": 48, "photos": 900, "examples": 37706, "tiles": 32466,
                         "steps": 1830, "train_minutes": 20.0,
                         "counts": {"procedural_detector_tiles": 17285, "procedural_detector_phantoms": 1707,
                                    "real_detector_phantoms": 28, "mine_minutes": 22.1},
                         "held": {"0.05": {"tiles_below": 0.0012, "phantoms_below": 0.9686}}},
            "verifier_mb": 1.9}
    card = model_card(info)
    assert "| `verifier.onnx` | the tile check: a small CNN (`training/train_verifier.py`, 0.47 M parameters)" in card
    assert "48x48 BGR crop" in card and "1.9 MB" in card
    assert "on 900 procedural table photos (labels complete; 17285 on tiles, 1707 on nothing" in card
    assert "0.1% of the tiles and 96.9% of the others" in card
    assert "verifier.onnx" not in model_card({}) and "Tile check" not in model_card({})


def test_each_procedural_sets_adapt_study_has_its_own_section():
    from training.adapt_study import card_key

    row = {"name": "after 5 photos", "tiles_right": 0.95, "photos_all_right": 0.5, "flower_recall": 0.8, "seconds": 60}
    info = {card_key("traditional"): {"date": "2026-12-01", "description": "KDE.", "rows": [row]},
            card_key("procedural-red"): {"date": "2026-12-02", "description": "Red.", "rows": [row]}}
    assert sorted(info) == ["adapt_study", "adapt_study:procedural-red"]
    card = model_card(info)
    assert "## Adapting to an unfamiliar tile set (`make bench-adapt`, 2026-12-01)" in card
    red = "## Adapting to an unfamiliar tile set (`python -m training.adapt_study --set procedural-red`, 2026-12-02)"
    assert red in card and card.index("KDE.") < card.index(red) < card.index("Red.")


def test_the_card_names_the_member_that_leads_the_cascade():
    info = json.loads((MODELS / "recognizer.json").read_text())["training"]
    two = {**info, "cls_members": [{"seed": 1}], "cascade_below": 0.9}
    assert "the ensemble's last member alone" in model_card({**two, "cascade_lead": -1})
    assert "the first member of the ensemble reads every crop" in model_card({**two, "cascade_lead": 0})
    three = {**two, "cls_members": [{"seed": 1}, {"seed": 2}], "cascade_lead": 1}
    assert "the ensemble's member 2 alone" in model_card(three)


def test_the_card_says_the_readers_batch_they_train_with():
    # the card is rendered without torch, so it keeps the readers' batch as a number of its own
    from training import train_flower_reader, train_group_reader
    from training.model_card import READER_BATCH

    assert READER_BATCH == train_flower_reader.BATCH == train_group_reader.BATCH


def test_the_detector_adapt_norm_study_has_a_row_per_detector_and_seed():
    from training.model_card import _norm_study_section

    assert _norm_study_section(None) == "" and "BatchNorm" not in model_card({})
    cell = lambda test, held: {"test": test, "held": held}  # noqa: E731
    study = {"date": "2026-12-06", "text": "Why.", "notes": ["A note."],
             "rows": [{"detector": "old", "seed": 2, "before": cell(699, 14), "updated_1e-3": cell(280, 16),
                       "kept_3e-4": cell(78, 0)}],
             "whole": [{"detector": "old", "way": "kept", "before": 699, "after": 88, "held": "14 -> 1",
                        "installed": True, "seconds": 65.8}]}
    text = _norm_study_section(study)
    assert "## The detector's adapt keeps its BatchNorm statistics (2026-12-06)" in text
    assert "| old | 2 | 699 (14) | 280 (16) | n/a | 78 (0) |" in text  # a way not measured says so
    assert "| old | kept | 699 | 88 | 14 -> 1 | yes | 66 s |" in text and "\nA note.\n" in text
    assert text in model_card({"detector_adapt_norms": study})


def test_the_cards_data_is_strict_json():
    """recognizer.json is read by more than Python: no NaN or Infinity, which strict parsers refuse
    (a figure no crop asks for is null)."""
    def refuse(constant):
        raise ValueError(f"recognizer.json holds {constant}")

    json.loads((MODELS / "recognizer.json").read_text(encoding="utf-8"), parse_constant=refuse)
