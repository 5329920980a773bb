"""Claims and the tolerance policy of ``shared/validation/CLAIMS.md``.

A paper's measured claim becomes a `Claim`: the paper's value beside the
simulated one, the tolerance written out, and whether it passed. There is one
constructor per kind of claim; each computes the pass/fail and the tolerance
text, so a paper module only states what the paper says and what was
simulated.

| constructor       | kind of claim                         | passes when                                           |
|-------------------|---------------------------------------|-------------------------------------------------------|
| `relative_change` | "X % better/worse"                    | same sign, within [0.5·X, 1.5·X]                      |
| `ratio`           | "R× better"                           | within [1 + 0.5·(R−1), 1 + 1.5·(R−1)]                 |
| `throughput`      | absolute throughput                   | within ±10 %                                          |
| `latency`         | absolute latency                      | within a factor of 2                                  |
| `share`           | hit rate, share, utilisation (0..1)   | within ±15 percentage points                          |
| `comparable`      | "A comparable to B" (no number given) | A / B within a factor of 2                            |
| `count`           | a count or rate of events             | within a factor of 2 (the latency rule)               |
| `monotone`        | trend over a grid                     | non-increasing / non-decreasing, up to a slack        |
| `ordering`        | "A > B > C"                           | the same order                                        |
| `crossover`       | a knee or crossover on a grid         | within one grid step                                  |
| `cores_needed`    | "A needs N cores for line rate"       | within ±2 cores (None = never, within the grid)       |

"Up to X" claims pass the same rows with the maximum over the swept grid as
the simulated value: the paper module takes that maximum.
"""

from __future__ import annotations

import math
import numbers
from itertools import pairwise
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class Claim:
    paper: str
    figure: str
    claim: str
    metric: str
    paper_value: Any
    simulated: Any
    tolerance: str
    passed: bool

    def to_json(self) -> dict[str, Any]:
        """The claim as ``reproduce --json`` prints it (``passed`` is spelled ``pass``)."""
        d = asdict(self)
        d["pass"] = d.pop("passed")
        return d


def pct_change(value: float, baseline: float) -> float:
    """Signed change of ``value`` relative to ``baseline``, in percent."""
    return 100.0 * (value - baseline) / baseline


def relative_change(paper: str, figure: str, claim: str, metric: str, paper_pct: float, simulated_pct: float) -> Claim:
    """A claim "X % better/worse", as signed percent changes of the metric (e.g. −23 for
    "23 % lower latency"). Passes with the same sign and within [0.5·X, 1.5·X]."""
    if paper_pct == 0:
        raise ValueError("relative_change needs a non-zero paper value; use another kind for 'no change'")
    lo, hi = sorted((0.5 * paper_pct, 1.5 * paper_pct))
    ok = _finite(simulated_pct) and lo <= simulated_pct <= hi
    return Claim(paper, figure, claim, metric, paper_pct, simulated_pct, f"same sign, {_n(lo)}% to {_n(hi)}%", ok)


def ratio(paper: str, figure: str, claim: str, metric: str, paper_ratio: float, simulated_ratio: float) -> Claim:
    """A claim "R× better": passes within [1 + 0.5·(R−1), 1 + 1.5·(R−1)]."""
    lo, hi = sorted((1 + 0.5 * (paper_ratio - 1), 1 + 1.5 * (paper_ratio - 1)))
    ok = _finite(simulated_ratio) and lo <= simulated_ratio <= hi
    return Claim(paper, figure, claim, metric, paper_ratio, simulated_ratio, f"{_n(lo)}x to {_n(hi)}x", ok)


def throughput(paper: str, figure: str, claim: str, metric: str, paper_value: float, simulated: float) -> Claim:
    """Absolute throughput: passes within ±10 % of the paper's value."""
    lo, hi = 0.9 * paper_value, 1.1 * paper_value
    return _within(paper, figure, claim, metric, paper_value, simulated, lo, hi, "±10%")


def latency(paper: str, figure: str, claim: str, metric: str, paper_value: float, simulated: float) -> Claim:
    """Absolute latency: passes within a factor of 2 of the paper's value."""
    lo, hi = paper_value / 2, paper_value * 2
    return _within(paper, figure, claim, metric, paper_value, simulated, lo, hi, "within 2x")


def share(paper: str, figure: str, claim: str, metric: str, paper_value: float, simulated: float) -> Claim:
    """Hit rate, share or utilisation as a fraction in [0, 1]: passes within ±15 percentage points."""
    lo, hi = paper_value - 0.15, paper_value + 0.15
    return _within(paper, figure, claim, metric, paper_value, simulated, lo, hi, "±15 pp")


def comparable(paper: str, figure: str, claim: str, metric: str, simulated_ratio: float) -> Claim:
    """A claim "A is comparable to B" with no number: the ratio A / B passes
    within a factor of 2 (the policy's rule for absolute latency, the
    loosest it has)."""
    return _within(paper, figure, claim, metric, 1.0, simulated_ratio, 0.5, 2.0, "within 2x")


def count(paper: str, figure: str, claim: str, metric: str, paper_value: float, simulated: float) -> Claim:
    """A count or rate of events (e.g. PAUSE frames per packet), which the
    policy does not list: passes within a factor of 2, its loosest rule."""
    lo, hi = paper_value / 2, paper_value * 2
    return _within(paper, figure, claim, metric, paper_value, simulated, lo, hi, "within 2x")


def monotone(
    paper: str,
    figure: str,
    claim: str,
    metric: str,
    direction: Literal["non-increasing", "non-decreasing"],
    simulated: Sequence[float],
    slack: float = 0.0,
) -> Claim:
    """A trend over a swept grid: every step goes the stated way, or the other
    way by at most ``slack`` (in the metric's unit)."""
    if direction not in ("non-increasing", "non-decreasing"):
        raise ValueError(f"direction must be 'non-increasing' or 'non-decreasing', not {direction!r}")
    sign = -1 if direction == "non-increasing" else 1
    values = list(simulated)
    ok = len(values) >= 2 and all(map(_finite, values)) and all(sign * (b - a) >= -slack for a, b in pairwise(values))
    tolerance = f"each step {direction}" + (f", slack {_n(slack)}" if slack else "")
    return Claim(paper, figure, claim, metric, direction, values, tolerance, ok)


def ordering(
    paper: str, figure: str, claim: str, metric: str, expected: Sequence[str], simulated: Mapping[str, float]
) -> Claim:
    """A claim "A > B > C": ``expected`` names the cases from highest to lowest
    metric; passes when the simulated values are strictly in that order."""
    values = [simulated[name] for name in expected]
    ok = all(map(_finite, values)) and all(a > b for a, b in pairwise(values))
    return Claim(paper, figure, claim, metric, " > ".join(expected), dict(simulated), "same order", ok)


def crossover(
    paper: str, figure: str, claim: str, metric: str, grid: Sequence[float], paper_value: float, simulated: float | None
) -> Claim:
    """A knee or crossover at a point of a swept grid (e.g. the offered load
    where the hit rate starts to fall). Both values snap to the nearest grid
    point; passes when they are at most one grid step apart. ``simulated`` is
    None when the simulation shows no crossover within the grid."""
    points = list(grid)

    def step(x: float) -> int:
        return min(range(len(points)), key=lambda i: abs(points[i] - x))

    ok = simulated is not None and _finite(simulated) and abs(step(simulated) - step(paper_value)) <= 1
    return Claim(paper, figure, claim, metric, paper_value, simulated, "within one grid step", ok)


def cores_needed(
    paper: str, figure: str, claim: str, metric: str, paper_cores: int | None, simulated_cores: int | None
) -> Claim:
    """A claim "A needs N cores for line rate": passes within ±2 cores. None means
    "never" (not within the swept core counts); it passes only against None."""
    if paper_cores is None or simulated_cores is None:
        ok = paper_cores is None and simulated_cores is None
    else:
        ok = abs(simulated_cores - paper_cores) <= 2
    return Claim(paper, figure, claim, metric, paper_cores, simulated_cores, "±2 cores", ok)


def _within(
    paper: str,
    figure: str,
    claim: str,
    metric: str,
    paper_value: float,
    simulated: float,
    lo: float,
    hi: float,
    rule: str,
) -> Claim:
    ok = _finite(simulated) and lo <= simulated <= hi
    return Claim(paper, figure, claim, metric, paper_value, simulated, f"{rule} ({_n(lo)} to {_n(hi)})", ok)


def _finite(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def _n(x: float) -> str:
    return f"{x:.3g}"
