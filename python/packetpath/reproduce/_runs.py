"""The reports of a paper's runs, by run name, with the seeds of the replicated ones.

A paper module lists in ``SEEDED`` the runs (names or name prefixes) that its
ordering, trend and "no change" claims read; the runner reruns each of those
over `SEEDS` seeds. ``r[name]`` is a run's report at its own seed, as for any
other run; `Runs.sample` gives one value per seed of a metric, and
`Runs.per_seed` one value per seed of anything computed from many runs.

Every run a paper module reads is noted: `Runs.collect` gives the list its
claims are appended to, and stamps each claim with the runs read since the
claim before it (or, when it read none of its own, the same runs as that
claim: several claims on one computed figure). The runner's rules that span
claims (a claim on anchored runs only, a result scored twice, what bounds a
throughput) are built on those stamps. So a module reads a claim's reports
where it builds that claim: a report read before the claim ahead of it was
appended is stamped on that one, and claims built together in one list
(``out += [...]``) all carry the runs the list read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from packetpath import metrics
from packetpath.reproduce._claims import SEEDS, Claim

Metric = str | Callable[[Mapping[str, Any]], float]
"""A dotted path into a report (``latency_ns.p99``, ``per_nic.0.latency_ns.p99``) or a function of it."""


def metric(report: Mapping[str, Any], key: Metric) -> float:
    """A report's metric; an absent one (no samples) is NaN, which fails any claim."""
    x = key(report) if callable(key) else metrics.value(dict(report), key)
    return math.nan if x is None else x


class Runs(Mapping[str, dict]):
    """Run name -> report (the run's own seed); replicated runs also keep their other seeds."""

    def __init__(self, reports: Mapping[str, Sequence[dict]]):
        self._reports = {name: list(reps) for name, reps in reports.items()}
        self._read: dict[str, None] = {}

    def __getitem__(self, name: str) -> dict:
        reports = self._reports[name]
        self._read[name] = None
        return reports[0]

    def __iter__(self) -> Iterator[str]:
        return iter(self._reports)

    def __len__(self) -> int:
        return len(self._reports)

    def seeds(self, name: str) -> list[dict]:
        """Every report of a run, one per seed; a run not in the paper's SEEDED is a ValueError."""
        reports = self._reports[name]
        self._read[name] = None
        if len(reports) < SEEDS:
            raise ValueError(f"run '{name}' has {len(reports)} seed(s), a noise-judged claim needs {SEEDS}: add it to the paper's SEEDED")
        return reports

    def sample(self, name: str, key: Metric) -> list[float]:
        """One value of a metric per seed of a replicated run."""
        return [metric(r, key) for r in self.seeds(name)]

    def per_seed(self, fn: Callable[[Mapping[str, dict]], float]) -> list[float]:
        """``fn`` evaluated once per seed, each time on every replicated run at that seed."""
        return [fn(_SeedView(self, i)) for i in range(SEEDS)]

    def collect(self) -> Claims:
        """The list a paper module appends its claims to: each is stamped with the runs it read."""
        self._read.clear()
        return Claims(self)

    def _take(self) -> tuple[str, ...]:
        read = tuple(self._read)
        self._read.clear()
        return read


class Claims(list):
    """A paper's claims, each stamped with the runs read since the claim before it."""

    def __init__(self, runs: Runs):
        super().__init__()
        self._runs, self._last = runs, ()

    def append(self, claim: Claim) -> None:
        read = self._runs._take()
        self._last = read or self._last
        super().append(claim if claim.runs else replace(claim, runs=self._last))

    def extend(self, claims: Iterable[Claim]) -> None:
        for c in claims:
            self.append(c)

    def __iadd__(self, claims: Iterable[Claim]) -> Claims:  # type: ignore[override]
        self.extend(claims)
        return self


class _SeedView(Mapping[str, dict]):
    """The replicated runs at their i-th seed."""

    def __init__(self, runs: Runs, i: int):
        self._runs, self._i = runs, i

    def __getitem__(self, name: str) -> dict:
        return self._runs.seeds(name)[self._i]

    def __iter__(self) -> Iterator[str]:
        return iter(self._runs)

    def __len__(self) -> int:
        return len(self._runs)
