"""The reports of a paper's runs, by run name, with the seeds of the replicated ones.

A paper module lists in ``SEEDED`` the runs (names or name prefixes) that its
ordering, trend and "no change" claims read; the runner reruns each of those
over `SEEDS` seeds. ``r[name]`` is a run's report at its own seed, as for any
other run; `Runs.sample` gives one value per seed of a metric, and
`Runs.per_seed` one value per seed of anything computed from many runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from packetpath import metrics
from packetpath.reproduce._claims import SEEDS

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

    def __getitem__(self, name: str) -> dict:
        return self._reports[name][0]

    def __iter__(self) -> Iterator[str]:
        return iter(self._reports)

    def __len__(self) -> int:
        return len(self._reports)

    def seeds(self, name: str) -> list[dict]:
        """Every report of a run, one per seed; a run not in the paper's SEEDED is a ValueError."""
        reports = self._reports[name]
        if len(reports) < SEEDS:
            raise ValueError(f"run '{name}' has {len(reports)} seed(s), a noise-judged claim needs {SEEDS}: add it to the paper's SEEDED")
        return reports

    def sample(self, name: str, key: Metric) -> list[float]:
        """One value of a metric per seed of a replicated run."""
        return [metric(r, key) for r in self.seeds(name)]

    def per_seed(self, fn: Callable[[Mapping[str, dict]], float]) -> list[float]:
        """``fn`` evaluated once per seed, each time on every replicated run at that seed."""
        return [fn(_SeedView(self, i)) for i in range(SEEDS)]


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
