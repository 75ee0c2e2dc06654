// live.html: about once a second, recognize the player's own hand and show shanten, waits and discards.
import { initPage } from "./page.js";
import { t, lang, windName, codeText } from "./i18n.js";
import { el, clear, $, say, reveal, holdFocus } from "./dom.js";
import { api, get, post, withPin } from "./api.js";
import { tileImg, tileName, tileKeyboard, isSuited, isFlower, formatTiles, countTiles, parseTiles,
         tileset, setTileset, WINDS } from "./tiles.js";

initPage();

const INTERVAL_MS = 1000;
const TARGETS = ["seen", "chi", "pong", "kong", "ankong", "flowers"];
const MELD_SIZE = { chi: 3, pong: 3, kong: 4, ankong: 4 };

const state = {
  source: null,
  running: false,
  busy: false,
  frames: 0,
  stream: null, // the browser camera's MediaStream
  seen: [],
  melds: [], // [{type, tiles: [..]}] the player entered; when empty the frame's own melds count
  flowers: [],
  target: "seen",
  last: null,
  lastFrame: null, // the last frame or photo read: read again when what the player entered changes
  sources: { attached: false, secure: false, camera: false }, // what this page can use
  win: null, // {key, result} of the last complete hand scored
  status: null, // {key, kind, detail, error} of the status line (see status())
};

// ---------- one frame ----------

/** Send one frame to /api/live and show the answer; returns the answer (also the test hook's result). */
async function analyse(blob) {
  const form = new FormData();
  form.append("frame", blob, "frame.jpg");
  form.append("rules", $("#rules").value || "tw-standard");
  form.append("tileset", $("#tileset").value);
  form.append("seen", formatTiles(state.seen));
  if (state.melds.length) form.append("melds", JSON.stringify(state.melds.map((m) => ({ type: m.type, tiles: formatTiles(m.tiles) }))));
  if (state.flowers.length) form.append("flowers", formatTiles(state.flowers));
  const res = await api("POST", "/api/live", form);
  state.frames += 1;
  state.last = res;
  state.lastFrame = blob;
  renderHints(res);
  return res;
}

let readAgain = null;
/** The seen tiles, melds, flowers or rules changed: a photo sent by hand is read again with them
 * (its counts and 台 would be stale until the next photo); a running camera's next frame does it. */
function reanalyse(settle = true) {
  if (state.running || !state.lastFrame) return;
  clearTimeout(readAgain);
  readAgain = setTimeout(() => analyse(state.lastFrame)
    // read well again after what the player entered: an error on the line is past (settle)
    .then(() => { if (settle && state.status?.kind === "error") status("live_file_help", "ok"); })
    .catch(statusError), 300);
}

function renderHints(res) {
  const layout = res.layout || {};
  const flagged = new Set(layout.flagged || []);
  const row = clear($("#seen-tiles"));
  const concealed = layout.concealed_indices
    ? layout.concealed_indices.map((i) => [res.tiles[i].tile, flagged.has(i)])
    : (layout.concealed || []).map((x) => [x, false]);
  for (const [x, unsure] of concealed) {
    const img = tileImg(x);
    if (unsure) img.classList.add("unsure");
    row.append(el("span", { class: unsure ? "tile-btn flagged" : "tile-btn" }, img));
  }
  if (layout.winning_tile) row.append(el("span", { class: "drawn" }, tileImg(layout.winning_tile)));
  for (const m of layout.melds || []) if (m.tiles) row.append(el("span", { class: "set melded" }, parseTiles(m.tiles).map((x) => tileImg(x))));
  // the server's one-line message matters when there are no hints to show (wrong tile count, unreadable kong)
  $("#live-message").textContent = res.waits || res.advice ? "" : res.message || "";
  $("#frame-count").textContent = t("frames", { n: state.frames });

  const shantenNode = $("#shanten");
  const waits = res.waits;
  const win = !!(res.advice && res.advice.win) || res.win === true;
  const advice = win ? null : res.advice;
  const shanten = win ? -1 : waits ? waits.shanten : advice ? advice.shanten : null;
  shantenNode.textContent = shanten === null || shanten === undefined ? "–"
    : shanten < 0 ? t("shanten_win") : shanten === 0 ? t("shanten_ready") : t("shanten_n", { n: shanten });
  shantenNode.dataset.shanten = shanten ?? "";

  $("#win-box").hidden = !win;
  if (win) scoreWin(res);
  $("#waits-box").hidden = !waits;
  const wl = clear($("#waits"));
  if (waits) {
    for (const w of waits.waits) {
      wl.append(el("li", { class: w.remaining ? "" : "none", dataset: { tile: w.tile } },
        tileImg(w.tile), el("span", { text: t("remaining", { n: w.remaining }) })));
    }
    if (!waits.waits.length) wl.append(el("li", { text: t("live_no_waits") }));
    const dead = $("#dead-waits");
    dead.hidden = !(waits.dead_waits || []).length;
    dead.textContent = dead.hidden ? "" : t("live_dead_waits") + waits.dead_waits.map(tileName).join("、");
  }
  $("#advice-box").hidden = !advice;
  const al = clear($("#advice"));
  if (advice) {
    for (const d of (advice.discards || []).slice(0, 5)) {
      al.append(el("li", { dataset: { discard: d.discard } },
        el("div", { class: "wait" }, tileImg(d.discard), el("strong", { text: t("live_discard", { tile: tileName(d.discard) }) })),
        el("div", { class: "hint", text: `${d.shanten === 0 ? t("shanten_ready") : t("shanten_n", { n: d.shanten })} · ${
          d.reshaping_copies === undefined ? t("live_useful", { kinds: d.useful_kinds, copies: d.useful_copies, n: d.useful_copies })
            : t("live_reshape", { copies: d.reshaping_copies, n: d.reshaping_copies })}` }),
        el("div", { class: "tiles useful" }, d.useful.map((u) => el("span", { class: "useful-tile", title: t("remaining", { n: u.remaining }) },
          tileImg(u.tile))))));
    }
  }
}

// ---------- a complete hand: 胡了, with its 台 under the chosen table ----------

/** The frame's hand in the engine's form: all its concealed tiles (the drawn one too), melds, flowers. */
function frameHand(res) {
  const layout = res.layout || {};
  const concealed = [...(layout.concealed || []), ...(layout.winning_tile ? [layout.winning_tile] : [])];
  const melds = state.melds.length ? state.melds.map((m) => ({ type: m.type, tiles: formatTiles(m.tiles) }))
    : (layout.melds || []).filter((m) => m.tiles).map((m) => ({ type: m.type, tiles: m.tiles }));
  const flowers = state.flowers.length ? formatTiles(state.flowers) : (layout.flowers || []).join("");
  const hand = { rules: $("#rules").value || "tw-standard", concealed: formatTiles(concealed), melds, flowers,
                 self_drawn: $("#live-self").checked, ...seat(), context: { seen: formatTiles(state.seen) } };
  if (layout.winning_tile) hand.winning_tile = layout.winning_tile; // the tile set apart is the drawn one
  return hand;
}

/** Ask /api/advise for the hand's 台 (self-drawn unless the player says otherwise); once per hand and choice. */
async function scoreWin(res) {
  const hand = frameHand(res);
  const key = JSON.stringify(hand);
  if (state.win && state.win.key === key) { renderWin(state.win.result); return; }
  // /api/live scored it already when the choice is its default (self-drawn, the best drawn tile, 東 seat and dealer)
  const same = res.advice && res.advice.win && res.advice.self_drawn === hand.self_drawn && !hand.winning_tile
    && Object.values(seat()).every((w) => w === "E");
  state.win = { key, result: same ? res.advice : null };
  if (state.win.result) { renderWin(state.win.result); return; }
  try {
    const result = await post("/api/advise", hand);
    if (state.win && state.win.key === key) { state.win.result = result; renderWin(result); }
  } catch (e) {
    say($("#live-win-status"), t("error_prefix") + e.message, "error");
  }
}

function renderWin(result) {
  const tai = result && typeof result.tai === "number" ? result.tai : null;
  $("#live-win").textContent = tai === null ? t("shanten_win") : t("live_win", { tai });
  // the 台 cannot be told (乐清 without its 財神, say): the reason, in the page's words
  const problem = result && result.score_error;
  say($("#live-win-status"), problem ? t("error_prefix") + (problem.error || "") : "", problem ? "error" : "info");
  const table = clear($("#live-breakdown"));
  const breakdown = (result && (result.breakdown || (result.score && result.score.breakdown))) || [];
  for (const e of breakdown) {
    table.append(el("tr", { dataset: { entry: e.id } },
      el("td", { text: lang() === "en" ? e.name_en || e.name : e.name }),
      el("td", { class: "num" }, String(e.tai),
         e.count > 1 && e.tai % e.count === 0 ? el("small", { class: "per", text: t("entry_times", { each: e.tai / e.count, n: e.count }) }) : null)));
  }
}

/** The player's seat wind, the round wind and the dealer's seat, as chosen under the win (東 each by default). */
function seat() {
  return { seat_wind: $("#live-seat").value || "E", round_wind: $("#live-round").value || "E", dealer: $("#live-dealer").value || "E" };
}

function fillWinds() {
  for (const sel of [$("#live-seat"), $("#live-round"), $("#live-dealer")]) {
    const keep = sel.value || "E";
    clear(sel).append(...WINDS.map((w) => el("option", { value: w, text: windName(w) })));
    sel.value = keep;
  }
}

for (const id of ["#live-self", "#live-claimed", "#live-seat", "#live-round", "#live-dealer"]) {
  $(id).addEventListener("change", () => { if (state.last) renderHints(state.last); });
}

// ---------- sources ----------

// a refusal of the table camera's frame said in the page's own words, for what to do here (the
// code kept: withPin asks for the PIN on pin_required); any other code in the server's words
const FRAME_REFUSALS = { no_camera: "live_no_server_cam", pin_required: "live_cam_pin" };

async function grabServerFrame() {
  let res;
  try {
    res = await fetch("/api/camera/frame", { cache: "no-store" });
  } catch (e) {
    throw new PageError("network_error"); // the browser's own words ("Failed to fetch") are English
  }
  if (!res.ok) {
    // 404: no camera. A camera that stopped answering (503 camera_not_answering) is attached: say
    // what the server says of it, in the page's words, not that there is none
    const data = await res.json().catch(() => null);
    const code = data && data.code;
    if (code && !FRAME_REFUSALS[code]) {
      throw new PageError(null, code, data.params || {}, await codeText(code, data.params || {}, data.error));
    }
    throw new PageError(FRAME_REFUSALS[code] || "live_no_server_cam", code || null);
  }
  return res.blob();
}

function grabBrowserFrame() {
  // an unplugged or revoked camera ends its track; the video then holds its last picture, which
  // would be sent as if live, so stop and say so
  if (state.stream && state.stream.getVideoTracks().every((track) => track.readyState === "ended")) {
    throw new CameraLost();
  }
  const video = $("#video");
  const canvas = document.createElement("canvas");
  const scale = Math.min(1, 1600 / Math.max(video.videoWidth, 1));
  canvas.width = Math.round(video.videoWidth * scale);
  canvas.height = Math.round(video.videoHeight * scale);
  canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new PageError("live_no_frame"))), "image/jpeg", 0.85));
}

class CameraLost extends Error {}

function showFrame(blob) {
  const view = $("#frame-view");
  if (view.dataset.url) URL.revokeObjectURL(view.dataset.url);
  view.dataset.url = URL.createObjectURL(blob);
  view.src = view.dataset.url;
  view.hidden = false;
  $("#video-box").hidden = false;
}

// The status line is kept as its message key, so that a change of language says it again
// (detail: text that comes translated already, a server's error message).
function status(key, kind = "info", detail = "", error = null) {
  state.status = { key, kind, detail, error };
  say($("#live-status"), t(key) + detail, kind);
}

/** An error of the page's own (`key` in its catalog) or a server's (`code` and `params`): kept so
 *  that the status line says it again in the other language after a switch. */
class PageError extends Error {
  constructor(key, code = null, params = {}, message = null) {
    super(message ?? t(key));
    this.key = key;
    this.code = code;
    this.params = params;
  }
}

/** The status line for a refused step: its error, said again in the new language on a switch. */
function statusError(e) {
  status("error_prefix", "error", e.message, e);
}

/** The error of the status line in the page's language now: a page error by its key, a server's
 *  by its code (api.js's ApiError carries code and params too), anything else as it was said. */
async function reworded(e) {
  if (e.key) return t(e.key);
  return e.code ? codeText(e.code, e.params || {}, e.message) : e.message;
}

/** Read a frame about once a second while running; `first`, a frame already taken, is read first. */
async function loop(first = null) {
  while (state.running) {
    const started = performance.now();
    try {
      const blob = first || (state.source === "server" ? await grabServerFrame() : await grabBrowserFrame());
      first = null;
      if (state.source === "server" && $("#frame-view").dataset.mode !== "stream") showFrame(blob);
      await analyse(blob);
      status("live_status_running", "ok");
    } catch (e) {
      if (e instanceof CameraLost) { stop(); status("live_cam_lost", "error"); break; }
      // the PIN was asked for and not given, or its session ended since: no question nor error
      // every second; Start asks again
      if (e.code === "pin_required") { stop(); statusError(e); break; }
      // live_busy: the server was reading other frames and skipped this one; the next follows, nothing to say
      if (e.code !== "live_busy") statusError(e);
      if (e.status === 503 || e.status === 404) { stop(); break; }
    }
    // about once a second, never two frames in flight
    await new Promise((r) => setTimeout(r, Math.max(200, INTERVAL_MS - (performance.now() - started))));
  }
}

async function start() {
  if (state.source === "file") { $("#frame-input").click(); return; }
  if (state.source === "browser") {
    try {
      state.stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: 1920 } }, audio: false });
    } catch (e) {
      // say what went wrong: a refusal, no camera, a busy camera (the page is a secure context here)
      const why = ["NotAllowedError", "SecurityError"].includes(e.name) ? "live_cam_denied"
        : ["NotReadableError", "AbortError", "TrackStartError"].includes(e.name) ? "live_cam_busy" : "live_cam_none";
      status(why, "error");
      return;
    }
    const video = $("#video");
    video.srcObject = state.stream;
    video.hidden = false;
    $("#frame-view").hidden = true;
    $("#video-box").hidden = false;
    await video.play();
  }
  let first = null;
  if (state.source === "server") {
    // a first frame before the stream: where the picture needs the table PIN it is asked for here,
    // once (an <img> of the stream cannot tell a refusal for the PIN from any other); the last
    // try's "press Start to enter it" must not stand behind the question
    status("live_status_idle");
    try {
      first = await withPin(grabServerFrame);
    } catch (e) {
      statusError(e);
      return;
    }
    // watch the MJPEG stream; if the server refuses it (two screens already), show the analysed frames
    const view = $("#frame-view");
    view.dataset.mode = "stream";
    view.onerror = () => { view.dataset.mode = "frames"; };
    view.src = "/api/camera/stream";
    view.hidden = false;
    $("#video-box").hidden = false;
  }
  state.running = true;
  $("#live-toggle").textContent = t("live_stop");
  reveal($("#video-box"), "start"); // on a phone: the picture and the hints right under it
  loop(first);
}

function stop() {
  state.running = false;
  if (state.stream) { for (const track of state.stream.getTracks()) track.stop(); state.stream = null; }
  $("#video").hidden = true;
  const view = $("#frame-view");
  if (view.dataset.mode === "stream") { view.removeAttribute("src"); view.dataset.mode = "frames"; } // closes the stream
  $("#live-toggle").textContent = t("live_start");
}

$("#live-toggle").addEventListener("click", async () => {
  if (state.running) { stop(); return; }
  // asking for a camera or the PIN takes a while: a second press meanwhile started two loops
  const toggle = $("#live-toggle");
  const giveBack = holdFocus(toggle);
  toggle.disabled = true;
  try { await start(); } finally { toggle.disabled = false; giveBack(); }
});

$("#frame-input").addEventListener("change", async (ev) => {
  const file = ev.target.files[0];
  ev.target.value = "";
  if (!file) return;
  try {
    await analyse(file);
    showFrame(file); // only once read: a file that is no photo leaves the last good one and its tiles
    status("live_file_help", "ok");
    reveal($("#video-box"), "start");
  } catch (e) {
    statusError(e);
  }
});

const SOURCE_LABEL = { server: "src_server", browser: "src_browser", file: "src_file" };

function setSource(source, chosen = false) {
  if (state.running) stop();
  state.source = source;
  $(`#src-${source}`).checked = true;
  $("#frame-label").hidden = source !== "file";
  $("#live-toggle").hidden = source === "file";
  state.chosen = chosen;
  sourceLine();
}

/** One plain line: which source runs, and why when the page picked it. */
function sourceLine() {
  const { secure, camera } = state.sources;
  const using = t("live_using", { source: t(SOURCE_LABEL[state.source] || "src_file") });
  let why = "";
  if (!state.chosen && state.source === "browser") why = t("live_why_browser");
  if (!state.chosen && state.source === "file") why = !secure ? t("live_why_insecure") : !camera ? t("live_why_file") : "";
  $("#source-line").textContent = why ? t("live_using_why", { using, why }) : using;
}

for (const s of ["server", "browser", "file"]) $(`#src-${s}`).addEventListener("change", () => setSource(s, true));

/**
 * The source that works: the table camera when one is attached (GET /api/camera, never a 404), else this
 * device's camera where the page is a secure context and the device has one, else photo upload.
 */
async function pickSource() {
  const secure = !!(window.isSecureContext && navigator.mediaDevices && navigator.mediaDevices.getUserMedia);
  let camera = false;
  if (secure) {
    try { camera = (await navigator.mediaDevices.enumerateDevices()).some((d) => d.kind === "videoinput"); }
    catch (e) { camera = false; }
  }
  let attached = false;
  try { attached = !!(await get("/api/camera")).attached; } catch (e) { attached = false; }
  state.sources = { attached, secure, camera };
  $("#src-server").disabled = !attached;
  $("#src-browser").disabled = !secure || !camera;
  setSource(attached ? "server" : secure && camera ? "browser" : "file");
}

// ---------- what the player enters: seen tiles, own melds and flowers ----------

function used() {
  return countTiles(state.seen, state.melds.flatMap((m) => m.tiles), state.flowers);
}

function keyDisabled(x) {
  const have = (y) => used().get(y) || 0;
  if (state.target === "chi") return !isSuited(x) || Number(x[0]) > 7 || [0, 1, 2].some((d) => have(`${Number(x[0]) + d}${x[1]}`) >= 4);
  const need = MELD_SIZE[state.target] || 1;
  // 乐清 plays 白板 (or 紅中) as flowers, a Taiwanese table never (the server refuses them there)
  if (state.target === "flowers") return isFlower(x) ? have(x) >= 1 : !(honoursAreFlowers() && ["P", "C"].includes(x)) || have(x) >= 4;
  if (need > 1 && isFlower(x)) return true;
  return have(x) + need > (isFlower(x) ? 1 : 4);
}

function addTile(x) {
  if (keyDisabled(x)) return;
  if (state.target === "seen") state.seen.push(x);
  else if (state.target === "flowers") state.flowers.push(x);
  else if (state.target === "chi") state.melds.push({ type: "chi", tiles: [0, 1, 2].map((d) => `${Number(x[0]) + d}${x[1]}`) });
  else state.melds.push({ type: state.target, tiles: Array(MELD_SIZE[state.target]).fill(x) });
  entered();
}

let keyboard = null;
function buildKeyboard() {
  const targets = clear($("#live-targets"));
  targets.setAttribute("aria-label", t("target_label")); // as the score page's bar: a group named by what it picks
  for (const x of TARGETS) {
    targets.append(el("button", { type: "button", dataset: { target: x }, "aria-pressed": String(state.target === x),
      text: t(`target_${x}`), onclick: () => {
        state.target = x;
        for (const b of targets.children) b.setAttribute("aria-pressed", String(b.dataset.target === x));
        keyboard.refresh();
      } }));
  }
  keyboard = tileKeyboard(addTile, { disabled: keyDisabled });
  clear($("#live-keyboard")).append(keyboard);
}

function renderMine() {
  const seen = clear($("#seen-list"));
  state.seen.forEach((x, i) => seen.append(el("button", { type: "button", class: "tile-btn", "aria-label": `${t("remove_tile")} ${tileName(x)}`,
    onclick: () => { state.seen.splice(i, 1); entered(); } }, tileImg(x))));
  if (!state.seen.length) seen.append(el("p", { class: "empty", text: t("zone_empty") }));
  const mine = clear($("#my-melds"));
  state.melds.forEach((m, i) => mine.append(el("button", { type: "button", class: "tile-btn set melded",
    "aria-label": `${t("meld_remove")} ${t(`meld_${m.type}`)}`, onclick: () => { state.melds.splice(i, 1); entered(); } },
    m.tiles.map((x) => tileImg(x)))));
  state.flowers.forEach((x, i) => mine.append(el("button", { type: "button", class: "tile-btn", "aria-label": `${t("remove_tile")} ${tileName(x)}`,
    onclick: () => { state.flowers.splice(i, 1); entered(); } }, tileImg(x))));
  if (!state.melds.length && !state.flowers.length) mine.append(el("p", { class: "empty", text: t("zone_empty") }));
  keyboard?.refresh();
}

/** renderMine after the player changed what they entered: the hints follow it. */
function entered() {
  renderMine();
  reanalyse();
}

$("#seen-clear").addEventListener("click", () => { state.seen = []; state.melds = []; state.flowers = []; entered(); });

// ---------- start ----------

/** Whether the chosen table plays 白板 or 紅中 as flowers (乐清); an unknown table is left to the server. */
function honoursAreFlowers() {
  const table = ruleTables.find((x) => x.id === $("#rules").value);
  return !table || table.scorer === "yueqing";
}

let ruleTables = [];

async function fillRules() {
  let tables = [];
  try { tables = (await get("/api/rules")).tables || []; } catch (e) { /* keep the default table */ }
  ruleTables = tables;
  const sel = $("#rules");
  const keep = sel.value || "tw-standard";
  clear(sel).append(...tables.map((x) => el("option", { value: x.id, text: lang() === "en" ? x.name_en : x.name })));
  if (tables.some((x) => x.id === keep)) sel.value = keep;
  keyboard?.refresh();  // the flower keys follow the table now known
}

window.addEventListener("langchange", () => {
  sourceLine();
  fillWinds();
  buildKeyboard();
  renderMine();
  fillRules();
  $("#live-toggle").textContent = state.running ? t("live_stop") : t("live_start");
  const shown = state.status;
  if (shown && shown.error) {
    reworded(shown.error).then((text) => { if (state.status === shown) status(shown.key, shown.kind, text, shown.error); });
  } else if (shown) status(shown.key, shown.kind, shown.detail);
  if (state.last) renderHints(state.last);
  reanalyse(false); // the server's lines (the tile count, a dead wait) in the page's language; an error stays
});

// test hook: feed one recorded frame as if the camera had taken it
window.__liveFeed = (blob) => { showFrame(blob); return analyse(blob); };

// the tile set decides how flowers are drawn and named; every page keeps the choice
$("#tileset").value = tileset();
$("#tileset").addEventListener("change", (ev) => {
  setTileset(ev.target.value);
  buildKeyboard();
  renderMine();
  if (state.last) renderHints(state.last);
  reanalyse(); // the tile set decides how a photo's flowers are read
});
$("#rules").addEventListener("change", () => {
  state.win = null;
  // 白板 and 紅中 are flowers under 乐清 only: entered there, they go with the table
  if (!honoursAreFlowers() && state.flowers.some((x) => !isFlower(x))) {
    state.flowers = state.flowers.filter(isFlower);
    renderMine();
  }
  keyboard?.refresh();
  if (state.last) renderHints(state.last);
  reanalyse();
});

status("live_status_idle");
fillWinds();
buildKeyboard();
renderMine();
fillRules();
pickSource();
