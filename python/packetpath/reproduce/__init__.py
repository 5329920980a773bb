"""Reproducing the papers' claims: one module per paper, one framework.

A paper module (``packetpath.reproduce.ddio``, ...) states scenarios and the
paper's claims; this package runs the scenarios in parallel and judges the
claims with the tolerance policy of ``shared/validation/CLAIMS.md``::

    from packetpath.reproduce import reproduce
    claims = reproduce("ddio", out="out/ddio")

Paper modules build their claims with the constructors exported here.
"""

from packetpath.reproduce._claims import (
    PCT_FLOOR,
    SEEDS,
    VERDICTS,
    Claim,
    all_of,
    bound_by,
    comparable,
    cores_needed,
    count,
    crossover,
    external_cap,
    in_stages,
    judged,
    latency,
    like,
    monotone,
    ordering,
    pct_change,
    ratio,
    relative_change,
    score,
    share,
    span,
    throughput,
    up_to,
)
from packetpath.reproduce._report import markdown, rich_table, summary
from packetpath.reproduce._runner import anchored, load_paper, papers, reproduce
from packetpath.reproduce._runs import Runs, metric

__all__ = [
    "PCT_FLOOR",
    "SEEDS",
    "VERDICTS",
    "Claim",
    "Runs",
    "all_of",
    "anchored",
    "bound_by",
    "in_stages",
    "span",
    "external_cap",
    "judged",
    "like",
    "metric",
    "score",
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
    "up_to",
]

# The posted credit loop of the Skylake-SP and Cascade Lake profiles (their
# `pcie.credit_loop`, 375 ns: the host network study's bound for a write to
# memory), which no source measures: the papers on them run its other end
# too, the shortest loop the model holds (a DDIO write's path to the LLC,
# which nobody measured, may be that short).
CREDIT_LOOP = {"a 250 ns posted credit loop": {"pcie.credit_loop": "250ns"}}
CREDIT_LOOP_WHY = ("values of the posted credit loop no source measures (pcie.credit_loop: 375 ns, the host network study's bound for "
                   "a write to memory; 250 ns, the shortest the model holds)")
