// Shared start-up for every page: language, header highlighting, and the sticky header's height
// (so that anything scrolled into view lands below the header, never under it).
import { initI18n } from "./i18n.js";

function trackHeader() {
  const header = document.querySelector("header.top");
  if (!header) return;
  // CSSOM, not a style attribute: allowed under the Content-Security-Policy
  const set = () => document.documentElement.style.setProperty("--header-h", `${header.offsetHeight}px`);
  set();
  if (window.ResizeObserver) new ResizeObserver(set).observe(header);
  else window.addEventListener("resize", set);
}

export function initPage() {
  initI18n();
  trackHeader();
  const here = location.pathname.replace(/\/+$/, "") || "/";
  for (const a of document.querySelectorAll("nav.top a")) {
    const target = new URL(a.href).pathname.replace(/\/+$/, "") || "/";
    const current = target === "/" ? here === "/" : here === target || here.startsWith(`${target}/`);
    if (current) a.setAttribute("aria-current", "page");
  }
}
