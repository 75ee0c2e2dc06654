// Shared start-up for every page: language, header highlighting, and the sticky header's height
// (so that anything scrolled into view lands below the header, never under it).
import { GIVEN_KEY, LOCKED_KEY, get, lockTable } from "./api.js";
import { initI18n, t } from "./i18n.js";

function trackHeader() {
  const header = document.querySelector("header.top");
  if (!header) return;
  // CSSOM, not a style attribute: allowed under the Content-Security-Policy
  const set = () => document.documentElement.style.setProperty("--header-h", `${header.offsetHeight}px`);
  set();
  if (window.ResizeObserver) new ResizeObserver(set).observe(header);
  else window.addEventListener("resize", set);
}

/** The header's lock button, shown while this device holds the table PIN (a PIN is set and its
 *  session is open), so that a phone lent at the table can give the PIN back. */
function lockButton() {
  const button = document.getElementById("pin-lock");
  if (!button) return;
  const show = (ok) => { button.hidden = !ok; };
  document.addEventListener("pin-change", (ev) => show(ev.detail.ok));
  const ask = () => get("/api/pin").then((s) => show(s.required && s.ok), () => show(false));
  ask();
  // another tab locked the table or gave the PIN, or this page comes back from the back-forward cache
  window.addEventListener("storage", (ev) => { if (ev.key === LOCKED_KEY || ev.key === GIVEN_KEY) ask(); });
  window.addEventListener("pageshow", (ev) => { if (ev.persisted) ask(); });
  const note = document.getElementById("pin-lock-note");
  let noteTimer = 0;
  // where the button was, and read out: a live region stays in the page (one shown and filled at
  // once is not always announced), empty until then; a phone shows no tooltip
  const say = (text) => {
    note.textContent = text;
    clearTimeout(noteTimer);
    noteTimer = setTimeout(() => { note.textContent = ""; }, 5000);
  };
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await lockTable();
      say(t("pin_locked"));
      document.getElementById("lang-switch")?.focus(); // the pressed button is gone: the next control
    } catch (e) {
      say(e.message); // offline: the server's session stays, and so does the button
    } finally {
      button.disabled = false;
    }
  });
}

export function initPage() {
  initI18n();
  trackHeader();
  lockButton();
  const here = location.pathname.replace(/\/+$/, "") || "/";
  for (const a of document.querySelectorAll("nav.top a")) {
    const target = new URL(a.href).pathname.replace(/\/+$/, "") || "/";
    const current = target === "/" ? here === "/" : here === target || here.startsWith(`${target}/`);
    if (current) a.setAttribute("aria-current", "page");
  }
}
