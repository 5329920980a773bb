"""Tuning: search a scenario's parameters for a goal instead of sweeping a grid.

A goal is objectives in priority order -- minimise or maximise a searched
parameter or a report metric -- and constraints on report metrics
(``drop_rate<0.001``). Optuna's TPE sampler (multi-objective, constraint-aware)
proposes points in batches; a batch runs through `sweep.execute`, so on the
local pool or the same Dask cluster as sweeps, every trial stored in the
results store, and a point already simulated is read back, not rerun. The
study lives in a database (Optuna's RDB storage, SQLite by default), so a
tune stopped half-way, or run again with more trials, carries on.

The best point is the feasible trial that comes first in objective order
(lexicographic: the first objective decides, the next breaks ties); the
frontier is the feasible trials no other feasible trial dominates.

    packetpath.tune("nat", space={"cpu.cores": (1, 16), "llc.ddio_ways": (1, 8)},
                    minimize=["cpu.cores", "llc.ddio_ways"], constraints=["drop_rate<0.001"])
"""

from __future__ import annotations

import json
import math
import operator
import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packetpath import metrics, schema
from packetpath.errors import ConfigError
from packetpath.scenario import Overrides, ScenarioLike, parse_overrides
from packetpath.store import Store
from packetpath.sweep import RunFn, execute, grid_points, grid_values, make_task, point_name, reports

_OPS = {"<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt}
_CONSTRAINT = re.compile(r"^\s*([\w.]+)\s*(<=|>=|<|>)\s*(\S+)\s*$")


@dataclass(frozen=True)
class Constraint:
    """``metric op bound``: a trial is feasible when every constraint holds."""

    metric: str
    op: str
    bound: float

    @classmethod
    def parse(cls, text: str) -> Constraint:
        m = _CONSTRAINT.match(text)
        if m is None:
            raise ConfigError(f"--constraint '{text}': expected METRIC<VALUE (or <=, >, >=), e.g. drop_rate<0.001")
        try:
            bound = float(m[3])
        except ValueError:
            raise ConfigError(f"--constraint '{text}': bound '{m[3]}' is not a number") from None
        if not math.isfinite(bound):
            raise ConfigError(f"--constraint '{text}': bound '{m[3]}' must be a finite number")
        _check_metric(m[1], "--constraint")
        return cls(m[1], m[2], bound)

    def violation(self, report: dict[str, Any]) -> float:
        """How far the report misses the bound (<= 0: met), as Optuna's constraints want it."""
        v = _number(report, self.metric)
        if _OPS[self.op](v, self.bound):
            return 0.0
        return min(max(abs(v - self.bound), 1e-12), 1e300)  # (a missing metric counts as infinitely far)

    def __str__(self) -> str:
        return f"{self.metric}{self.op}{self.bound:g}"


def _check_metric(path: str, flag: str) -> None:
    known = {m.path for m in metrics.METRICS}
    if path not in known:
        raise ConfigError(f"{flag} {path}: not a report metric; `packetpath run SCENARIO --all` lists them")


def _number(report: dict[str, Any], path: str, worst: float = math.inf) -> float:
    v = metrics.value(report, path)
    return worst if v is None else float(v)


RUN_KINDS = ("copy_bench", "pcie_bench", "mem_bench", "hostnet", "dpa", "netdimm")
"""The run kinds whose metrics sit under their own name; every other metric is a packet run's."""


def _check_kind(path: str, kind: str, flag: str) -> None:
    """Refuse a metric the scenario's run kind never reports (it would be missing in every trial)."""
    owner = path.split(".")[0] if path.split(".")[0] in RUN_KINDS else "packet"
    if owner != kind:
        raise ConfigError(f"{flag} {path}: a sim.kind = {kind} run does not report it (a {owner} run does)")


def parse_space(space: Mapping[str, Any] | Sequence[str]) -> dict[str, tuple[int, int] | list[Any]]:
    """``["cpu.cores=1..16", "llc.replacement=lru,qlru"]`` or a mapping -> key ->
    ``(low, high)`` (whole numbers, both ends included) or a list of choices."""
    out: dict[str, tuple[int, int] | list[Any]] = {}
    if isinstance(space, str):
        space = [space]
    if not isinstance(space, (Mapping, Sequence)):
        raise ConfigError(f"space = {space!r}: expected a dict of key -> (low, high) or values, or 'KEY=LOW..HIGH' texts")
    items = space.items() if isinstance(space, Mapping) else [_split(s) for s in space]
    for key, spec in items:
        if key in out:
            raise ConfigError(f"--space {key}: given twice; give one range or list per key")
        if schema.lookup(key) is None and key != "profile":
            raise ConfigError(f"--space {key}: unknown parameter; `packetpath params` lists them")
        if isinstance(spec, str):
            lo, sep, hi = spec.partition("..")
            if sep:
                try:
                    spec = (int(lo), int(hi))
                except ValueError:
                    raise ConfigError(f"--space {key}={spec}: a range takes whole numbers, LOW..HIGH") from None
            else:
                spec = grid_values(key, spec)
        if not isinstance(spec, (str, tuple, list)):
            raise ConfigError(f"--space {key}={spec!r}: expected a range (low, high) or a list of values")
        if isinstance(spec, tuple):
            if len(spec) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in spec) or spec[0] > spec[1]:
                raise ConfigError(f"--space {key}={spec}: a range is LOW..HIGH, whole numbers with LOW <= HIGH")
        elif not spec:
            raise ConfigError(f"--space {key}: give at least one value")
        out[key] = tuple(spec) if isinstance(spec, tuple) else list(spec)
    if not out:
        raise ConfigError("empty search space: give at least one --space KEY=LOW..HIGH or KEY=V1,V2,...")
    return out


def _split(item: str) -> tuple[str, str]:
    if not isinstance(item, str):
        raise ConfigError(f"--space item {item!r}: expected KEY=LOW..HIGH or KEY=V1,V2,... text")
    key, sep, text = item.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--space '{item}': expected KEY=LOW..HIGH or KEY=V1,V2,..., e.g. --space cpu.cores=1..16")
    return key.strip(), text.strip()


def tune(
    scenario: ScenarioLike,
    space: Mapping[str, Any] | Sequence[str],
    *,
    minimize: Sequence[str] = (),
    maximize: Sequence[str] = (),
    constraints: Sequence[str] = (),
    trials: int = 40,
    batch: int = 4,
    set: Overrides = None,
    seed: int = 0,
    store: Store | str | os.PathLike | None = None,
    study: str | None = None,
    study_name: str | None = None,
    scheduler: Any = None,
    jobs: int | None = None,
    run: RunFn | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Search ``space`` for the goal; returns ``{"best", "frontier", "closest",
    "trials", "objectives", "constraints", "study", "search"}`` (each trial:
    its point, objective values, constrained metrics' values, feasibility,
    ``miss``: its constraints' violations relative to their bounds, run id;
    ``closest``: without a feasible trial, the least missing one; ``search``:
    ``{exhaustive, tried, space}``, exhaustive when every point of the space
    was simulated, which a space no larger than ``trials`` is). ``trials`` distinct points are simulated
    (fewer if the space is smaller); a point proposed twice is told its
    stored result again.

    The objectives, in priority order: the ``minimize`` keys, then the
    ``maximize`` keys. ``study`` is an
    Optuna storage URL or a file path for SQLite (default: ``tune.db`` in
    ``store``, or in memory without a store); trials already in it count
    towards ``trials``. The sampler proposes ``batch`` points at a time,
    whatever the machine, so a seed gives the same trials anywhere; ``jobs``
    of them run at once (default: every core)."""
    import optuna

    axes = parse_space(space)
    goals = [(k, "minimize") for k in minimize] + [(k, "maximize") for k in maximize]
    if not goals:
        raise ConfigError("no objective: give --minimize KEY or --maximize KEY (a searched parameter or a metric)")
    for key, _ in goals:
        if key in axes:
            if isinstance(axes[key], list) and not all(isinstance(v, (int, float)) for v in axes[key]):
                raise ConfigError(f"objective {key}: its values {axes[key]} are not numbers")
        else:
            _check_metric(key, "objective")
    limits = [Constraint.parse(c) for c in constraints]
    for name_, n in (("trials", trials), ("batch", batch)):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ConfigError(f"{name_} = {n!r}: must be a whole number, at least 1")
    base = parse_overrides(set)
    for key, spec in axes.items():  # a value the engine refuses fails now, not trials later
        for v in spec:
            make_task("", scenario, {**base, key: v}, seed)
    kind = make_task("", scenario, base, seed).config["sim.kind"]
    for key, _ in goals:
        if key not in axes:
            _check_kind(key, kind, "objective")
    for c in limits:
        _check_kind(c.metric, kind, "--constraint")
    if store is not None and not isinstance(store, Store):
        store = Store(store)
    storage = _storage(study, store)
    name = study_name or f"tune-{Path(scenario).stem if isinstance(scenario, (str, os.PathLike)) else 'scenario'}"

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=min(10, max(2, trials // 4)), multivariate=True)
    # A study resumes only the problem it was started on: its trials are
    # that problem's. One that never completed a trial (its first batch was
    # refused) is started afresh.
    problem = {"scenario": str(scenario) if isinstance(scenario, (str, os.PathLike)) else scenario, "set": base,
               "space": {k: list(v) for k, v in axes.items()}, "objectives": goals,
               "constraints": [str(c) for c in limits], "seed": seed}
    problem = json.loads(json.dumps(problem, sort_keys=True, default=str))
    st = _create_study(optuna, storage=storage, study_name=name, load_if_exists=True, sampler=sampler,
                       directions=[d for _, d in goals])
    was = st.user_attrs.get("problem")
    if was not in (None, problem) or [d.name.lower() for d in st.directions] != [d for _, d in goals]:
        if done := len(_distinct(st)):
            # (a study from before problems were recorded can differ only in its objectives' directions)
            differs = [k for k in sorted(problem) if was is not None and was.get(k) != problem[k]] or ["objectives"]
            raise ConfigError(f"study '{name}' in {storage} holds {done} trials of another problem "
                              f"(its {', '.join(differs)} differ); give --study-name NAME or another --store")
        optuna.delete_study(study_name=name, storage=storage)
        st = optuna.create_study(storage=storage, study_name=name, sampler=sampler, directions=[d for _, d in goals])
    st.set_user_attr("problem", problem)
    size = math.prod(spec[1] - spec[0] + 1 if isinstance(spec, tuple) else len(spec) for spec in axes.values())
    if size <= trials:
        # A space within the budget is tried whole, so the answer is proven,
        # not a sampler's guess: every point is queued (once).
        for point in grid_points({k: axis_values(spec) for k, spec in axes.items()}):
            st.enqueue_trial(point, skip_if_exists=True)
    # `trials` counts distinct points: a point the sampler proposes again is
    # told its stored result at no cost, and does not use up the budget.
    try:
        _search(st, axes, base, scenario, seed, limits, goals, trials, batch, size, store, jobs, scheduler, run, progress)
    except KeyboardInterrupt as e:  # what is stored stays: say so, and how to go on
        where = f" in {storage}" if storage else " (in memory: give --store to keep them)"
        raise KeyboardInterrupt(f"{len(_distinct(st))} trials of study '{name}' complete{where}; run the same command again to resume"
                                + (f" ({e})" if str(e) else "")) from None
    result = _summary(st, goals, limits, storage)
    # proven only when every point was in fact simulated
    tried = len(result["trials"])
    result["search"] = {"exhaustive": tried == size, "tried": tried, "space": size}
    return result


def axis_values(spec: tuple[int, int] | list[Any]) -> list[Any]:
    """A searched axis's values: a whole-number range's, or its list."""
    return list(range(spec[0], spec[1] + 1)) if isinstance(spec, tuple) else list(spec)


def _create_study(optuna: Any, **kwargs: Any) -> Any:
    """optuna.create_study, retried when another tune creates the same new
    storage at the same moment (its tables or their version row half made:
    "already exists", "UNIQUE constraint failed")."""
    for attempt in range(10):
        try:
            return optuna.create_study(**kwargs)
        except Exception as e:  # sqlalchemy's OperationalError or optuna's DuplicatedStudyError, by backend
            if attempt == 9 or not any(w in str(e).lower() for w in ("already exists", "locked", "duplicated", "unique constraint")):
                raise
            time.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


def _search(st: Any, axes: dict, base: dict, scenario: Any, seed: Any, limits: list, goals: list, trials: int, batch: int,
            size: int, store: Any, jobs: Any, scheduler: Any, run: Any, progress: bool) -> None:
    """Ask for points in batches, run them, tell the study: until ``trials`` distinct points are done."""
    import optuna

    asks = 0
    while (seen := len(_distinct(st))) < min(trials, size) and asks < 20 * trials:
        asked = [st.ask() for _ in range(min(batch, trials - seen))]
        asks += len(asked)
        points = [{k: _suggest(t, k, spec) for k, spec in axes.items()} for t in asked]
        try:
            tasks = [make_task(point_name(p), scenario, {**base, **p}, seed) for p in points]
            rows = execute(tasks, store=store, jobs=jobs, scheduler=scheduler, run=run, progress=progress, title="tune")
        except BaseException:
            # (no trial of the study is left running: a resumed study would carry it)
            for t in asked:
                st.tell(t, state=optuna.trial.TrialState.FAIL)
            raise
        for t, p, row, report in zip(asked, points, rows, reports(rows)):
            t.set_user_attr("run_id", row["run_id"])
            violations = [c.violation(report) for c in limits]
            t.set_user_attr("violations", violations)
            # (what each constraint is about, to show beside the point)
            t.set_user_attr("constrained", {c.metric: metrics.value(report, c.metric) for c in limits})
            for c, v in zip(limits, violations):
                t.set_constraint(str(c), v)
            # a metric the run did not report is the worst value, never the best
            st.tell(t, [float(p[k]) if k in p else _number(report, k, worst=math.inf if d == "minimize" else -math.inf)
                        for k, d in goals])


def _distinct(st: Any) -> set[str]:
    import optuna

    return {t.user_attrs["run_id"] for t in st.get_trials(states=[optuna.trial.TrialState.COMPLETE])}


def _storage(study: str | None, store: Store | None) -> str | None:
    if study is None:
        if store is None:
            return None
        store.path.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{store.path.resolve() / 'tune.db'}"
    return study if "://" in study else f"sqlite:///{os.path.abspath(study)}"


def _suggest(trial: Any, key: str, spec: tuple[int, int] | list[Any]) -> Any:
    if isinstance(spec, tuple):
        return trial.suggest_int(key, spec[0], spec[1])
    return trial.suggest_categorical(key, spec)


def _summary(st: Any, goals: list[tuple[str, str]], limits: list[Constraint], storage: str | None) -> dict[str, Any]:
    import optuna

    done = st.get_trials(states=[optuna.trial.TrialState.COMPLETE])
    sign = [1.0 if d == "minimize" else -1.0 for _, d in goals]
    # one trial per point: a point proposed again is the same run
    trials = list({t.user_attrs["run_id"]: {
        "number": t.number, "point": dict(t.params), "values": dict(zip([k for k, _ in goals], t.values)),
        "constrained": t.user_attrs.get("constrained", {}),
        "feasible": all(v <= 0 for v in t.user_attrs["violations"]), "run_id": t.user_attrs["run_id"],
        "miss": sum(v / max(abs(c.bound), 1e-12) for v, c in zip(t.user_attrs["violations"], limits))} for t in done}.values())
    feasible = [t for t in trials if t["feasible"]]

    def key(t: dict[str, Any]) -> tuple[float, ...]:
        return tuple(s * t["values"][k] for s, (k, _) in zip(sign, goals))

    def dominates(a: dict[str, Any], b: dict[str, Any]) -> bool:
        ka, kb = key(a), key(b)
        return all(x <= y for x, y in zip(ka, kb)) and ka != kb

    frontier = sorted({key(t): t for t in feasible if not any(dominates(o, t) for o in feasible)}.values(), key=key)
    # without a feasible trial, the one that misses its bounds by least (relative to each bound)
    closest = None if feasible else min(trials, key=lambda t: t["miss"], default=None)
    return {"best": min(feasible, key=key, default=None), "frontier": frontier, "closest": closest, "trials": trials,
            "objectives": [{"key": k, "direction": d} for k, d in goals],
            "constraints": [str(c) for c in limits], "study": {"name": st.study_name, "storage": storage}}
