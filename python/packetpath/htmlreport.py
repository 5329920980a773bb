"""The offline HTML report: every reproduced figure as an interactive chart
beside the paper's claims, the parameters of every run, and a table of every
claim — one self-contained page (its data and its hand-written JavaScript
inline; no CDN, no network).

It reads report folders written by ``packetpath reproduce --out`` (claims.json
and runs.json) and asks the paper module for its figures as data
(``figures(results)``), the same data its PNGs are drawn from.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from packetpath.errors import ConfigError
from packetpath.tables import value_text


def read_folder(folder: str | os.PathLike) -> dict[str, Any]:
    """One paper's section of the report, from a ``reproduce --out`` folder."""
    from packetpath.reproduce import load_paper
    from packetpath.reproduce import Claim, score
    from packetpath.reproduce._report import fmt, simulated_text, verdict_text

    folder = Path(folder)
    try:
        claims = json.loads((folder / "claims.json").read_text())
        runs = json.loads((folder / "runs.json").read_text())
    except FileNotFoundError as e:
        raise ConfigError(f"{folder}: no {Path(e.filename).name}; write it with `packetpath reproduce PAPER --out {folder}`") from None
    except json.JSONDecodeError as e:
        raise ConfigError(f"{folder}: malformed JSON: {e}") from None
    papers = {c["paper"] for c in claims}
    if len(papers) != 1:
        raise ConfigError(f"{folder}/claims.json: expected the claims of one paper, found {len(papers)}")
    paper = papers.pop()
    module = load_paper(paper)
    runs = {name: r for name, r in runs.items() if "#seed" not in name}  # a replicated run's other seeds
    results = {name: r["report"] for name, r in runs.items()}
    figures = module.figures(results) if hasattr(module, "figures") else []

    # Parameters: those every run shares once, then what each run changes.
    scenarios = {name: r["scenario"] for name, r in runs.items()}
    keys = sorted({k for s in scenarios.values() for k in s})
    common = {k: scenarios[next(iter(scenarios))].get(k) for k in keys}
    common = {k: v for k, v in common.items() if all(s.get(k) == v for s in scenarios.values())}
    changed = {name: {k: value_text(v) for k, v in s.items() if k not in common} for name, s in scenarios.items()}
    # What bounds each packet run (reports written before it existed have none).
    bounds = {name: f"{b['resource']} ({b['utilisation']:.0%})" for name, r in results.items()
              if isinstance(b := r.get("bottleneck"), dict)}
    judged = []
    for c in claims:
        c.setdefault("verdict", "pass" if c.get("pass") else "fail")  # a folder written before verdicts
        claim = Claim(**{k: c.get(k) for k in ("paper", "figure", "claim", "metric", "paper_value", "simulated", "tolerance", "verdict", "spread")},
                      why=c.get("why") or "")
        c["paper_text"], c["simulated_text"], c["verdict_text"] = fmt(c["paper_value"]), simulated_text(claim), verdict_text(claim)
        judged.append(claim)
    return {
        "paper": paper,
        "score": score(judged),
        "title": getattr(module, "TITLE", None) or (module.__doc__ or paper).strip().splitlines()[0],
        "claims": claims,
        "figures": figures,
        "common": {k: value_text(v) for k, v in common.items()},
        "runs": changed,
        "bounds": bounds,
    }


def write(sections: Sequence[Mapping[str, Any]], out: str | os.PathLike) -> Path:
    """Write ``out/index.html``; returns its path."""
    from packetpath import __version__

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    data = {
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "version": __version__,
        "papers": list(sections),
    }
    # JSON inside <script>: "</" must not close the element.
    payload = json.dumps(data, allow_nan=False, default=str).replace("</", "<\\/")
    titles = ", ".join(html.escape(s["paper"]) for s in sections)
    page = _PAGE.replace("@@TITLE@@", f"packetpath: {titles}").replace("@@DATA@@", payload)
    path = out / "index.html"
    tmp = path.with_name(".index.html.tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, path)
    return path


def build(
    out: str | os.PathLike,
    folders: Sequence[str | os.PathLike] = (),
    papers: Sequence[str] = (),
    **reproduce_options: Any,
) -> Path:
    """The report page from reproduce folders; or, without folders, reproduce
    ``papers`` (default: every paper) into ``out/<paper>/`` first."""
    from packetpath.reproduce import papers as all_papers
    from packetpath.reproduce import reproduce

    folders = list(folders)
    if not folders:
        for paper in papers or all_papers():
            reproduce(paper, out=Path(out) / paper, **reproduce_options)
            folders.append(Path(out) / paper)
    return write([read_folder(f) for f in folders], out)


_PAGE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@@TITLE@@</title>
<script>
// Collect every error, so a headless browser (and the tests) can see them.
window.__errors = [];
window.addEventListener("error", function (e) { window.__errors.push(String(e.message)); });
(function () {
  var original = console.error;
  console.error = function () { window.__errors.push(Array.prototype.join.call(arguments, " ")); original.apply(console, arguments); };
})();
</script>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px; padding: 1em 1.5em; color: #222; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
.summary { font-size: 1.1em; margin: .5em 0 1em; }
.figure { display: flex; flex-wrap: wrap; gap: 1.5em; margin: 1.5em 0; padding: 1em; border: 1px solid #e3e3e3; border-radius: 6px; }
.chart { flex: 0 0 560px; } .claims { flex: 1 1 380px; }
svg.chart-svg { font-size: 11px; user-select: none; }
svg .axis line, svg .axis path { stroke: #555; } svg .grid line { stroke: #eee; }
svg .legend text { cursor: pointer; } svg .legend .off { opacity: .35; }
.tooltip { position: fixed; pointer-events: none; background: #222; color: #fff; padding: 3px 7px; border-radius: 3px; font-size: 12px; display: none; }
table { border-collapse: collapse; margin: .5em 0; } td, th { border: 1px solid #ddd; padding: 2px 7px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } .pass { color: #0a7d20; font-weight: 600; } .fail { color: #c0161e; font-weight: 600; }
.inconclusive { color: #8a6d00; font-weight: 600; } .anchor { color: #1f5f8b; font-weight: 600; }
details { margin: .4em 0; } summary { cursor: pointer; color: #225; }
.muted { color: #777; } code { font-size: 12px; }
</style>
</head>
<body>
<h1>@@TITLE@@</h1>
<p class="muted" id="meta"></p>
<div id="content"></div>
<div class="tooltip" id="tooltip"></div>
<script type="application/json" id="data">@@DATA@@</script>
<script>
"use strict";
var SVGNS = "http://www.w3.org/2000/svg";
var COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];

function el(tag, attrs, text) {
  var node = document.createElement(tag);
  for (var k in attrs || {}) node.setAttribute(k, attrs[k]);
  if (text !== undefined) node.textContent = text;
  return node;
}
function sv(tag, attrs, text) {
  var node = document.createElementNS(SVGNS, tag);
  for (var k in attrs || {}) node.setAttribute(k, attrs[k]);
  if (text !== undefined) node.textContent = text;
  return node;
}
function num(x) {
  if (typeof x !== "number") return String(x);
  if (x !== 0 && (Math.abs(x) >= 1e5 || Math.abs(x) < 1e-3)) return x.toExponential(2);
  return String(Math.round(x * 1000) / 1000);
}
function niceTicks(lo, hi, n) {
  if (lo === hi) { lo -= 1; hi += 1; }
  var step = Math.pow(10, Math.floor(Math.log10((hi - lo) / n)));
  var err = (hi - lo) / n / step;
  step *= err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1;
  var ticks = [];
  for (var t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(Math.round(t / step) * step);
  return ticks;
}
function table(headers, rows) {
  var t = el("table"), tr = el("tr");
  headers.forEach(function (h) { tr.appendChild(el("th", {}, h)); });
  t.appendChild(tr);
  rows.forEach(function (row) {
    var r = el("tr");
    row.forEach(function (cell) {
      if (cell instanceof Node) { var td = el("td"); td.appendChild(cell); r.appendChild(td); }
      else r.appendChild(el("td", {}, cell));
    });
    t.appendChild(r);
  });
  return t;
}
function verdict(c) { return el("span", {"class": c.verdict, title: c.why || ""}, c.verdict_text); }

// One interactive chart: hover a point for its run and values, click a legend entry to hide a series.
function chart(fig) {
  var W = 540, H = 330, m = {l: 58, r: 12, t: 26, b: 46};
  var svg = sv("svg", {"class": "chart-svg", width: W, height: H, viewBox: "0 0 " + W + " " + H, "data-figure": fig.id});
  svg.appendChild(sv("text", {x: W / 2, y: 16, "text-anchor": "middle", "font-weight": "600", "font-size": "13"}, fig.title));
  var tip = document.getElementById("tooltip");
  var bar = fig.kind === "bar";
  var ys = [], xs = [];
  fig.series.forEach(function (s) { s.y.forEach(function (y) { if (typeof y === "number") ys.push(y); }); if (!bar) s.x.forEach(function (x) { xs.push(x); }); });
  var ylo = Math.min.apply(null, ys.concat(bar ? [0] : [])), yhi = Math.max.apply(null, ys);
  var yt = niceTicks(ylo, yhi, 5); ylo = Math.min(ylo, yt[0]); yhi = Math.max(yhi, yt[yt.length - 1]);
  var Y = function (y) { return m.t + (H - m.t - m.b) * (1 - (y - ylo) / ((yhi - ylo) || 1)); };
  var X, xt, categories = bar ? fig.series[0].x.map(String) : null;
  if (bar) {
    var band = (W - m.l - m.r) / categories.length;
    X = function (i) { return m.l + band * (i + 0.5); };
  } else {
    var log = fig.xscale === "log2", f = log ? Math.log2 : function (v) { return v; };
    var xlo = Math.min.apply(null, xs), xhi = Math.max.apply(null, xs);
    var pad = (f(xhi) - f(xlo)) * 0.04 || 1;
    X = function (x) { return m.l + (W - m.l - m.r) * (f(x) - f(xlo) + pad) / (f(xhi) - f(xlo) + 2 * pad); };
    xt = log ? Array.from(new Set(xs)).sort(function (a, b) { return a - b; }) : niceTicks(xlo, xhi, 6).filter(function (t) { return t >= xlo - pad && t <= xhi + pad; });
  }
  var grid = sv("g", {"class": "grid"}), axis = sv("g", {"class": "axis"});
  yt.forEach(function (t) {
    grid.appendChild(sv("line", {x1: m.l, x2: W - m.r, y1: Y(t), y2: Y(t)}));
    axis.appendChild(sv("text", {x: m.l - 5, y: Y(t) + 4, "text-anchor": "end"}, num(t)));
  });
  (bar ? categories : xt).forEach(function (t, i) {
    var x = bar ? X(i) : X(t);
    axis.appendChild(sv("line", {x1: x, x2: x, y1: H - m.b, y2: H - m.b + 4}));
    axis.appendChild(sv("text", {x: x, y: H - m.b + 16, "text-anchor": "middle"}, bar ? t : num(t)));
  });
  axis.appendChild(sv("line", {x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b}));
  axis.appendChild(sv("line", {x1: m.l, x2: m.l, y1: m.t, y2: H - m.b}));
  axis.appendChild(sv("text", {x: (W + m.l) / 2, y: H - 8, "text-anchor": "middle"}, fig.xlabel));
  axis.appendChild(sv("text", {x: 14, y: (H - m.b + m.t) / 2, "text-anchor": "middle", transform: "rotate(-90 14 " + (H - m.b + m.t) / 2 + ")"}, fig.ylabel));
  svg.appendChild(grid); svg.appendChild(axis);
  var legend = sv("g", {"class": "legend"});
  fig.series.forEach(function (s, k) {
    var colour = COLOURS[k % COLOURS.length], g = sv("g", {"class": "series", "data-series": s.label});
    if (bar) {
      var band = (W - m.l - m.r) / categories.length, w = band * 0.6;
      s.y.forEach(function (y, i) {
        if (typeof y !== "number") return;
        var r = sv("rect", {x: X(i) - w / 2, y: Y(y), width: w, height: Math.max(0, Y(ylo) - Y(y)), fill: colour, "class": "point"});
        r.__info = s.runs[i] + ": " + num(y); g.appendChild(r);
      });
    } else {
      var ok = s.x.map(function (x, i) { return typeof x === "number" && typeof s.y[i] === "number"; });
      var d = []; s.x.forEach(function (x, i) { if (ok[i]) d.push((d.length ? "L" : "M") + X(x).toFixed(1) + "," + Y(s.y[i]).toFixed(1)); });
      if (d.length && fig.kind !== "scatter") g.appendChild(sv("path", {d: d.join(""), fill: "none", stroke: colour, "stroke-width": 2}));
      s.x.forEach(function (x, i) {
        if (!ok[i]) return;
        var c = sv("circle", {cx: X(x), cy: Y(s.y[i]), r: 3.5, fill: colour, "class": "point"});
        c.__info = s.runs[i] + " — " + s.label + ": x = " + num(x) + ", y = " + num(s.y[i]);
        g.appendChild(c);
      });
    }
    svg.appendChild(g);
    if (fig.series.length > 1) {
      var item = sv("g", {transform: "translate(" + (m.l + 10 + 90 * (k % 5)) + "," + (m.t + 4 + 14 * Math.floor(k / 5)) + ")"});
      item.appendChild(sv("rect", {width: 10, height: 10, fill: colour}));
      item.appendChild(sv("text", {x: 14, y: 9}, s.label));
      item.addEventListener("click", function () {
        var hidden = g.style.display === "none";
        g.style.display = hidden ? "" : "none";
        item.setAttribute("class", hidden ? "" : "off");
      });
      legend.appendChild(item);
    }
  });
  svg.appendChild(legend);
  svg.addEventListener("mousemove", function (e) {
    var info = e.target.__info;
    if (info) { tip.textContent = info; tip.style.display = "block"; tip.style.left = e.clientX + 12 + "px"; tip.style.top = e.clientY + 12 + "px"; }
    else tip.style.display = "none";
  });
  svg.addEventListener("mouseleave", function () { tip.style.display = "none"; });
  return svg;
}

function render(data) {
  var content = document.getElementById("content"), charts = 0;
  document.getElementById("meta").textContent = "packetpath " + data.version + " · generated " + data.generated + " · works offline: data and scripts are inside this file";
  data.papers.forEach(function (p) {
    content.appendChild(el("h2", {id: "paper-" + p.paper}, p.paper + ": " + p.title));
    content.appendChild(el("p", {"class": "summary"}, p.score));
    p.figures.forEach(function (fig) {
      var box = el("div", {"class": "figure", id: p.paper + "-" + fig.id});
      var left = el("div", {"class": "chart"});
      left.appendChild(chart(fig)); charts += 1;
      var right = el("div", {"class": "claims"});
      right.appendChild(el("h3", {}, fig.figure));
      var mine = p.claims.filter(function (c) { return c.figure === fig.figure; });
      if (mine.length) right.appendChild(table(["claim", "paper", "simulated", "tolerance", ""], mine.map(function (c) { return [c.claim, c.paper_text, c.simulated_text, c.tolerance, verdict(c)]; })));
      else right.appendChild(el("p", {"class": "muted"}, "no claim on this figure"));
      var runs = []; fig.series.forEach(function (s) { s.runs.forEach(function (r) { if (runs.indexOf(r) < 0) runs.push(r); }); });
      var keys = []; runs.forEach(function (r) { Object.keys(p.runs[r] || {}).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); }); });
      keys.sort();
      var det = el("details"); det.appendChild(el("summary", {}, "parameters of the " + runs.length + " runs"));
      var bounds = p.bounds || {};
      det.appendChild(table(["run"].concat(keys, ["bound by"]), runs.map(function (r) { return [r].concat(keys.map(function (k) { return (p.runs[r] || {})[k] || ""; }), [bounds[r] || ""]); })));
      right.appendChild(det);
      box.appendChild(left); box.appendChild(right); content.appendChild(box);
    });
    content.appendChild(el("h3", {}, "Every claim"));
    content.appendChild(table(["figure", "claim", "metric", "paper", "simulated", "tolerance", "verdict"], p.claims.map(function (c) {
      return [c.figure, c.claim, c.metric, c.paper_text, c.simulated_text, c.tolerance, verdict(c)];
    })));
    var det = el("details"); det.appendChild(el("summary", {}, "parameters every run shares (" + Object.keys(p.common).length + ")"));
    det.appendChild(table(["key", "value"], Object.keys(p.common).map(function (k) { return [k, p.common[k]]; })));
    content.appendChild(det);
    var det2 = el("details"); det2.appendChild(el("summary", {}, "parameters of every run (beyond the shared ones)"));
    det2.appendChild(table(["run", "parameters"], Object.keys(p.runs).map(function (r) {
      return [r, Object.keys(p.runs[r]).map(function (k) { return k + "=" + p.runs[r][k]; }).join("  ")];
    })));
    content.appendChild(det2);
  });
  return charts;
}

try {
  document.body.setAttribute("data-rendered", render(JSON.parse(document.getElementById("data").textContent)));
} catch (e) {
  window.__errors.push(String(e && e.stack || e));
}
document.body.setAttribute("data-errors", window.__errors.length);
if (window.__errors.length) document.body.appendChild(el("pre", {id: "errors"}, window.__errors.join("\n")));
</script>
</body>
</html>
"""
