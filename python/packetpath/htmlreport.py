"""The offline HTML report of reproductions: every reproduced figure as a
chart beside the paper's claims on it, the parameters of every run, and the
claims on no drawn figure — one page, with Plotly's JavaScript one file
beside it (no CDN, no network); the page is a Jinja2 template.

It reads report folders written by ``packetpath reproduce --out`` (claims.json
and runs.json) and asks the paper module for its figures as data
(``figures(results)``), the same data its PNGs are drawn from. A figure drawn
again from each seed's runs gives every point its seeds' spread (an error
bar); values a paper module gives for a figure (``paper``: points or a
level) are drawn over the simulated curves as the paper's.
"""

from __future__ import annotations

import json
import os
import re
import statistics
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from packetpath.errors import ConfigError
from packetpath.tables import value_text


def read_folder(folder: str | os.PathLike) -> dict[str, Any]:
    """One paper's section of the report, from a ``reproduce --out`` folder."""
    from packetpath.metrics import latency_sentence
    from packetpath.profiles import same_figure
    from packetpath.reproduce import load_paper
    from packetpath.reproduce import Claim, score
    from packetpath.reproduce._report import paper_text, simulated_text, tolerance_text, verdict_text

    folder = Path(folder)
    try:
        claims = json.loads((folder / "claims.json").read_text())
        all_runs = json.loads((folder / "runs.json").read_text())
    except FileNotFoundError as e:
        raise ConfigError(f"{folder}: no {Path(e.filename).name}; write it with `packetpath reproduce PAPER --out {folder}`") from None
    except json.JSONDecodeError as e:
        raise ConfigError(f"{folder}: malformed JSON: {e}") from None
    papers = {c["paper"] for c in claims}
    if len(papers) != 1:
        raise ConfigError(f"{folder}/claims.json: expected the claims of one paper, found {len(papers)}")
    paper = papers.pop()
    module = load_paper(paper)
    runs = {name: r for name, r in all_runs.items() if "#seed" not in name}  # a replicated run's other seeds
    results = {name: r["report"] for name, r in runs.items()}
    figures = module.figures(results) if hasattr(module, "figures") else []
    _spread(figures, module, results, all_runs)

    # Parameters: those every run shares once, then what each run changes.
    scenarios = {name: r["scenario"] for name, r in runs.items()}
    keys = sorted({k for s in scenarios.values() for k in s})
    common = {k: scenarios[next(iter(scenarios))].get(k) for k in keys}
    common = {k: v for k, v in common.items() if all(s.get(k) == v for s in scenarios.values())}
    changed = {name: {k: value_text(v) for k, v in s.items() if k not in common} for name, s in scenarios.items()}
    # What bounds each packet run (reports written before it existed have none).
    bounds = {name: f"{b['resource']} ({b['utilisation']:.0%})" for name, r in results.items()
              if isinstance(b := r.get("bottleneck"), dict)}
    latencies = {name: latency_sentence(b).removeprefix("latency: ") for name, r in results.items()
                 if isinstance(b := r.get("latency_breakdown_ns"), dict) and b.get("total")}
    judged = []
    for c in claims:
        claim = Claim.from_json(c)
        c["verdict"] = claim.verdict
        c["paper_text"], c["simulated_text"], c["verdict_text"] = paper_text(claim), simulated_text(claim), verdict_text(claim)
        c["tolerance"] = tolerance_text(claim)
        judged.append(claim)
    # Each claim once: under the first chart of its figure (a chart of "Fig 14"
    # takes "Fig 14c" too), or among the undrawn.
    placed: set[int] = set()
    for f in figures:
        mine = [c for c in claims if same_figure(f["figure"], c["figure"])]
        f["claims"] = [c for c in mine if id(c) not in placed]
        placed |= {id(c) for c in mine}
        f["note"] = f"its claims are under an earlier chart of {f['figure']}" if mine and not f["claims"] else "no claim on this figure"
        f["runs"] = sorted({r for s in f["series"] for r in s["runs"]})
        f["keys"] = sorted({k for r in f["runs"] for k in changed.get(r, {})})
    return {
        "paper": paper,
        "score": score(judged),
        "title": _title(module),
        "claims": claims,
        "undrawn": [c for c in claims if id(c) not in placed],
        "figures": figures,
        "common": {k: value_text(v) for k, v in common.items()},
        "runs": changed,
        "bounds": bounds,
        "latencies": latencies,
    }


def _title(module: Any) -> str:
    """The paper's full title and where it appeared, from the module's docstring
    (``Reproduce "TITLE" (Authors, VENUE)``)."""
    if getattr(module, "TITLE", None):
        return module.TITLE
    doc = " ".join((module.__doc__ or module.PAPER).split("\n\n")[0].split())
    m = re.search(r'"([^"]+)"\s*(\([^)]*\))?', doc)
    return f"{m[1]} {m[2] or ''}".strip() if m else doc


def _spread(figures: list[dict[str, Any]], module: Any, results: dict[str, Any], all_runs: dict[str, Any]) -> None:
    """Give each series ``sd``: the standard deviation of each point over the
    seeds its runs were replicated at (None where they were not), by drawing
    the figures again from each seed's runs."""
    seeds: dict[str, list[str]] = {}
    for name in all_runs:
        if "#seed" in name:
            seeds.setdefault(name.split("#seed")[0], []).append(name)
    depth = max((len(v) for v in seeds.values()), default=0)
    if not depth or not figures:
        return
    variants = []
    for k in range(depth):
        swapped = {name: all_runs[sorted(seeds[name])[k]]["report"] if len(seeds.get(name, [])) > k else report
                   for name, report in results.items()}
        variants.append(module.figures(swapped))
    for i, f in enumerate(figures):
        for j, s in enumerate(f["series"]):
            sd = []
            for n, y in enumerate(s["y"]):
                ys = [y] + [v[i]["series"][j]["y"][n] for v in variants]
                replicated = n < len(s["runs"]) and bool(seeds.get(s["runs"][n]))
                sd.append(statistics.stdev(ys) if replicated and all(isinstance(x, (int, float)) for x in ys) else None)
            s["sd"] = sd


def chart(fig: Mapping[str, Any], div_id: str) -> str:
    """One figure as a Plotly chart (HTML fragment; Plotly's JavaScript is the
    page's ``plotly.min.js``, see `write_page`). Y from zero, legend beside the plot, the
    seeds' spread as error bars, the paper's values as black diamonds or a
    dashed level."""
    import plotly.graph_objects as go

    figure = go.Figure()
    for s in fig["series"]:
        errors = {"type": "data", "array": [e or 0 for e in s["sd"]], "visible": True} if any(s.get("sd") or []) else None
        # hover a point: the run that gave it, and its values
        hover = {"text": s["runs"], "hovertemplate": f"%{{text}}<br>{s['label']}: x = %{{x}}, y = %{{y}}<extra></extra>"}
        if fig.get("kind") == "bar":
            figure.add_bar(x=[str(x) for x in s["x"]], y=s["y"], name=s["label"], error_y=errors, **hover)
        else:
            mode = "markers" if fig.get("kind") == "scatter" else "lines+markers"
            figure.add_scatter(x=s["x"], y=s["y"], mode=mode, name=s["label"], error_y=errors, **hover)
    for p in fig.get("paper", []):
        if "level" in p:
            line = figure.add_vline if p.get("axis") == "x" else figure.add_hline
            line(p["level"], line_dash="dash", line_color="black", annotation_text=p["label"])
        else:
            figure.add_scatter(x=p["x"], y=p["y"], mode="markers", name=p["label"],
                               marker={"symbol": "diamond", "size": 11, "color": "black"})
    figure.update_layout(title=fig["title"], xaxis_title=fig["xlabel"], yaxis_title=fig["ylabel"], height=360,
                         margin={"t": 40, "r": 10, "b": 50}, showlegend=len(fig["series"]) + len(fig.get("paper", [])) > 1)
    figure.update_yaxes(rangemode="tozero")
    if fig.get("xscale") in ("log2", "log"):
        ticks = sorted({x for s in fig["series"] for x in s["x"]})
        figure.update_xaxes(type="log", tickvals=ticks, ticktext=[f"{t:g}" for t in ticks])
    return figure.to_html(full_html=False, include_plotlyjs=False, div_id=div_id, config={"displaylogo": False})


PLOTLY_JS = "plotly.min.js"
"""The charting library, one copy per report folder beside its pages (they open offline)."""


def write_page(template: str, out: str | os.PathLike, **values: Any) -> Path:
    """Render a Jinja2 ``template`` (HTML escaped; ``version``, ``generated``
    and ``plotly_js`` given) into ``out/index.html``, replaced whole, with
    Plotly's JavaScript beside it; returns the page's path."""
    import jinja2
    from plotly.offline import get_plotlyjs

    from packetpath import __version__

    page = jinja2.Environment(autoescape=jinja2.select_autoescape(default=True)).from_string(template).render(
        version=__version__, generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), plotly_js=PLOTLY_JS, **values)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    library = get_plotlyjs()
    if not (out / PLOTLY_JS).is_file() or (out / PLOTLY_JS).read_text(encoding="utf-8") != library:
        (out / PLOTLY_JS).write_text(library, encoding="utf-8")
    path = out / "index.html"
    tmp = path.with_name(".index.html.tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, path)
    return path


def write(sections: Sequence[Mapping[str, Any]], out: str | os.PathLike) -> Path:
    """Write ``out/index.html``; returns its path."""
    import markupsafe

    for section in sections:
        for fig in section["figures"]:
            fig["html"] = markupsafe.Markup(chart(fig, f"chart-{section['paper']}-{fig['id']}"))
    return write_page(_PAGE, out, sections=sections, charts=sum(len(s["figures"]) for s in sections))


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


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>packetpath: {{ sections|map(attribute="paper")|join(", ") }}</title>
<script>
// Collect every error, so a headless browser (and the tests) can see them.
window.__errors = [];
window.addEventListener("error", function (e) { window.__errors.push(String(e.message)); });
</script>
<script src="{{ plotly_js }}"></script>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px; padding: 1em 1.5em; color: #222; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
.summary { font-size: 1.1em; margin: .5em 0 1em; }
.figure { display: flex; flex-wrap: wrap; gap: 1.5em; margin: 1.5em 0; padding: 1em; border: 1px solid #e3e3e3; border-radius: 6px; }
.chart { flex: 0 0 580px; } .claims { flex: 1 1 380px; }
table { border-collapse: collapse; margin: .5em 0; } td, th { border: 1px solid #ddd; padding: 2px 7px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } .pass { color: #0a7d20; font-weight: 600; } .fail { color: #c0161e; font-weight: 600; }
.inconclusive { color: #8a6d00; font-weight: 600; } .anchor { color: #1f5f8b; font-weight: 600; }
details { margin: .4em 0; } summary { cursor: pointer; color: #225; }
.muted { color: #777; }
</style>
</head>
<body>
<h1>packetpath: reproduced papers</h1>
<p class="muted">packetpath {{ version }} · generated {{ generated }} · works offline: data and scripts are inside this file.
Error bars: the standard deviation over the seeds a run was repeated at; black: the paper's values where its module gives them.</p>
<h2>Contents</h2>
<ol>{% for p in sections %}<li><a href="#paper-{{ p.paper }}">{{ p.paper }}: {{ p.title }}</a> — {{ p.score }}
<ol>{% for f in p.figures %}<li><a href="#{{ p.paper }}-{{ f.id }}">{{ f.title if f.title.startswith(f.figure) else f.figure ~ ": " ~ f.title }}</a></li>{% endfor %}</ol></li>{% endfor %}</ol>
{% for p in sections %}
<h2 id="paper-{{ p.paper }}">{{ p.paper }}: {{ p.title }}</h2>
<p class="summary">{{ p.score }}</p>
{% for f in p.figures %}
<div class="figure" id="{{ p.paper }}-{{ f.id }}">
<div class="chart">{{ f.html }}</div>
<div class="claims"><h3>{{ f.figure }}</h3>
{% if f.claims %}<table><tr><th>claim</th><th>metric</th><th>paper</th><th>simulated</th><th>tolerance</th><th>verdict</th></tr>
{% for c in f.claims %}<tr><td>{{ c.claim }}</td><td>{{ c.metric }}</td><td>{{ c.paper_text }}</td><td>{{ c.simulated_text }}</td><td>{{ c.tolerance }}</td><td><span class="{{ c.verdict }}" title="{{ c.why or '' }}">{{ c.verdict_text }}</span></td></tr>
{% endfor %}</table>{% else %}<p class="muted">{{ f.note }}</p>{% endif %}
<details><summary>parameters of the {{ f.runs|length }} runs</summary>
<table><tr><th>run</th>{% for k in f["keys"] %}<th>{{ k }}</th>{% endfor %}<th>bound by</th><th>latency (us)</th></tr>
{% for r in f.runs %}<tr><td>{{ r }}</td>{% for k in f["keys"] %}<td>{{ p["runs"].get(r, {}).get(k, "") }}</td>{% endfor %}<td>{{ p.bounds.get(r, "") }}</td><td>{{ p.latencies.get(r, "") }}</td></tr>
{% endfor %}</table></details>
</div></div>
{% endfor %}
{% if p.undrawn %}<h3>Claims on no drawn figure</h3>
<table><tr><th>figure</th><th>claim</th><th>metric</th><th>paper</th><th>simulated</th><th>tolerance</th><th>verdict</th></tr>
{% for c in p.undrawn %}<tr><td>{{ c.figure }}</td><td>{{ c.claim }}</td><td>{{ c.metric }}</td><td>{{ c.paper_text }}</td><td>{{ c.simulated_text }}</td><td>{{ c.tolerance }}</td><td><span class="{{ c.verdict }}" title="{{ c.why or '' }}">{{ c.verdict_text }}</span></td></tr>
{% endfor %}</table>{% endif %}
<details><summary>parameters every run shares ({{ p.common|length }})</summary>
<table><tr><th>key</th><th>value</th></tr>{% for k, v in p.common.items() %}<tr><td>{{ k }}</td><td>{{ v }}</td></tr>{% endfor %}</table></details>
<details><summary>parameters of every run (beyond the shared ones)</summary>
<table><tr><th>run</th><th>parameters</th></tr>{% for r, kv in p["runs"].items() %}<tr><td>{{ r }}</td><td>{% for k, v in kv.items() %}{{ k }}={{ v }}  {% endfor %}</td></tr>{% endfor %}</table></details>
{% endfor %}
<script>document.body.setAttribute("data-charts", "{{ charts }}"); document.body.setAttribute("data-errors", window.__errors.length);</script>
</body>
</html>
"""
