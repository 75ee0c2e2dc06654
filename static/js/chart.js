// Each player's running total over the hands, as an inline SVG line chart (no library).
const NS = "http://www.w3.org/2000/svg";
export const COLORS = ["#1d6b47", "#b3261e", "#1f5fa8", "#b26a00"];

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

/** A "nice" step for about `count` ticks over `span`. */
function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/**
 * series[p][k]: player p's total after hand k+1. Draws from 0 before the first hand.
 * `label` names the chart for screen readers; `width` is the width in CSS pixels.
 */
export function lineChart(series, names, label, width = 640) {
  // drawn at the container's own width so the 12 px labels stay readable on a phone
  const W = Math.max(300, Math.round(width)), H = Math.round(Math.min(280, Math.max(200, W * 0.45)));
  const L = 50, R = 12, T = 12, B = 30;
  const n = Math.max(0, ...series.map((s) => s.length));
  const all = series.flat().concat(0);
  let lo = Math.min(...all), hi = Math.max(...all);
  if (lo === hi) { lo -= 100; hi += 100; }
  const step = niceStep(hi - lo, 5);
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  const x = (k) => L + (n ? (k / n) * (W - L - R) : (W - L - R) / 2);
  const y = (v) => T + ((hi - v) / (hi - lo)) * (H - T - B);

  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label, class: "line-chart" });
  root.append(svg("title", {}, label));
  for (let v = lo; v <= hi + step / 2; v += step) {
    root.append(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: v === 0 ? "#777" : "#ddd",
                              "stroke-width": v === 0 ? 1.5 : 1 }));
    root.append(svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 12, fill: "#555" },
                    String(Math.round(v))));
  }
  const every = Math.max(1, Math.ceil(n / Math.max(4, Math.floor(W / 50))));
  for (let k = 0; k <= n; k += every) {
    root.append(svg("text", { x: x(k), y: H - 10, "text-anchor": "middle", "font-size": 12, fill: "#555" }, String(k)));
  }
  series.forEach((s, p) => {
    const points = [[0, 0], ...s.map((v, k) => [k + 1, v])];
    const color = COLORS[p % COLORS.length];
    root.append(svg("polyline", { points: points.map(([k, v]) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(" "),
                                  fill: "none", stroke: color, "stroke-width": 2.5, "stroke-linejoin": "round",
                                  "data-player": p }));
    if (n <= 40) {
      for (const [k, v] of points.slice(1)) {
        const dot = svg("circle", { cx: x(k).toFixed(1), cy: y(v).toFixed(1), r: 3.5, fill: color });
        dot.append(svg("title", {}, `${names[p]} #${k}: ${v}`));
        root.append(dot);
      }
    }
  });
  return root;
}
