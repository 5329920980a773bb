"""Running a paper's scenarios on the local cores and judging its claims.

A paper module ``packetpath.reproduce.<paper>`` defines

    PAPER: str
    scenarios() -> dict[str, dict]          # run name -> scenario dict (may name a profile)
    claims(results: dict[str, dict]) -> list[Claim]   # run name -> report
    plots(results, out_dir) -> None         # optional: one PNG per figure

Every run is one whole simulation, so runs go to a process pool. Each
scenario is resolved and validated here first, so a mistake in a paper module
fails at once, naming the run.
"""

from __future__ import annotations

import functools
import importlib
import os
import pkgutil
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from types import ModuleType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from packetpath import api
from packetpath.errors import ConfigError, EngineError
from packetpath.reproduce._claims import Claim
from packetpath.reproduce._report import write_report
from packetpath.scenario import load_scenario

RunFn = Callable[[dict[str, Any]], dict[str, Any]]
"""Takes a resolved scenario (flat dotted keys), returns its report."""


def papers() -> list[str]:
    """Names of the paper modules shipped in ``packetpath.reproduce``."""
    import packetpath.reproduce as package

    return sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))


def load_paper(paper: str) -> ModuleType:
    """Import ``packetpath.reproduce.<paper>``; an unknown paper is a ConfigError listing the known ones."""
    name = f"packetpath.reproduce.{paper}"
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
) -> list[Claim]:
    """Run every scenario of a paper, judge its claims, and (with ``out``)
    write a report folder: claims.json, runs.json, claims.md and the plots.

    ``jobs`` worker processes (default: every core); ``run`` replaces
    `packetpath.run` (tests inject a fake; with ``jobs > 1`` it must be a
    module-level function so it can be sent to the workers)."""
    module = load_paper(paper)
    scenarios = {}
    for name, scenario in module.scenarios().items():
        try:
            scenarios[name] = load_scenario(scenario)
        except ConfigError as e:
            raise ConfigError(f"{paper}/{name}: {e}") from None
    results = dict(_run_all(paper, scenarios, jobs or os.cpu_count() or 1, run or api.run, progress))
    results = {name: results[name] for name in scenarios}  # scenario order, not completion order
    claims = module.claims(results)
    if out is not None:
        write_report(Path(out), module, claims, scenarios, results)
    return claims


def _run_all(
    paper: str, scenarios: dict[str, dict[str, Any]], jobs: int, run: RunFn, progress: bool
) -> Iterator[tuple[str, dict[str, Any]]]:
    columns = (TextColumn(paper), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    console = Console(stderr=True)
    with Progress(*columns, console=console, transient=True, disable=not (progress and console.is_terminal)) as bar:
        task = bar.add_task(paper, total=len(scenarios))
        for name, outcome in _completed(scenarios, jobs, run):
            try:
                report = outcome()
            except (ConfigError, EngineError) as e:
                raise type(e)(f"{paper}/{name}: {e}") from None
            bar.advance(task)
            yield name, report


def _completed(
    scenarios: dict[str, dict[str, Any]], jobs: int, run: RunFn
) -> Iterator[tuple[str, Callable[[], dict[str, Any]]]]:
    """(name, get its report) as runs finish: in this process when jobs == 1, else in a pool."""
    if jobs == 1:
        for name, scenario in scenarios.items():
            yield name, functools.partial(run, scenario)
        return
    with ProcessPoolExecutor(max_workers=min(jobs, len(scenarios)) or 1) as pool:
        futures = {pool.submit(run, scenario): name for name, scenario in scenarios.items()}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result
        finally:
            for future in futures:
                future.cancel()
