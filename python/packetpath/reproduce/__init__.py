"""Reproducing the papers' claims: one module per paper, one framework.

A paper module (``packetpath.reproduce.ddio``, ...) states scenarios and the
paper's claims; this package runs the scenarios in parallel and judges the
claims with the tolerance policy of ``shared/validation/CLAIMS.md``::

    from packetpath.reproduce import reproduce
    claims = reproduce("ddio", out="out/ddio")

Paper modules build their claims with the constructors exported here.
"""

from packetpath.reproduce._claims import (
    Claim,
    comparable,
    cores_needed,
    count,
    crossover,
    latency,
    monotone,
    ordering,
    pct_change,
    ratio,
    relative_change,
    share,
    throughput,
)
from packetpath.reproduce._report import markdown, rich_table, summary
from packetpath.reproduce._runner import load_paper, papers, reproduce

__all__ = [
    "Claim",
    "comparable",
    "cores_needed",
    "count",
    "crossover",
    "latency",
    "load_paper",
    "markdown",
    "monotone",
    "ordering",
    "papers",
    "pct_change",
    "ratio",
    "relative_change",
    "reproduce",
    "rich_table",
    "share",
    "summary",
    "throughput",
]
