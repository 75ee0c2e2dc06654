// JSON API client: marks mutating requests (X-Requested-With) and supplies the table PIN.
import { acceptLanguage, codeText, t } from "./i18n.js";
import { el } from "./dom.js";

const PIN_KEY = "mahjong.pin";
// When a tab of this browser last locked the table (localStorage: every tab sees it). The tabs share
// the PIN session (its cookie) but each keeps the PIN itself, sent as X-Table-Pin: a PIN kept from
// before a lock is void, or a second tab's next change would go through the lock on it.
export const LOCKED_KEY = "mahjong.pin-locked";
export const GIVEN_KEY = "mahjong.pin-given"; // when a tab last gave the PIN (the others' buttons follow)

/** When a tab last locked the table (ms since the epoch; 0: never). */
const lockedAt = () => Number(localStorage.getItem(LOCKED_KEY)) || 0;

/** The PIN this tab kept, unless a tab locked the table since it was given. */
function keptPin() {
  let kept = null;
  try { kept = JSON.parse(sessionStorage.getItem(PIN_KEY)); } catch { /* none kept, or unreadable */ }
  if (!kept || typeof kept.pin !== "string" || typeof kept.at !== "number") return null;
  if (kept.at <= lockedAt()) {
    sessionStorage.removeItem(PIN_KEY);
    return null;
  }
  return kept.pin;
}

/** A refused call: `message` in the page's language (its own wording for `code`), `code` and
 *  `params` as the server sent them (webapp/messages), `data` the whole answer. */
export class ApiError extends Error {
  constructor(status, message, data) {
    super(message);
    this.status = status;
    this.data = data;
    this.code = (data && data.code) || null;
    this.params = (data && data.params) || {};
  }
}

function isMutating(method) {
  return !["GET", "HEAD"].includes(method);
}

async function send(method, url, body) {
  const headers = { Accept: "application/json", "Accept-Language": acceptLanguage() };
  if (isMutating(method)) {
    headers["X-Requested-With"] = "fetch";
    const pin = keptPin();
    if (pin) headers["X-Table-Pin"] = pin;
  }
  let payload;
  if (body instanceof FormData || body instanceof Blob) payload = body;
  else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(url, { method, headers, body: payload, credentials: "same-origin" });
  } catch (e) {
    const error = new ApiError(0, t("network_error"));
    error.key = "network_error"; // its wording, said again by a page whose language changes
    throw error;
  }
  const type = res.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await res.json().catch(() => null) : null;
  if (!res.ok) {
    const fallback = (data && data.error) || `${res.status} ${res.statusText}`;
    const msg = data && data.code ? await codeText(data.code, data.params || {}, fallback) : fallback;
    throw new ApiError(res.status, msg, data);
  }
  return data;
}

/** Call the API; when a change (or a guarded read) is refused for want of the PIN, ask for the
 *  table PIN once and retry. */
export async function api(method, url, body) {
  const call = () => send(method, url, body);
  return url === "/api/pin" ? call() : withPin(call);
}

/** Run `call` (a promise maker); when it is refused for want of the PIN (an error whose `code` is
 *  pin_required: api.js's or a page's own), ask for the table PIN once and run it again. The
 *  answer to POST /api/pin is a session cookie, so a plain fetch or an <img> gets in afterwards. */
export async function withPin(call) {
  try {
    return await call();
  } catch (e) {
    // only a PIN refusal is worth asking about (a 403 also answers a missing CSRF header)
    if (!e || e.code !== "pin_required" || !(await askPin())) throw e;
    return call();
  }
}

/** Give the table PIN back on this device: the server ends its PIN session and every tab forgets the
 *  PIN it kept, so the next change asks for it again. */
export async function lockTable() {
  sessionStorage.removeItem(PIN_KEY);
  await send("DELETE", "/api/pin");
  localStorage.setItem(LOCKED_KEY, String(Date.now()));
  document.dispatchEvent(new CustomEvent("pin-change", { detail: { ok: false } }));
}

export const get = (url) => api("GET", url);
export const post = (url, body) => api("POST", url, body);

/** A modal asking for the PIN; checks it with POST /api/pin and keeps it for this tab. */
function askPin() {
  return new Promise((resolve) => {
    const input = el("input", { type: "password", inputmode: "numeric", autocomplete: "off", id: "pin-input",
                                "aria-label": t("pin_label") });
    const msg = el("p", { class: "status", role: "alert", hidden: true });
    const dialog = el("dialog", { class: "pin-dialog", "aria-labelledby": "pin-title" },
      el("form", { method: "dialog" },
        el("h2", { id: "pin-title", text: t("pin_title") }),
        el("label", {}, t("pin_label"), input),
        msg,
        el("div", { class: "row" },
          el("button", { type: "submit", class: "primary", value: "ok", text: t("ok") }),
          el("button", { type: "button", value: "cancel", text: t("cancel"),
                         onclick: () => { dialog.close(); } }))));
    document.body.append(dialog);
    let done = false;
    const finish = (v) => { if (!done) { done = true; dialog.remove(); resolve(v); } };
    dialog.addEventListener("close", () => finish(false));
    dialog.querySelector("form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const pin = input.value.trim();
      try {
        await send("POST", "/api/pin", { pin });
        const at = Math.max(Date.now(), lockedAt() + 1);
        sessionStorage.setItem(PIN_KEY, JSON.stringify({ pin, at }));
        localStorage.setItem(GIVEN_KEY, String(at));
        document.dispatchEvent(new CustomEvent("pin-change", { detail: { ok: true } }));
        finish(true);
      } catch (err) {
        // only a refusal of the PIN itself says it was wrong: after too many guesses the server
        // refuses any PIN for a while (pin_wait), the right one too, and the offline page says so
        const other = (err.code && err.code !== "pin_wrong") || err.key;
        msg.hidden = false;
        msg.textContent = other ? err.message : t("pin_wrong");
        input.select();
      }
    });
    dialog.showModal();
    input.focus();
  });
}
