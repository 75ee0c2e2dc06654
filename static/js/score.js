// index.html: score a hand from a photo or from manual entry, learn from corrections, record into a game.
import { initPage } from "./page.js";
import { t, windName, lang } from "./i18n.js";
import { el, clear, $, say } from "./dom.js";
import { api, get, post, ApiError } from "./api.js";
import { HandEditor } from "./hand.js";
import { TILES, WINDS, tileImg, tileName, parseTiles, tileRow } from "./tiles.js";

initPage();

// context flags and the rule-table entries that use them: a flag is offered only when the table has one
const FLAG_ENTRIES = {
  last_tile: ["last_tile_draw", "last_tile_discard"],
  kong_replacement: ["kong_bloom", "gang_shang_kai_hua"],
  robbing_kong: ["robbing_kong", "qiang_gang_hu"],
  declared_ready: ["declared_ready"],
  first_turn: ["heavenly_win", "earthly_win", "human_win", "tian_hu", "di_hu"],
  heavenly_ready: ["heavenly_ready"],
  earthly_ready: ["earthly_ready"],
  ippatsu: ["ippatsu"],
};

const statusPhoto = $("#photo-status");
const statusHand = $("#hand-status");
let tables = [];
let lastResult = null; // {request, result, photo_id}
let lastExamplesKey = null;

const editor = new HandEditor($("#hand-editor"), {
  onChange: () => { say(statusHand, ""); hideResult(); },
  onMessage: (text, kind) => say(statusHand, text, kind),
});

// ---------- photo ----------

async function recognize(file) {
  if (!file) return;
  const form = new FormData();
  form.append("photo", file, file.name || "photo.jpg");
  form.append("tileset", $("#tileset").value);
  say(statusPhoto, t("recognizing"));
  $("#photo-section").setAttribute("aria-busy", "true");
  try {
    const res = await api("POST", "/api/recognize", form);
    editor.loadRecognition(res, $("#tileset").value);
    const img = $("#annotated");
    img.src = res.annotated_url || res.photo_url;
    $("#photo-figure").hidden = false;
    const n = (res.tiles || []).length;
    say(statusPhoto, n ? t("recognized", { n }) : t("recognized_none"), n ? "ok" : "error");
    showAdaptPanel();
  } catch (e) {
    // no model yet: the page still works by manual entry
    say(statusPhoto, e.status === 503 ? t("no_model") : t("error_prefix") + e.message, "error");
  } finally {
    $("#photo-section").removeAttribute("aria-busy");
  }
}

$("#photo-input").addEventListener("change", (ev) => {
  recognize(ev.target.files[0]);
  ev.target.value = ""; // the same photo can be chosen again
});
const drop = $("#dropzone");
drop.addEventListener("dragover", (ev) => { ev.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (ev) => {
  ev.preventDefault();
  drop.classList.remove("over");
  const file = [...(ev.dataTransfer?.files || [])].find((f) => f.type.startsWith("image/") || /\.heic$/i.test(f.name));
  recognize(file);
});

// ---------- context form ----------

function fillWinds() {
  for (const sel of document.querySelectorAll("select.winds")) {
    const keep = sel.value;
    clear(sel).append(...WINDS.map((w) => el("option", { value: w, text: windName(w) })));
    if (keep) sel.value = keep;
  }
}

function currentTable() {
  return tables.find((x) => x.id === $("#rules").value) || tables[0];
}

function tableName(table) {
  return lang() === "en" ? table.name_en : table.name;
}

function fillRules() {
  const sel = $("#rules");
  const keep = sel.value || "tw-standard";
  clear(sel).append(...tables.map((x) => el("option", { value: x.id, text: tableName(x) })));
  if (tables.some((x) => x.id === keep)) sel.value = keep;
}

function fillTableOptions() {
  const table = currentTable();
  if (!table) return;
  const ids = new Set(table.entries.map((e) => e.id));
  const box = $("#flags");
  const checked = new Set([...box.querySelectorAll("input:checked")].map((x) => x.name));
  for (const node of [...box.children]) if (node.tagName !== "LEGEND") node.remove();
  for (const [flag, entries] of Object.entries(FLAG_ENTRIES)) {
    if (!entries.some((e) => ids.has(e))) continue;
    box.append(el("label", { class: "check" },
      el("input", { type: "checkbox", name: flag, id: `flag-${flag}`, checked: checked.has(flag) }),
      " ", t(`flag_${flag}`)));
  }
  box.hidden = box.children.length <= 1;
  $("#bonus-field").hidden = !ids.has("bonus_tile");
  $("#dice-field").hidden = !("dice_doubling" in (table.settings || {}));
  const yq = table.id === "yueqing" || ids.has("wu_caishen");
  $("#caishen-field").hidden = !yq;
  const cs = $("#caishen");
  const keep = cs.value;
  clear(cs).append(el("option", { value: "", text: t("caishen_none") }),
                   ...TILES.map((x) => el("option", { value: x, text: tileName(x) })));
  cs.value = keep;
}

function syncWinHow() {
  const self = $("#win-self").checked;
  $("#discarder-field").hidden = self;
  const seat = $("#seat-wind").value;
  const d = $("#discarder");
  for (const o of d.options) o.disabled = o.value === seat;
  if (d.value === seat) d.value = WINDS[(WINDS.indexOf(seat) + 2) % 4];
}

for (const id of ["#win-self", "#win-claimed", "#seat-wind"]) $(id).addEventListener("change", syncWinHow);
$("#rules").addEventListener("change", fillTableOptions);
$("#context-form").addEventListener("change", hideResult);
$("#context-form").addEventListener("submit", (ev) => ev.preventDefault());

function buildRequest() {
  const self = $("#win-self").checked;
  const req = {
    rules: $("#rules").value || "tw-standard",
    ...editor.toEngine(),
    self_drawn: self,
    seat_wind: $("#seat-wind").value,
    round_wind: $("#round-wind").value,
    dealer: $("#dealer").value,
    streak: Math.max(0, parseInt($("#streak").value, 10) || 0),
    stakes: { base: Number($("#base").value) || 0, per_tai: Number($("#per-tai").value) || 0 },
  };
  if (!self) req.discarder = $("#discarder").value;
  const context = {};
  for (const box of $("#flags").querySelectorAll("input:checked")) context[box.name] = true;
  if (!$("#bonus-field").hidden && $("#bonus-tiles").value.trim()) {
    context.bonus_tiles = parseTiles($("#bonus-tiles").value).join("");
  }
  if (!$("#dice-field").hidden && $("#dice").value !== "0") context.dice_doubles = Number($("#dice").value);
  if (!$("#caishen-field").hidden && $("#caishen").value) context.caishen = $("#caishen").value;
  if (Object.keys(context).length) req.context = context;
  return req;
}

// ---------- scoring ----------

function hideResult() {
  $("#result-section").hidden = true;
  $("#record-section").hidden = true;
  lastResult = null;
}

async function scoreHand() {
  let req;
  try {
    req = buildRequest();
  } catch (e) {
    say(statusHand, t("error_prefix") + e.message, "error");
    return;
  }
  const button = $("#score-button");
  button.disabled = true;
  try {
    const result = await post("/api/score", req);
    const photoId = editor.photo ? editor.photo.photo_id : null;
    lastResult = { request: req, result, photo_id: photoId };
    renderResult(result, req);
    if (result.win) openRecord();
    $("#result-section").scrollIntoView({ behavior: "smooth", block: "start" });
  } catch (e) {
    say(statusHand, t("error_prefix") + e.message, "error");
    $("#result-section").hidden = true;
  } finally {
    button.disabled = false;
  }
  // corrected labels are worth keeping even when the hand does not score (a tile still missing, say)
  sendCorrections();
}

$("#score-button").addEventListener("click", scoreHand);

function renderResult(res, req) {
  const box = clear($("#result"));
  $("#result-section").hidden = false;
  if (!res.win) {
    box.append(el("p", { class: "verdict no", id: "verdict", text: t("result_no_win") }));
    if (res.reason) box.append(el("p", { class: "reason", id: "reason", text: res.reason }));
    return;
  }
  box.append(el("p", { class: "verdict yes", id: "verdict", text: t("result_win", { tai: res.tai }) }));
  // the split only explains the total when the dealer's 台 are part of it (dealer won, dealt in, or self-drawn)
  if (res.dealer_tai && res.tai === res.hand_tai + res.dealer_tai) {
    box.append(el("p", { class: "hint", text: t("result_hand_tai", { hand: res.hand_tai, dealer: res.dealer_tai }) }));
  }
  const rows = (res.breakdown || []).map((e) => el("tr", { dataset: { entry: e.id } },
    el("td", { lang: "zh-Hant", text: e.name }),
    el("td", { lang: "en", class: "en", text: e.name_en }),
    el("td", { class: "num" }, e.count > 1 ? `${e.tai} × ${e.count}` : String(e.tai),
       e.dealer_only ? el("small", { class: "tag", text: t("dealer_only") }) : null)));
  box.append(el("table", { class: "breakdown", id: "breakdown" },
    el("thead", {}, el("tr", {}, el("th", { text: t("th_entry") }), el("th", { text: t("th_entry_en") }),
                                 el("th", { class: "num", text: t("th_tai") }))),
    el("tbody", {}, rows),
    el("tfoot", {}, el("tr", {}, el("th", { colspan: "2", text: t("total") }),
                                 el("th", { class: "num", id: "total-tai", text: String(res.tai) })))));
  const dec = res.decomposition;
  if (dec && dec.sets) {
    const sets = el("div", { class: "sets" }, dec.sets.map((s) => el("div", {
      class: `set ${s.melded ? "melded" : ""}`, dataset: { type: s.type } }, tileRow(parseTiles(s.tiles)))));
    const waitKey = dec.wait ? `wait_${dec.wait}` : null;
    const waitText = waitKey && t(waitKey) !== waitKey ? t(waitKey) : dec.wait;
    box.append(el("h3", { text: t("decomposition") }), sets);
    if (dec.winning_tile) {
      box.append(el("p", { class: "wait" }, `${t("zone_winning")}: `, tileImg(dec.winning_tile),
                    waitText ? ` ${t("wait")}: ${waitText}` : ""));
    }
  }
  if (res.payments) {
    const winner = req.seat_wind;
    box.append(el("h3", { text: t("payments") }), el("div", { class: "payments", id: "payments" },
      WINDS.map((w) => {
        const v = res.payments[w] || 0;
        return el("div", { class: `pay ${v > 0 ? "plus" : v < 0 ? "minus" : ""} ${w === winner ? "winner" : ""}`,
                           dataset: { seat: w } },
          el("span", { class: "seat", text: t("seat_short", { w: windName(w) }) }),
          el("strong", { text: v > 0 ? `+${v}` : String(v) }));
      })));
  }
}

// ---------- corrections -> examples, adaptation ----------

async function sendCorrections() {
  const c = editor.corrections();
  if (!c) return;
  const key = JSON.stringify(c);
  if (key === lastExamplesKey) return;
  try {
    const res = await post("/api/examples", c);
    lastExamplesKey = key;
    showAdaptPanel(res.count, true);
  } catch (e) {
    say($("#examples-count"), t("error_prefix") + e.message, "error");
  }
}

async function showAdaptPanel(count, justSent = false) {
  if (count === undefined) {
    try { count = (await get("/api/examples")).count; } catch (e) { count = 0; }
  }
  const section = $("#adapt-section");
  if (!count && !editor.photo) return;
  section.hidden = false;
  say($("#examples-count"), justSent ? t("examples_sent", { n: count }) : t("examples_count", { n: count }), "ok");
  $("#adapt-button").disabled = !count;
}

let adaptTimer = null;
function showAdapt(res) {
  const status = res.status || "idle";
  say($("#adapt-status"), t(`adapt_status_${status}`), status === "failed" ? "error" : "info");
  $("#adapt-button").disabled = status === "running";
  const log = $("#adapt-log");
  log.textContent = res.log_tail || "";
  log.hidden = !res.log_tail;
  clearTimeout(adaptTimer);
  if (status === "running") adaptTimer = setTimeout(pollAdapt, 2000);
}

async function pollAdapt() {
  try { showAdapt(await get("/api/adapt")); } catch (e) { say($("#adapt-status"), t("error_prefix") + e.message, "error"); }
}

$("#adapt-button").addEventListener("click", async () => {
  try {
    await post("/api/adapt", {});
  } catch (e) {
    if (e.status !== 409) { say($("#adapt-status"), t("error_prefix") + e.message, "error"); return; }
  }
  pollAdapt();
});

// ---------- record into a game ----------

let recordGame = null;

async function openRecord() {
  const section = $("#record-section");
  section.hidden = false;
  say($("#record-status"), "");
  const sel = $("#record-game");
  let games = [];
  try {
    const res = await get("/api/games");
    games = (Array.isArray(res) ? res : res.games || []).filter((g) => !g.finished);
  } catch (e) {
    say($("#record-status"), t("error_prefix") + e.message, "error");
  }
  const keep = sel.value;
  clear(sel).append(...games.map((g) => el("option", { value: g.id, text: g.players.join("・") })));
  if (games.some((g) => g.id === keep)) sel.value = keep;
  $("#record-button").disabled = !games.length || !!(lastResult && lastResult.recorded);
  if (!games.length) { say($("#record-status"), t("record_no_games")); recordGame = null; return; }
  await loadRecordGame(true);
}

async function loadRecordGame(prefill) {
  const id = $("#record-game").value;
  if (!id) return;
  recordGame = await get(`/api/games/${encodeURIComponent(id)}`);
  const winds = recordGame.state.seat_winds || [];
  const label = (p, i) => (winds[i] ? `${p}（${windName(winds[i])}）` : p);
  for (const sel of [$("#record-winner"), $("#record-discarder")]) {
    const keep = sel.value;
    clear(sel).append(...recordGame.players.map((p, i) => el("option", { value: String(i), text: label(p, i) })));
    if (keep) sel.value = keep;
  }
  if (prefill && lastResult) {
    // the hand's seat winds -> the players sitting there in this game now
    const req = lastResult.request;
    const at = (w) => winds.indexOf(w);
    if (at(req.seat_wind) >= 0) $("#record-winner").value = String(at(req.seat_wind));
    $("#record-self").checked = !!req.self_drawn;
    if (!req.self_drawn && at(req.discarder) >= 0) $("#record-discarder").value = String(at(req.discarder));
    const r = lastResult.result;
    $("#record-tai").value = String(r.hand_tai ?? r.tai);
  }
  syncRecordSelf();
}

function syncRecordSelf() {
  $("#record-discarder-field").hidden = $("#record-self").checked;
}

$("#record-game").addEventListener("change", () => loadRecordGame(true).catch((e) =>
  say($("#record-status"), t("error_prefix") + e.message, "error")));
$("#record-self").addEventListener("change", syncRecordSelf);

$("#record-button").addEventListener("click", async () => {
  if (!recordGame || !lastResult) return;
  const winner = Number($("#record-winner").value);
  const self = $("#record-self").checked;
  const discarder = self ? null : Number($("#record-discarder").value);
  if (discarder === winner) { say($("#record-status"), t("winner_not_discarder"), "error"); return; }
  const body = { type: "win", winner, discarder, tai: Math.max(0, parseInt($("#record-tai").value, 10) || 0),
                 scored: { ...lastResult.result, hand: lastResult.request }, version: recordGame.version };
  if (lastResult.photo_id) body.photo_id = lastResult.photo_id;
  const button = $("#record-button");
  button.disabled = true;
  try {
    const res = await post(`/api/games/${encodeURIComponent(recordGame.id)}/hands`, body);
    const n = res && res.hands ? res.hands.length : (res && res.n) || "";
    const status = $("#record-status");
    say(status, t("record_done", { n }), "ok");
    lastResult.recorded = true; // one scored hand goes into a game once
    status.append(" ", el("a", { href: `/games/${encodeURIComponent(recordGame.id)}`, text: t("record_open") }));
    await loadRecordGame(false);
  } catch (e) {
    if (e.status === 409) {
      await loadRecordGame(false);
      say($("#record-status"), t("stale_reloaded"), "error");
    } else say($("#record-status"), t("error_prefix") + e.message, "error");
  } finally {
    button.disabled = !!(lastResult && lastResult.recorded);
  }
});

// ---------- start ----------

async function start() {
  fillWinds();
  $("#seat-wind").value = "E";
  $("#round-wind").value = "E";
  $("#dealer").value = "E";
  $("#discarder").value = "W";
  syncWinHow();
  try {
    tables = (await get("/api/rules")).tables || [];
  } catch (e) {
    say(statusHand, t("error_prefix") + e.message, "error");
  }
  fillRules();
  fillTableOptions();
  showAdaptPanel();
  try { const a = await get("/api/adapt"); if (a.status !== "idle") { $("#adapt-section").hidden = false; showAdapt(a); } }
  catch (e) { /* adaptation status is optional information */ }
}

window.addEventListener("langchange", () => {
  fillWinds();
  fillRules();
  fillTableOptions();
  syncWinHow();
  editor.build();
  if (lastResult) renderResult(lastResult.result, lastResult.request);
  if (!$("#record-section").hidden && recordGame) loadRecordGame(false);
});

// a test hook: the hand editor, so tests can read the state the page would score
window.__handEditor = editor;
start();
