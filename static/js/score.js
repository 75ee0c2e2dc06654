// index.html: score a hand from a photo or from manual entry, learn from corrections, record into a game.
import { initPage } from "./page.js";
import { t, windName, lang } from "./i18n.js";
import { el, clear, $, say, reveal, typedNumber, holdFocus } from "./dom.js";
import { api, get, post, ApiError } from "./api.js";
import { HandEditor } from "./hand.js";
import { keepDraft, keptDraft, revisited } from "./draft.js";
import { showKept } from "./calibration.js";
import { initAdaptCard, pollAdapt, showAdapt, showAdaptPanel } from "./adapt_card.js";
import { TILES, WINDS, tileImg, tileName, parseTiles, tileRow, tileset, setTileset } from "./tiles.js";

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
const statusScore = $("#score-status"); // next to 算台: what scoring says lands where the player tapped
let tables = [];
let openGames = []; // unfinished games, for "score from a game" and "record into a game"
let fromGame = null; // the game the hand is scored from: its dealer, 連莊, round and seat winds
let lastResult = null; // {request, result, photo_id}
let lastExamplesKey = null;
let recordedTiles = null; // the tiles last recorded into a game (editor.toEngine): scored again, they are that hand

/** Whether the editor holds the hand last recorded into a game: the same tiles, even after an undo
 *  and a redo (another tile makes another hand). It is recorded once, and no work to keep. */
const isRecorded = () => JSON.stringify(editor.toEngine()) === recordedTiles;

const editor = new HandEditor($("#hand-editor"), {
  // an edit makes the saved-corrections line out of date
  onChange: () => {
    say(statusHand, ""); hideResult(); say($("#corrections-status"), ""); syncSaveCorrections();
    saveDraft();
  },
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
    showPhoto(res.annotated_url || res.photo_url);
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

function showPhoto(url) {
  const img = $("#annotated");
  img.src = url;
  // a phone shows the photo small: one tap opens it full size, to zoom in on a label
  $("#annotated-link").setAttribute("href", img.getAttribute("src"));
  $("#photo-figure").hidden = false;
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
  const files = [...(ev.dataTransfer?.files || [])];
  const file = files.find((f) => f.type.startsWith("image/") || /\.heic$/i.test(f.name));
  if (file) recognize(file);
  else if (files.length) say(statusPhoto, t("drop_not_photo"), "error"); // a text file, a folder
});

// ---------- context form ----------

function fillWinds() {
  const winds = fromGame ? fromGame.state.seat_winds || [] : [];
  for (const sel of document.querySelectorAll("select.winds")) {
    const keep = sel.value;
    // from a game, a seat is its player: "南 小華"
    const named = fromGame && sel.id !== "round-wind";
    clear(sel).append(...WINDS.map((w) => el("option", { value: w,
      text: named && winds.includes(w) ? `${windName(w)} ${fromGame.players[winds.indexOf(w)]}` : windName(w) })));
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
$("#caishen").addEventListener("change", () => { $("#caishen-error").hidden = true; $("#caishen").removeAttribute("aria-invalid"); });
$("#context-form").addEventListener("change", hideResult);
$("#context-form").addEventListener("input", saveDraft); // a typed 底 or 連莊 is kept before it is left
$("#context-form").addEventListener("change", saveDraft);
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
    streak: typedNumber($("#streak"), t("streak_whole_number")),
    stakes: { base: typedNumber($("#base"), t("stake_number"), false),
              per_tai: typedNumber($("#per-tai"), t("stake_number"), false) },
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

/** 乐清 scores only with its wild tile named: ask for it next to its field first. */
function caishenMissing() {
  const field = $("#caishen-field");
  const missing = !field.hidden && currentTable()?.id === "yueqing" && !$("#caishen").value;
  const note = $("#caishen-error");
  note.textContent = missing ? t("caishen_needed") : "";
  note.hidden = !missing;
  if (missing) $("#caishen").setAttribute("aria-invalid", "true");
  else $("#caishen").removeAttribute("aria-invalid");
  if (missing) {
    say(statusScore, t("caishen_needed"), "info");
    $("#caishen").focus({ preventScroll: true });
    reveal(field, "center");
  }
  return missing;
}

async function scoreHand() {
  say(statusScore, "");
  if (caishenMissing()) return;
  let req;
  try {
    req = buildRequest();
  } catch (e) {
    say(statusScore, t("error_prefix") + e.message, "error");
    return;
  }
  const button = $("#score-button");
  const giveBack = holdFocus(button);
  button.disabled = true;
  try {
    const result = await post("/api/score", req);
    const photoId = editor.photo ? editor.photo.photo_id : null;
    lastResult = { request: req, result, photo_id: photoId, recorded: isRecorded() };
    renderResult(result, req);
    if (result.win) openRecord();
    $("#result-section").scrollIntoView({ behavior: "smooth", block: "start" });
  } catch (e) {
    $("#result-section").hidden = true;
    say(statusScore, t("error_prefix") + e.message, "error");
  } finally {
    button.disabled = false;
    giveBack();
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
    // e.tai is the entry's whole 台; a counted entry says how it adds up ("4 (2 台 × 2 次)")
    el("td", { class: "num" }, String(e.tai),
       e.count > 1 && e.tai % e.count === 0
         ? el("small", { class: "per", text: t("entry_times", { each: e.tai / e.count, n: e.count }) })
         : e.count > 1 ? el("small", { class: "per", text: t("entry_count", { n: e.count }) }) : null,
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
          el("span", { class: "seat", text: seatLabel(w) }),
          el("strong", { text: v > 0 ? `+${v}` : String(v) }));
      })));
  }
}

/** "東家", or "東 阿明" when the hand is scored from a game. */
function seatLabel(w) {
  const name = fromGame ? fromGame.players[(fromGame.state.seat_winds || []).indexOf(w)] : null;
  return name ? `${windName(w)} ${name}` : t("seat_short", { w: windName(w) });
}

// ---------- corrections -> examples, adaptation ----------

/** Save the photo's corrected labels as a training example (pressed, or on 算台); saying so when
 * the player pressed for the same corrections again. */
async function sendCorrections(pressed = false) {
  const c = editor.corrections();
  if (!c) return;
  const key = JSON.stringify(c);
  const status = $("#corrections-status");
  if (key === lastExamplesKey) {
    if (pressed) say(status, t("examples_same", { n: (await get("/api/examples").catch(() => ({}))).count ?? "?" }), "ok");
    return;
  }
  try {
    const res = await post("/api/examples", c);
    lastExamplesKey = key;
    say(status, t("examples_sent", { n: res.count }), "ok");
    showAdaptPanel(res.count);
  } catch (e) {
    say(pressed ? status : $("#examples-count"), t("error_prefix") + e.message, "error");
  }
}

/** Under the hand: the save button, once a photo was read; it works once something is corrected. */
function syncSaveCorrections() {
  $("#corrections-row").hidden = !editor.photo;
  $("#save-corrections").disabled = !editor.corrections();
}

$("#save-corrections").addEventListener("click", () => sendCorrections(true));

// the adapt card (adapt_card.js): a removed saved photo can be saved again from the editor
initAdaptCard({
  panelShown: syncSaveCorrections,
  exampleRemoved: (id) => { if (editor.photo && editor.photo.photo_id === id) lastExamplesKey = null; },
});

// ---------- score from a game, record into a game ----------

let recordGame = null;

/** A game's line in a dropdown: players, the day it began and its hand count (imports repeat names). */
function gameLabel(g) {
  const when = g.created_at ? new Date(g.created_at).toLocaleString(lang() === "en" ? "en" : "zh-TW",
    { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" }) : "";
  return [g.players.join("・"), when, t("hands_n", { n: g.hand_count ?? 0 })].filter(Boolean).join(" · ");
}

async function loadGames() {
  try {
    const res = await get("/api/games");
    openGames = (Array.isArray(res) ? res : res.games || []).filter((g) => !g.error && !g.finished);  // an unreadable game is no choice
  } catch (e) {
    openGames = [];
    say($("#record-status"), t("error_prefix") + e.message, "error");
  }
  for (const sel of [$("#from-game"), $("#record-game")]) {
    const keep = sel.value;
    const first = sel.id === "from-game" ? [el("option", { value: "", text: t("from_game_none") })] : [];
    clear(sel).append(...first, ...openGames.map((g) => el("option", { value: g.id, text: gameLabel(g) })));
    if (openGames.some((g) => g.id === keep)) sel.value = keep;
  }
}

/** The context form takes the game's rules, stakes, round wind, dealer and 連莊; seats show the players. */
function applyFromGame() {
  const g = fromGame;
  const locked = ["#rules", "#base", "#per-tai", "#round-wind", "#dealer", "#streak"];
  for (const id of locked) $(id).disabled = !!g;
  const line = $("#from-game-line");
  if (g) {
    const st = g.state;
    const winds = st.seat_winds || [];
    $("#rules").value = g.rules;
    $("#base").value = String(g.base);
    $("#per-tai").value = String(g.per_tai);
    $("#round-wind").value = st.round_wind_name || "E";
    $("#dealer").value = winds[st.dealer] || "E";
    $("#streak").value = String(st.streak || 0);
    line.textContent = t("from_game_line", { round: windName(st.round_wind_name || "E"),
                                             dealer: g.players[st.dealer], streak: st.streak || 0,
                                             n: (g.hands || []).length + 1 });
  }
  line.hidden = !g;
  fillWinds();
  fillTableOptions();
  syncWinHow();
}

async function chooseFromGame(id) {
  fromGame = null;
  if (id) {
    try {
      fromGame = await get(`/api/games/${encodeURIComponent(id)}`);
    } catch (e) {
      say(statusScore, t("error_prefix") + e.message, "error");
    }
  }
  $("#from-game").value = fromGame ? fromGame.id : "";
  applyFromGame();
}

$("#from-game").addEventListener("change", (ev) => { hideResult(); chooseFromGame(ev.target.value).then(saveDraft); });

async function openRecord() {
  const section = $("#record-section");
  section.hidden = false;
  say($("#record-status"), "");
  await loadGames();
  const sel = $("#record-game");
  if (fromGame) sel.value = fromGame.id;
  sel.disabled = !!fromGame; // scored from a game: recorded into that game
  $("#record-button").disabled = !openGames.length || !!(lastResult && lastResult.recorded);
  // no game to record into: the form's empty lists are no use, the status says why
  $("#record-form").hidden = $("#record-button").hidden = !openGames.length;
  if (!openGames.length) { say($("#record-status"), t("record_no_games")); recordGame = null; return; }
  if (lastResult && lastResult.recorded) say($("#record-status"), t("record_already"));
  await loadRecordGame(true);
}

async function loadRecordGame(prefill) {
  const id = $("#record-game").value;
  if (!id) return;
  // scored from this game: record against the very state it was scored from (a change since is a 409)
  recordGame = fromGame && fromGame.id === id && prefill ? fromGame : await get(`/api/games/${encodeURIComponent(id)}`);
  const winds = recordGame.state.seat_winds || [];
  const label = (p, i) => (winds[i] ? t("player_with_wind", { name: p, wind: windName(winds[i]) }) : p);
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
  const fixed = !!(fromGame && fromGame.id === id);
  for (const sel of ["#record-winner", "#record-discarder", "#record-self"]) $(sel).disabled = fixed;
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
  let tai;
  try { tai = typedNumber($("#record-tai"), t("tai_whole_number")); }
  catch (e) { say($("#record-status"), e.message, "error"); return; }
  const body = { type: "win", winner, discarder, tai,
                 scored: { ...lastResult.result, hand: lastResult.request }, version: recordGame.version };
  if (lastResult.photo_id) body.photo_id = lastResult.photo_id;
  const button = $("#record-button");
  const giveBack = holdFocus(button);
  button.disabled = true;
  const status = $("#record-status");
  try {
    const res = await post(`/api/games/${encodeURIComponent(recordGame.id)}/hands`, body);
    const n = res && res.hands ? res.hands.length : (res && res.n) || "";
    const hand = res && res.hands ? res.hands[res.hands.length - 1] : null;
    // "Recorded as hand 7 · 4 tai …": the hand's number and its 台 apart, never read as one number
    say(status, t("record_done", { n }) + (hand ? ` · ${handTaiText(hand)}` : ""), "ok");
    lastResult.recorded = true; // one scored hand goes into a game once
    recordedTiles = JSON.stringify(editor.toEngine());
    status.append(" ", el("a", { href: `/games/${encodeURIComponent(recordGame.id)}`, text: t("record_open") }));
    if (fromGame && fromGame.id === recordGame.id) {
      fromGame = res; // the next hand is scored from the game as it is now (dealer, 連莊 moved on)
      applyFromGame();
      recordGame = res;
    } else await loadRecordGame(false);
    saveDraft(); // without the hand: a reload, or the game's next "score a hand", must not offer it again
  } catch (e) {
    if (e.status === 409) {
      if (fromGame && fromGame.id === recordGame.id) {
        await chooseFromGame(fromGame.id); // scored from an old state: score again from the new one
        hideResult();
        say(statusScore, t("stale_rescore"), "error");
        return;
      }
      await loadRecordGame(false);
      say(status, t("stale_reloaded"), "error");
    } else say(status, t("error_prefix") + e.message, "error");
  } finally {
    button.disabled = !!(lastResult && lastResult.recorded);
    giveBack(status.querySelector("a") || $("#record-game")); // recorded: on to the game it went into
  }
});

/** "2 台 + 莊家/連莊 3 台" for a recorded hand: what the player typed and what the dealer side adds. */
function handTaiText(h) {
  const extra = h.tai - h.hand_tai;
  return extra > 0 ? t("hand_tai_plus_dealer", { hand: h.hand_tai, dealer: extra }) : t("hand_tai_only", { hand: h.hand_tai });
}

// ---------- the player's work across a reload or Back (draft.js) ----------

const DRAFT_KEY = "mahjong.score";
const DRAFT_VERSION = 1; // a draft of another shape (an older page) is not read
let draftRead = false; // nothing is kept before start has read the draft: it would write defaults over it
const OPTION_FIELDS = ["rules", "seat-wind", "round-wind", "dealer", "discarder", "streak", "base", "per-tai",
                       "bonus-tiles", "dice", "caishen"];

/** The context form as typed (numbers as text: a wrong one is said on 算台, as before the reload). */
function readOptions() {
  return {
    fields: Object.fromEntries(OPTION_FIELDS.map((id) => [id, $(`#${id}`).value])),
    self_drawn: $("#win-self").checked,
    flags: [...$("#flags").querySelectorAll("input:checked")].map((x) => x.name),
  };
}

/** Put kept options back, each only where it fits this page now (a table, a tile, a wind it offers);
 * fields a chosen game fills (disabled) keep the game's values: the game may have moved on. */
function applyOptions(o) {
  const fields = (o && o.fields) || {};
  const put = (id) => {
    const node = $(`#${id}`);
    const v = fields[id];
    if (typeof v !== "string" || v.length > 200 || node.disabled) return;
    if (node.tagName === "SELECT" && ![...node.options].some((x) => x.value === v)) return;
    node.value = v;
  };
  put("rules");
  fillTableOptions(); // the table decides which flags, 寶牌, 骰 and 財神 the form has
  OPTION_FIELDS.forEach(put);
  const flags = Array.isArray(o && o.flags) ? o.flags : [];
  for (const box of $("#flags").querySelectorAll("input")) box.checked = flags.includes(box.name);
  $(o && o.self_drawn === true ? "#win-self" : "#win-claimed").checked = true;
  syncWinHow();
}

function saveDraft() {
  if (!draftRead) return;
  keepDraft(DRAFT_KEY, DRAFT_VERSION, { game: fromGame ? fromGame.id : "", options: readOptions(),
                                       hand: isRecorded() ? null : editor.saved() });
}

/** The draft to restore: a game page's "score a hand" link starts that game's hand, so a draft kept
 * for no game or another one is not it; shown again (reload, Back), the page is what it was. */
function draftFor(wanted) {
  const d = keptDraft(DRAFT_KEY, DRAFT_VERSION);
  if (!d || typeof d.game !== "string") return null;
  return !wanted || d.game === wanted || revisited() ? d : null;
}

/** The draft's hand into the editor; false, changing nothing, where it holds what is no hand. */
function restoreHand(hand) {
  if (!hand) return true; // recorded into a game: only the options were kept
  try {
    editor.restore(hand);
  } catch (e) {
    return false;
  }
  // the photo may be gone from the server since (its folder emptied by hand for room): the hand then
  // keeps its tiles as typed ones, never a link to a photo that corrections or a game could not find
  const photo = editor.photo;
  if (photo) {
    $("#annotated").addEventListener("error", () => {
      if (editor.photo === photo) { editor.forgetPhoto(); $("#photo-figure").hidden = true; }
    }, { once: true });
    showPhoto(photo.annotated);
  }
  return true;
}

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
  await loadGames();
  const wanted = new URLSearchParams(location.search).get("game"); // the game page's "score a hand" link
  let draft = draftFor(wanted);
  if (draft && !restoreHand(draft.hand)) draft = null; // ignored, as if none were kept
  const game = draft ? draft.game : wanted;
  if (game && openGames.some((g) => g.id === game)) await chooseFromGame(game);
  if (draft) applyOptions(draft.options);
  draftRead = true;
  if (draft) saveDraft(); // as restored: what no longer fits (a finished game, a table gone) is dropped
  showAdaptPanel();
  try {
    const a = await get("/api/adapt");
    if (a.status !== "idle") { $("#adapt-section").hidden = false; showAdapt(a); }
    if (a.calibration) showKept(); // asked only where one is kept: no 404 on every load
  } catch (e) { /* adaptation status is optional information */ }
}

window.addEventListener("langchange", () => {
  fillRules();
  loadGames();
  applyFromGame();
  editor.build();
  showAdaptPanel(); // the saved photos' lines and the count, in the new language
  if (!$("#adapt-status").hidden) pollAdapt(); // a run's status, where one is shown
  if (lastResult) renderResult(lastResult.result, lastResult.request);
  if (!$("#record-section").hidden && recordGame) loadRecordGame(false);
});

// the tile set decides how flowers are drawn and named (竹 and 菊 trade numbers); every page keeps the choice
$("#tileset").value = tileset();
$("#tileset").addEventListener("change", (ev) => {
  setTileset(ev.target.value);
  editor.build();
  if (lastResult) renderResult(lastResult.result, lastResult.request);
});

// a test hook: the hand editor, so tests can read the state the page would score
window.__handEditor = editor;
start();
