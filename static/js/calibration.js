// The calibration photo on the score page: the 42 faces laid out in the standard order, checked
// tile by tile by the player, then adapt from it (POST /api/calibration, POST /api/adapt).
import { t } from "./i18n.js";
import { el, clear, $, say } from "./dom.js";
import { api, get, post } from "./api.js";
import { tileImg, tileName } from "./tiles.js";

// the order vision/calibration.py reads, one row each: seasons and plants by their printed number
const ORDER_ROWS = [
  [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${n}m`),
  [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${n}p`),
  [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${n}s`),
  ["E", "S", "W", "N", "C", "F", "P"],
  ["1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f"],
];
const PRINTED = { "1f": 1, "2f": 2, "3f": 3, "4f": 4, "5f": 1, "6f": 2, "7f": 3, "8f": 4 };
const CROP_H = 72; // px of a checked tile's crop on the page

/** The layout to make, as tile pictures; a flower or season also shows the number it prints. */
function renderOrder() {
  const box = clear($("#calibration-order"));
  for (const tiles of ORDER_ROWS) {
    box.append(el("div", { class: "calibration-row" }, tiles.map((x) => el("span", { class: "calibration-slot" },
      tileImg(x, "tile small"), PRINTED[x] ? el("span", { class: "printed", text: String(PRINTED[x]) }) : null))));
  }
}

/** What a place in the order teaches: a tile, or for a flower or season only its printed number
 * (sets differ in which plant prints 3 and 4; the number is what is learnt). */
function learntAs(tile) {
  if (!PRINTED[tile]) return [tileImg(tile, "tile small"), el("span", { class: "name", text: tileName(tile) })];
  const text = t(Number(tile[0]) <= 4 ? "calibration_season" : "calibration_flower", { n: PRINTED[tile] });
  return [el("span", { class: "printed-chip", text: String(PRINTED[tile]) }), el("span", { class: "name", text })];
}

/** Each tile found, cut from the kept photo, above the tile it will be learnt as. */
async function renderCheck(res) {
  const image = new Image();
  image.src = `${res.photo_url}?${Date.now()}`; // a new photo under the same address
  await image.decode();
  const list = clear($("#calibration-tiles"));
  for (const { tile, box, blank } of res.tiles) {
    const [x1, y1, x2, y2] = box;
    const w = Math.max(1, x2 - x1), h = Math.max(1, y2 - y1);
    const canvas = el("canvas", { width: Math.round((CROP_H * w) / h), height: CROP_H, "aria-hidden": "true" });
    canvas.getContext("2d").drawImage(image, x1, y1, w, h, 0, 0, canvas.width, canvas.height);
    // a face with next to nothing on it (covered, face down, a gap): marked for the player to look at
    list.append(el("li", { dataset: { tile }, class: blank ? "blank" : null }, canvas, ...learntAs(tile)));
  }
  $("#calibration-check").hidden = false;
}

/** The check's line: how many tiles were found, and how many of them look blank. */
function checkLine(key, res) {
  const blank = res.tiles.filter((x) => x.blank).length;
  return t(key, { n: res.tiles.length }) + (blank ? t("status_sep") + t("calibration_blank", { n: blank }) : "");
}

async function send(file) {
  if (!file) return;
  const status = $("#calibration-status");
  const form = new FormData();
  form.append("photo", file, file.name || "calibration.jpg");
  say(status, t("calibration_reading"));
  try {
    const res = await api("POST", "/api/calibration", form);
    await renderCheck(res);
    say(status, checkLine("calibration_found", res), res.tiles.some((x) => x.blank) ? "error" : "ok");
  } catch (e) {
    // refused while a run learns the photo shown: that photo and its check stay
    if (e.status !== 409) $("#calibration-check").hidden = true;
    say(status, t("error_prefix") + e.message, "error");
  }
}

/** The photo kept from before (a reload, another day): its check again, to adapt from it once more. */
export async function showKept() {
  try {
    const res = await get("/api/calibration");
    await renderCheck(res);
    say($("#calibration-status"), checkLine("calibration_kept", res), "ok");
  } catch (e) { /* none to show (lost since, or its photo unreadable): the card works as new */ }
}

/** While a run goes, the photo it learns cannot be replaced nor a second run started. */
function setRunning(running) {
  $("#calibration-adapt").disabled = running;
  $("#calibration-input").disabled = running;
  $("#calibration-block label.button").classList.toggle("disabled", running);
}

/** Wire the calibration block; `adaptStarted` is called once a run from the photo began (or one
 * runs already). Returns setRunning(running), for the adapt status to call. */
export function initCalibration(adaptStarted) {
  renderOrder();
  $("#calibration-input").addEventListener("change", (ev) => {
    send(ev.target.files[0]);
    ev.target.value = ""; // the same photo can be chosen again
  });
  $("#calibration-adapt").addEventListener("click", async () => {
    $("#calibration-adapt").disabled = true; // at once: the run's status shows a moment later
    try {
      await post("/api/adapt", { source: "calibration" });
    } catch (e) {
      if (e.status !== 409) {
        $("#calibration-adapt").disabled = false;
        say($("#calibration-status"), t("error_prefix") + e.message, "error");
        return;
      }
    }
    adaptStarted();
  });
  window.addEventListener("langchange", () => {
    renderOrder();
    for (const li of document.querySelectorAll("#calibration-tiles li")) li.replaceChildren(li.querySelector("canvas"), ...learntAs(li.dataset.tile));
  });
  return setRunning;
}
