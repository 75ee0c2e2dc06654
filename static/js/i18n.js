// Language handling: Chinese by default, English on request; the choice is kept in localStorage.
import zh from "./lang/zh.js";
import en from "./lang/en.js";

const DICTS = { zh, en };
const KEY = "mahjong.lang";

export function lang() {
  const saved = localStorage.getItem(KEY);
  return saved in DICTS ? saved : "zh";
}

function lookup(dict, key) {
  return key.split(".").reduce((o, k) => (o == null ? undefined : o[k]), dict);
}

/** A string, or the form of `{one, other}` that the count `n` asks for ("1 tile", "2 tiles"); the
 *  same rule as webapp/wording.py's `form`. Chinese writes plain strings. */
function form(s, vars) {
  if (s && typeof s === "object" && typeof s.other === "string") return vars.n === 1 && s.one ? s.one : s.other;
  return s;
}

/** The string for `key` in the current language, with {name} fields filled from `vars`. */
export function t(key, vars = {}) {
  let s = form(lookup(DICTS[lang()], key), vars);
  if (s === undefined) s = form(lookup(zh, key), vars);
  if (typeof s !== "string") return key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

// ---- the server's wording per error code (webapp/messages/<lang>.json, GET /api/messages/<lang>) ----

const MESSAGES = {};

/** Fetch the error catalog of the current language once (a failure leaves the server's text in use). */
export async function loadMessages(code = lang()) {
  if (!MESSAGES[code]) {
    MESSAGES[code] = fetch(`/api/messages/${code}`, { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : {}))
      .catch(() => ({}));
  }
  return MESSAGES[code];
}

function fill(template, params, catalog) {
  return template.replace(/\{(\w+)\}/g, (m, k) => {
    if (!(k in params)) return m;
    const v = params[k];
    // a param that is an error itself ({code, params}) is worded with its own template
    if (v && typeof v === "object" && v.code) return render(catalog, v.code, v.params || {}, v.message);
    return String(v);
  });
}

function render(catalog, code, params, fallback) {
  const template = form(catalog[code], params || {});
  return typeof template === "string" ? fill(template, params || {}, catalog) : (fallback ?? code);
}

/** The wording of an error `code` with its `params` in the page's language; `fallback` (the server's
 *  message) when the catalog lacks the code. Call `await loadMessages()` first. */
export async function codeText(code, params = {}, fallback) {
  const catalog = await loadMessages();
  return code ? render(catalog, code, params, fallback) : fallback;
}

/** The Accept-Language value the page sends: the server then words its messages the same way. */
export function acceptLanguage() {
  return lang() === "zh" ? "zh-Hant-TW, zh;q=0.9" : "en";
}

function rememberLang() {
  // server-rendered errors (a bad /games/<id> link) follow the page's choice too
  document.cookie = `lang=${lang()}; path=/; max-age=31536000; SameSite=Strict`;
}

export function windName(w) {
  return lookup(DICTS[lang()], `winds.${w}`) || w;
}

/** Fill every [data-i18n] element (textContent) and [data-i18n-attr="attr:key;..."] attribute. */
export function applyI18n(root = document) {
  document.documentElement.lang = lang() === "zh" ? "zh-Hant-TW" : "en";
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      if (attr && key) el.setAttribute(attr.trim(), t(key.trim()));
    }
  }
  const title = document.querySelector("title[data-i18n-title]");
  if (title) document.title = `${t(title.dataset.i18nTitle)} · ${t("app_title")}`;
  // the language button speaks the other language ("English", "切換成中文"): a reader says it so
  const other = document.getElementById("lang-switch");
  if (other) other.lang = lang() === "zh" ? "en" : "zh-Hant-TW";
}

export function setLang(code) {
  localStorage.setItem(KEY, code);
  rememberLang();
  applyI18n();
  window.dispatchEvent(new CustomEvent("langchange", { detail: code }));
}

/** Wire the header's language button and translate the static page once. */
export function initI18n() {
  applyI18n();
  rememberLang();
  const btn = document.getElementById("lang-switch");
  if (btn) btn.addEventListener("click", () => setLang(lang() === "zh" ? "en" : "zh"));
}
