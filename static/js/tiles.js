// Tile notation (same as the engine: 1m-9m 1p-9p 1s-9s E S W N C F P 1f-8f), pictures and the tile keyboard.
import { t } from "./i18n.js";
import { el } from "./dom.js";

export const SUITS = ["m", "p", "s"];
export const HONOURS = ["E", "S", "W", "N", "C", "F", "P"];
export const FLOWERS = ["1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f"];
export const TILES = [...SUITS.flatMap((s) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${n}${s}`)), ...HONOURS];
export const ALL = [...TILES, ...FLOWERS];
export const WINDS = ["E", "S", "W", "N"];

const ORDER = new Map(ALL.map((x, i) => [x, i]));

// Tile sets differ in the number printed on two flowers (vision/tilesets.json): a taiwan set prints
// 竹 3 and 菊 4 (7f, 8f), an hk-index set 菊 3 and 竹 4. Pictures and names follow the chosen set.
// "printed" (the default) lets the recognizer read the number off each flower; its pictures are
// the taiwan ones, since 7f is the third plant whichever it is.
const TILESET_KEY = "mahjong.tileset";
export const TILESETS = ["printed", "taiwan", "hk-index"];
const SET_PICTURES = { "hk-index": new Set(["7f", "8f"]) }; // static/tiles/<set>/<tile>.png

export function tileset() {
  const saved = localStorage.getItem(TILESET_KEY);
  return TILESETS.includes(saved) ? saved : "printed";
}

export function setTileset(name) {
  if (TILESETS.includes(name)) localStorage.setItem(TILESET_KEY, name);
}

function pictureUrl(x) {
  const set = tileset();
  if (SET_PICTURES[set] && SET_PICTURES[set].has(x)) return `/static/tiles/${set}/${x}.png`;
  return `/static/tiles/${ORDER.has(x) || x === "back" ? x : "back"}.png`;
}

export const isFlower = (x) => /^[1-8]f$/.test(x);
export const isSuited = (x) => /^[1-9][mps]$/.test(x);
export const sortTiles = (arr) => [...arr].sort((a, b) => (ORDER.get(a) ?? 99) - (ORDER.get(b) ?? 99));

/** "123m 55p EE 1f" -> ["1m","2m","3m","5p","5p","E","E","1f"]; throws on anything else. */
export function parseTiles(str) {
  const out = [];
  let digits = "";
  for (const ch of String(str || "").replace(/\s+/g, "")) {
    if (/[0-9]/.test(ch)) digits += ch;
    else if ("mpsf".includes(ch)) {
      if (!digits) throw new Error(`"${ch}" without a number`);
      for (const d of digits) out.push(d + ch);
      digits = "";
    } else if ("ESWNCFP".includes(ch) && !digits) out.push(ch);
    else throw new Error(`unexpected "${ch}"`);
  }
  if (digits) throw new Error(`"${digits}" without a suit`);
  for (const x of out) if (!ORDER.has(x)) throw new Error(`unknown tile ${x}`);
  return out;
}

/** ["1m","2m","5p","E"] -> "12m5pE" (order kept; consecutive tiles of one suit share the letter). */
export function formatTiles(arr) {
  let s = "";
  let run = "";
  let suit = "";
  for (const x of arr) {
    if (x.length === 2) {
      if (suit && suit !== x[1]) { s += run + suit; run = ""; }
      suit = x[1];
      run += x[0];
    } else {
      if (suit) { s += run + suit; run = ""; suit = ""; }
      s += x;
    }
  }
  if (suit) s += run + suit;
  return s;
}

export function tileName(x) {
  if (isSuited(x)) return t(`tiles.${x[1]}`, { n: t(`tiles.nums.${Number(x[0]) - 1}`) });
  if (tileset() === "hk-index" && (x === "7f" || x === "8f")) return t(`tiles_hk.${x}`);
  return t(`tiles.${x}`);
}

/** The picture of one tile. */
export function tileImg(x, cls = "tile") {
  return el("img", { class: cls, src: pictureUrl(x), alt: tileName(x),
                     title: tileName(x), draggable: "false", dataset: { tile: x } });
}

/** A row of tile pictures (for read-only displays: decomposition, waits). */
export function tileRow(tiles, cls = "tiles") {
  return el("span", { class: cls }, tiles.map((x) => tileImg(x)));
}

/** A keyboard row in two groups, the first the longer: 1-5 and 6-9, the winds and the dragons, the
 * seasons and the plants. Nine 44 px keys do not fit a phone's width: there the groups stack (app.css). */
function keyGroups(row) {
  const half = Math.ceil(row.length / 2);
  return [row.slice(0, half), row.slice(half)];
}

/**
 * The on-screen tile keyboard: rows 萬 筒 條 字 (and 花). `onPick(tile)` is called on each press;
 * `disabled(tile)` (optional) greys out keys, e.g. when all four copies are used.
 */
export function tileKeyboard(onPick, { flowers = true, disabled = null, label = null } = {}) {
  const rows = [
    ...SUITS.map((s) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${n}${s}`)),
    HONOURS,
    ...(flowers ? [FLOWERS] : []),
  ];
  const root = el("div", { class: "keyboard", role: "group", "aria-label": label || t("keyboard_label") });
  const key = (x) => el("button", { type: "button", class: "key", dataset: { tile: x }, "aria-label": tileName(x),
                                    onclick: () => onPick(x) }, tileImg(x));
  for (const row of rows) {
    root.append(el("div", { class: "key-row" }, keyGroups(row).map((g) => el("div", { class: "key-group" }, g.map(key)))));
  }
  root.refresh = () => {
    const keys = [...root.querySelectorAll("button.key")];
    const had = keys.indexOf(document.activeElement);
    for (const b of keys) {
      b.disabled = disabled ? !!disabled(b.dataset.tile) : false;
    }
    // a key pressed for its last copy is disabled under the focus, which a disabled button loses to the
    // page: the focus goes on to the next key that can still be pressed (or the one before)
    if (had >= 0 && keys[had].disabled) {
      const next = [...keys.slice(had + 1), ...keys.slice(0, had).reverse()].find((b) => !b.disabled);
      next?.focus();
    }
  };
  root.refresh();
  return root;
}

/** How many of each tile are used across lists of tiles. */
export function countTiles(...lists) {
  const c = new Map();
  for (const list of lists) for (const x of list) c.set(x, (c.get(x) || 0) + 1);
  return c;
}
