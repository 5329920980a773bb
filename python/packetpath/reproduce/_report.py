"""Showing claims: the claim table (terminal and markdown) and the report folder.

The table's columns are defined once here, for the terminal (rich) and for
claims.md alike.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from rich.table import Table
from rich.text import Text

from packetpath.reproduce._claims import Claim

COLUMNS = ("figure", "claim", "metric", "paper", "simulated", "tolerance", "result")


def rows(claims: Sequence[Claim]) -> list[tuple[str, ...]]:
    """One row of text per claim, in `COLUMNS` order."""
    return [
        (c.figure, c.claim, c.metric, fmt(c.paper_value), fmt(c.simulated), c.tolerance, "PASS" if c.passed else "FAIL")
        for c in claims
    ]


def summary(claims: Sequence[Claim]) -> str:
    passed = sum(c.passed for c in claims)
    return f"{passed} passed, {len(claims) - passed} failed"


def rich_table(claims: Sequence[Claim], title: str = "") -> Table:
    table = Table(title=title or None, caption=summary(claims))
    for column in COLUMNS:
        table.add_column(column, overflow="fold")  # fold, never crop: nothing is hidden
    for row in rows(claims):
        colour = "green" if row[-1] == "PASS" else "bold red"
        # Text, not markup: claim text may contain [brackets]
        table.add_row(*map(Text, row[:-1]), Text(row[-1], style=colour))
    return table


def markdown(claims: Sequence[Claim], title: str = "") -> str:
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    lines = [f"# {title}", ""] if title else []
    lines += [line(COLUMNS), line(["---"] * len(COLUMNS))]
    lines += [line(row) for row in rows(claims)]
    lines += ["", summary(claims), ""]
    return "\n".join(lines)


def fmt(value: Any) -> str:
    """Compact text for a claim value: numbers to 4 significant digits, lists and mappings item by item."""
    if isinstance(value, bool) or value is None:
        return "none" if value is None else str(value).lower()
    if isinstance(value, (int, float)):
        return f"{value:.4g}"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {fmt(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(fmt(v) for v in value) + "]"
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
    if hasattr(module, "figures"):
        from packetpath.plots import render_figure

        for f in module.figures(dict(results)):
            render_figure(f, out / f["id"], formats=("png",))
    elif hasattr(module, "plots"):
        import matplotlib

        matplotlib.use("Agg")
        module.plots(dict(results), out)
