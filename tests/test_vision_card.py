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


def test_adapt_study_section():
    study = {"date": "2026-11-30", "description": "An unseen set.",
             "rows": [{"name": "shipped", "tiles_right": 0.5, "photos_all_right": 0.0, "flower_recall": 0.25,
                       "seconds": 0},
                      {"name": "after 5 photos", "tiles_right": 0.97, "photos_all_right": 0.8,
                       "flower_recall": 0.95, "seconds": 120}]}
    card = model_card({"adapt_study": study})
    assert "## Adapting to an unfamiliar tile set" in card
    assert "| after 5 photos | 97.0% | 80.0% | 95.0% | 120 s |" in card
    assert "Adapting" not in model_card({})
