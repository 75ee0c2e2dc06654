// Shared start-up for every page: language, header highlighting.
import { initI18n } from "./i18n.js";

export function initPage() {
  initI18n();
  const here = location.pathname.replace(/\/+$/, "") || "/";
  for (const a of document.querySelectorAll("nav.top a")) {
    const target = new URL(a.href).pathname.replace(/\/+$/, "") || "/";
    const current = target === "/" ? here === "/" : here === target || here.startsWith(`${target}/`);
    if (current) a.setAttribute("aria-current", "page");
  }
}
