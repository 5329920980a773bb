"""Running a paper's scenarios (through the sweep machinery) and judging its claims.

A paper module ``packetpath.reproduce.<paper>`` defines

    PAPER: str
    scenarios() -> dict[str, dict]          # run name -> scenario dict (may name a profile)
    SEEDED: tuple[str, ...]                 # optional: runs (names or prefixes) rerun over SEEDS seeds
    claims(results: Runs) -> list[Claim]    # run name -> report, and the seeds of SEEDED runs
    figures(results) -> list[dict]          # optional: the figures as data (or plots(results, out_dir))
    why(claim) -> str                       # optional: why a claim that does not pass fails, in terms of the model
    UNSOURCED: dict[str, dict]              # optional: what no source fixes, as corners: label -> overrides
    UNSOURCED_WHY: str                      # with UNSOURCED: what those values are and why no source gives them

A run in ``SEEDED`` runs at its own seed and at the SEEDS - 1 following ones,
so its ordering, trend and "no change" claims can tell an effect from noise.
After the module judges its claims (appended to ``Runs.collect()``, which
notes the runs each one read), the rules that span claims apply:

- every claim on a figure that a profile value was calibrated against becomes
  an ``anchor`` (see `packetpath.profiles`), and so does every claim that
  reads only runs of the same configuration as an anchored claim's runs, on
  the same quantity (`quantity`): a fitted point scored again under another
  figure is still the fit (another quantity of those runs is scored);
- one result is scored once: two scored claims with the same metric and the
  same simulated value from runs of the same configurations are a paper
  module's mistake (ValueError);
- a throughput claim carries what bounds each of its runs (``bounds``);
- with ``UNSOURCED``, every run runs again at each corner of what no source
  fixes (its overrides on top of ``set``), and a claim that passes at some
  corners and not at others is not scored: the unsourced values, not the
  model, decide it (an ``anchor`` naming the corners each way);
- a claim that does not pass and gives no reason takes the module's ``why``
  (the mechanism missing, the assumption, the source that disagrees); the
  docs show "(no reason given)" for any left without one, and a test fails.

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
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

from packetpath import profiles
from packetpath.errors import ConfigError
from packetpath.reproduce._claims import SEEDS, Claim
from packetpath.reproduce._report import write_report
from packetpath.reproduce._runs import Runs
from packetpath.store import writable_folder
from packetpath.scenario import Overrides, parse_overrides
from packetpath.sweep import RunFn, Task, execute, make_task


def papers() -> list[str]:
    """Names of the paper modules shipped in ``packetpath.reproduce``."""
    import packetpath.reproduce as package

    # A module `nicmem_nfv` is the paper name `nicmem-nfv`.
    return sorted(m.name.replace("_", "-") for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))


def load_paper(paper: str) -> ModuleType:
    """Import ``packetpath.reproduce.<paper>``; an unknown paper is a ConfigError listing the known ones."""
    # a paper is a word (ddio, nicmem-nfv): never a path, a dotted name or a private module
    if not isinstance(paper, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", paper):
        raise ConfigError(f"unknown paper {paper!r}; papers are {', '.join(papers()) or '(none)'}")
    name = f"packetpath.reproduce.{paper.replace('-', '_')}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
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
    set: Overrides = None,
) -> list[Claim]:
    """Run every scenario of a paper, judge its claims, and (with ``out``)
    write a report folder: claims.json, runs.json, claims.md and the plots.

    The runs go through the sweep machinery (`packetpath.sweep.execute`):
    ``jobs`` worker processes (default: every core) or a Dask ``scheduler``;
    with ``store`` every run is appended to that results store and runs
    already stored are not run again. ``set`` overrides parameters of
    every run (a what-if of the whole reproduction: the claims are judged
    on those runs). ``run`` replaces `packetpath.run`
    (tests inject a fake; with ``jobs > 1`` it must be a module-level
    function so it can be sent to the workers)."""
    module = load_paper(paper)
    if out is not None:  # before any run: a bad folder must not throw finished runs away
        writable_folder(out, f"--out {out}", "--out")
    seeded = tuple(getattr(module, "SEEDED", ()))
    corners = getattr(module, "UNSOURCED", {})
    tasks: list[Task] = []
    # (the runs as the profiles give them, then at each unsourced corner, named `corner/run`)
    runs: dict[str, dict[str, list[Task]]] = {}
    for prefix, extra in [("", {})] + [(f"unsourced{k}/", o) for k, o in enumerate(corners.values(), 1)]:
        at = {**parse_overrides(set), **extra} if extra else set
        mine = runs.setdefault(prefix, {})
        for name, scenario in module.scenarios().items():
            try:
                mine[name] = _tasks(prefix + name, scenario, replicate=name.startswith(seeded), set=at)
            except ConfigError as e:
                raise ConfigError(f"{paper}/{prefix}{name}: {e}") from None
            tasks += mine[name]
    rows = execute(tasks, store=store, jobs=jobs, scheduler=scheduler, run=run, progress=progress, title=paper)
    reports = {t.name: json.loads(row["report"]) for t, row in zip(tasks, rows, strict=True)}
    judged = {prefix: module.claims(Runs({name: [reports[t.name] for t in ts] for name, ts in mine.items()}))
              for prefix, mine in runs.items()}
    results = Runs({name: [reports[t.name] for t in ts] for name, ts in runs[""].items()})
    ids = {name: ts[0].run_id for name, ts in runs[""].items()}
    claims = judged.pop("")
    try:
        claims = unsourced(claims, dict(zip(corners, judged.values())), getattr(module, "UNSOURCED_WHY", ""))
    except ValueError:
        if out is not None:  # a module's mistake loses no run
            write_report(Path(out), module, claims, {t.name: t.values for t in tasks}, reports)
        raise
    claims = explained(bounded(anchored(claims, profiles.anchors(), ids), results), module)
    if out is not None:
        write_report(Path(out), module, claims, {t.name: t.values for t in tasks}, reports)
    scored_once(claims, ids)  # after the report is written: a module's mistake loses no run
    return claims


def _tasks(name: str, scenario: dict, replicate: bool, set: Overrides = None) -> list[Task]:
    """A run at its own seed, and (replicated) at the SEEDS - 1 seeds after it, named ``name#seedN``."""
    first = make_task(name, scenario, set=set)
    if not replicate:
        return [first]
    seed = int(first.config.get("sim.seed", 1))
    return [first] + [make_task(f"{name}#seed{seed + k}", scenario, set=set, seed=seed + k) for k in range(1, SEEDS)]


def unsourced(claims: list[Claim], corners: Mapping[str, list[Claim]], what: str) -> list[Claim]:
    """Each claim that passes with the profile's values or at some of the
    ``corners`` (label -> the claims judged on its runs) and not at others,
    shown as an anchor: what no source fixes decides it. The rest keep their
    verdicts."""
    for label, judged in corners.items():
        if [(o.figure, o.claim) for o in judged] != [(c.figure, c.claim) for c in claims]:
            raise ValueError(f"{claims[0].paper if claims else '?'}: the claims judged at '{label}' are not the claims judged with the "
                             "profile's values, in the same order: a paper module states the same claims at every corner")
    out = []
    for i, c in enumerate(claims):
        at = {label: judged[i] for label, judged in corners.items()}
        if c.verdict == "anchor" or not at:
            out.append(c)
            continue
        at = {"the profile's values": c} | at
        passes = [label for label, o in at.items() if o.passed]
        if passes and len(passes) < len(at):
            fails = [f"{label} ({o.verdict})" for label, o in at.items() if not o.passed]
            c = c.as_anchor(f"not scored: {what} decide it; it passes with {'; '.join(passes)}, not with {'; '.join(fails)}")
        out.append(c)
    return out


def anchored(claims: list[Claim], anchors: list[profiles.Anchor], ids: Mapping[str, str] | None = None) -> list[Claim]:
    """Every claim on a figure some profile value was calibrated against, shown
    as ``anchor``; with ``ids`` (run name -> configuration id), also every claim
    whose runs all have the configuration of an anchored claim's run and whose
    metric names the same quantity."""
    out: list[Claim] = []
    fitted: dict[tuple[str, str], tuple[str, str]] = {}  # (run id, quantity) -> (run, figure)
    for c in claims:
        mine = [a for a in anchors if a.touches(c.paper, c.figure)]
        if mine and c.verdict != "anchor":
            alone = f" (judged alone: {c.verdict}{', ' + c.why if c.why else ''})"
            c = c.as_anchor(_declared(mine) + alone)
        if mine and ids:
            fitted.update({(ids[n], quantity(c.metric)): (n, c.figure) for n in c.runs if n in ids})
        out.append(c)
    if not fitted:
        return out
    for i, c in enumerate(out):
        keys = [(ids.get(n), quantity(c.metric)) for n in c.runs]
        if c.verdict != "anchor" and c.runs and all(k in fitted for k in keys):
            same = [f"{n} = {fitted[k][0]} ({fitted[k][1]})" for n, k in zip(c.runs, keys)]
            out[i] = c.as_anchor("reads only anchored points, so it repeats the fit: " + "; ".join(same[:4]) + (" ..." if len(same) > 4 else "")
                                 + f" (judged alone: {c.verdict})")
    return out


def quantity(metric: str) -> str:
    """The report quantity a claim's metric text names first, a report key
    (``"throughput_gbps: cores at line rate"`` -> ``throughput_gbps``), or the
    whole text when it names none: what an anchored point was fitted on."""
    m = re.search(r"[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9\[\]]+)+", metric)
    return m.group(0) if m else metric


def _declared(anchors: list[profiles.Anchor]) -> str:
    """"app.nat_cycles, app.lb_cycles calibrated against nicmem-nfv Fig 8 (profiles a, b)": each declaration once."""
    by: dict[tuple, tuple[dict[str, None], set[str]]] = {}
    for a in anchors:
        keys, names = by.setdefault((a.paper, a.figures), ({}, set()))
        keys[a.key] = None
        names.add(a.profile)
    return "; ".join(f"{', '.join(keys)} calibrated against {paper} {', '.join(figs)} (profile{'s' * (len(names) > 1)} {', '.join(sorted(names))})"
                     for (paper, figs), (keys, names) in by.items())


def explained(claims: list[Claim], module: ModuleType) -> list[Claim]:
    """Each failing or inconclusive claim without a reason gets the module's ``why`` for it."""
    why = getattr(module, "why", None)
    if why is None:
        return claims
    return [replace(c, why=why(c)) if c.verdict in ("fail", "inconclusive") and not c.why else c for c in claims]


def scored_once(claims: list[Claim], ids: Mapping[str, str]) -> list[Claim]:
    """The claims, unchanged; a ValueError if one result is scored twice: the same
    metric and simulated value from runs of the same configurations."""
    seen: dict[tuple, Claim] = {}
    for c in claims:
        if c.verdict == "anchor" or not c.runs:
            continue
        key = (c.metric, json.dumps(c.simulated, sort_keys=True, default=str), frozenset(ids.get(n, n) for n in c.runs))
        if key in seen:
            raise ValueError(f"{c.paper}: '{c.figure}: {c.claim}' scores the same result as '{seen[key].figure}: {seen[key].claim}'; "
                             "a result is scored once, as the paper states it")
        seen[key] = c
    return claims


_THROUGHPUT = re.compile(r"throughput|gbps|_pps|no-drop", re.IGNORECASE)


def bounded(claims: list[Claim], runs: Mapping[str, dict]) -> list[Claim]:
    """Each throughput claim with what bounds its runs: run -> the report's
    bottleneck, or (over more than six runs) bottleneck -> how many runs."""
    out = []
    for c in claims:
        found = {n: (runs[n].get("bottleneck") or {}).get("resource") for n in c.runs if n in runs}
        found = {n: b for n, b in found.items() if b}
        if found and _THROUGHPUT.search(c.metric) and c.bounds is None:
            c = replace(c, bounds=found if len(found) <= 6 else dict(Counter(found.values()).most_common()))
        out.append(c)
    return out
