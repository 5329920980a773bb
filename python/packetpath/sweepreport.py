"""An offline HTML report of any results store (`packetpath report --store DIR`):
one chart per metric against the swept parameters.

The parameters that take more than one value in the store are the swept
ones. The one with the most values is the x axis, the next the colour, the
third and fourth facet the chart into columns and rows; a fifth or more are
averaged over, and the page names them. Runs that differ only in their seed
are one point: their mean, with their standard deviation as an error bar.
Y axes start at zero, so run-to-run noise never looks like a trend. Charts
are Plotly's (its JavaScript one file beside the page: it needs no network), the
page a Jinja2 template.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from packetpath.errors import ConfigError

# Plotly's argument and its name on the page, in the order the swept parameters take them
ROLES = (("x", "x axis"), ("color", "colour"), ("facet_col", "facet columns"), ("facet_row", "facet rows"))
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<script src="{{ plotly_js }}"></script>
<title>packetpath sweep report: {{ store }}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
td, th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }
.note { color: #555; font-size: 0.9em; }
section { margin-bottom: 2.5em; }
</style></head>
<body>
<h1>Sweep report</h1>
<p class="summary">{{ runs }} runs from <code>{{ store }}</code>, engine {{ versions }}; written {{ generated }} by packetpath {{ version }}.</p>
<h2>Swept parameters</h2>
<table><tr><th>parameter</th><th>unit</th><th>role in the charts</th><th>values</th></tr>
{% for p in swept %}<tr><td>{{ p.key }}</td><td>{{ p.unit }}</td><td>{{ p.role }}</td><td>{{ p.vals }}</td></tr>
{% endfor %}</table>
{% if averaged %}<p class="note">Averaged over in every chart (more swept parameters than a chart has axes): {{ averaged|join(", ") }}.</p>{% endif %}
{% if bounds %}<h2>What bounds the runs</h2>
<table><tr><th>resource</th><th>runs</th></tr>
{% for resource, n in bounds %}<tr><td>{{ resource }}</td><td>{{ n }}</td></tr>{% endfor %}</table>{% endif %}
<h2>Contents</h2>
<ol>{% for c in charts %}<li><a href="#{{ c.id }}">{{ c.title }}</a></li>{% endfor %}</ol>
{% for c in charts %}<section id="{{ c.id }}"><h3>{{ c.title }}</h3>
<p class="note">{{ c.meaning }}{% if c.runs > 1 %} Each point: the mean of {{ c.runs }} runs ({{ "their seeds and the averaged parameters" if averaged else "their seeds" }}), the bar their standard deviation.{% endif %}</p>
{{ c.html }}
</section>
{% endfor %}
{% if constant %}<h2>Metrics the same in every run</h2>
<table><tr><th>metric</th><th>value</th></tr>
{% for m, v in constant %}<tr><td>{{ m }}</td><td>{{ v }}</td></tr>{% endfor %}</table>{% endif %}
</body></html>
"""


def _code_spans(text: str) -> Any:
    """Text with its `backticked` names as <code>, everything else escaped."""
    import re

    import markupsafe

    return markupsafe.Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", str(markupsafe.escape(text))))


def build(store: Any, out: str | os.PathLike) -> Path:
    """Write ``out/index.html`` for the runs of ``store`` (a `Store` or its directory)."""
    import markupsafe
    import plotly.express as px

    from packetpath import metrics
    from packetpath.htmlreport import write_page
    from packetpath.plots import base_unit, in_readable_units, label, swept, whole_numbers
    from packetpath.store import Store

    store = store if isinstance(store, Store) else Store.existing(store)
    df = store.query("SELECT * FROM runs")
    if df.empty:
        raise ConfigError(f"the store {store.path} holds no runs")
    keys = swept(df)
    axes, averaged = keys[:len(ROLES)], keys[len(ROLES):]
    roles = {arg: k for (arg, _), k in zip(ROLES, axes)}
    # swept parameters in readable units (25 Gbps, not 25000 Mbps)
    unit = {k: in_readable_units(df, k, [k]) for k in axes}
    for k in axes[1:]:  # colours and facets are categories
        df[k] = df[k].map(lambda v: f"{v:g}" if isinstance(v, float) else str(v))
    numeric = [m for m in metrics.METRICS if m.path in df.columns and df[m.path].dtype.kind in "if" and df[m.path].notna().any()]
    charts, constant = [], []
    for i, m in enumerate(numeric):
        values = df[m.path].dropna()
        if not axes or values.nunique() == 1:
            constant.append((label(m.path), f"{values.iloc[0]:g}"))
            continue
        agg = df.groupby(axes, sort=True)[m.path].agg(["mean", "std", "count"]).reset_index()
        runs = int(agg["count"].max())
        y_unit = in_readable_units(agg, m.path, ["mean", "std"])
        # categories in natural order (64 before 1500), whole-number x values as ticks
        order = {k: sorted(agg[k].unique(), key=_natural) for k in axes[1:]}
        fig = px.line(agg, y="mean", error_y="std" if runs > 1 else None, markers=True, category_orders=order,
                      labels={"mean": label(m.path, y_unit), **{k: label(k, unit[k]) for k in axes}}, **roles)
        fig.update_yaxes(rangemode="tozero")
        xs = sorted(agg[axes[0]].unique())
        if whole_numbers(xs) and len(xs) <= 20:
            fig.update_xaxes(tickmode="array", tickvals=[int(v) for v in xs])
        fig.update_layout(height=380 * max(1, agg[roles["facet_row"]].nunique() if "facet_row" in roles else 1),
                          margin={"t": 40, "r": 10}, legend={"title": label(roles["color"], unit[roles["color"]]) if "color" in roles else ""})
        title = f"{label(m.path, y_unit)} against {label(axes[0], unit[axes[0]])}"
        html = fig.to_html(full_html=False, include_plotlyjs=False, div_id=f"chart-{i}", config={"displaylogo": False})
        meaning = _code_spans(m.meaning[:1].upper() + m.meaning[1:] + ".")
        charts.append({"id": f"m{i}", "title": title, "meaning": meaning, "runs": runs, "html": html})
    if not charts:
        raise ConfigError(f"the store {store.path}: no metric varies across its {len(df)} runs, nothing to chart")
    # most frequent first, as value_counts orders them
    bounds = list(df["bottleneck.resource"].dropna().value_counts().items()) if "bottleneck.resource" in df.columns else []
    return write_page(
        PAGE, out, store=str(store.path), runs=len(df), versions=", ".join(store.engine_versions()),
        swept=[{"key": k, "unit": unit.get(k) or base_unit(k) or "-", "role": dict(zip(axes, (name for _, name in ROLES))).get(k, "averaged over"),
                "vals": ", ".join(sorted({f"{v:g}" if isinstance(v, float) else str(v) for v in df[k]}, key=_natural))} for k in keys],
        averaged=averaged, bounds=bounds, charts=[c | {"html": markupsafe.Markup(c["html"])} for c in charts], constant=constant)


def _natural(text: str) -> tuple:
    """Sort "64" before "1500", and words after numbers."""
    try:
        return (0, float(text), "")
    except ValueError:
        return (1, 0.0, text)
