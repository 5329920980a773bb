"""Showing claims: the claim table (terminal and markdown) and the report folder.

The table's columns are defined once here, for the terminal (rich) and for
claims.md alike.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
import re
from typing import Any

from rich.table import Table
from rich.text import Text

from packetpath.reproduce._claims import Claim, score

COLUMNS = ("figure", "claim", "metric", "paper", "simulated", "tolerance", "verdict")
COLOURS = {"pass": "green", "inconclusive": "yellow", "anchor": "cyan", "fail": "bold red"}


def verdict_text(c: Claim) -> str:
    """``PASS``, or the verdict with why it is not the tolerance's (``INCONCLUSIVE: ...``);
    a throughput claim adds what bounds its runs."""
    bounds = f" (bounded by {fmt(c.bounds)})" if c.bounds else ""
    return c.verdict.upper() + (f": {c.why}" if c.why else "") + bounds


def _in_us(c: Claim) -> bool:
    """A latency claim in ns whose values reach 10 us: shown in us, as the figures draw latencies."""
    name = c.metric.split(" ")[0].split(",")[0]
    if not (name.endswith("_ns") or "_ns." in name) or name != c.metric:
        return False  # (a metric with a qualifier is a ratio, a share or a percent change)
    return any(abs(x) >= 1e4 for x in _numbers((c.paper_value, c.simulated)))


def _numbers(value: Any) -> list[float]:
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, Mapping):
        return [x for v in value.values() for x in _numbers(v)]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _numbers(v)]
    return []


def _scaled(value: Any, by: float) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return value / by
    if isinstance(value, Mapping):
        return {k: _scaled(v, by) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scaled(v, by) for v in value]
    return value


def paper_text(c: Claim) -> str:
    """The paper's value, in us where the claim's latencies read so (`_in_us`)."""
    return fmt(_scaled(c.paper_value, 1e3)) + " us" if _in_us(c) and _numbers(c.paper_value) else fmt(c.paper_value)


def simulated_text(c: Claim) -> str:
    """The simulated value, with the seeds' standard deviation beside it where there is one."""
    by = 1e3 if _in_us(c) else 1.0
    text = fmt(_scaled(c.simulated, by)) if c.spread is None else fmt(_scaled(c.simulated, by), _scaled(c.spread, by))
    return text + (" us" if by != 1.0 else "")


def tolerance_text(c: Claim) -> str:
    """The tolerance, its bounds ``(lo to hi)`` in us where the values are."""
    if not _in_us(c):
        return c.tolerance
    return re.sub(r"\((-?[\d.e+-]+) to (-?[\d.e+-]+)\)", lambda m: f"({float(m[1]) / 1e3:.4g} to {float(m[2]) / 1e3:.4g} us)", c.tolerance)


def rows(claims: Sequence[Claim]) -> list[tuple[str, ...]]:
    """One row of text per claim, in `COLUMNS` order."""
    return [(c.figure, c.claim, c.metric, paper_text(c), simulated_text(c), tolerance_text(c), verdict_text(c)) for c in claims]


def summary(claims: Sequence[Claim]) -> str:
    """The score line: ``P pass of S scored (I inconclusive, A anchors, F fail)``."""
    return score(claims)


# Below this many columns the seven-column table would split words: claims
# are printed as blocks instead.
NARROW = 120


def rich_table(claims: Sequence[Claim], title: str = "", width: int | None = None) -> Any:
    """The claims for a terminal ``width`` columns wide: a table, or on a
    narrow terminal one block per claim, wrapped between words."""
    if width is not None and width < NARROW:
        return blocks(claims, title, width)
    table = Table(title=title or None, caption=summary(claims))
    for column in COLUMNS:
        table.add_column(column, overflow="fold")  # fold, never crop: nothing is hidden
    for c, row in zip(claims, rows(claims), strict=True):
        # Text, not markup: claim text may contain [brackets]
        table.add_row(*map(Text, row[:-1]), Text(row[-1], style=COLOURS[c.verdict]))
    return table


def blocks(claims: Sequence[Claim], title: str, width: int) -> Any:
    """Each claim as a few lines: figure, verdict and claim; the values; the
    metric; why the verdict is not the tolerance's. Lines break between
    words only (a word longer than the line overruns it)."""
    import textwrap

    from rich.console import Group

    indent = 7
    out = [Text(title, style="bold")] if title else []

    def wrap(text: str, first: str = " " * indent) -> list[str]:
        return textwrap.wrap(text, max(width, 40), initial_indent=first, subsequent_indent=" " * indent,
                             break_long_words=False, break_on_hyphens=False)

    for c, row in zip(claims, rows(claims), strict=True):
        figure, claim, metric, paper, simulated, tolerance, _ = row
        # the verdict first, whole, then the figure and the claim
        verdict = f"{c.verdict.upper():<{indent - 1}} "  # (INCONCLUSIVE runs past the indent)
        head = wrap(f"{figure} · {claim}", verdict)
        line = Text(head[0][:len(verdict)], style=COLOURS[c.verdict])
        line.append(head[0][len(verdict):])
        out.append(line)
        lines = head[1:] + wrap(f"paper {paper} · simulated {simulated} · {tolerance}") + wrap(f"metric {metric}")
        if c.why:
            lines += wrap(c.why)
        out += [Text(x) for x in lines]
    out.append(Text(summary(claims), style="bold"))
    return Group(*out)


def markdown(claims: Sequence[Claim], title: str = "") -> str:
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    lines = [f"# {title}", ""] if title else []
    lines += [line(COLUMNS), line(["---"] * len(COLUMNS))]
    lines += [line(row) for row in rows(claims)]
    lines += ["", summary(claims), ""]
    return "\n".join(lines)


def fmt(value: Any, spread: Any = None) -> str:
    """Compact text for a claim value: numbers to 4 significant digits, lists and
    mappings item by item; with ``spread`` (same shape), each number ``± sd``."""
    if isinstance(value, bool) or value is None:
        return "none" if value is None else str(value).lower()
    if isinstance(value, (int, float)):
        return f"{value:.4g}" + (f" ± {spread:.2g}" if isinstance(spread, (int, float)) else "")
    if isinstance(value, Mapping):
        sd = spread if isinstance(spread, Mapping) else {}
        return ", ".join(f"{k}: {fmt(v, sd.get(k))}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        sd = spread if isinstance(spread, (list, tuple)) else [None] * len(value)
        return "[" + ", ".join(fmt(v, s) for v, s in zip(value, sd, strict=False)) + "]"
    return str(value)


def write_report(
    out: Path,
    module: ModuleType,
    claims: Sequence[Claim],
    scenarios: Mapping[str, dict[str, Any]],
    results: Mapping[str, dict[str, Any]],
) -> None:
    """claims.json, runs.json (scenario + report of every run), claims.md, and
    the module's plots: one PNG per figure of its ``figures`` (figures as
    data), or whatever its own ``plots`` draws."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "claims.json").write_text(json.dumps([c.to_json() for c in claims], indent=2) + "\n")
    runs = {name: {"scenario": scenarios[name], "report": results[name]} for name in scenarios}
    (out / "runs.json").write_text(json.dumps(runs, indent=2) + "\n")
    (out / "claims.md").write_text(markdown(claims, title=f"{module.PAPER}: reproduced claims"))
    results = {name: report for name, report in results.items() if "#seed" not in name}
    if hasattr(module, "figures"):
        from packetpath.plots import render_figure

        for f in module.figures(dict(results)):
            render_figure(f, out / f["id"], formats=("png",))
    elif hasattr(module, "plots"):
        import matplotlib

        matplotlib.use("Agg")
        module.plots(dict(results), out)
