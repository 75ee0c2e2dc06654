// games.html: create a game, list games, import an exported game.
import { initPage } from "./page.js";
import { t, lang } from "./i18n.js";
import { el, clear, $, say, typedNumber } from "./dom.js";
import { get, post } from "./api.js";

initPage();

let tables = [];
let games = [];
const nameInputs = [0, 1, 2, 3].map((i) => $(`#p${i}`));
// how many wind rounds the game lasts: four (一將), two (東南, 半將) or the 東風圈 alone; "" is the
// rule table's own [flow] rounds, sent as null so that the game keeps following its table
const ROUND_CHOICES = ["", "4", "2", "1"];

function fillLabels() {
  for (const span of document.querySelectorAll(".player-label")) span.textContent = t("player_n", { n: span.dataset.n });
  nameInputs.forEach((input, i) => { input.placeholder = t("player_default", { n: i + 1 }); });
  fillDealer();
  fillRules();
  fillRounds();
  renderList();
}

function names() {
  return nameInputs.map((input, i) => input.value.trim() || t("player_default", { n: i + 1 }));
}

function fillDealer() {
  const sel = $("#first-dealer");
  const keep = sel.value || "0";
  clear(sel).append(...names().map((n, i) => el("option", { value: String(i), text: n })));
  sel.value = keep;
}

function fillRules() {
  const sel = $("#rules");
  const keep = sel.value || "tw-standard";
  clear(sel).append(...tables.map((x) => el("option", { value: x.id, text: lang() === "en" ? x.name_en : x.name })));
  if (tables.some((x) => x.id === keep)) sel.value = keep;
}

/** The chosen rule table's own number of rounds (undefined until /api/rules answered). */
function tableRounds() {
  return tables.find((x) => x.id === $("#rules").value)?.flow?.rounds;
}

function fillRounds() {
  const sel = $("#rounds");
  const keep = sel.value;
  const own = tableRounds();
  const text = (n) => (n ? t(`rounds_choice.${n}`) : own ? t("rounds_table", { rounds: t(`rounds_short.${own}`) })
                                                          : t("rounds_table_unknown"));
  clear(sel).append(...ROUND_CHOICES.map((n) => el("option", { value: n, text: text(n) })));
  sel.value = keep;
}

for (const input of nameInputs) input.addEventListener("input", fillDealer);
$("#rules").addEventListener("change", fillRounds);  // the default names the new table's rounds

$("#new-game").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const players = names();
  // one name at a table whatever its case or width ("Ann", "ann"), as the server checks it
  if (new Set(players.map((p) => p.normalize("NFKC").toLowerCase())).size !== 4) {
    say($("#new-status"), t("names_needed"), "error");
    return;
  }
  let stakes;
  try {
    stakes = { base: typedNumber($("#base"), t("stake_number"), false),
               per_tai: typedNumber($("#per-tai"), t("stake_number"), false) };
  } catch (e) { say($("#new-status"), e.message, "error"); return; }
  const button = $("#create-game");
  button.disabled = true;
  try {
    const game = await post("/api/games", {
      players, rules: $("#rules").value || "tw-standard", ...stakes,
      first_dealer: Number($("#first-dealer").value) || 0,
      rounds: $("#rounds").value ? Number($("#rounds").value) : null,
    });
    location.href = `/games/${encodeURIComponent(game.id)}`;
  } catch (e) {
    say($("#new-status"), t("error_prefix") + e.message, "error");
    button.disabled = false;
  }
});

function renderList() {
  const list = clear($("#game-list"));
  $("#no-games").hidden = games.length > 0;
  for (const g of games) {
    if (g.error) {  // a game the server cannot show (a damaged record): listed, never hiding the others
      list.append(el("li", { dataset: { game: g.id }, class: "unreadable" },
        el("span", { class: "names", text: g.id }),
        el("span", { class: "hint", text: g.error }),
        el("a", { class: "button", href: `/games/${encodeURIComponent(g.id)}`, text: t("game_open") })));
      continue;
    }
    const when = g.created_at ? new Date(g.created_at).toLocaleString(lang() === "en" ? "en" : "zh-TW") : "";
    list.append(el("li", { dataset: { game: g.id } },
      el("span", { class: "names", text: g.players.join("・") }),
      el("span", { class: "hint", text: `${t("hands_n", { n: g.hand_count })} · ${g.finished ? t("game_finished") : t("game_playing")}` }),
      el("span", { class: "hint", text: when }),
      el("a", { class: "button", href: `/games/${encodeURIComponent(g.id)}`, text: t("game_open") })));
  }
}

async function loadList() {
  try {
    games = await get("/api/games");
    renderList();
  } catch (e) {
    say($("#list-status"), t("error_prefix") + e.message, "error");
  }
}

$("#import-input").addEventListener("change", async (ev) => {
  const file = ev.target.files[0];
  ev.target.value = "";
  if (!file) return;
  let data;
  try { data = JSON.parse(await file.text()); } catch (e) {
    // the browser's own parser error ("Unexpected token …") is English and no help: say what the file is not
    say($("#list-status"), t("import_not_json", { name: file.name }), "error");
    return;
  }
  try {
    const game = await post("/api/games/import", data);
    say($("#list-status"), t("import_done"), "ok");
    location.href = `/games/${encodeURIComponent(game.id)}`;
  } catch (e) {
    say($("#list-status"), t("error_prefix") + e.message, "error");
  }
});

window.addEventListener("langchange", fillLabels);

(async () => {
  try { tables = (await get("/api/rules")).tables || []; } catch (e) { say($("#new-status"), t("error_prefix") + e.message, "error"); }
  fillLabels();
  loadList();
})();
