#include "viewer/html_script.h"

namespace omprof::viewer {

const char* const kHtmlScript = R"HTML(</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const T = D.tree, N = T.name.length;
const kids = Array.from({length: N}, () => []);
for (let i = 1; i < N; ++i) kids[T.parent[i]].push(i);
const nameOf = i => i === 0 ? "all" : T.names[T.name[i]];
let total = T.incl_ns[0] || 1;
const sec = ns => (ns / 1e9).toFixed(3);
const pct = (a, b) => (b > 0 ? 100 * a / b : 0).toFixed(1);
// Work orange, wait blue, a mix in between; a little lightness from the name tells neighbours
// apart.
function colour(i) {
  const w = T.incl_ns[i] > 0 ? T.wait_ns[i] / T.incl_ns[i] : 0;
  const l = 1 + 0.06 * (((T.name[i] >>> 0) * 7) % 5) / 5;
  const mix = (a, b) => Math.min(255, Math.round((a + (b - a) * w) * l));
  return `rgb(${mix(240, 80)},${mix(160, 150)},${mix(80, 230)})`;
}
const flame = document.getElementById("flame"), tip = document.getElementById("tip");
const ROW = 18;
let zoomRoot = 0, searchRe = null;
function frame(i, x, w, depth, ancestor) {
  const e = document.createElement("div");
  e.className = "f" + (ancestor ? " anc" : "") +
      (searchRe && i && searchRe.test(nameOf(i)) ? " match" : "");
  e.style.left = x + "px"; e.style.width = w + "px"; e.style.top = depth * ROW + "px";
  e.style.background = colour(i);
  e.dataset.node = i;
  if (w > 24) e.textContent = nameOf(i);
  flame.appendChild(e);
  return e;
}
function render() {
  flame.textContent = "";
  const width = flame.clientWidth || 1000;
  const chain = [];
  for (let a = zoomRoot; ; a = T.parent[a]) { chain.unshift(a); if (a === 0) break; }
  chain.forEach((a, d) => frame(a, 0, width, d, a !== zoomRoot));
  let maxDepth = chain.length, drawn = chain.length;
  const stack = [[zoomRoot, 0, width, chain.length - 1]];
  while (stack.length) {
    const [i, x, w, d] = stack.pop();
    let cx = x;
    for (const k of kids[i]) {
      const kw = w * T.incl_ns[k] / (T.incl_ns[i] || 1);
      if (kw >= 0.5) {
        frame(k, cx, kw, d + 1, false); ++drawn;
        maxDepth = Math.max(maxDepth, d + 2);
        stack.push([k, cx, kw, d + 1]);
      }
      cx += kw;
    }
  }
  flame.style.height = maxDepth * ROW + 4 + "px";
  flame.dataset.drawn = drawn;
  updateMatched();
}
function zoom(i) { zoomRoot = i; render(); }
flame.addEventListener("click", ev => {
  const e = ev.target.closest(".f"); if (e) zoom(+e.dataset.node);
});
flame.addEventListener("mousemove", ev => {
  const e = ev.target.closest(".f");
  if (!e) { tip.style.display = "none"; return; }
  const i = +e.dataset.node;
  tip.textContent = `${nameOf(i)}\n${sec(T.incl_ns[i])} s, ${pct(T.incl_ns[i], total)}% of all` +
      `\nwork ${sec(T.incl_ns[i] - T.wait_ns[i])} s, wait ${sec(T.wait_ns[i])} s (${pct(T.wait_ns[i], T.incl_ns[i])}%)`;
  tip.style.display = "block";
  tip.style.left = Math.min(ev.clientX + 12, innerWidth - 320) + "px";
  tip.style.top = ev.clientY + 14 + "px";
});
flame.addEventListener("mouseleave", () => { tip.style.display = "none"; });
document.getElementById("reset").onclick = () => zoom(0);
// The tree of a time range (the timeline's selection): each interval's samples spread over its
// leads (4 of them picked at random: each pick a quarter of the interval's samples) on their
// nodes and their ancestors; an interval without leads only on the root; `null`: the whole run.
const whole = {incl: T.incl_ns.slice(), wait: T.wait_ns.slice(),
               title: document.getElementById("treetitle").textContent};
function showRange(range) {
  const title = document.getElementById("treetitle");
  if (!range) {
    T.incl_ns = whole.incl.slice(); T.wait_ns = whole.wait.slice(); title.textContent = whole.title;
  } else {
    const incl = new Array(N).fill(0), wait = new Array(N).fill(0);
    const period = 1e9 / ((D.headers[0] && D.headers[0].rate_hz) || 1);
    let placed = 0, all = 0;
    for (const lane of range.lanes)
      for (let i = range.from; i < range.to; ++i) {
        const samples = lane.samples[i] || 0, l = lane.leads[i] || [];
        all += samples * period;
        let picks = 0;
        for (let j = 1; j < l.length; j += 3) picks += l[j];
        for (let j = 0; j + 2 < l.length; j += 3) {
          const ns = samples * l[j + 1] / picks * period;
          placed += ns;
          for (let a = l[j]; ; a = T.parent[a]) {
            if (a !== 0) { incl[a] += ns; if (l[j + 2]) wait[a] += ns; }
            if (a === 0) break;
          }
        }
      }
    incl[0] = Math.max(all, placed);
    T.incl_ns = incl; T.wait_ns = wait;
    title.textContent = `Call tree of ${range.label}, estimated from 4 samples of each thread's ` +
        `intervals picked at random (${pct(placed, incl[0])}% of the samples placed; the rest ` +
        `only in the root's width). Time no sample saw (a wait asleep, with a CPU-time clock) is ` +
        `in the timeline's colours, not here.`;
  }
  total = T.incl_ns[0] || 1;
  zoomRoot = 0;
  render();
}
function updateMatched() {
  const out = document.getElementById("matched");
  if (!searchRe) { out.textContent = ""; return; }
  // Time under the matching frames, each sample once: a match's descendants are not added.
  let t = 0;
  const stack = [0];
  while (stack.length) {
    const i = stack.pop();
    if (i && searchRe.test(nameOf(i))) { t += T.incl_ns[i]; continue; }
    for (const k of kids[i]) stack.push(k);
  }
  out.textContent = `matched: ${sec(t)} s, ${pct(t, total)}% of all`;
}
document.getElementById("search").addEventListener("input", ev => {
  const v = ev.target.value;
  try { searchRe = v ? new RegExp(v) : null; } catch (e) {
    searchRe = new RegExp(v.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  }
  render();
});
window.addEventListener("resize", render);

function table(id, rows, columns, bars) {
  const box = document.getElementById(id);
  if (!rows || !rows.length) { box.textContent = "(none in these profiles)"; return; }
  const cols = columns.filter(c => c in rows[0]);
  const t = document.createElement("table");
  const head = t.insertRow();
  for (const c of cols.concat(bars ? ["work / wait"] : [])) {
    const th = document.createElement("th"); th.textContent = c;
    if (typeof rows[0][c] === "string" || c === "work / wait") th.className = "t";
    head.appendChild(th);
  }
  const max = bars ? Math.max(...rows.map(r => (r[bars[0]] || 0) + (r[bars[1]] || 0)), 1e-9) : 0;
  for (const r of rows) {
    const tr = t.insertRow();
    for (const c of cols) {
      const td = tr.insertCell();
      const v = r[c];
      td.textContent = v === null || v === undefined ? ""
          : typeof v === "number" && !Number.isInteger(v) ? +v.toFixed(3)
          : c === "name" && r.depth > 1 ? "\u00a0\u00a0".repeat(Math.min(r.depth - 1, 32)) + v : v;
      if (typeof v === "string") td.className = "t";
    }
    if (bars) {
      const td = tr.insertCell(), bar = document.createElement("div");
      bar.className = "bar";
      [[bars[0], "rgb(240,160,80)"], [bars[1], "rgb(80,150,230)"]].forEach(([k, c]) => {
        const d = document.createElement("div");
        d.style.width = 200 * (r[k] || 0) / max + "px"; d.style.background = c;
        d.title = `${k}: ${r[k]}`;
        bar.appendChild(d);
      });
      td.appendChild(bar);
    }
  }
  box.appendChild(t);
}

document.getElementById("title").textContent = document.title;
(function header() {
  const h = D.headers;
  table("header", h, [...(h.length > 1 ? ["rank"] : []), "command", "host", "duration_s", "samples", "sampled_s", "rate_hz",
                      "threads", "omp_runtime", "master_serial_s", "idle_workers_s", "idle_blamed_s",
                      "run_delay_s", "busy_machine", "profile"]);
})();
const several = D.headers.length > 1;
table("regions", D.regions, ["rank", "name", "depth", "calls", "threads", "incl_s", "self_s",
      "cpu_s", "work_s", "wait_s", "efficiency", "imbalance", "mpi_wait_s", ...(D.counter_columns || [])]
      .filter(c => several || c !== "rank"),
      ["work_s", "wait_s"]);
table("parallel", D.parallel_regions, ["rank", "region", "function", "instances", "wall_s", "teams", "incl_s",
      "work_s", "wait_s", "efficiency%", "barrier_s", "lock_s", "overhead_s", "other_wait_s",
      ...(D.counter_columns || [])]
      .filter(c => several || c !== "rank"), ["work_s", "wait_s"]);
table("threads", D.threads, ["rank", "thread", "tid", "kind", "samples", "sampled_s", "cpu_s",
      "work_s", "wait_s", "wait%", "overhead_s", "runq_s", "invol_sw", ...(D.counter_events || []),
      "cpus", "dropped", "truncated"].filter(c => several || c !== "rank"), ["work_s", "wait_s"]);
// Each profile's counter totals and the metrics derived from them (header.counters,
// header.derived_metrics), one row per event or metric.
table("counters", D.headers.flatMap((h, i) => [
  ...(h.counters || []).map(c => ({rank: i, name: c.event, total: c.total, value: null,
                                   per_cpu_second: c.per_cpu_second, sample_period: c.sample_period})),
  ...(h.derived_metrics || []).map(d => ({rank: i, name: d.metric, total: null, value: d.value,
                                          per_cpu_second: null, sample_period: null}))]),
  ["rank", "name", "total", "value", "per_cpu_second", "sample_period"].filter(c => several || c !== "rank"));
table("ranks", D.ranks, ["rank", "threads", "elapsed_s", "computation_s", "work_s", "omp_wait_s",
      "mpi_wait_s", "work%", "omp_wait%", "mpi_wait%"], ["work_s", "omp_wait_s"]);
table("states", D.states.filter(r => r.thread === "all"),
      ["rank", "state", "class", "time_s", "pct"].filter(c => several || c !== "rank"));
// What to fix first (omprof advise): the findings by the wall time they would save.
(function advice() {
  const A = D.advice;
  if (!A) return;
  const box = document.getElementById("advice");
  const h = document.createElement("h2");
  h.textContent = `Advice on ${A.input} (${A.ranks} x ${A.threads}, ${A.elapsed_s.toFixed(3)} s)`;
  box.appendChild(h);
  for (const w of A.warnings || []) {
    const p = document.createElement("p"); p.textContent = "WARNING: " + w; box.appendChild(p);
  }
  if (!A.findings.length) {
    const p = document.createElement("p"); p.textContent = A.note; box.appendChild(p); return;
  }
  const ol = document.createElement("ol");
  for (const f of A.findings) {
    const li = document.createElement("li");
    const head = document.createElement("b");
    head.textContent = `${f.kind.replace(/_/g, " ")}: ${f.gain_s.toFixed(3)} s ` +
        `(${f["gain%"].toFixed(1)}% of the run) \u00b1${f.error_s.toFixed(3)}` +
        (f.significant ? "" : " (not significant)");
    li.appendChild(head);
    for (const [label, text] of [["where", f.where + (f.place && !f.where.includes(f.place) ? " (" + f.place + ")" : "")],
                                 ["evidence", f.evidence], ["try", f.advice]]) {
      const d = document.createElement("div");
      d.textContent = `${label}: ${text}`;
      li.appendChild(d);
    }
    ol.appendChild(li);
  }
  box.appendChild(ol);
})();
// The timeline (omprof timeline): a lane per thread, per interval a bar split by class; drag to
// select a range (its shares per thread in the table below), "Zoom" to draw only that range.
(function timeline() {
  const L = D.timeline;
  if (!L || !L.lanes.length) return;
  const colours = ["rgb(240,160,80)", "rgb(80,150,230)", "rgb(150,100,210)", "rgb(220,70,70)",
                   "rgb(130,130,130)", "rgb(230,205,60)", "rgb(70,170,110)", "rgb(140,90,60)",
                   "rgb(200,200,200)"];
  const names = [...L.classes, "off_cpu"];
  const box = document.getElementById("timeline");
  const n = L.lanes[0].us.length;
  let view = [0, n], sel = null;
  box.innerHTML = `<h2>Timeline: ${n} intervals of ${L.interval_s.toFixed(3)} s; drag to select</h2>` +
      `<div id="tlcontrols"><button id="tlzoom">Zoom to selection</button> <button id="tlreset">Whole run</button>` +
      `<span class="legend">${names.map((c, k) => `<span style="background:${colours[k]}"></span>${c}`).join("")}</span></div>` +
      `<canvas id="tlcanvas"></canvas><div id="tlsel" class="tablebox"></div>`;
  const canvas = document.getElementById("tlcanvas"), LANE = 30, LEFT = 60;
  const regionAt = (lane, i) => {
    let r = "";
    for (const [first, name] of lane.parallel_regions) { if (first > i) break; r = name; }
    return r;
  };
  function draw() {
    const width = canvas.clientWidth || 1000;
    canvas.width = width; canvas.height = L.lanes.length * LANE + 20;
    const g = canvas.getContext("2d");
    g.font = "11px system-ui"; g.fillStyle = "#222";
    const span = view[1] - view[0], dx = (width - LEFT) / span;
    L.lanes.forEach((lane, k) => {
      const y0 = k * LANE + 2, h = LANE - 4;
      g.fillStyle = "#222"; g.fillText(lane.label, 4, y0 + 14);
      // Several intervals per pixel: each pixel column draws the intervals that fall in it.
      for (let i = view[0]; i < view[1]; ++i) {
        const row = lane.us[i], total = row.reduce((a, b) => a + b, 0);
        if (!total) continue;
        // A thread's partial interval (its start, its end) is a shorter bar.
        const x = LEFT + (i - view[0]) * dx, w = Math.max(dx, 1);
        const height = h * Math.min(1, total / (L.interval_s * 1e6));
        let y = y0 + h;
        row.forEach((us, c) => {
          if (!us) return;
          const part = height * us / total;
          g.fillStyle = colours[c]; g.fillRect(x, y - part, w, part); y -= part;
        });
      }
      // Long explicit region instances (dark) and MPI calls (dark green, below): bars at the
      // lane's top, at their exact times.
      for (const [start, end, kind] of lane.events || []) {
        const a = LEFT + (start / L.interval_s - view[0]) * dx, b = LEFT + (end / L.interval_s - view[0]) * dx;
        if (b < LEFT || a > width) continue;
        g.fillStyle = kind === "mpi" ? "rgb(20,90,50)" : "rgba(20,20,20,0.8)";
        g.fillRect(Math.max(a, LEFT), y0 + (kind === "mpi" ? 4 : 0), Math.max(1, Math.min(b, width) - Math.max(a, LEFT) - 1), 3);
      }
    });
    g.fillStyle = "#222";
    for (let t = 0; t <= 4; ++t) {
      const i = view[0] + span * t / 4;
      g.fillText((i * L.interval_s).toFixed(2) + " s", LEFT + (width - LEFT) * t / 4 - (t === 4 ? 40 : 0),
                 L.lanes.length * LANE + 14);
    }
    if (sel) {
      g.fillStyle = "rgba(0,0,0,0.12)";
      const a = LEFT + (sel[0] - view[0]) * dx, b = LEFT + (sel[1] - view[0]) * dx;
      g.fillRect(a, 0, b - a, L.lanes.length * LANE);
    }
  }
  const indexAt = ev => {
    const r = canvas.getBoundingClientRect();
    const f = (ev.clientX - r.left - LEFT) / (r.width - LEFT);
    return Math.max(view[0], Math.min(view[1], Math.round(view[0] + f * (view[1] - view[0]))));
  };
  function selectionTable() {
    const out = document.getElementById("tlsel");
    out.textContent = "";
    if (!sel || sel[1] <= sel[0]) { showRange(null); return; }
    const rows = L.lanes.map(lane => {
      const sum = names.map(() => 0);
      for (let i = sel[0]; i < sel[1]; ++i) lane.us[i].forEach((us, c) => { sum[c] += us; });
      const total = sum.reduce((a, b) => a + b, 0) || 1;
      const r = {thread: lane.label};
      names.forEach((c, k) => { r[c + "%"] = +(100 * sum[k] / total).toFixed(1); });
      return r;
    });
    table("tlsel", rows, ["thread", ...names.map(c => c + "%")]);
    const cap = document.createElement("div");
    const label = `${(sel[0] * L.interval_s).toFixed(2)}-${(sel[1] * L.interval_s).toFixed(2)} s`;
    cap.textContent = `selected ${label} (the call tree above shows it)`;
    out.prepend(cap);
    showRange({lanes: L.lanes, from: sel[0], to: sel[1], label});
  }
  let dragFrom = null;
  canvas.addEventListener("mousedown", ev => { dragFrom = indexAt(ev); sel = null; });
  canvas.addEventListener("mousemove", ev => {
    if (dragFrom !== null) { const i = indexAt(ev); sel = [Math.min(dragFrom, i), Math.max(dragFrom, i)]; draw(); return; }
    const r = canvas.getBoundingClientRect(), k = Math.floor((ev.clientY - r.top) / LANE);
    const i = Math.floor(view[0] + (ev.clientX - r.left - LEFT) / (r.width - LEFT) * (view[1] - view[0]));
    const lane = L.lanes[k];
    if (!lane || i < view[0] || i >= view[1]) { tip.style.display = "none"; return; }
    const row = lane.us[i], total = row.reduce((a, b) => a + b, 0) || 1;
    tip.textContent = `${lane.label} at ${(i * L.interval_s).toFixed(2)} s\n` +
        names.map((c, j) => row[j] ? `${c} ${(100 * row[j] / total).toFixed(0)}%` : "").filter(Boolean).join(", ") +
        `\n${regionAt(lane, i)}` +
        (lane.events || []).filter(([a, b]) => a < (i + 1) * L.interval_s && b > i * L.interval_s).slice(0, 4)
            .map(([a, b, kind, name]) => `\n${kind} ${name}: ${a.toFixed(3)}-${b.toFixed(3)} s`).join("");
    tip.style.display = "block";
    tip.style.left = Math.min(ev.clientX + 12, innerWidth - 320) + "px";
    tip.style.top = ev.clientY + 14 + "px";
  });
  canvas.addEventListener("mouseleave", () => { tip.style.display = "none"; });
  window.addEventListener("mouseup", () => { if (dragFrom !== null) { dragFrom = null; selectionTable(); } });
  document.getElementById("tlzoom").onclick = () => { if (sel && sel[1] > sel[0]) { view = sel; sel = null; draw(); } };
  document.getElementById("tlreset").onclick = () => { view = [0, n]; sel = null; draw(); selectionTable(); };
  window.addEventListener("resize", draw);
  draw();
  // For the self-test: select intervals [a, b) as a drag would.
  window.timelineSelect = (a, b) => { sel = [a, b]; draw(); selectionTable(); };
})();
// A scaling page (omprof view RUN1 RUN2 ...): the metric tree per run, efficiency against the
// configuration, and the largest run's losses; the flame graph is its extra time by call path.
(function scaling() {
  const S = D.scaling;
  if (!S) return;
  const box = document.getElementById("scaling");
  const h = document.createElement("h2");
  h.textContent = `Scaling (${S.kind}): reference ${S.reference}; cells below 0.8 in red`;
  box.appendChild(h);
  const t = document.createElement("table");
  const head = t.insertRow();
  for (const c of ["metric", ...S.labels]) {
    const th = document.createElement("th"); th.textContent = c; head.appendChild(th);
  }
  for (const r of S.metrics) {
    const tr = t.insertRow();
    const name = tr.insertCell(); name.textContent = r.metric; name.className = "t";
    for (const l of S.labels) {
      const td = tr.insertCell(), v = r[l], e = r[l + "_err"];
      td.textContent = v.toFixed(3) + (e >= 0.0005 ? " \u00b1" + e.toFixed(3) : "");
      td.className = v < 0.8 ? "low" : "high";
    }
  }
  box.appendChild(t);
  box.appendChild(plot(S));
  const lossColumns = ["loss_s", "loss%", "err_s", "work_s", "off_cpu_s", "serial_s",
                       "imbalance_s", "overhead_s", "sync_s", "mpi_s", "now_s", "ideal_s"];
  for (const [title, rows, key] of [["Loss by class", S.total, "whole"],
                                    ["Parallel regions by loss", S.parallel_regions, "parallel_region"],
                                    ["Explicit regions by loss", S.regions, "region"]]) {
    const h3 = document.createElement("h2");
    h3.textContent = `${title} (${S.largest} against ${S.reference}, thread-s)`;
    box.appendChild(h3);
    const div = document.createElement("div");
    div.className = "tablebox"; div.id = "scaling_" + title.split(" ")[0].toLowerCase();
    box.appendChild(div);
    table(div.id, rows, [key, ...lossColumns]);
  }
  document.getElementById("treetitle").textContent =
      `Scaling loss of ${S.largest} against ${S.reference} by call path: width = extra thread ` +
      "time, colour = its share of waiting";
})();
// Efficiencies against the runs (in the order given): global, parallel, computation. Written as
// markup: the HTML parser puts <svg> in its namespace by itself.
function plot(S) {
  const W = 520, H = 220, L = 40, B = 30;
  const lines = [["global efficiency", "#222"], ["parallel efficiency", "#3a7bd5"],
                 ["computation scalability", "#e08a2c"]];
  const rows = Object.fromEntries(S.metrics.map(r => [r.metric, r]));
  const top = Math.max(1, ...lines.flatMap(([m]) => S.labels.map(l => rows[m][l])));
  const x = i => L + (S.labels.length > 1 ? i * (W - L - 130) / (S.labels.length - 1) : 0);
  const y = v => H - B - v / top * (H - B - 10);
  const esc = t => String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;");
  let m = `<svg id="plot" width="${W}" height="${H}">`;
  for (const v of [0, 0.5, 0.8, 1])
    m += `<line x1="${L}" x2="${W - 130}" y1="${y(v)}" y2="${y(v)}" stroke="${v === 0.8 ? "#d66" : "#ddd"}"/>` +
         `<text x="4" y="${y(v) + 4}">${v.toFixed(1)}</text>`;
  S.labels.forEach((l, i) => { m += `<text x="${x(i) - 10}" y="${H - 8}">${esc(l)}</text>`; });
  lines.forEach(([name, c], k) => {
    const pts = S.labels.map((l, i) => `${x(i)},${y(rows[name][l])}`).join(" ");
    m += `<polyline points="${pts}" fill="none" stroke="${c}" stroke-width="2"/>` +
         `<text x="${W - 125}" y="${20 + 16 * k}" fill="${c}">${esc(name)}</text>`;
  });
  const div = document.createElement("div");
  div.innerHTML = m + "</svg>";
  return div;
}
render();

if (location.hash === "#selftest") {
  const result = {nodes: N, drawn: +flame.dataset.drawn, width: flame.clientWidth};
  const top = [...flame.querySelectorAll(".f")].filter(e => e.style.top === ROW + "px");
  result.top = top.map(e => ({name: nameOf(+e.dataset.node), width: parseFloat(e.style.width)}));
  const widest = top.sort((a, b) => parseFloat(b.style.width) - parseFloat(a.style.width))[0];
  if (widest) {
    const target = +widest.dataset.node;
    widest.dispatchEvent(new MouseEvent("click", {bubbles: true}));
    const again = [...flame.querySelectorAll(".f")].find(e => +e.dataset.node === target);
    result.clicked = nameOf(target);
    result.zoomed_to = nameOf(zoomRoot);
    result.zoomed_width = again ? parseFloat(again.style.width) : 0;
    result.zoomed_children = [...flame.querySelectorAll(".f")]
        .filter(e => e.style.top === 2 * ROW + "px").map(e => nameOf(+e.dataset.node));
  }
  const s = document.getElementById("search");
  s.value = "main"; s.dispatchEvent(new Event("input"));
  result.matches = flame.querySelectorAll(".f.match").length;
  result.matched = document.getElementById("matched").textContent;
  if (window.timelineSelect) {
    // The second half of the run selected: the table's rows, as drawn.
    const n = D.timeline.lanes[0].us.length;
    window.timelineSelect(Math.floor(n / 2), n);
    const rows = [...document.querySelectorAll("#tlsel tr")].map(tr => [...tr.cells].map(c => c.textContent));
    result.timeline = {lanes: D.timeline.lanes.length, intervals: n, from: Math.floor(n / 2), rows,
                       canvas_height: document.getElementById("tlcanvas").height,
                       // The call tree follows the selection: its title and the frames drawn.
                       tree_title: document.getElementById("treetitle").textContent,
                       tree_frames: [...flame.querySelectorAll(".f")].map(e => nameOf(+e.dataset.node))};
  }
  document.getElementById("selftest").textContent = JSON.stringify(result);
}
</script></body></html>
)HTML";

}  // namespace omprof::viewer
