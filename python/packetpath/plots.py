"""Plots with matplotlib: figures given as data, and metrics of a results store.

`render_figure` draws a figure described as data (``{title, xlabel, ylabel,
xscale, kind, series: [{label, x, y}]}``), the form the paper modules'
``figures()`` return and the HTML report draws too. `plot_store` draws a
metric of a results store against a parameter: lines (one per value of
``by``), a scatter, or a heatmap over two parameters. Every plot is written
as PNG and SVG.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from packetpath.errors import ConfigError

KINDS = ("line", "scatter", "heatmap")


def _subplots(figsize: tuple[float, float]) -> tuple[Any, Any]:
    """A figure and its axes, drawn by Agg without pyplot (whose import is a
    third of what a `packetpath plot` takes)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    return fig, fig.subplots()


def _save(fig: Any, stem: Path, formats: Sequence[str]) -> list[Path]:
    stem.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    paths = []
    for fmt in formats:
        path = stem.with_name(f"{stem.name}.{fmt}")
        fig.savefig(path, dpi=110)
        paths.append(path)
    return paths


def series(label: str, runs: Sequence[str], x: Sequence[Any], y: Sequence[Any]) -> dict[str, Any]:
    """One line (or set of bars) of a figure: ``runs[i]`` gave the point ``(x[i], y[i])``."""
    return {"label": label, "runs": list(runs), "x": list(x), "y": list(y)}


def figure(id: str, figure: str, title: str, xlabel: str, ylabel: str, series: list, xscale: str = "linear", kind: str = "line",
           paper: list | None = None) -> dict[str, Any]:
    """A figure as data, as `render_figure` and the HTML report draw it (kind: line, scatter or bar).
    ``paper``: the paper's values on it, drawn over the simulated ones: `paper_points` or `paper_level`."""
    return {"id": id, "figure": figure, "title": title, "xlabel": xlabel, "ylabel": ylabel, "xscale": xscale, "kind": kind,
            "series": series, "paper": paper or []}


def paper_points(label: str, x: Sequence[Any], y: Sequence[Any]) -> dict[str, Any]:
    """Values the paper states for points of a figure (black diamonds)."""
    return {"label": label, "x": list(x), "y": list(y)}


def paper_level(label: str, value: float, axis: str = "y") -> dict[str, Any]:
    """A level the paper states for a whole figure (a dashed line across the
    ``y`` axis at ``value``, or up from the ``x`` axis), e.g. a cycle budget."""
    return {"label": label, "level": value, "axis": axis}


def render_figure(figure: Mapping[str, Any], stem: str | os.PathLike, formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """Draw a figure given as data; writes ``stem.png`` (and ``.svg``)."""
    fig, ax = _subplots((6, 3.5) if figure.get("kind") == "bar" else (5, 3.5))
    if figure.get("kind") == "bar":
        for s in figure["series"]:
            ax.bar([str(x) for x in s["x"]], s["y"], label=s["label"])
    else:
        style = "o" if figure.get("kind") == "scatter" else "o-"
        for s in figure["series"]:
            ax.plot(s["x"], s["y"], style, label=s["label"], markersize=3 if style == "o" else 6)
    for p in figure.get("paper", []):  # the paper's values, in black
        if "level" in p:
            line = ax.axvline if p.get("axis") == "x" else ax.axhline
            line(p["level"], color="black", linestyle="--", linewidth=1, label=p["label"])
        else:
            ax.plot(p["x"], p["y"], "kD", markersize=7, label=p["label"])
    if figure.get("kind") != "bar" and figure.get("xscale") == "log2":
        ticks = sorted({x for s in figure["series"] for x in s["x"]})
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.minorticks_off()
    if len(figure["series"]) + len(figure.get("paper", [])) > 1:  # beside the plot, never over the data
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
        fig.set_figwidth(fig.get_figwidth() + 1.8)
    levels = [p["level"] for p in figure.get("paper", []) if "level" in p and p.get("axis") != "x"]
    ys = [y for s in [*figure["series"], *figure.get("paper", [])] for y in s.get("y", [])] + levels
    ys = [y for y in ys if isinstance(y, (int, float))]
    if ys and min(ys) >= 0:  # from zero, so noise never looks like a trend
        ax.set_ylim(0, max(ys) * 1.08 or 1)
    ax.set(xlabel=figure.get("xlabel", ""), ylabel=figure.get("ylabel", ""), title=figure.get("title", ""))
    return _save(fig, Path(stem), formats)


def base_unit(key: str) -> str:
    """The unit the store keeps a parameter or metric in (``Mbps``, ``ps``, ``B``, ``ns``)."""
    from packetpath import metrics, schema

    d = schema.lookup(key)
    return d["base_unit"] if d else next((m.unit for m in metrics.METRICS if m.path == key), "")


def label(key: str, unit: str | None = None) -> str:
    """A parameter or metric with its unit: ``traffic.size (B)``; ``unit`` overrides the stored one."""
    unit = base_unit(key) if unit is None else unit
    return f"{key} ({unit})" if unit else key


# Larger units a base unit reads better in: (unit, base units in one).
_LARGER = {
    "Mbps": (("Gbps", 1e3),),
    "ps": (("ns", 1e3), ("us", 1e6), ("ms", 1e9), ("s", 1e12)),
    "ns": (("us", 1e3), ("ms", 1e6)),
    "B": (("KiB", 2**10), ("MiB", 2**20), ("GiB", 2**30)),
    "MHz": (("GHz", 1e3),),
    "MB/s": (("GB/s", 1e3),),
}


def readable(key: str, values: Any) -> tuple[str, float]:
    """The unit to show ``values`` of ``key`` in, and the factor to divide them by: the
    largest in which every non-zero value is at least 1 (25000 Mbps: 25 Gbps); a
    parameter's values must also come out whole (1500 B stays 1500 B, not 1.46 KiB)."""
    from packetpath import schema

    unit = base_unit(key)
    whole = schema.lookup(key) is not None
    try:
        nonzero = [abs(float(v)) for v in values if v == v and v is not None and float(v) != 0]
    except (TypeError, ValueError):
        return unit, 1.0
    best = (unit, 1.0)
    for name, factor in _LARGER.get(unit, ()):
        if nonzero and min(nonzero) >= factor and (not whole or all(v % factor == 0 for v in nonzero)):
            best = (name, factor)
    return best


def in_readable_units(df: Any, key: str, columns: Sequence[str]) -> str:
    """Rescale ``columns`` of ``df`` (values of ``key``; the first one picks
    the unit, see `readable`) in place; returns the unit they are now in."""
    if df[columns[0]].dtype.kind not in "if":
        return base_unit(key)
    unit, factor = readable(key, df[columns[0]])
    if factor != 1:
        for c in columns:
            df[c] = df[c] / factor
    return unit


def with_base_units(condition: str) -> str:
    """An SQL condition whose comparisons of a parameter with a value that
    carries its unit (``"traffic.rate" = 25Gbps``, ``"sim.duration" >= 1ms``)
    compare in the store's base units instead. Text in quotes and numbers
    without a unit are left alone; a unit the parameter does not take is a
    ConfigError."""
    import re

    from packetpath import _engine, schema

    number = r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"
    comparison = re.compile(rf'"([a-z0-9_]+\.[a-z0-9_.]+)"(\s*(?:<=|>=|<>|!=|==|=|<|>)\s*)({number}[A-Za-zµ][A-Za-zµ/]*)(?![\w.])')

    def base(m: re.Match) -> str:
        key, op, text = m[1], m[2], m[3]
        if schema.lookup(key) is None:
            return m[0]
        try:
            return f'"{key}"{op}{_engine.quantity(key, text):.17g}'
        except ValueError as e:
            raise ConfigError(f"--where: {e}") from None

    # (only outside '...' string literals)
    parts = re.split(r"('(?:[^']|'')*')", condition)
    return "".join(p if i % 2 else comparison.sub(base, p) for i, p in enumerate(parts))


def swept(df: Any) -> list[str]:
    """Parameters with more than one value in the store, most values first (the seed is not one)."""
    from packetpath import schema

    keys = [c for c in df.columns if schema.lookup(c) is not None and c != "sim.seed"]
    counts = {k: df[k].astype(str).nunique(dropna=False) for k in keys}
    return sorted((k for k, n in counts.items() if n > 1), key=lambda k: (-counts[k], k))


def plot_store(
    store: Any,
    metric: str,
    x: str,
    by: str | None = None,
    kind: str = "line",
    where: str | None = None,
    out: str | os.PathLike = "plot",
    formats: Sequence[str] = ("png", "svg"),
) -> list[Path]:
    """Plot ``metric`` against parameter ``x`` from a results store (a `Store` or its
    directory), averaging runs that share the plotted coordinates (e.g. seeds).

    ``kind="line"``: one line per value of ``by``; ``"scatter"``: every run,
    coloured by ``by``; ``"heatmap"``: ``x`` against ``by``, coloured by the
    metric. ``where`` is an SQL condition on the ``runs`` view, whose comparisons
    may give values with units (`with_base_units`). A parameter
    the selected runs were swept over that is neither ``x`` nor ``by`` is an
    error naming it (the plot would average over it silently); seeds are
    averaged. Axes carry units. Writes ``out.png`` and ``out.svg``; returns
    their paths."""
    from packetpath.store import Store

    if kind not in KINDS:
        raise ConfigError(f"plot kind '{kind}': must be one of {', '.join(KINDS)}")
    if kind == "heatmap" and not by:
        raise ConfigError("a heatmap needs a second parameter: --by KEY")
    store = store if isinstance(store, Store) else Store.existing(store)
    columns = set(store.query("SELECT * FROM runs LIMIT 0").columns)
    for role, name in (("metric", metric), ("--x", x), ("--by", by)):
        if name is not None and name not in columns:
            import difflib

            close = difflib.get_close_matches(name, sorted(columns), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ConfigError(f"{role} '{name}': no such column in the store {store.path}{hint}")
    quoted = [f'"{c}"' for c in (x, by) if c]
    condition = f"WHERE {with_base_units(where)}" if where else ""
    # Never average over a parameter the runs were swept over: say which.
    runs = store.query(f"SELECT * FROM runs {condition}")
    hidden = [k for k in swept(runs) if k not in (x, by)]
    if hidden:
        k = hidden[0]
        values = sorted(runs[k].astype(str).unique())
        raise ConfigError(f"the plot would average over swept parameter{'s' if len(hidden) > 1 else ''} {', '.join(hidden)} "
                          f"({k}: {', '.join(values[:6])}{' ...' if len(values) > 6 else ''}): pick one with "
                          f"--where '\"{k}\" = {values[0]}'" + ("" if by else f" or draw it with --by {k}"))
    if kind == "scatter":
        sql = f'SELECT {", ".join(quoted)}, "{metric}" AS y FROM runs {condition}'
    else:
        group = ", ".join(quoted)
        # (the sample sd over the runs averaged, seeds: error bars)
        sql = (f'SELECT {group}, avg("{metric}") AS y, stddev_samp("{metric}") AS sd, count(*) AS n FROM runs {condition} '
               f'GROUP BY {group} ORDER BY {group}')
    df = store.query(sql)
    if df.empty:
        raise ConfigError(f"no runs to plot in the store {store.path}" + (f" where {where}" if where else ""))

    # readable units: 25 Gbps rather than 25000 Mbps
    units = {key: in_readable_units(df, key, [column, "sd"] if column == "y" and "sd" in df else [column])
             for key, column in ((x, x), (by, by), (metric, "y")) if key}
    fig, ax = _subplots((5.5, 3.8))
    if kind == "heatmap":
        table = df.pivot_table(index=by, columns=x, values="y", aggfunc="mean")
        image = ax.imshow(table.values, aspect="auto", origin="lower", cmap="viridis")
        ax.set_xticks(range(len(table.columns)), [f"{v:g}" if isinstance(v, float) else str(v) for v in table.columns])
        ax.set_yticks(range(len(table.index)), [f"{v:g}" if isinstance(v, float) else str(v) for v in table.index])
        fig.colorbar(image, ax=ax, label=label(metric, units.get(metric)))
        ax.set(xlabel=label(x, units.get(x)), ylabel=label(by, units.get(by)), title=f"{metric}")
    else:
        groups = [(None, df)] if not by else list(df.groupby(by, sort=True))
        for value, part in groups:
            shown = f"{value:g} {units.get(by, '')}".strip() if isinstance(value, numbers.Real) and not isinstance(value, bool) else value
            line = None if by is None else f"{by}={shown}"
            if kind == "line":
                sd = part["sd"].fillna(0) if (part["n"] > 1).any() else None
                ax.errorbar(part[x], part["y"], yerr=sd, fmt="o-", capsize=3, label=line)
            else:
                ax.scatter(part[x], part["y"], label=line, s=16)
        if by:
            ax.legend(fontsize="small")
        ax.set(xlabel=label(x, units.get(x)), ylabel=label(metric, units.get(metric)), title=f"{metric} vs {x}")
        _readable_axes(ax, df[x], df["y"])
    return _save(fig, Path(out), formats)


def whole_numbers(values: Any) -> bool:
    """Whether every value is a number with no fraction (a core count, a size): its axis gets whole-number ticks."""
    values = list(values)
    return bool(values) and all(isinstance(v, numbers.Real) and float(v).is_integer() for v in values)


def _readable_axes(ax: Any, xs: Any, ys: Any) -> None:
    """Whole-number ticks for a whole-number parameter; a y axis from zero
    for a non-negative metric, so a 7 % change does not fill the plot."""
    from matplotlib.ticker import MaxNLocator

    if whole_numbers(xs):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if len(ys) and (ys.dropna() >= 0).all():
        ax.set_ylim(bottom=0)


def plot_tune(result: Mapping[str, Any], stem: str | os.PathLike, formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """A tune's trials in the plane of its first two objectives (one objective:
    against the trial number): infeasible grey, feasible blue, the frontier
    joined, the best point starred."""
    keys = [o["key"] for o in result["objectives"]]
    fig, ax = _subplots((6, 4.2))

    def xy(trials: Sequence[Mapping[str, Any]]) -> tuple[list[float], list[float]]:
        if len(keys) == 1:
            return [t["number"] for t in trials], [t["values"][keys[0]] for t in trials]
        return [t["values"][keys[0]] for t in trials], [t["values"][keys[1]] for t in trials]

    for feasible, style in ((False, {"color": "0.7", "marker": "x", "label": "infeasible"}),
                            (True, {"color": "tab:blue", "marker": "o", "label": "feasible"})):
        ax.scatter(*xy([t for t in result["trials"] if t["feasible"] is feasible]), **style)
    if len(keys) > 1 and result["frontier"]:
        ax.plot(*xy(result["frontier"]), color="tab:blue", drawstyle="steps-post", label="frontier")
    if result["best"] is not None:
        ax.scatter(*xy([result["best"]]), color="tab:red", marker="*", s=220, zorder=3, label="best")
    ax.set_xlabel("trial" if len(keys) == 1 else label(keys[0]))
    ax.set_ylabel(label(keys[-1] if len(keys) == 1 else keys[1]))
    ax.set_title(", ".join(result["constraints"]) or "no constraint", fontsize=10)
    ax.legend(fontsize=8)
    return _save(fig, Path(stem), formats)
