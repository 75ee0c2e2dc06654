// A page's unfinished work kept across a reload or Back: sessionStorage, this tab only (as api.js keeps
// the PIN). Storage outlives page versions, so a draft of another version is never read.

/** The page's kept draft (an object), or null where there is none, it is damaged or of another version. */
export function keptDraft(key, version) {
  try {
    const d = JSON.parse(sessionStorage.getItem(key));
    return d && typeof d === "object" && d.v === version ? d : null;
  } catch (e) {
    return null;
  }
}

/** Keep the draft; where storage is full or turned off the page works as it did without it. */
export function keepDraft(key, version, draft) {
  try {
    sessionStorage.setItem(key, JSON.stringify({ ...draft, v: version }));
  } catch (e) { /* nothing kept: no harm done */ }
}

/** Whether this load shows the page again (reload, Back, Forward) rather than following a link to it. */
export function revisited() {
  const nav = performance.getEntriesByType("navigation")[0];
  return !!nav && (nav.type === "reload" || nav.type === "back_forward");
}
