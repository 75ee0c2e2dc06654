// game.html: one game — state, totals, record / edit / delete hands, chart, export; polls so phones stay in step.
import { initPage } from "./page.js";
import { t, windName, lang } from "./i18n.js";
import { el, clear, $, $$, say, typedNumber, holdFocus } from "./dom.js";
import { api, get, post } from "./api.js";
import { lineChart, COLORS } from "./chart.js";

initPage();

const root = $("#game-root");
const gameId = root.dataset.gameId || location.pathname.split("/").filter(Boolean).pop();
const POLL_MS = 3000;
let game = null;
let tables = [];
let editing = null; // the hand number being edited, or null
let editingWhich = null; // that hand as recorded: an earlier hand deleted (here or on another phone) renumbers it
let savingEdit = false; // the edit itself is being saved: the hand changes as meant, no need to find it again

const base = `/api/games/${encodeURIComponent(gameId)}`;
$("#export-csv").href = `${base}/export.csv`;
$("#export-json").href = `${base}/export.json`;
// scoring a hand for this game uses its dealer, 連莊, round and seat winds (the score page reads ?game=)
$("#score-link").href = `/?game=${encodeURIComponent(gameId)}`;

const fmt = (v) => (v > 0 ? `+${v}` : String(v));

// ---------- rendering ----------

function render() {
  if (!game) return;
  const st = game.state;
  const winds = st.seat_winds || [];
  const table = gameTable();
  $("#rules-name").textContent = table ? (lang() === "en" ? table.name_en : table.name) : game.rules;
  // the round and how many the game lasts (its own choice, or its table's): 東風圈（共 2 圈）
  const round = t("state_round", { w: windName(st.round_wind_name || "ESWN"[st.round_wind] || "E"),
                                   n: st.round_wind + 1, of: st.rounds });
  // a finished game has no next dealer to name
  const parts = st.finished ? [round, t("game_finished")]
    : [round, t("state_dealer", { name: game.players[st.dealer] }), streakText(table, st.streak)];
  // a phrase a box: a phone's narrow card wraps between phrases, never inside one (「已結」「束」)
  clear($("#state-line")).append(...parts.flatMap((text, i) => [i ? " · " : "", el("span", { text })]));

  const board = clear($("#scoreboard"));
  game.players.forEach((name, i) => {
    board.append(el("div", { class: `player ${i === st.dealer ? "dealer" : ""}`, dataset: { player: String(i) },
                             style: `border-left: 6px solid ${COLORS[i]}` },
      el("span", { class: "wind", text: winds[i] ? windName(winds[i]) : "" }),
      el("span", { class: "name", text: name }),
      el("span", { class: "total", id: `total-${i}`, text: String(game.totals[i]) })));
  });

  drawChart();
  const legend = clear($("#legend"));
  game.players.forEach((name, i) => legend.append(el("span", { style: `--c: ${COLORS[i]}`, text: name })));

  renderHistory();
  followEditedHand();
  fillPlayerSelects(windsOf(editing));  // the choices kept, their names in the page's language
  syncForm();  // the draw's kong box: only where the game's table lets a kong pass the deal
  syncFinished();
}

function drawChart() {
  const chart = clear($("#chart"));
  chart.append(lineChart(game.series, game.players, t("chart_title"), chart.clientWidth || 640));
}

let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => { if (game) drawChart(); }, 200);
});

/** The dealer's run as the table's seed counts it: 連莊 N (wins kept) on the Taiwanese tables; 乐清's
 *  牢莊 L counts the dealership itself, L = N + 1 (a new dealer 1, engine/settlement.py). */
function streakText(table, streak) {
  return table && table.scorer === "yueqing" ? t("state_laozhuang", { n: streak + 1 }) : t("state_streak", { n: streak });
}

/** Who won and how (one phrase each, so a narrow card wraps between phrases, not inside names). */
function handText(h) {
  if (h.type === "draw") return [el("span", { text: t(h.counting_kong && kongPassesDeal() ? "hand_draw_kong" : "hand_draw") })];
  const how = h.discarder === null ? t("hand_self") : t("hand_from", { d: game.players[h.discarder] });
  return [el("span", { class: "who", text: t("hand_win_by", { w: game.players[h.winner] }) }), " · ",
          el("span", { class: "how", text: how })];
}

/** The hand's 台 as entered, and the 莊家/連莊 台 the dealer's payments add, apart. */
function taiText(h) {
  if (h.type === "draw") return null;
  const extra = h.tai - h.hand_tai;
  return el("div", { class: "tai-line" },
    el("strong", { class: "hand-tai", title: t("hand_tai_label"), text: t("hand_tai_only", { hand: h.hand_tai }) }),
    extra > 0 ? el("span", { class: "dealer-tai", title: t("dealer_tai_label"),
                             text: ` + ${t("dealer_tai_plus", { dealer: extra })}` }) : null);
}

/** A scored hand whose seat, round or deal the game now gives otherwise (an earlier hand was
 *  edited): what it scores as the game has it, and a button to record that. */
function rescoreNote(h) {
  if (!h.rescore) return null;
  const what = h.rescore.changed.map((k) => t(`rescore_${k}`)).join(t("list_sep"));
  return el("div", { class: "rescore" },
    el("span", { text: t("rescore_note", { what, tai: h.rescore.tai }) }), " ",
    el("button", { type: "button", class: "small", dataset: { action: "rescore" },
                   text: t("rescore_take", { tai: h.rescore.tai }), onclick: () => takeRescore(h) }));
}

async function takeRescore(h) {
  // the scored request now says the game's context, so that the hand is checked against it from
  // here on: an edit that moves the deal back offers the first number again
  const request = { ...h.scored.hand, ...h.rescore.context };
  if (request.self_drawn) delete request.discarder;
  const scored = { ...h.scored, hand: request, hand_tai: h.rescore.tai };
  const body = { type: "win", winner: h.winner, discarder: h.discarder, tai: h.rescore.tai, scored };
  if (h.photo_id) body.photo_id = h.photo_id;
  say($("#form-status"), "");
  await change("PUT", `${base}/hands/${h.n}`, body);
}

function renderHistory() {
  // a hand's button under the focus is drawn anew: the focus goes to the same button of the hand with
  // its number (after a delete, the hand that took it), or of the last hand, never to the page's top
  const was = document.activeElement?.closest?.("#history tr[data-hand] button");
  const keep = was && { n: Number(was.closest("tr").dataset.hand), action: was.dataset.action };
  const table = clear($("#history"));
  table.append(el("thead", {}, el("tr", {},
    el("th", { text: t("th_n") }), el("th", { text: t("th_result") }),
    game.players.map((p) => el("th", { class: "num", text: p })),
    el("th", { class: "photo", text: t("th_photo") }), el("th", { text: t("th_actions") }))));
  const body = el("tbody");
  if (!game.hands.length) {
    body.append(el("tr", {}, el("td", { colspan: "8", class: "empty", text: t("no_hands") })));
  }
  for (const h of [...game.hands].reverse()) {
    const deltas = [0, 1, 2, 3].map((s) => (h.deltas ? h.deltas[String(s)] ?? h.deltas[s] ?? 0 : 0));
    const when = h.created_at ? new Date(h.created_at).toLocaleTimeString(lang() === "en" ? "en" : "zh-TW",
                                                                             { hour: "2-digit", minute: "2-digit" }) : "";
    // a table row on a laptop, a card on a phone (app.css): each amount carries its player's name
    body.append(el("tr", { dataset: { hand: String(h.n) } },
      el("td", { class: "n", text: String(h.n) }),
      el("td", { class: "result" }, el("div", { class: "what" }, handText(h)), taiText(h),
         when ? el("div", { class: "hint when", text: when }) : null, rescoreNote(h)),
      deltas.map((d, i) => el("td", { class: `num delta ${d > 0 ? "plus" : d < 0 ? "minus" : ""}`,
                                      dataset: { label: game.players[i], player: String(i) }, text: fmt(d) })),
      el("td", { class: "photo" }, h.photo_id ? el("a", { href: `/photos/${h.photo_id}`, target: "_blank", rel: "noopener" },
        el("img", { class: "thumb", src: `/photos/${h.photo_id}/thumb`, alt: `${t("th_photo")} ${h.n}`, loading: "lazy" })) : ""),
      el("td", { class: "actions" },
        el("button", { type: "button", class: "small", "aria-label": `${t("edit")} ${h.n}`, text: "✎",
                       dataset: { action: "edit" }, onclick: () => startEdit(h) }),
        el("button", { type: "button", class: "small danger", "aria-label": `${t("delete")} ${h.n}`, text: "✕",
                       dataset: { action: "delete" }, onclick: () => deleteHand(h) }))));
  }
  table.append(body);
  if (keep) {
    const n = Math.min(keep.n, game.hands.length);
    // a button the hand no longer has (its 改記 N 台, taken) leaves the focus on that hand's edit button
    (table.querySelector(`tr[data-hand="${n}"] button[data-action="${keep.action}"]`)
     || table.querySelector(`tr[data-hand="${n}"] button[data-action="edit"]`) || $("#add-hand"))
      .focus({ preventScroll: true });
  }
}

/** The seat winds a hand was played in (the edited one), or the next hand's. */
function windsOf(n) {
  const hand = n !== null ? game.hands.find((h) => h.n === n) : null;
  return (hand && hand.seat_winds) || game.state.seat_winds || [];
}

/** The winner and discarder lists, each player named with a seat wind: the winds now, or those of
 *  the hand being edited (a dealer's name from three hands ago sat East then, not now). */
function fillPlayerSelects(winds) {
  for (const sel of [$("#winner"), $("#discarder")]) {
    const keep = sel.value;
    clear(sel).append(...game.players.map((p, i) => el("option", { value: String(i),
      text: winds[i] ? t("player_with_wind", { name: p, wind: windName(winds[i]) }) : p })));
    if (keep) sel.value = keep;
  }
  if ($("#winner").value === $("#discarder").value) $("#discarder").value = String((Number($("#winner").value) + 1) % 4);
}

/** Whether a draw's kong decides the deal: under the 乐清 flow it passes it (seed 004 §七); a
 *  Taiwanese draw keeps the dealer whatever was made (臭莊). Asked too where the table is unknown. */
function kongPassesDeal() {
  const table = gameTable();
  return !table || !table.flow || table.flow.draw_rule === "yueqing";
}

/** The open game's rule table as /api/rules gave it (undefined until both are at hand). */
function gameTable() {
  return game ? tables.find((x) => x.id === game.rules) : undefined;
}

function syncForm() {
  const win = $("#type-win").checked;
  for (const n of $$(".win-only")) n.hidden = !win;
  for (const n of $$(".draw-only")) n.hidden = win;
  $("#counting-kong").closest("label").hidden = win || !kongPassesDeal();
  if (win) $("#discarder-field").hidden = $("#self-drawn").checked;
}

for (const id of ["#type-win", "#type-draw", "#self-drawn"]) $(id).addEventListener("change", syncForm);

// ---------- changes ----------

function formBody() {
  if ($("#type-draw").checked) return { type: "draw", counting_kong: kongPassesDeal() && $("#counting-kong").checked };
  const winner = Number($("#winner").value);
  const self = $("#self-drawn").checked;
  const discarder = self ? null : Number($("#discarder").value);
  if (!self && discarder === winner) throw new Error(t("winner_not_discarder"));
  return { type: "win", winner, discarder, tai: typedNumber($("#tai"), t("tai_whole_number")) };
}

async function change(method, url, body) {
  try {
    game = await api(method, url, { ...body, version: game.version });
    render();
    return true;
  } catch (e) {
    if (e.status === 409) {
      await load();
      say($("#form-status"), t("stale_reloaded"), "error");
    } else say($("#form-status"), t("error_prefix") + e.message, "error");
    return false;
  }
}

$("#hand-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  say($("#form-status"), "");
  let body;
  try { body = formBody(); } catch (e) { say($("#form-status"), e.message, "error"); return; }
  const button = $("#add-hand");
  const giveBack = holdFocus(button);
  button.disabled = true;
  const hand = editing !== null ? game.hands.find((h) => h.n === editing) : null;
  if (hand) {
    // keep what a scored photo contributed; the form edits only the result
    if (hand.photo_id) body.photo_id = hand.photo_id;
    if (hand.scored && body.type === "win") body.scored = hand.scored;
  }
  savingEdit = editing !== null;
  const ok = editing !== null ? await change("PUT", `${base}/hands/${editing}`, body)
                              : await change("POST", `${base}/hands`, body);
  savingEdit = false;
  button.disabled = false;
  if (ok) { stopEdit(); $("#tai").value = "0"; } else followEditedHand(); // refused: the game may have moved on
  giveBack();
});

/** What a recorded hand is, apart from its number: its inputs and when it was recorded. */
const handKey = (h) => JSON.stringify([h.created_at, h.type, h.winner, h.discarder, h.hand_tai ?? h.tai, !!h.counting_kong]);

/** The hand being edited, found again after the game changed: an edit saved under its old number
 *  would overwrite the next hand. Where it is gone, or no longer one of a kind, the edit stops. */
function followEditedHand() {
  if (editing === null || savingEdit) return;
  const same = game.hands.filter((h) => handKey(h) === editingWhich);
  if (same.length !== 1) {
    stopEdit();
    say($("#form-status"), t("edit_hand_gone"), "error");
  } else if (same[0].n !== editing) {
    editing = same[0].n;
    $("#add-hand").textContent = t("update_hand", { n: editing });
  }
}

function startEdit(h) {
  editing = h.n;
  editingWhich = handKey(h);
  $("#type-win").checked = h.type === "win";
  $("#type-draw").checked = h.type === "draw";
  fillPlayerSelects(windsOf(h.n));
  if (h.type === "win") {
    $("#winner").value = String(h.winner);
    $("#self-drawn").checked = h.discarder === null;
    if (h.discarder !== null) $("#discarder").value = String(h.discarder);
    $("#tai").value = String(h.hand_tai ?? h.tai);
  } else $("#counting-kong").checked = !!h.counting_kong;
  $("#add-hand").textContent = t("update_hand", { n: h.n });
  $("#cancel-edit").hidden = false;
  syncFinished();  // a finished game's hand is edited in the same form
  syncForm();
  // the focus goes into the form, at its first field: the hand's edit button is far below it
  $(h.type === "win" ? "#type-win" : "#type-draw").focus({ preventScroll: true });
  $("#hand-form").closest("section").scrollIntoView({ behavior: "smooth", block: "start" }); // its heading too
}

function stopEdit() {
  editing = null;
  editingWhich = null;
  $("#add-hand").textContent = t("add_hand");
  $("#cancel-edit").hidden = true;
  if (game) {
    syncFinished();
    fillPlayerSelects(windsOf(null));  // back to the winds the next hand is played in
  }
}

/** After the game's end the form records no new hand: its fields rest and a line says how to
 *  change a recorded one; editing a hand opens them again. */
function syncFinished() {
  const closed = !!game && game.state.finished && editing === null;
  for (const field of $("#hand-form").querySelectorAll("input, select")) field.disabled = closed;
  $("#add-hand").disabled = closed;
  $("#score-link").hidden = closed;
  $("#finished-hint").hidden = !closed;
}

$("#cancel-edit").addEventListener("click", () => {
  const n = editing;
  stopEdit(); // hides the button under the focus: the focus goes back to the hand's edit button
  ($(`#history tr[data-hand="${n}"] button[data-action="edit"]`) || $("#add-hand")).focus();
});

async function deleteHand(h) {
  if (!confirm(t("confirm_delete", { n: h.n }))) return;
  if (editing === h.n) stopEdit();
  await change("DELETE", `${base}/hands/${h.n}`, {});
}

// ---------- loading and polling ----------

async function load() {
  try {
    const fresh = await get(base);
    const changed = !game || fresh.version !== game.version;
    game = fresh;
    if (changed) render();
    say($("#game-status"), "");
  } catch (e) {
    say($("#game-status"), e.status === 404 ? t("game_not_found") : t("error_prefix") + e.message, "error");
  }
}

let timer = null;
function poll() {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    if (!document.hidden) await load();
    poll();
  }, POLL_MS);
}

document.addEventListener("visibilitychange", () => { if (!document.hidden) load(); });
window.addEventListener("langchange", () => {
  render();
  $("#add-hand").textContent = editing !== null ? t("update_hand", { n: editing }) : t("add_hand");
});

(async () => {
  syncForm();
  try { tables = (await get("/api/rules")).tables || []; } catch (e) { /* the table's id is shown instead */ }
  await load();
  poll();
})();
