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

/** The string for `key` in the current language, with {name} fields filled from `vars`. */
export function t(key, vars = {}) {
  let s = lookup(DICTS[lang()], key);
  if (s === undefined) s = lookup(zh, key);
  if (typeof s !== "string") return key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
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
}

export function setLang(code) {
  localStorage.setItem(KEY, code);
  applyI18n();
  window.dispatchEvent(new CustomEvent("langchange", { detail: code }));
}

/** Wire the header's language button and translate the static page once. */
export function initI18n() {
  applyI18n();
  const btn = document.getElementById("lang-switch");
  if (btn) btn.addEventListener("click", () => setLang(lang() === "zh" ? "en" : "zh"));
}
