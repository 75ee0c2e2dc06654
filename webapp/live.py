"""Live hints from one camera frame: the tiles in front of the player -> waits (16) or advice (17).

The player's own input (tiles seen on the table, melds, flowers) is checked first and refused
with a 400 when wrong; a frame the engine cannot read (a misread tile making five copies, say)
is normal while the camera moves, so it answers 200 with a message instead of hints.
"""
from __future__ import annotations

from engine.errors import HandError, clean_params
from engine.hand import Meld, parse_flowers
from engine.service import advise_json, waits_json
from engine.scoring import check_taiwan_flowers
from engine.tiles import check_copies, parse_tile, parse_tiles, zh_name

from .errors import ApiError, render, request_lang
from .games import rule_table


def check_player_input(seen, melds, flowers, rules) -> None:
    """400 for what the player typed, whatever the frame shows: unreadable tiles or melds, a
    flower that is none, or more copies of a tile than a set holds among the tiles seen, the
    melds and the flowers together (these were once answered 200 "cannot read this hand", or
    not at all when the frame held too few tiles)."""
    try:
        table = rule_table(rules)
        own = list(parse_tiles(seen))
        if melds is not None:
            if not isinstance(melds, list):
                raise HandError("melds must be a list of {type, tiles}", code="melds_not_list")
            for meld in melds:
                own += Meld.from_dict(meld).tiles
        if flowers is not None:
            typed = parse_flowers(flowers)
            if table.scorer == "taiwan":  # 白板/紅中 are flowers under 乐清 only; waits never score them
                check_taiwan_flowers(typed)
            own += typed
        check_copies(own)
    except HandError as exc:
        raise ApiError.from_error(400, exc) from None


def _layout_melds(layout: dict) -> tuple[list[dict], bool]:
    """Melds read from the frame, and whether one of them (a concealed kong) was unreadable."""
    melds = [{"type": m["type"], "tiles": m["tiles"]} for m in layout["melds"] if m["tiles"]]
    return melds, len(melds) != len(layout["melds"])


def analyse(reading: dict, seen: str, melds: list | None, flowers: str | None, rules: str,
            self_drawn: bool = True) -> dict:
    """{"tiles", "layout", "waits", "advice", "message", "message_code", "message_params"} for one
    recognized frame; `message` is in the request's language (webapp/messages)."""
    layout = reading["layout"]
    concealed = list(layout["concealed"])
    drawn = layout["winning_tile"]
    if drawn:
        concealed.append(drawn)  # in live play the set-apart tile is the drawn one
    unreadable = False
    entered_melds = bool(melds)  # the player typed them; else the frame's own melds count
    if melds is None:
        melds, unreadable = _layout_melds(layout)
    if flowers is None:
        flowers = " ".join(layout["flowers"])
    out = {"tiles": reading["tiles"], "layout": layout, "waits": None, "advice": None}
    count = len(concealed) + 3 * len(melds)
    if unreadable:
        return _say(out, "a concealed kong could not be read; enter it under melds", code="live_kong_unreadable")
    if count not in (16, 17):
        if entered_melds:  # "3 tiles seen" of a picture that held none read wrong: the picture and the melds apart
            return _say(out, f"{len(concealed)} tiles in the picture and {len(melds)} meld(s) entered make {count}; "
                        "a hand has 16 or 17", code="live_count_melds", n=len(concealed), melds=len(melds), total=count)
        return _say(out, f"{count} tiles seen; a hand has 16 or 17", code="live_count", n=count)
    hand = {"rules": rules, "concealed": " ".join(concealed), "melds": melds, "flowers": flowers,
            "context": {"seen": seen}}
    try:
        if count == 16:
            out["waits"] = waits_json(hand)
            waits = out["waits"]["waits"]
            if waits:
                tiles = [w["tile"] for w in waits]
                _say(out, "waiting on " + " ".join(tiles), code="live_waiting", tiles=" ".join(tiles),
                     tiles_zh="、".join(zh_name(parse_tile(t)) for t in tiles))
            elif out["waits"]["shanten"] == 0 and out["waits"].get("dead_waits"):
                dead = out["waits"]["dead_waits"]  # ready, but every copy it waits on is out already
                _say(out, "ready, but every copy of " + " ".join(dead) + " is out", code="live_dead_waits",
                     tiles=" ".join(dead), tiles_zh="、".join(zh_name(parse_tile(t)) for t in dead))
            else:
                shanten = out["waits"]["shanten"]
                _say(out, f"not ready yet (shanten {shanten})", code="live_not_ready", shanten=shanten)
        else:
            hand["self_drawn"] = self_drawn
            if drawn:
                hand["winning_tile"] = drawn
            out["advice"] = advice = advise_json(hand)
            best = advice["discards"][0] if advice["discards"] else None
            if advice.get("win") and advice["score"] is not None:
                if self_drawn:
                    _say(out, f"a win: {advice['tai']} 台 (self-drawn)", code="live_win", tai=advice["tai"])
                else:
                    _say(out, f"a win: {advice['tai']} 台 (on a discard)", code="live_win_discard", tai=advice["tai"])
            elif advice.get("win"):
                err = advice["score_error"]
                _say(out, f"a win, but no 台 under these rules: {err['error']}", code="live_win_shape", cause=err)
            elif best and best["shanten"] == 0 and not best.get("useful_copies"):
                # ready after that discard, but on tiles all out: "discard 1m (shanten 0)" alone misled
                _say(out, f"discard {best['discard']}: ready then, but every tile it waits on is out",
                     code="live_discard_dead", tile=best["discard"], tile_zh=zh_name(parse_tile(best["discard"])))
            elif best:
                _say(out, f"discard {best['discard']} (shanten {best['shanten']})", code="live_discard",
                     tile=best["discard"], tile_zh=zh_name(parse_tile(best["discard"])), shanten=best["shanten"])
            else:
                _say(out, "no discard", code="live_no_discard")
    except HandError as exc:
        _say(out, f"cannot read this hand: {exc}", code="live_unreadable", cause=exc)
    if layout["flagged"]:
        n = len(layout["flagged"])
        _say(out, f"{out['message']}; check {n} unsure tile(s)", code="live_unsure",
             message={"code": out["message_code"], "params": out["message_params"]}, n=n)
    return out


def _say(out: dict, english: str, *, code: str, **params) -> dict:
    """Set the frame's one-line message: English, its code and params, and the request's wording."""
    params = clean_params(params)
    out["message_code"], out["message_params"] = code, params
    out["message"] = render(code, params, request_lang(), english)
    return out
