"""Running a paper's scenarios (through the sweep machinery) and judging its claims.

A paper module ``packetpath.reproduce.<paper>`` defines

    PAPER: str
    scenarios() -> dict[str, dict]          # run name -> scenario dict (may name a profile)
    SEEDED: tuple[str, ...]                 # optional: runs (names or prefixes) rerun over SEEDS seeds
    claims(results: Runs) -> list[Claim]    # run name -> report, and the seeds of SEEDED runs
    figures(results) -> list[dict]          # optional: the figures as data (or plots(results, out_dir))

A run in ``SEEDED`` runs at its own seed and at the SEEDS - 1 following ones,
so its ordering, trend and "no change" claims can tell an effect from noise.
After the module judges its claims, every claim on a figure that a profile
value was calibrated against becomes an ``anchor`` (see `packetpath.profiles`).

Every run is one whole simulation; the runs go through `packetpath.sweep.execute`,
the one way to run many simulations (process pool or Dask, optional results
store that skips runs already done). Each scenario is resolved and validated
here first, so a mistake in a paper module fails at once, naming the run.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
from pathlib import Path
from types import ModuleType
from typing import Any

from packetpath import profiles
from packetpath.errors import ConfigError
from packetpath.reproduce._claims import SEEDS, Claim
from packetpath.reproduce._report import write_report
from packetpath.reproduce._runs import Runs
from packetpath.sweep import RunFn, Task, execute, make_task


def papers() -> list[str]:
    """Names of the paper modules shipped in ``packetpath.reproduce``."""
    import packetpath.reproduce as package

    # A module `nicmem_nfv` is the paper name `nicmem-nfv`.
    return sorted(m.name.replace("_", "-") for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))


def load_paper(paper: str) -> ModuleType:
    """Import ``packetpath.reproduce.<paper>``; an unknown paper is a ConfigError listing the known ones."""
    name = f"packetpath.reproduce.{paper.replace('-', '_')}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name or paper.startswith("_"):
            raise
        raise ConfigError(f"unknown paper '{paper}'; papers are {', '.join(papers()) or '(none)'}") from None


def reproduce(
    paper: str,
    jobs: int | None = None,
    out: str | os.PathLike | None = None,
    run: RunFn | None = None,
    progress: bool = True,
    store: str | os.PathLike | None = None,
    scheduler: Any = None,
) -> list[Claim]:
    """Run every scenario of a paper, judge its claims, and (with ``out``)
    write a report folder: claims.json, runs.json, claims.md and the plots.

    The runs go through the sweep machinery (`packetpath.sweep.execute`):
    ``jobs`` worker processes (default: every core) or a Dask ``scheduler``;
    with ``store`` every run is appended to that results store and runs
    already stored are not run again. ``run`` replaces `packetpath.run`
    (tests inject a fake; with ``jobs > 1`` it must be a module-level
    function so it can be sent to the workers)."""
    module = load_paper(paper)
    seeded = tuple(getattr(module, "SEEDED", ()))
    tasks: list[Task] = []
    runs: dict[str, list[Task]] = {}
    for name, scenario in module.scenarios().items():
        try:
            runs[name] = _tasks(name, scenario, replicate=name.startswith(seeded))
        except ConfigError as e:
            raise ConfigError(f"{paper}/{name}: {e}") from None
        tasks += runs[name]
    rows = execute(tasks, store=store, jobs=jobs, scheduler=scheduler, run=run, progress=progress, title=paper)
    reports = {t.name: json.loads(row["report"]) for t, row in zip(tasks, rows, strict=True)}
    results = Runs({name: [reports[t.name] for t in ts] for name, ts in runs.items()})
    claims = anchored(module.claims(results), profiles.anchors())
    if out is not None:
        write_report(Path(out), module, claims, {t.name: t.values for t in tasks}, reports)
    return claims


def _tasks(name: str, scenario: dict, replicate: bool) -> list[Task]:
    """A run at its own seed, and (replicated) at the SEEDS - 1 seeds after it, named ``name#seedN``."""
    first = make_task(name, scenario)
    if not replicate:
        return [first]
    seed = int(first.config.get("sim.seed", 1))
    return [first] + [make_task(f"{name}#seed{seed + k}", scenario, seed=seed + k) for k in range(1, SEEDS)]


def anchored(claims: list[Claim], anchors: list[profiles.Anchor]) -> list[Claim]:
    """Every claim on a figure some profile value was calibrated against, shown as ``anchor``."""
    out = []
    for c in claims:
        mine = [a for a in anchors if a.touches(c.paper, c.figure)]
        if mine and c.verdict != "anchor":
            c = c.as_anchor("; ".join(f"profile {a.profile}: {a.key} calibrated against {a.paper} {', '.join(a.figures)}" for a in mine))
        out.append(c)
    return out
