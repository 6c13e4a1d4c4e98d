// The MCP Apps view of execute_code: draws the charts of a result
// (structuredContent.charts, the specs codemode.chart added) as SVG. It is
// bundled with the ext-apps App into view.html by internal/cmd/chartview;
// it loads nothing and reaches no network.
import { App } from "@modelcontextprotocol/ext-apps/app-with-deps";

// The palette of internal/chart, in order.
const palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
const NS = "http://www.w3.org/2000/svg";
const W = 720, H = 400, M = { l: 64, r: 64, t: 36, b: 48 };

function el(name, attrs, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function label(a) {
  if (!a) return "";
  if (a.title && a.unit) return `${a.title} (${a.unit})`;
  return a.title || a.unit || "";
}

// ticks returns about n round values covering [lo, hi].
function ticks(lo, hi, n) {
  const step0 = (hi - lo) / n;
  const mag = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= step0) || step0;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9 && out.length < 50; v += step) out.push(+v.toPrecision(12));
  return out;
}

function range(values, zero) {
  let lo = Infinity, hi = -Infinity;
  for (const v of values) { if (v < lo) lo = v; if (v > hi) hi = v; }
  if (zero) { lo = Math.min(lo, 0); hi = Math.max(hi, 0); }
  if (!(lo <= hi)) return [0, 1];
  if (lo === hi) return [lo - 1, hi + 1];
  const pad = (hi - lo) * 0.05;
  return [lo === 0 ? 0 : lo - pad, hi === 0 ? 0 : hi + pad];
}

function draw(spec, index) {
  const series = spec.series || [];
  const cats = (spec.x && spec.x.categories) || [];
  const cat = cats.length > 0;
  const xs = (s) => (cat ? s.y.map((_, i) => i) : s.x || []);
  const kind = (s) => s.kind || "line";
  const onY2 = (s) => s.axis === "y2";
  const allX = series.flatMap(xs);
  let [x0, x1] = cat ? [-0.5, cats.length - 0.5] : range(allX, false);
  const y1s = series.filter((s) => !onY2(s)), y2s = series.filter(onY2);
  const [ya, yb] = range(y1s.flatMap((s) => s.y), y1s.some((s) => kind(s) === "bar" || kind(s) === "area"));
  const [y2a, y2b] = range(y2s.flatMap((s) => s.y), y2s.some((s) => kind(s) === "bar" || kind(s) === "area"));
  const px = (x) => M.l + ((x - x0) / (x1 - x0)) * (W - M.l - M.r);
  const py = (y, s) => {
    const [lo, hi] = s && onY2(s) ? [y2a, y2b] : [ya, yb];
    return H - M.b - ((y - lo) / (hi - lo)) * (H - M.t - M.b);
  };

  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", "data-chart": index, role: "img", "aria-label": spec.title || "chart" });
  if (spec.title) svg.append(el("text", { x: W / 2, y: 20, "text-anchor": "middle", class: "title" }, spec.title));
  const axes = el("g", { class: "axes" });
  svg.append(axes);
  axes.append(el("line", { x1: M.l, y1: H - M.b, x2: W - M.r, y2: H - M.b, stroke: "#333" }));
  axes.append(el("line", { x1: M.l, y1: M.t, x2: M.l, y2: H - M.b, stroke: "#333" }));
  if (cat) {
    cats.forEach((c, i) => axes.append(el("text", { x: px(i), y: H - M.b + 16, "text-anchor": "middle", class: "tick x" }, c)));
  } else {
    for (const t of ticks(x0, x1, 6)) axes.append(el("text", { x: px(t), y: H - M.b + 16, "text-anchor": "middle", class: "tick x" }, String(t)));
  }
  for (const t of ticks(ya, yb, 5)) {
    axes.append(el("line", { x1: M.l, y1: py(t), x2: W - M.r, y2: py(t), stroke: "#e5e5e5" }));
    axes.append(el("text", { x: M.l - 6, y: py(t) + 4, "text-anchor": "end", class: "tick y" }, String(t)));
  }
  axes.append(el("text", { x: (M.l + W - M.r) / 2, y: H - 8, "text-anchor": "middle", class: "axis-title x" }, label(spec.x)));
  axes.append(el("text", { x: 14, y: (M.t + H - M.b) / 2, "text-anchor": "middle", transform: `rotate(-90 14 ${(M.t + H - M.b) / 2})`, class: "axis-title y" }, label(spec.y)));
  if (y2s.length) {
    axes.append(el("line", { x1: W - M.r, y1: M.t, x2: W - M.r, y2: H - M.b, stroke: "#333" }));
    for (const t of ticks(y2a, y2b, 5)) axes.append(el("text", { x: W - M.r + 6, y: py(t, y2s[0]) + 4, class: "tick y2" }, String(t)));
    const mid = (M.t + H - M.b) / 2;
    axes.append(el("text", { x: W - 12, y: mid, "text-anchor": "middle", transform: `rotate(90 ${W - 12} ${mid})`, class: "axis-title y2" }, label(spec.y2)));
  }

  const bars = series.filter((s) => kind(s) === "bar");
  const legend = el("g", { class: "legend" });
  series.forEach((s, i) => {
    const color = palette[i % palette.length];
    const X = xs(s);
    const g = el("g", { class: `series ${kind(s)}`, "data-name": s.name, fill: "none", stroke: color });
    if (kind(s) === "line" || kind(s) === "area") {
      const d = s.y.map((y, j) => `${j ? "L" : "M"}${px(X[j]).toFixed(1)},${py(y, s).toFixed(1)}`).join("");
      if (kind(s) === "area" && s.y.length) {
        const base = py(Math.max(onY2(s) ? y2a : ya, 0), s);
        g.append(el("path", { d: `${d}L${px(X[X.length - 1]).toFixed(1)},${base}L${px(X[0]).toFixed(1)},${base}Z`, fill: color, "fill-opacity": 0.3, stroke: "none" }));
      }
      g.append(el("path", { d, "stroke-width": 1.5 }));
    } else if (kind(s) === "scatter") {
      s.y.forEach((y, j) => g.append(el("circle", { cx: px(X[j]), cy: py(y, s), r: 2.5, fill: color, stroke: "none" })));
    } else {
      let step = cat ? 1 : Infinity;
      for (let j = 1; j < X.length; j++) if (X[j] !== X[j - 1]) step = Math.min(step, Math.abs(X[j] - X[j - 1]));
      if (!isFinite(step)) step = (x1 - x0) / 10;
      const w = step * 0.8, one = w / bars.length, k = bars.indexOf(s);
      const base = py(Math.max(onY2(s) ? y2a : ya, Math.min(0, onY2(s) ? y2b : yb)), s);
      s.y.forEach((y, j) => {
        const left = px(X[j] - w / 2 + k * one), right = px(X[j] - w / 2 + (k + 1) * one), top = py(y, s);
        g.append(el("rect", { x: left, y: Math.min(top, base), width: Math.max(right - left, 1), height: Math.abs(base - top), fill: color, stroke: "none" }));
      });
    }
    svg.append(g);
    const ly = M.t + 4 + i * 16;
    legend.append(el("rect", { x: W - M.r - 150, y: ly - 8, width: 10, height: 10, fill: color }));
    legend.append(el("text", { x: W - M.r - 136, y: ly + 1, class: "legend-label" }, s.name + (onY2(s) && y1s.length ? " (right axis)" : "")));
  });
  for (const [i, a] of (spec.annotations || []).entries()) {
    if (a.x < x0 || a.x > x1) continue;
    const g = el("g", { class: "annotation" });
    g.append(el("line", { x1: px(a.x), y1: M.t, x2: px(a.x), y2: H - M.b, stroke: "#888", "stroke-dasharray": "3 3" }));
    g.append(el("text", { x: px(a.x), y: M.t - 4 + (i % 3) * 12, "text-anchor": "middle", class: "annotation-label" }, a.label));
    svg.append(g);
  }
  svg.append(legend);
  return svg;
}

function show(result) {
  const root = document.getElementById("charts");
  root.replaceChildren();
  const charts = (result && result.structuredContent && result.structuredContent.charts) || [];
  charts.forEach((spec, i) => {
    try {
      root.append(draw(spec, i));
    } catch (e) {
      root.append(Object.assign(document.createElement("p"), { textContent: `Chart ${i + 1} could not be drawn: ${e}` }));
    }
  });
  document.body.dataset.charts = String(charts.length);
}

const app = new App({ name: "codemode-charts", version: "1.0.0" });
app.ontoolresult = show;
app.connect().then(() => { document.body.dataset.connected = "true"; });
