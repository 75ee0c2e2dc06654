// Tiny DOM helpers. Text always goes in through textContent, never innerHTML.

/** el("button", {class: "x", type: "button", onclick: fn, dataset: {...}}, child, "text", ...) */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    // through the CSSOM: the Content-Security-Policy (style-src 'self') refuses style attributes
    else if (k === "style") node.style.cssText = v;
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k in node && typeof v !== "string") node[k] = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

/** `node` emptied and given `children`, as el() takes them (null, undefined and false left out). */
export function refill(node, ...children) {
  clear(node);
  append(node, children);
  return node;
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

/** Whether all of `node` is on screen below the sticky header. */
export function onScreen(node) {
  const r = node.getBoundingClientRect();
  const header = document.querySelector("header.top");
  const top = header ? header.getBoundingClientRect().bottom : 0;
  return r.top >= top && r.bottom <= window.innerHeight;
}

/** Scroll `node` into view (below the sticky header: see scroll-padding-top in app.css) unless it is. */
export function reveal(node, block = "nearest") {
  if (!node.hidden && !onScreen(node)) node.scrollIntoView({ block, behavior: "smooth" });
}

/**
 * Show a one-line status in a [role=status] / [role=alert] element; kind = info | error | ok.
 * A new error is scrolled into view, so the player sees it wherever they were looking.
 */
export function say(node, text, kind = "info") {
  const changed = node.textContent !== (text || "") || node.dataset.kind !== kind;
  node.textContent = text || "";
  node.dataset.kind = kind;
  node.hidden = !text;
  if (text && kind === "error" && changed) reveal(node);
}

/** Disabled for the time an action runs (a second press does nothing meanwhile), a button under the
 * focus loses it to the page, and the next Tab starts from the top. Call before disabling `button`;
 * the function returned gives the focus back after: to the button, or where it stays disabled or
 * hidden, to `fallback`. Where the focus has gone somewhere else meanwhile, it is left there. */
export function holdFocus(button) {
  const had = document.activeElement === button;
  return (fallback = null) => {
    const lost = !document.activeElement || document.activeElement === document.body;
    if (had && lost) (button.disabled || button.hidden ? fallback : button)?.focus({ preventScroll: true });
  };
}

/** The number typed in `input`: a whole number of 0 or more (`whole`), or any number of 0 or more.
 * Anything else (empty, negative, a fraction where a whole one is asked) throws an Error worded
 * `message`, with the field marked and focused: never silently clamped or rounded into another. */
export function typedNumber(input, message, whole = true) {
  const raw = input.value.trim();
  const ok = whole ? /^\d+$/.test(raw) : /^\d+(\.\d+)?$/.test(raw);
  input.setAttribute("aria-invalid", ok ? "false" : "true");
  if (!ok) {
    input.focus();
    throw new Error(message);
  }
  return Number(raw);
}
