// The score page's adapt card: the saved corrected photos (each can be forgotten), adapting from them
// or from the calibration photo (calibration.js), and a run's status and steps as the server words them.
import { t, lang } from "./i18n.js";
import { el, clear, $, say, reveal } from "./dom.js";
import { api, get, post } from "./api.js";
import { initCalibration } from "./calibration.js";

let adaptTimer = null;
let adaptRunning = false;
let exampleCount = 0; // saved corrected photos: adapting from them needs one
let calibrationRunning = () => {};
// the page's part: panelShown (the card was drawn again), exampleRemoved(photo id)
const hooks = { panelShown: () => {}, exampleRemoved: () => {} };

/** Wire the card's buttons once; hooks as above. */
export function initAdaptCard(pageHooks) {
  Object.assign(hooks, pageHooks);
  calibrationRunning = initCalibration(adaptStarted);
  $("#adapt-button").addEventListener("click", async () => {
    try {
      await post("/api/adapt", {});
    } catch (e) {
      if (e.status !== 409) { say($("#adapt-status"), t("error_prefix") + e.message, "error"); return; }
    }
    adaptStarted();
  });
  $("#adapt-stop").addEventListener("click", async () => {
    try {
      showAdapt(await api("DELETE", "/api/adapt"));
    } catch (e) {
      if (e.status !== 409) { say($("#adapt-status"), t("error_prefix") + e.message, "error"); return; }
      pollAdapt(); // it had ended already
    }
  });
}

/** The adapt panel: the count of saved photos and their list (count: a count just answered). */
export async function showAdaptPanel(count) {
  let saved = [];
  try { ({ count, examples: saved = [] } = await get("/api/examples")); } catch (e) { count = count || 0; }
  const section = $("#adapt-section");
  hooks.panelShown();
  renderExamples(saved);
  section.hidden = false; // the calibration photo needs no corrected photo
  exampleCount = count || 0;
  say($("#examples-count"), t("examples_count", { n: exampleCount }), "ok"); // with 0, why its button is off
  syncAdaptButton();
}

/** Adapting from corrected photos needs one saved, and no run going. */
function syncAdaptButton() {
  $("#adapt-button").disabled = adaptRunning || !exampleCount;
}

/** The saved corrected photos, each with a button to forget it: a correction saved wrong would
 * teach adapt wrong tiles. */
function renderExamples(saved) {
  const list = clear($("#examples-list"));
  for (const e of saved) {
    const when = e.saved_at ? new Date(e.saved_at).toLocaleString(lang() === "en" ? "en" : "zh-TW") : "";
    list.append(el("li", { dataset: { example: e.photo_id } },
      e.thumb_url ? el("img", { class: "thumb", src: e.thumb_url, alt: "" }) : el("span", { class: "thumb" }),
      el("span", { class: "what", text: [e.tiles === null ? "" : t("example_tiles", { n: e.tiles }), when]
        .filter(Boolean).join(" · ") }),
      el("button", { type: "button", class: "small", text: t("example_remove"), disabled: adaptRunning,
                     "aria-label": t("example_remove_label", { when }), onclick: () => removeExample(e.photo_id) })));
  }
}

async function removeExample(id) {
  try {
    await api("DELETE", `/api/examples/${encodeURIComponent(id)}`);
    hooks.exampleRemoved(id); // the page may save that photo again
    say($("#corrections-status"), "");
    await showAdaptPanel();
  } catch (e) {
    say($("#examples-count"), t("error_prefix") + e.message, "error");
  }
}

export function showAdapt(res) {
  const status = res.status || "idle";
  const secs = Math.max(0, Math.floor(res.elapsed_s || 0));
  const elapsed = status === "running" && res.elapsed_s !== undefined
    ? t("adapt_elapsed", { m: Math.floor(secs / 60), s: secs % 60 }) : "";
  const killed = status === "failed" && res.killed ? t("status_sep") + t("adapt_killed") : "";
  const summary = res.summary ? t("status_sep") + res.summary : ""; // what an ended run installed
  say($("#adapt-status"), t(`adapt_status_${status}`) + elapsed + killed + summary, status === "failed" ? "error" : "info");
  if (status === "running") delete $("#adapt-log-box").dataset.shown; // a new run's failure opens its log
  adaptRunning = status === "running";
  syncAdaptButton();
  $("#adapt-stop").hidden = !adaptRunning;
  calibrationRunning(adaptRunning);
  for (const b of document.querySelectorAll("#examples-list button")) b.disabled = adaptRunning; // it reads them
  renderAdaptSteps(res.steps || []);
  // the log is for what went wrong: the steps say the rest in the page's language
  $("#adapt-log").textContent = res.log_tail || "";
  const box = $("#adapt-log-box");
  box.hidden = !res.log_tail;
  if (status === "failed" && !res.killed && !box.dataset.shown) { box.open = true; box.dataset.shown = "1"; }
  clearTimeout(adaptTimer);
  if (status === "running") adaptTimer = setTimeout(pollAdapt, 2000);
}

/** adapt's steps, each with the time it began (the server lists a tuning's progress as its latest). */
function renderAdaptSteps(steps) {
  const list = clear($("#adapt-steps"));
  for (const s of steps) {
    const secs = Math.max(0, Math.floor(s.at_s || 0));
    list.append(el("li", { dataset: { code: s.code } },
      el("span", { class: "at", text: `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}` }),
      el("span", { class: "what", text: s.text })));
  }
  list.hidden = !steps.length;
  list.scrollTop = list.scrollHeight;
}

export async function pollAdapt() {
  try { showAdapt(await get("/api/adapt")); } catch (e) { say($("#adapt-status"), t("error_prefix") + e.message, "error"); }
}

/** A run began (or one runs already): the page shows its status, scrolled to where it is said. */
async function adaptStarted() {
  $("#adapt-section").hidden = false;
  await pollAdapt();
  reveal($("#adapt-status"));
}
