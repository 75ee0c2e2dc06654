// The hand editor: concealed row, melds, flowers, winning tile (and unplaced tiles from a photo).
// Every tile can be tapped to change its face, move it or remove it; the tile keyboard adds tiles.
import { t } from "./i18n.js";
import { el, clear, refill } from "./dom.js";
import { tileImg, tileName, tileKeyboard, isSuited, isFlower, formatTiles, countTiles, parseTiles,
         TILESETS } from "./tiles.js";

const MELD_TYPES = ["chi", "pong", "kong", "ankong"];
const MELD_SIZE = { chi: 3, pong: 3, kong: 4, ankong: 4 };
const TARGETS = ["concealed", "chi", "pong", "kong", "ankong", "flowers", "winning"];
let nextId = 1;

/** Why a tile read from the photo is flagged, in the player's words: the recognizer's reasons,
 * most telling first, and how sure it was of the face. */
function flagWhy(it) {
  const words = (it.reasons || []).map((code) => t(`flag_${code}`)).filter((w) => !w.startsWith("flag_"));
  if (typeof it.confidence === "number") words.push(t("flag_confidence", { p: Math.round(it.confidence * 100) }));
  return words.join(" · ");
}

function item(tile, extra = {}) {
  return { id: nextId++, tile, src: null, box: null, flagged: false, orig: null, ...extra };
}

// ---------- a kept hand (restore): anything stored is checked, since storage outlives page versions ----------

/** One tile as the editor holds it: what parseTiles reads as exactly itself, or a photo's unread "back". */
function isTile(x) {
  if (x === "back") return true;
  try {
    const read = parseTiles(typeof x === "string" ? x : "?");
    return read.length === 1 && read[0] === x;
  } catch (e) {
    return false;
  }
}

const isBox = (b) => Array.isArray(b) && b.length === 4 && b.every(Number.isFinite);

/** What a hand keeps of the photo it came from: the photo, its tile set and its two pictures. */
const photoLink = (p) => ({ photo_id: p.photo_id, tileset: p.tileset, picture: p.picture, annotated: p.annotated });

/** The kept photo link, or null where it is not one: its pictures must be of the photo it names. */
function keptPhoto(p) {
  if (!p || !/^[0-9a-f]{64}$/.test(p.photo_id) || !TILESETS.includes(p.tileset)) return null;
  const own = (url) => typeof url === "string" && url.startsWith(`/photos/${p.photo_id}`);
  return own(p.picture) && own(p.annotated) ? photoLink(p) : null;
}

/** A kept tile as a new item (ids are this page's own); it keeps its box and reading only with a photo
 * link, so a tile never names a photo the hand has not. Throws where it is not a tile. */
function keptItem(x, photo) {
  if (!x || !isTile(x.tile)) throw new Error("not a tile");
  if (!photo || !Number.isInteger(x.src) || !isBox(x.box) || !isTile(x.orig)) return item(x.tile);
  return item(x.tile, { src: x.src, box: x.box, orig: x.orig, flagged: x.flagged === true,
                        confidence: Number.isFinite(x.confidence) ? x.confidence : undefined,
                        reasons: Array.isArray(x.reasons) ? x.reasons.filter((r) => typeof r === "string") : [] });
}

function keptList(list, read) {
  if (!Array.isArray(list)) throw new Error("not a list");
  return list.map(read);
}

function keptMeld(m, photo) {
  if (!m || !MELD_TYPES.includes(m.type) || !Array.isArray(m.tiles) || !m.tiles.length || m.tiles.length > 4) {
    throw new Error("not a meld");
  }
  return { type: m.type, tiles: m.tiles.map((x) => keptItem(x, photo)) };
}

export class HandEditor {
  /** root: an element to render into; onChange(): called after every edit; onMessage(text, kind). */
  constructor(root, { onChange = () => {}, onMessage = () => {} } = {}) {
    this.root = root;
    this.onChange = onChange;
    this.onMessage = onMessage;
    this.target = "concealed";
    this.undoStack = [];
    this.photo = null; // the recognized photo the hand came from: photoLink()'s fields
    this.reset();
    this.sheet = el("dialog", { class: "sheet", id: "tile-sheet", "aria-labelledby": "sheet-title" });
    document.body.append(this.sheet);
    this.build();
  }

  reset() {
    this.state = { concealed: [], melds: [], flowers: [], winning: null, unplaced: [], winningGuessed: false };
    this.removedRecognized = 0;
  }

  // ---------- loading and reading ----------

  /** Fill the editor from a /api/recognize answer. */
  loadRecognition(res, tileset) {
    this.reset();
    this.undoStack = [];
    const tiles = res.tiles || [];
    const layout = res.layout || {};
    const reasons = layout.flag_reasons || {};
    // marked for a look: the tiles whose reading is in doubt, as the server's layout names them
    // (vision.layout.doubted), so the hand and the annotated photo ask about the same tiles
    const doubtedSet = new Set(layout.doubted || layout.flagged || []);
    const doubted = (i) => doubtedSet.has(i);
    const fromIndex = (i) => {
      const r = tiles[i] || {};
      return item(r.tile || "back", { src: i, box: r.box || null, orig: r.tile || "back", flagged: doubted(i),
                                       confidence: r.confidence, reasons: reasons[String(i)] || [] });
    };
    const fromNames = (names) => (names || []).map((x) => item(x));
    const s = this.state;
    s.concealed = layout.concealed_indices ? layout.concealed_indices.map(fromIndex) : fromNames(layout.concealed);
    s.flowers = layout.flower_indices ? layout.flower_indices.map(fromIndex) : fromNames(layout.flowers);
    if (layout.winning_index !== undefined && layout.winning_index !== null) s.winning = fromIndex(layout.winning_index);
    else if (layout.winning_tile) s.winning = item(layout.winning_tile);
    s.melds = (layout.melds || []).map((m) => ({
      type: MELD_TYPES.includes(m.type) ? m.type : "pong",
      tiles: m.indices ? m.indices.map(fromIndex) : fromNames(m.tiles ? parseTiles(m.tiles) : []),
    }));
    s.unplaced = (layout.unplaced || []).map(fromIndex);
    // a photo of the whole hand in one row (17 tiles less 3 per meld, none set apart): players put the
    // drawn tile at the right end, so that one is the winning tile until the player picks another
    if (!s.winning && !s.unplaced.length && s.concealed.length === this.concealedNeeded() + 1) {
      s.winning = s.concealed.pop();
      s.winningGuessed = true;
    }
    // the photo upright as it was read, unmarked: its pixels are the boxes' (a photo over 4096 px
    // is read shrunk), and no label covers the tile to check
    this.photo = res.photo_id ? { photo_id: res.photo_id, tileset, picture: res.upright_url,
                                  annotated: res.annotated_url || res.photo_url } : null;
    this.picture = null;
    this.render();
    this.changed();
  }

  /** The hand as plain data, to keep across a reload (undo history is not kept): the tiles, and where
   * they came from a photo, the photo and each tile's box and first reading (corrections need them). */
  saved() {
    return { state: this.state, removed: this.removedRecognized, photo: this.photo && photoLink(this.photo) };
  }

  /** Fill the editor from saved(); throws, changing nothing, where `kept` is not such a hand. */
  restore(kept) {
    const s = kept && kept.state;
    if (!s) throw new Error("no hand");
    const photo = keptPhoto(kept.photo);
    const tile = (x) => keptItem(x, photo);
    const state = {
      concealed: keptList(s.concealed, tile), flowers: keptList(s.flowers, tile), unplaced: keptList(s.unplaced, tile),
      winning: s.winning === null ? null : tile(s.winning),
      melds: keptList(s.melds, (m) => keptMeld(m, photo)),
      winningGuessed: s.winningGuessed === true && !!s.winning,
    };
    this.state = state;
    this.removedRecognized = photo && Number.isInteger(kept.removed) && kept.removed > 0 ? kept.removed : 0;
    this.photo = photo;
    this.picture = null;
    this.undoStack = [];
    this.render();
    this.changed();
  }

  /** The photo is gone from the server: its tiles stay, as typed ones, tied to no photo. */
  forgetPhoto() {
    for (const it of this.allItems()) Object.assign(it, { src: null, box: null, orig: null, flagged: false });
    this.photo = null;
    this.picture = null;
    this.removedRecognized = 0;
    this.undoStack = []; // an undo would bring back tiles that name the photo
    this.render();
    this.changed();
  }

  /** The hand in the engine's input form (only the tile parts). */
  toEngine() {
    const s = this.state;
    return {
      concealed: formatTiles(s.concealed.map((x) => x.tile)),
      melds: s.melds.map((m) => ({ type: m.type, tiles: formatTiles(m.tiles.map((x) => x.tile)) })),
      flowers: formatTiles(s.flowers.map((x) => x.tile)),
      winning_tile: s.winning ? s.winning.tile : null,
    };
  }

  allItems() {
    const s = this.state;
    return [...s.concealed, ...s.melds.flatMap((m) => m.tiles), ...s.flowers, ...(s.winning ? [s.winning] : []),
            ...s.unplaced];
  }

  /** Corrected labels of the recognized photo, or null when the user changed no face. */
  corrections() {
    if (!this.photo) return null;
    const kept = this.allItems().filter((x) => x.src !== null && x.box);
    const changed = this.removedRecognized > 0 || kept.some((x) => x.tile !== x.orig);
    if (!changed) return null;
    return { photo_id: this.photo.photo_id, tileset: this.photo.tileset,
             tiles: kept.map((x) => ({ tile: x.tile, box: x.box })) };
  }

  concealedNeeded() {
    return 16 - 3 * this.state.melds.length;
  }

  // ---------- editing ----------

  snapshot() {
    this.undoStack.push(JSON.stringify({ s: this.state, r: this.removedRecognized }));
    if (this.undoStack.length > 100) this.undoStack.shift();
  }

  undo() {
    const last = this.undoStack.pop();
    if (!last) return;
    const { s, r } = JSON.parse(last);
    this.state = s;
    this.removedRecognized = r;
    this.render();
    this.changed();
  }

  /** One tap on a tile of the hand makes it the winning tile; the old one goes back into the hand. */
  pickWinning(it) {
    const s = this.state;
    const i = s.concealed.indexOf(it);
    if (i < 0) return;
    this.snapshot();
    s.concealed.splice(i, 1, ...(s.winning ? [s.winning] : []));
    s.winning = it;
    this.render();
    this.changed();
  }

  clearAll() {
    this.snapshot();
    this.reset();
    this.photo = null;
    this.render();
    this.changed();
  }

  changed() {
    this.keyboard?.refresh();
    this.onChange();
  }

  used() {
    return countTiles(this.allItems().map((x) => x.tile));
  }

  /** Whether the keyboard key `tile` would break the four-copies (one per flower) limit for the target. */
  keyDisabled(tileName) {
    const used = this.used();
    const have = (x) => used.get(x) || 0;
    const limit = (x) => (isFlower(x) ? 1 : 4);
    if (this.target === "chi") {
      if (!isSuited(tileName) || Number(tileName[0]) > 7) return true;
      return [0, 1, 2].some((d) => have(`${Number(tileName[0]) + d}${tileName[1]}`) >= 4);
    }
    const need = MELD_SIZE[this.target] || 1;
    if (need > 1 && isFlower(tileName)) return true;
    return have(tileName) + need > limit(tileName);
  }

  /** A keyboard press: add `x` where the target says. */
  add(x) {
    const s = this.state;
    if (this.keyDisabled(x)) {
      if (this.target === "chi") this.onMessage(isSuited(x) ? t("chi_needs_low") : t("honour_no_chi"), "error");
      return;
    }
    this.snapshot();
    switch (this.target) {
      case "concealed": s.concealed.push(item(x)); break;
      case "flowers": s.flowers.push(item(x)); break;
      case "winning":
        s.winning = item(x);
        this.setTarget("concealed");
        break;
      case "chi": {
        const n = Number(x[0]);
        s.melds.push({ type: "chi", tiles: [0, 1, 2].map((d) => item(`${n + d}${x[1]}`)) });
        break;
      }
      default:
        s.melds.push({ type: this.target, tiles: Array.from({ length: MELD_SIZE[this.target] }, () => item(x)) });
    }
    this.render();
    this.changed();
  }

  setTarget(target) {
    this.target = target;
    for (const b of this.root.querySelectorAll(".targets button")) {
      b.setAttribute("aria-pressed", String(b.dataset.target === target));
    }
    this.keyboard?.refresh();
  }

  detach(it) {
    const s = this.state;
    for (const key of ["concealed", "flowers", "unplaced"]) {
      const i = s[key].indexOf(it);
      if (i >= 0) { s[key].splice(i, 1); return; }
    }
    if (s.winning === it) { s.winning = null; return; }
    for (const m of s.melds) {
      const i = m.tiles.indexOf(it);
      if (i >= 0) {
        m.tiles.splice(i, 1);
        if (!m.tiles.length) s.melds.splice(s.melds.indexOf(m), 1);
        return;
      }
    }
  }

  move(it, where) {
    this.snapshot();
    const s = this.state;
    this.detach(it);
    if (where === "concealed") s.concealed.push(it);
    else if (where === "flowers") s.flowers.push(it);
    else if (where === "winning") {
      if (s.winning) s.concealed.push(s.winning);
      s.winning = it;
    } else if (where === "new-meld") s.melds.push({ type: "pong", tiles: [it] });
    else if (where.startsWith("meld-")) s.melds[Number(where.slice(5))].tiles.push(it);
    else if (where === "remove" && it.src !== null) this.removedRecognized += 1;
    this.render();
    this.changed();
  }

  replace(it, x) {
    this.snapshot();
    it.tile = x;
    it.flagged = false;
    this.render();
    this.changed();
  }

  // ---------- rendering ----------

  build() {
    clear(this.root);
    this.zones = el("div", { class: "zones" });
    this.targetBar = el("div", { class: "targets", role: "group" });
    this.keyboard = tileKeyboard((x) => this.add(x), { disabled: (x) => this.keyDisabled(x) });
    this.keyboard.id = "hand-keyboard";
    this.tools = el("div", { class: "row key-tools" },
      el("button", { type: "button", id: "key-undo", onclick: () => this.undo(), text: t("key_undo") }),
      el("button", { type: "button", id: "key-clear", onclick: () => this.clearAll(), text: t("key_clear") }));
    const targetLabel = el("span", { class: "label", id: "target-label", text: t("target_label") });
    this.targetBar.setAttribute("aria-labelledby", "target-label");
    for (const x of TARGETS) {
      this.targetBar.append(el("button", { type: "button", dataset: { target: x }, "aria-pressed": "false",
                                           text: t(`target_${x}`), onclick: () => this.setTarget(x) }));
    }
    this.root.append(this.zones, el("div", { class: "keyboard-box" }, targetLabel, this.targetBar, this.keyboard,
                                     this.tools));
    this.setTarget(this.target);
    this.render();
  }

  render() {
    const s = this.state;
    clear(this.zones);
    const need = this.concealedNeeded();
    const count = el("span", { class: `count ${s.concealed.length === need ? "ok" : "warn"}`, id: "concealed-count",
                               text: t("count_concealed", { n: s.concealed.length, need }) });
    this.zones.append(this.zone("concealed", t("zone_concealed"), s.concealed, count));
    const melds = el("div", { class: "melds" });
    s.melds.forEach((m, i) => melds.append(this.meldView(m, i)));
    this.zones.append(el("section", { class: "zone", dataset: { zone: "melds" } },
      el("h3", { text: t("zone_melds") }), s.melds.length ? melds : el("p", { class: "empty", text: t("zone_empty") })));
    this.zones.append(this.zone("flowers", t("zone_flowers"), s.flowers));
    const winning = this.zone("winning", t("zone_winning"), s.winning ? [s.winning] : []);
    if (s.winningGuessed && s.winning) winning.append(this.winningChooser());
    this.zones.append(winning);
    if (s.unplaced.length) this.zones.append(this.zone("unplaced", t("zone_unplaced"), s.unplaced));
  }

  /** Under a guessed winning tile: each different tile of the hand, one tap to win on it instead. */
  winningChooser() {
    const seen = new Set([this.state.winning.tile]);
    const choices = this.state.concealed.filter((it) => !seen.has(it.tile) && seen.add(it.tile));
    return el("div", { class: "winning-guess", id: "winning-guess" },
      el("p", { class: "hint", text: t("winning_guessed") }),
      el("div", { class: "tile-row pick-row" }, choices.map((it) => el("button", {
        type: "button", class: "tile-btn", "aria-label": t("winning_pick", { tile: tileName(it.tile) }),
        dataset: { pick: it.tile }, onclick: () => this.pickWinning(it) }, tileImg(it.tile)))));
  }

  zone(key, title, items, extra = null) {
    const row = el("div", { class: "tile-row" }, items.map((it) => this.tileButton(it)));
    return el("section", { class: "zone", dataset: { zone: key } }, el("h3", {}, title, extra ? " " : "", extra),
              items.length ? row : el("p", { class: "empty", text: t("zone_empty") }));
  }

  meldView(m, i) {
    const select = el("select", { "aria-label": `${t("meld_n", { n: i + 1 })} ${t("meld_type")}`,
      onchange: (ev) => { this.snapshot(); m.type = ev.target.value; this.changed(); } },
      MELD_TYPES.map((x) => el("option", { value: x, text: t(`meld_${x}`), selected: x === m.type })));
    const remove = el("button", { type: "button", class: "small", "aria-label": `${t("meld_remove")} ${i + 1}`,
      text: "✕", onclick: () => {
        this.snapshot();
        this.removedRecognized += m.tiles.filter((x) => x.src !== null).length;
        this.state.melds.splice(i, 1);
        this.render();
        this.changed();
      } });
    return el("div", { class: "meld", dataset: { meld: String(i) } },
      el("div", { class: "tile-row" }, m.tiles.map((it) => this.tileButton(it))),
      el("div", { class: "meld-tools" }, select, remove));
  }

  tileButton(it) {
    const cls = ["tile-btn"];
    if (it.flagged) cls.push("flagged");
    if (it.orig && it.tile !== it.orig) cls.push("corrected");
    const why = it.flagged ? flagWhy(it) : "";
    const label = it.flagged ? `${tileName(it.tile)} (${t("flagged_hint")}: ${why})` : tileName(it.tile);
    return el("button", { type: "button", class: cls.join(" "), "aria-label": label, title: why || null,
                          dataset: { tile: it.tile, id: String(it.id) }, onclick: () => this.openSheet(it) },
              tileImg(it.tile));
  }

  /** The tile's part of the photo, its box marked: which tile of the photo the sheet is about. */
  photoCrop(box) {
    const side = 96;
    const canvas = el("canvas", { class: "sheet-crop", id: "sheet-crop", width: side, height: side, role: "img",
                                  "aria-label": t("sheet_crop") });
    if (!this.picture) this.picture = Object.assign(new Image(), { src: this.photo.picture });
    const img = this.picture;
    const draw = () => {
      const [x1, y1, x2, y2] = box;
      const m = 0.35 * Math.max(x2 - x1, y2 - y1);
      const sx = Math.max(0, x1 - m), sy = Math.max(0, y1 - m);
      const sw = Math.min(img.naturalWidth, x2 + m) - sx, sh = Math.min(img.naturalHeight, y2 + m) - sy;
      if (sw <= 0 || sh <= 0) return;
      const s = Math.min(side / sw, side / sh), ox = (side - sw * s) / 2, oy = (side - sh * s) / 2;
      const ctx = canvas.getContext("2d");
      ctx.drawImage(img, sx, sy, sw, sh, ox, oy, sw * s, sh * s);
      ctx.strokeStyle = "#ffd400";
      ctx.lineWidth = 3;
      ctx.strokeRect(ox + (x1 - sx) * s, oy + (y1 - sy) * s, (x2 - x1) * s, (y2 - y1) * s);
      canvas.dataset.drawn = "1";
    };
    if (img.complete && img.naturalWidth) draw();
    else img.addEventListener("load", draw, { once: true });
    return canvas;
  }

  /** The focus after a sheet's change, which drew the hand anew: on the tile where it still is, else on
   * the tile that took its place in its row (or the row's last), else on the keyboard's target bar. A
   * closed dialog gives the focus back to the button that opened it, which the new drawing removed. */
  focusTile(it, row, index) {
    const tile = (x) => this.zones.querySelector(`.tile-btn[data-id="${x.id}"]`);
    const left = row.filter((x) => x !== it && tile(x));
    const to = tile(it) || (left.length ? tile(left[Math.min(index, left.length - 1)]) : null)
      || this.targetBar.querySelector('[aria-pressed="true"]');
    to?.focus();
  }

  openSheet(it) {
    const s = this.state;
    const close = () => this.sheet.close();
    const row = s.concealed.includes(it) ? s.concealed : s.flowers.includes(it) ? s.flowers
      : s.unplaced.includes(it) ? s.unplaced : (s.melds.find((m) => m.tiles.includes(it))?.tiles || []);
    const refocus = (list, i) => this.focusTile(it, list, i);
    const act = (where) => () => {
      const list = [...row], i = row.indexOf(it);
      close();
      this.move(it, where);
      refocus(list, i);
    };
    const moves = [];
    if (!s.concealed.includes(it)) moves.push(["concealed", t("move_concealed")]);
    if (s.winning !== it) moves.push(["winning", t("move_winning")]);
    if (!s.flowers.includes(it)) moves.push(["flowers", t("move_flowers")]);
    s.melds.forEach((m, i) => {
      if (!m.tiles.includes(it) && m.tiles.length < 4) moves.push([`meld-${i}`, t("move_to_meld", { n: i + 1 })]);
    });
    moves.push(["new-meld", t("move_new_meld")]);
    const picker = tileKeyboard((x) => { close(); this.replace(it, x); refocus([], 0); }, { label: t("sheet_change") });
    refill(this.sheet,
      el("div", { class: "sheet-head" },
        tileImg(it.tile),
        it.box && this.photo?.picture ? this.photoCrop(it.box) : null,
        el("h2", { id: "sheet-title", text: t("sheet_title", { tile: tileName(it.tile) }) }),
        el("button", { type: "button", class: "small", "aria-label": t("close"), text: "✕", onclick: close })),
      it.flagged ? el("p", { class: "flag-why", id: "sheet-why", text: t("flag_why", { why: flagWhy(it) }) }) : null,
      el("div", { class: "row wrap sheet-moves" },
        moves.map(([where, label]) => el("button", { type: "button", dataset: { move: where }, text: label,
                                                     onclick: act(where) })),
        el("button", { type: "button", class: "danger", dataset: { move: "remove" }, text: t("remove_tile"),
                       onclick: act("remove") })),
      el("p", { class: "label", text: t("sheet_change") }),
      picker);
    this.sheet.showModal();
  }
}

