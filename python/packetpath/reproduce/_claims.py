"""Claims, their verdicts and the tolerance policy of ``shared/validation/CLAIMS.md``.

A paper's measured claim becomes a `Claim`: the paper's value beside the
simulated one, the tolerance written out, and a verdict:

- ``pass``: within the tolerance, on an effect the simulation really shows;
- ``inconclusive``: an ordering, trend or "no change" claim that the
  simulation cannot decide: its differences are within run-to-run noise
  (under 2 standard deviations of its seeds, or under 1 % of the value), or
  every configuration sits at the same external cap;
- ``anchor``: the paper's value set a profile parameter, or the simulated
  value is arithmetic on profile inputs: shown, never scored;
- ``fail``: everything else, including a metric with no samples.

There is one constructor per kind of claim; each computes the verdict and the
tolerance text, so a paper module only states what the paper says and what
was simulated.

| constructor       | kind of claim                         | passes when                                           |
|-------------------|---------------------------------------|-------------------------------------------------------|
| `relative_change` | "X % better/worse"                    | same sign, within [0.5·X, 1.5·X] (one-sided: past the far edge) |
| `span`            | "X-Y % better" over a grid, stated once | same sign; the simulated range's ends within [0.5·X, 1.5·X] and [0.5·Y, 1.5·Y] |
| `ratio`           | "R× better"                           | within [1 + 0.5·(R−1), 1 + 1.5·(R−1)]                 |
| `throughput`      | absolute throughput, "as fast as"     | within ±10 %                                          |
| `latency`         | absolute latency                      | within a factor of 2                                  |
| `share`           | hit rate, share, utilisation (0..1)   | within ±15 points, at most halfway to 0 or 1 (one-sided: on one side) |
| `comparable`      | "A comparable to B" (no number given) | A / B within a factor of 2                            |
| `count`           | a count or rate of events             | within a factor of 2 (the latency rule)               |
| `monotone`        | trend over a grid (≥ 3 seeds a point) | no step the wrong way beyond noise, net change beyond noise |
| `ordering`        | "A > B > C" (≥ 3 seeds a point)       | every neighbour pair in order beyond noise            |
| `like`            | "A performs like B", "no change"      | A within ±10 % of B, nearer B than any alternative, not every alternative in the band, not all at one external cap |
| `crossover`       | a knee or crossover on a grid         | within one grid step                                  |
| `cores_needed`    | "A needs N cores for line rate"       | within ±2 cores (None = never, within the grid)       |

"Up to X" claims pass the same rows with the maximum over the swept grid as
the simulated value: the paper module takes that maximum.

Where the paper names the mechanism behind a claim, the claim checks it:
`in_stages` (a latency change must lie in the stages the mechanism acts on,
by the run's latency breakdown) and `bound_by` (a throughput must be bounded
by what the paper says bounds it). A pass for another reason is a fail that
says why. The runner (`packetpath.reproduce._runner`) adds the rules that
span claims: a statement is scored once, a claim that reads only anchored
runs is an anchor, a throughput claim carries what bounds each of its runs.
"""

from __future__ import annotations

import math
import numbers
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from itertools import pairwise
from typing import Any, Literal

Verdict = Literal["pass", "inconclusive", "anchor", "fail"]
VERDICTS: tuple[Verdict, ...] = ("pass", "inconclusive", "anchor", "fail")
SEEDS = 3
"""Seeds an ordering, trend or "no change" claim needs per point (CLAIMS.md)."""
PCT_FLOOR = 1.0
"""The noise rule's "1 % of the value" for a metric that is already a percent
change: one percentage point (1 % of the quantity changed), not 1 % of the change."""
Bound = Literal["at least", "at most"] | None
Values = float | Sequence[float]
"""One simulated value, or one per seed."""


@dataclass(frozen=True)
class Claim:
    paper: str
    figure: str
    claim: str
    metric: str
    paper_value: Any
    simulated: Any
    tolerance: str
    verdict: Verdict
    spread: Any = None
    """Standard deviation over the seeds, beside `simulated` (noise-judged claims)."""
    why: str = ""
    """Why the verdict is not the tolerance's: the anchor, the cap, the noise, the mechanism."""
    runs: tuple[str, ...] = ()
    """The runs the simulated value was computed from (stamped by `Runs.collect`)."""
    bounds: Any = None
    """What bounds each configuration behind a throughput claim (its runs' bottleneck)."""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}, not {self.verdict!r}")

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    def to_json(self) -> dict[str, Any]:
        """The claim as ``reproduce --json`` prints it; ``pass`` is ``verdict == "pass"``."""
        return asdict(self) | {"runs": list(self.runs), "pass": self.passed}

    @classmethod
    def from_json(cls, c: dict[str, Any]) -> Claim:
        """A claim as `to_json` wrote it; a folder written before verdicts has only ``pass``."""
        verdict = c.get("verdict") or ("pass" if c.get("pass") else "fail")
        fields = ("paper", "figure", "claim", "metric", "paper_value", "simulated", "tolerance", "spread", "bounds")
        return cls(**{k: c.get(k) for k in fields}, verdict=verdict, why=c.get("why") or "", runs=tuple(c.get("runs") or ()))

    def as_anchor(self, why: str) -> Claim:
        """The same claim, shown but not scored: ``why`` names the profile value or arithmetic."""
        return replace(self, verdict="anchor", why=why)

    def undecided(self, why: str) -> Claim:
        """The same claim, inconclusive: ``why`` says what keeps the simulation from deciding it."""
        return replace(self, verdict="inconclusive", why=why)

    def failed(self, why: str) -> Claim:
        """The same claim, failed for ``why``: a pass for another reason than the paper's is no pass."""
        return replace(self, verdict="fail", why=why)


def judged(paper: str, figure: str, claim: str, metric: str, paper_value: Any, simulated: Any, tolerance: str, ok: bool) -> Claim:
    """A claim a paper module judges itself (a set, a phase sequence): pass or fail."""
    return Claim(paper, figure, claim, metric, paper_value, simulated, tolerance, _verdict(ok))


def score(claims: Sequence[Claim]) -> str:
    """``P pass of S scored (I inconclusive, A anchors, F fail)``; anchors are not scored."""
    n = {v: sum(c.verdict == v for c in claims) for v in VERDICTS}
    scored = len(claims) - n["anchor"]
    return f"{n['pass']} pass of {scored} scored ({n['inconclusive']} inconclusive, {n['anchor']} anchors, {n['fail']} fail)"


def up_to(values: Iterable[float], best: Callable[[list[float]], float] = max) -> float:
    """An "up to" claim's value: the best over the grid (``max`` or ``min``);
    NaN if any point has no samples, so the claim fails (missing is missing)."""
    vals = list(values)
    return best(vals) if vals and all(map(_finite, vals)) else math.nan


def pct_change(value: float, baseline: float) -> float:
    """Signed change of ``value`` relative to ``baseline``, in percent."""
    return 100.0 * (value - baseline) / baseline


def relative_change(
    paper: str, figure: str, claim: str, metric: str, paper_pct: float, simulated_pct: float, bound: Bound = None
) -> Claim:
    """A claim "X % better/worse", as signed percent changes of the metric (e.g. −23 for
    "23 % lower latency"). Passes with the same sign and within [0.5·X, 1.5·X].
    One-sided ("at least X %", "never more than X % worse") passes past the band's far edge."""
    if paper_pct == 0:
        raise ValueError("relative_change needs a non-zero paper value; use `like` for 'no change'")
    lo, hi = sorted((0.5 * paper_pct, 1.5 * paper_pct))
    if bound is None:
        return _within(paper, figure, claim, metric, paper_pct, simulated_pct, lo, hi, "same sign,", unit="%")
    return _one_sided(paper, figure, claim, metric, paper_pct, simulated_pct, bound, lo if bound == "at least" else hi, "%")


def span(
    paper: str, figure: str, claim: str, metric: str, paper_lo_pct: float, paper_hi_pct: float, simulated: Sequence[float]
) -> Claim:
    """A range the paper states once over a grid ("21.3-38.6 % faster" over its
    sizes), as signed percent changes: one claim, not one per end. Passes when
    every point has the paper's sign and each end of the simulated range is
    within its own end's relative-change band: the point nearest zero within
    [0.5, 1.5] x the paper's near end, the farthest within [0.5, 1.5] x its far end."""
    if paper_lo_pct == 0 or paper_hi_pct == 0 or (paper_lo_pct > 0) != (paper_hi_pct > 0):
        raise ValueError("span needs two non-zero ends of the same sign; use relative_change or like")
    near, far = sorted((paper_lo_pct, paper_hi_pct), key=abs)
    vals = list(simulated)
    ok = bool(vals) and all(_finite(v) and (v > 0) == (far > 0) and v != 0 for v in vals)
    if ok:
        lo_end, hi_end = min(vals, key=abs), max(vals, key=abs)
        ok = all(min(0.5 * x, 1.5 * x) <= v <= max(0.5 * x, 1.5 * x) for v, x in ((lo_end, near), (hi_end, far)))
    band = lambda x: f"{_n(min(0.5 * x, 1.5 * x))}% to {_n(max(0.5 * x, 1.5 * x))}%"  # noqa: E731
    return Claim(paper, figure, claim, metric, f"{_n(near)}% to {_n(far)}%", vals,
                 f"same sign; nearest end {band(near)}, farthest end {band(far)}", _verdict(ok), why=_missing(vals))


def ratio(paper: str, figure: str, claim: str, metric: str, paper_ratio: float, simulated_ratio: float) -> Claim:
    """A claim "R× better": passes within [1 + 0.5·(R−1), 1 + 1.5·(R−1)]. A
    claim "as fast as" (R = 1) has an empty band: use `throughput` or `like`."""
    if paper_ratio == 1:
        raise ValueError("ratio needs R != 1: the band [1, 1] is empty; score 'as fast as' with throughput or like")
    lo, hi = sorted((1 + 0.5 * (paper_ratio - 1), 1 + 1.5 * (paper_ratio - 1)))
    return _within(paper, figure, claim, metric, paper_ratio, simulated_ratio, lo, hi, "", unit="x")


def throughput(
    paper: str, figure: str, claim: str, metric: str, paper_value: float, simulated: float, bound: Bound = None,
    others: Mapping[str, Values] | None = None,
) -> Claim:
    """Absolute throughput (and "as fast as"): passes within ±10 % of the paper's
    value; one-sided ("cannot exceed 90 Gbps") past the band's far edge.
    ``others``: the alternatives it must tell apart (see `distinguishes`)."""
    lo, hi = 0.9 * paper_value, 1.1 * paper_value
    if bound is not None:
        return _one_sided(paper, figure, claim, metric, paper_value, simulated, bound, lo if bound == "at least" else hi, "")
    c = _within(paper, figure, claim, metric, paper_value, simulated, lo, hi, "±10%")
    return distinguishes(c, simulated, paper_value, lo, hi, others)


def latency(paper: str, figure: str, claim: str, metric: str, paper_value: float, simulated: float) -> Claim:
    """Absolute latency: passes within a factor of 2 of the paper's value."""
    return _within(paper, figure, claim, metric, paper_value, simulated, paper_value / 2, paper_value * 2, "within 2x")


def share(paper: str, figure: str, claim: str, metric: str, paper_value: float, simulated: float, bound: Bound = None) -> Claim:
    """Hit rate, share or utilisation as a fraction in [0, 1]: passes within ±15
    percentage points; one-sided ("at least 46 %") only the failing side counts.
    Near 0 or 1 the band stops halfway to that trivial value, so "~10 % misses"
    (0.90) is not passed by a hit rate of exactly 1.0 with no miss at all."""
    lo, hi = share_band(paper_value)
    if bound is None:
        return _within(paper, figure, claim, metric, paper_value, simulated, lo, hi, "±15 pp")
    return _one_sided(paper, figure, claim, metric, paper_value, simulated, bound, lo if bound == "at least" else hi, "")


def share_band(paper_value: float) -> tuple[float, float]:
    """±15 percentage points, stopping halfway to 0 or 1 unless the paper's value is itself 0 or 1."""
    lo, hi = paper_value - 0.15, paper_value + 0.15
    if paper_value > 0:
        lo = max(lo, paper_value / 2)
    if paper_value < 1:
        hi = min(hi, (1 + paper_value) / 2)
    return lo, hi


def comparable(paper: str, figure: str, claim: str, metric: str, simulated_ratio: float) -> Claim:
    """A claim "A is comparable to B" with no number: the ratio A / B passes
    within a factor of 2 (the policy's rule for absolute latency, the
    loosest it has)."""
    return _within(paper, figure, claim, metric, 1.0, simulated_ratio, 0.5, 2.0, "within 2x")


def count(paper: str, figure: str, claim: str, metric: str, paper_value: float, simulated: float) -> Claim:
    """A count or rate of events (e.g. PAUSE frames per packet), which the
    policy does not list: passes within a factor of 2, its loosest rule."""
    return _within(paper, figure, claim, metric, paper_value, simulated, paper_value / 2, paper_value * 2, "within 2x")


def monotone(
    paper: str,
    figure: str,
    claim: str,
    metric: str,
    direction: Literal["non-increasing", "non-decreasing"],
    simulated: Sequence[Values],
    slack: float = 0.0,
    floor: float | None = None,
) -> Claim:
    """A trend over a swept grid, each point over at least `SEEDS` seeds.
    Fails when a step goes the wrong way by more than the noise (and more
    than ``slack``, in the metric's unit); passes when, besides, the whole
    grid moves the stated way beyond the noise; else inconclusive. ``floor``:
    the smallest difference that decides, in the metric's unit (default 1 % of
    the value; a metric that is itself a percent change needs PCT_FLOOR)."""
    if direction not in ("non-increasing", "non-decreasing"):
        raise ValueError(f"direction must be 'non-increasing' or 'non-decreasing', not {direction!r}")
    sign = -1 if direction == "non-increasing" else 1
    points = [_sample(claim, v) for v in simulated]
    tolerance = f"each step {direction} beyond noise" + (f" (slack {_n(slack)})" if slack else "")
    means, sds = [p.mean for p in points], [p.sd for p in points]
    if len(points) < 2 or not all(map(_finite, means)):
        return Claim(paper, figure, claim, metric, direction, means, tolerance, "fail", sds, _missing(means) or "one point is no trend")
    wrong = [(a, b) for a, b in pairwise(points) if sign * (b.mean - a.mean) < -slack and _decides(a, b, floor)]
    if wrong:
        return Claim(paper, figure, claim, metric, direction, means, tolerance, "fail", sds, "a step goes the other way beyond noise")
    first, last = points[0], points[-1]
    if sign * (last.mean - first.mean) > 0 and _decides(first, last, floor):
        return Claim(paper, figure, claim, metric, direction, means, tolerance, "pass", sds)
    return Claim(paper, figure, claim, metric, direction, means, tolerance, "inconclusive", sds, _NOISE)


def ordering(
    paper: str, figure: str, claim: str, metric: str, expected: Sequence[str], simulated: Mapping[str, Values],
    floor: float | None = None,
) -> Claim:
    """A claim "A > B > C": ``expected`` names the cases from highest to lowest
    metric, each over at least `SEEDS` seeds. Fails when a neighbour pair is
    out of order beyond the noise; passes when every pair is in order beyond
    it (a tie is never a win); else inconclusive. ``floor`` as in `monotone`."""
    points = {name: _sample(claim, simulated[name]) for name in expected}
    means = {name: p.mean for name, p in points.items()}
    sds = {name: p.sd for name, p in points.items()}
    args = (paper, figure, claim, metric, " > ".join(expected), means, "same order beyond noise")
    if not all(map(_finite, means.values())):
        return Claim(*args, "fail", sds, _missing(list(means.values())))
    pairs = list(pairwise(points[name] for name in expected))
    if any(a.mean < b.mean and _decides(a, b, floor) for a, b in pairs):
        return Claim(*args, "fail", sds, "out of order beyond noise")
    if all(a.mean > b.mean and _decides(a, b, floor) for a, b in pairs):
        return Claim(*args, "pass", sds)
    return Claim(*args, "inconclusive", sds, _NOISE)


def like(
    paper: str,
    figure: str,
    claim: str,
    metric: str,
    paper_value: Any,
    simulated: Values,
    reference: Values,
    reports: Sequence[Mapping[str, Any]] = (),
    others: Mapping[str, Values] | None = None,
) -> Claim:
    """A claim "A performs like B", "no change", "as fast as": the mean of A
    within ±10 % of B's simulated mean (the absolute-throughput rule).
    ``paper_value`` is what the paper says (its number or its words), never a
    simulated value. ``others`` are the alternatives the claim tells B from
    (the worse ring, the gain that should vanish): when every one of them is
    inside the band too, nothing is told apart and the claim is inconclusive;
    when A is nearer one of them than B, it fails. Inconclusive as well when
    every configuration in ``reports`` sits at the same external cap (see
    `external_cap`): then nothing the claim varies could have shown."""
    a, b = _sample(claim, simulated, need=1).mean, _sample(claim, reference, need=1).mean
    lo, hi = (0.9 * b, 1.1 * b) if _finite(b) else (math.nan, math.nan)
    c = _within(paper, figure, claim, metric, paper_value, a, lo, hi, f"±10% of the reference's {_n(b)}" if _finite(b) else "±10%")
    c = distinguishes(c, a, b, lo, hi, others)
    caps = {external_cap(r) for r in reports}
    if c.passed and len(caps) == 1 and None not in caps:
        return c.undecided(f"every configuration at the same cap: {caps.pop()}")
    return c


def distinguishes(c: Claim, a: float, target: float, lo: float, hi: float, others: Mapping[str, Values] | None) -> Claim:
    """A passing band claim against the alternatives it must tell apart from
    the paper's ``target``: inconclusive when every alternative is inside the
    band [lo, hi] too; failed when the simulated ``a`` is nearer one of them."""
    if not c.passed or not others:
        return c
    alt = {name: _sample(c.claim, v, need=1).mean for name, v in others.items()}
    if all(_finite(v) and lo <= v <= hi for v in alt.values()):
        return c.undecided("cannot discriminate: " + ", ".join(f"{k} ({_n(v)})" for k, v in alt.items()) + " would pass too")
    nearer = [k for k, v in alt.items() if _finite(v) and abs(a - v) < abs(a - target)]
    if nearer:
        return c.failed(f"{_n(a)} is nearer {nearer[0]} ({_n(alt[nearer[0]])}) than the paper's case ({_n(target)})")
    return c


def all_of(paper: str, figure: str, claim: str, metric: str, parts: Sequence[Claim]) -> Claim:
    """One claim the paper states once over several points ("at every share below
    15 %"): fails if a part fails, passes if every part passes, else inconclusive."""
    verdicts = {c.verdict for c in parts}
    verdict: Verdict = "fail" if "fail" in verdicts or not parts else "pass" if verdicts == {"pass"} else "inconclusive"
    why = "; ".join(f"{c.paper_value}: {c.why}" for c in parts if c.why)
    tolerances = list(dict.fromkeys(c.tolerance for c in parts))
    return Claim(paper, figure, claim, metric, [c.paper_value for c in parts], [c.simulated for c in parts],
                 "every part: " + "; ".join(tolerances), verdict, [c.spread for c in parts], why)


def crossover(
    paper: str, figure: str, claim: str, metric: str, grid: Sequence[float], paper_value: float, simulated: float | None
) -> Claim:
    """A knee or crossover at a point of a swept grid (e.g. the offered load
    where the hit rate starts to fall). Both values snap to the nearest grid
    point; passes when they are at most one grid step apart. ``simulated`` is
    None when the simulation shows no crossover within the grid: that fails
    (a missing effect is not a knee at the grid's end)."""
    points = list(grid)

    def step(x: float) -> int:
        return min(range(len(points)), key=lambda i: abs(points[i] - x))

    ok = simulated is not None and _finite(simulated) and abs(step(simulated) - step(paper_value)) <= 1
    return Claim(paper, figure, claim, metric, paper_value, simulated, "within one grid step", _verdict(ok),
                 why="" if simulated is not None else "no crossover on the grid")


def cores_needed(
    paper: str, figure: str, claim: str, metric: str, paper_cores: int | None, simulated_cores: int | None
) -> Claim:
    """A claim "A needs N cores for line rate": passes within ±2 cores. None means
    "never" (not within the swept core counts); it passes only against None."""
    if paper_cores is None or simulated_cores is None:
        ok = paper_cores is None and simulated_cores is None
    else:
        ok = abs(simulated_cores - paper_cores) <= 2
    return Claim(paper, figure, claim, metric, paper_cores, simulated_cores, "±2 cores", _verdict(ok))


def in_stages(
    c: Claim, base: Sequence[Mapping[str, Any]], changed: Sequence[Mapping[str, Any]], stages: Sequence[str], mechanism: str
) -> Claim:
    """A latency claim whose paper names its mechanism: the change of the mean
    latency from the ``base`` runs to the ``changed`` ones (their
    ``latency_breakdown_ns``, averaged over the runs given) must lie at least
    half in the ``stages`` that mechanism acts on. A pass whose change lies
    elsewhere (a source queue held by PAUSE, say) fails, saying where it lies;
    a claim that does not pass gets the same sentence as its reason."""
    before, after = _breakdown(base), _breakdown(changed)
    if before is None or after is None:
        return c if not c.passed else c.failed("no latency breakdown to check the mechanism against")
    delta = {k: after[k] - before[k] for k in before if k != "total" and k in after}
    total = sum(delta.values())
    if total == 0:
        return c
    inside = sum(delta.get(k, 0.0) for k in stages) / total or 0.0  # never "-0%"
    largest = max(delta, key=lambda k: delta[k] / total)
    where = (f"{inside:.0%} of the mean latency change ({total:+.4g} ns) is in {', '.join(stages)} ({mechanism}); "
             f"the largest part is in {largest} ({delta[largest]:+.4g} ns)")
    if inside >= 0.5:
        return c if c.passed or c.why else replace(c, why=where)
    return c.failed("for another reason: " + where) if c.passed else replace(c, why=c.why or where)


def bound_by(c: Claim, reports: Mapping[str, Mapping[str, Any]], expected: Iterable[str], mechanism: str) -> Claim:
    """A throughput claim whose paper names what bounds it: a pass whose runs
    are bounded by something else (their ``bottleneck``) fails, naming it."""
    want = set(expected)
    other = {name: (r.get("bottleneck") or {}).get("resource") for name, r in reports.items()}
    other = {name: res for name, res in other.items() if res not in want}
    if not other:
        return c
    where = "; ".join(f"{name} is bounded by {res}" for name, res in other.items()) + f", not by {' or '.join(sorted(want))} ({mechanism})"
    return c.failed("for another reason: " + where) if c.passed else replace(c, why=c.why or where)


def _breakdown(reports: Sequence[Mapping[str, Any]]) -> dict[str, float] | None:
    parts = [r.get("latency_breakdown_ns") for r in reports]
    if not parts or not all(parts):
        return None
    return {k: statistics.fmean(p[k] for p in parts) for k in parts[0]}


def external_cap(report: Mapping[str, Any], busy: float = 0.95) -> str | None:
    """The cap outside the mechanism a packet run sits at, or None: a PCIe
    direction at least ``busy`` utilised; every drop in the NIC's Rx buffer,
    before the rings (the I/O path in front of the rings is the bottleneck,
    so nothing behind it can show); or the whole offered load forwarded (the
    source's rate is the cap)."""
    util = report.get("pcie_util") or {}
    for direction in ("upstream", "downstream"):
        if (util.get(direction) or 0) >= busy:
            return f"PCIe {direction}"
    drops = report.get("drops") or {}
    if drops.get("rx_buffer") and not drops.get("no_descriptor") and not drops.get("software"):
        return "the NIC's Rx buffer (every drop before the rings)"
    if report.get("offered_gbps") and report.get("drop_rate") == 0:
        return "the offered load"
    return None


# -- helpers ---------------------------------------------------------------------

_NOISE = "differences within run-to-run noise (< 2 sd of the seeds or < 1 %)"


@dataclass(frozen=True)
class _Sample:
    mean: float | None
    sd: float


def _sample(claim: str, value: Values, need: int = SEEDS) -> _Sample:
    """Mean and standard deviation of one point's seeds; a non-finite seed makes it missing."""
    values = [value] if value is None or isinstance(value, numbers.Real) else list(value)
    if len(values) < need:
        raise ValueError(f"claim '{claim}': a point needs at least {need} seeds (Runs.sample or Runs.per_seed), got {len(values)}")
    if not all(map(_finite, values)):
        return _Sample(None, math.nan)
    return _Sample(statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0)


def _decides(a: _Sample, b: _Sample, floor: float | None = None) -> bool:
    """The difference of two points is beyond run-to-run noise: at least 2
    standard deviations of their seeds and at least ``floor`` (default 1 % of
    the value)."""
    d = abs(a.mean - b.mean)
    least = 0.01 * max(abs(a.mean), abs(b.mean)) if floor is None else floor
    return d > 0 and d >= 2 * max(a.sd, b.sd) and d >= least


def _verdict(ok: bool) -> Verdict:
    return "pass" if ok else "fail"


def _missing(values: Sequence[Any]) -> str:
    return "no samples: a point's metric is absent" if not all(map(_finite, values)) else ""


def _within(
    paper: str, figure: str, claim: str, metric: str, paper_value: Any, simulated: Any, lo: float, hi: float, rule: str, unit: str = ""
) -> Claim:
    ok = _finite(simulated) and lo <= simulated <= hi
    tolerance = f"{rule} {_n(lo)}{unit} to {_n(hi)}{unit}".strip() if unit else f"{rule} ({_n(lo)} to {_n(hi)})"
    return Claim(paper, figure, claim, metric, paper_value, simulated, tolerance, _verdict(ok), why=_missing([simulated]))


def _one_sided(
    paper: str, figure: str, claim: str, metric: str, paper_value: float, simulated: float, bound: str, edge: float, unit: str
) -> Claim:
    if bound not in ("at least", "at most"):
        raise ValueError(f"bound must be 'at least' or 'at most', not {bound!r}")
    ok = _finite(simulated) and (simulated >= edge if bound == "at least" else simulated <= edge)
    tolerance = f"one-sided: {'>=' if bound == 'at least' else '<='} {_n(edge)}{unit}"
    return Claim(paper, figure, claim, metric, f"{bound} {_n(paper_value)}{unit}", simulated, tolerance, _verdict(ok),
                 why=_missing([simulated]))


def _finite(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def _n(x: float) -> str:
    return f"{x:.3g}"
