"""Design-space sweeps: many whole simulations, run in parallel, stored as they finish.

One task is one whole simulation. Tasks run on a local process pool (one
worker per core, a rich progress bar) or, given a scheduler address, on a
Dask cluster; the results go to a `Store` one file per finished run, so a
sweep killed half-way keeps everything that finished, and running it again
skips every run whose config hash (the fully resolved scenario, seed
included, and the engine version) is already stored. There is one way to run
many simulations: `packetpath.reproduce` runs its papers through `execute`
too.

    df = packetpath.sweep("l2fwd", grid={"traffic.size": [64, 1500], "cpu.cores": [1, 2]}, store="results")
"""

from __future__ import annotations

import json
import math
import os
import random as _random
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from packetpath import api, schema
from packetpath.errors import ConfigError, EngineError
from packetpath.scenario import Overrides, ScenarioLike, parse_overrides, parse_text, resolve, what_ifs
from packetpath.store import Store, config_hash, frame, make_row

class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep, after every finished run was stored: says how many and how to resume."""


RunFn = Callable[[dict[str, Any]], dict[str, Any]]
"""Takes a resolved scenario (flat dotted keys), returns its report."""

Grid = Mapping[str, Sequence[Any]] | Sequence[str]
"""``{"traffic.size": [64, 1500]}`` or ``["traffic.size=64,1500", ...]`` (the CLI's ``--grid``)."""


@dataclass(frozen=True)
class Task:
    """One simulation: a resolved, validated scenario and its identity."""

    name: str
    """For people: a paper run's name, or the swept values (``traffic.size=64 cpu.cores=2``)."""
    scenario: str
    values: dict[str, Any] = field(repr=False)
    """What `packetpath.run` is given (merged flat values)."""
    config: dict[str, Any] = field(repr=False)
    """Every parameter normalised by the engine: what the run id hashes."""
    run_id: str = ""
    profile: str | None = None
    what_ifs: tuple[str, ...] = ()
    """Parts raised above the profile's (`packetpath.scenario.what_ifs`): the stored report lists them."""


def offered_packets(config: dict[str, Any]) -> float:
    """Frames a packet run's sources offer over its whole simulated time: the
    measure of its cost that orders the runs, longest first (0 for the other
    kinds, which run their own short benchmarks)."""
    if config.get("sim.kind") != "packet":
        return 0.0
    size = config["traffic.size"] if config["traffic.size_dist"] == "fixed" else (config["traffic.bimodal_small"] + config["traffic.bimodal_large"]) / 2
    seconds = (config["sim.warmup"] + config["sim.duration"]) / 1e12
    return seconds * config["traffic.rate"] * 1e6 * config["nic.count"] / ((size + 20) * 8)


def make_task(name: str, scenario: ScenarioLike, set: Overrides = None, seed: int | None = None) -> Task:
    s = resolve(scenario, set, seed)
    return Task(name, s.name, s.values, s.config, config_hash(s.config), s.profile, tuple(what_ifs(s)))


# -- grids -----------------------------------------------------------------------


def parse_grid(grid: Grid) -> dict[str, list[Any]]:
    """``["traffic.size=64,1500"]`` -> ``{"traffic.size": [64, 1500]}``; a mapping passes
    through (a scalar becomes a one-value axis). An empty grid or axis is a ConfigError."""
    axes: dict[str, list[Any]] = {}
    if not isinstance(grid, (Mapping, str, Sequence)) or isinstance(grid, bytes):
        raise ConfigError(f"grid = {grid!r}: expected a dict of key -> values or a list of 'key=v1,v2' texts")
    if isinstance(grid, Mapping):
        for key, values in grid.items():
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
                values = [values]
            axes[str(key)] = list(values)
    else:
        for item in [grid] if isinstance(grid, str) else grid:
            if not isinstance(item, str):
                raise ConfigError(f"grid item {item!r}: expected 'key=v1,v2' text, e.g. 'traffic.size=64,1500'")
            key, sep, text = item.partition("=")
            key = key.strip()
            if not sep or not key:
                raise ConfigError(f"--grid '{item}': expected key=v1,v2,..., e.g. --grid traffic.size=64,1500")
            if key in axes:
                raise ConfigError(f"--grid {key}: given twice; give one axis per key with every value (--grid {key}=A,B)")
            axes[key] = grid_values(key, text)
    if not axes:
        raise ConfigError("empty grid: give at least one --grid KEY=V1,V2,... (e.g. --grid traffic.size=64,1500)")
    for key, values in axes.items():
        if not values:
            raise ConfigError(f"--grid {key}: empty grid, give at least one value")
    return axes


def grid_values(key: str, text: str) -> list[Any]:
    """Values of one axis. A list parameter (e.g. ``nic.ddio``) takes one list per
    value, its items joined by ``+`` (``--grid nic.ddio=true+false,false+false``)."""
    definition = schema.lookup(key)
    kind = definition["kind"] if definition else None
    items = [t.strip() for t in text.split(",") if t.strip()]
    if isinstance(kind, str) and kind.endswith("_list"):
        return [parse_text(key, t.replace("+", ",")) for t in items]
    return [parse_text(key, t) for t in items]


MAX_JOBS = 1024
"""Local worker processes at most: more would only fork processes that wait for cores."""

MAX_POINTS = 1_000_000
"""A grid run whole is at most this many simulations; larger grids need ``--random N``."""


def grid_points(axes: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination, the last axis varying fastest."""
    size = math.prod(len(v) for v in axes.values())
    if size > MAX_POINTS:
        raise ConfigError(f"--grid: {size} points, more than {MAX_POINTS} simulations; draw some with --random N")
    return [point(axes, i) for i in range(size)]


def point(axes: Mapping[str, Sequence[Any]], index: int) -> dict[str, Any]:
    """The grid point at ``index`` in grid order (the last axis varying fastest), without building the grid."""
    out = {}
    for key in reversed(list(axes)):
        index, i = divmod(index, len(axes[key]))
        out[key] = axes[key][i]
    return dict(reversed(list(out.items())))


def sample(axes: Mapping[str, Sequence[Any]], n: int, seed: int | None) -> list[dict[str, Any]]:
    """``n`` distinct points drawn at random (all of them if the grid is smaller),
    in grid order; the same ``seed`` draws the same points. The grid is never
    built: indices are drawn from its size and decoded."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ConfigError(f"--random {n}: must be a whole number, at least 1")
    size = math.prod(len(v) for v in axes.values())
    if n > MAX_POINTS:
        raise ConfigError(f"--random {n}: more than {MAX_POINTS} simulations")
    chosen = sorted(_random.Random(0 if seed is None else seed).sample(range(size), min(n, size)))
    return [point(axes, i) for i in chosen]


def tasks_for(
    scenario: ScenarioLike,
    grid: Grid,
    set: Overrides = None,
    seed: int | None = None,
    random: int | None = None,
) -> list[Task]:
    """Resolve and validate every point before anything runs: a bad key or value
    fails at once, with the engine's message (and did-you-mean)."""
    axes = parse_grid(grid)
    base = parse_overrides(set)
    if "sim.kind" in axes:
        raise ConfigError("--grid sim.kind: a sweep runs one kind of simulation; sweep each kind on its own")
    if "sim.seed" in axes and seed is not None:
        raise ConfigError(f"--grid sim.seed with --seed {seed}: the seed would be {seed} at every point; give one of them")
    both = [k for k in axes if k in base]
    if both:
        raise ConfigError(f"{both[0]}: both swept (--grid) and fixed (--set); give it in one of them")
    points = sample(axes, random, seed) if random is not None else grid_points(axes)
    tasks = []
    for point in points:
        name = point_name(point)
        try:
            tasks.append(make_task(name, scenario, {**base, **point}, seed))
        except ConfigError as e:
            raise ConfigError(f"--grid {name}: {e}" if len(points) > 1 else str(e)) from None
    return tasks


def point_name(point: Mapping[str, Any]) -> str:
    """A run's name from the values that set it apart: ``traffic.size=64 cpu.cores=2``."""
    return " ".join(f"{k}={_text(v)}" for k, v in point.items())


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return "+".join(map(_text, value))
    return str(value)


# -- running ---------------------------------------------------------------------


def _simulate(run: RunFn, values: dict[str, Any]) -> tuple[dict[str, Any], float]:
    """In a worker: one whole simulation and its wall time."""
    start = time.perf_counter()
    report = run(values)
    return report, time.perf_counter() - start


class Cancelled(Exception):
    """The sweep that submitted this run has stopped (Ctrl-C, an error)."""


def _simulate_dask(run: RunFn, values: dict[str, Any], stop: str) -> tuple[dict[str, Any], float]:
    """On a Dask worker: `_simulate`, stopping within about a second once the
    sweep sets the Dask Event ``stop`` (a cancelled future alone would let
    the engine run on)."""
    from distributed import Event

    event, last = Event(stop), [time.monotonic()]

    def check(_done: float) -> None:
        if time.monotonic() - last[0] >= 1.0:
            last[0] = time.monotonic()
            if event.is_set():
                raise Cancelled(stop)

    if run is not api.run:  # a test's or a user's run function: no progress hook to stop it
        return _simulate(run, values)
    return _simulate(lambda v: api.run(v, progress=check), values)


def execute(
    tasks: Sequence[Task],
    *,
    store: Store | str | os.PathLike | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    run: RunFn | None = None,
    progress: bool = True,
    title: str = "sweep",
    flush_s: float = 1.0,
    found: set[str] | None = None,
) -> list[dict[str, Any]]:
    """Run the tasks not already in the store; one store row per task, in task order.
    ``found``, if given, receives the run ids that were already stored.

    ``jobs`` local worker processes (default: every core; 1 = in this
    process); ``scheduler`` a Dask scheduler address (``tcp://host:8786``) or
    a ``distributed.Client``, instead of the local pool; ``run`` replaces
    `packetpath.run` (a module-level function, so it can be sent to workers).
    A failing run raises, naming it (``title/name: ...``), after every run that
    finished before it has been stored. Finished runs are written as soon as
    ``flush_s`` seconds have passed since the last write (0: each run its
    own file), and always at the end, on an error and on Ctrl-C; only a
    hard kill (SIGKILL, power loss) can lose the runs of the last
    ``flush_s`` seconds."""
    run = run or api.run
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS):
        raise ConfigError(f"jobs = {jobs!r}: must be a whole number of worker processes, 1 .. {MAX_JOBS} (a cluster: --scheduler)")
    if isinstance(flush_s, bool) or not isinstance(flush_s, (int, float)) or not math.isfinite(flush_s) or flush_s < 0:
        raise ConfigError(f"flush_s = {flush_s!r}: must be a finite number of seconds, at least 0")
    if store is not None and not isinstance(store, Store):
        store = Store(store)
    rows: dict[str, dict[str, Any]] = {}
    if store is not None:
        store.check_writable()
        for record in store.rows(t.run_id for t in tasks):
            rows[record["run_id"]] = record
    if found is not None:
        found.update(rows)
    todo = list({t.run_id: t for t in tasks if t.run_id not in rows}.values())  # one run per identity
    # Longest first, so no long run starts last while the other workers idle
    # (the rows come back in task order whatever the order they ran in).
    todo.sort(key=lambda t: -offered_packets(t.config))
    client = _connect(scheduler) if scheduler is not None and todo else None
    try:
        _run_todo(todo, rows, store, jobs, run, client, progress, title, flush_s)
    except KeyboardInterrupt:
        ids = {t.run_id for t in tasks}
        done, total = len(ids & rows.keys()), len(ids)
        where = "stored; run the same command again to resume" if store is not None else "finished (no store: nothing kept)"
        raise Interrupted(f"{done} of {total} runs {where}") from None
    finally:
        if client is not None and client is not scheduler:  # ours to close
            client.close()
    return [rows[t.run_id] for t in tasks]


def _run_todo(
    todo: list[Task], rows: dict, store: Store | None, jobs: int | None, run: RunFn, client: Any, progress: bool,
    title: str, flush_s: float,
) -> None:

    # elapsed, then the ETA rich estimates from the runs finished so far
    columns = (TextColumn(title), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn())
    console = Console(stderr=True)
    show = progress and console.is_terminal and bool(todo)
    pending: list[dict[str, Any]] = []  # finished, not yet written
    last_write = time.monotonic()
    harvest: list = []  # on Ctrl-C: runs that finished but were not yet collected

    def keep(task: Task, outcome: Callable[[], tuple[dict[str, Any], float]]) -> None:
        try:
            report, wall_s = outcome()
        except (ConfigError, EngineError) as e:
            raise type(e)(f"{title}/{task.name}: {e}") from None
        if task.what_ifs:  # (the run saw flat values, without the profile they are measured against)
            report = {**report, "what_ifs": list(task.what_ifs)}
        row = make_row(task.run_id, task.scenario, task.name, task.config, report, wall_s)
        rows[task.run_id] = row
        pending.append(row)

    with Progress(*columns, console=console, transient=True, disable=not show) as bar:
        counter = bar.add_task(title, total=len(todo))
        try:
            for task, outcome in _completed(todo, jobs or os.cpu_count() or 1, run, client, harvest):
                keep(task, outcome)
                # A Parquet file costs ~10 ms to write: runs finishing within
                # flush_s of the last write share one file.
                if store is not None and time.monotonic() - last_write >= flush_s:
                    store.append(pending)
                    pending, last_write = [], time.monotonic()
                bar.advance(counter)
        except KeyboardInterrupt:
            for task, outcome in harvest:
                keep(task, outcome)
            raise
        finally:  # an error or Ctrl-C: what finished is kept
            if store is not None:
                store.append(pending)


def _completed(
    tasks: list[Task], jobs: int, run: RunFn, client: Any, harvest: list
) -> Iterator[tuple[Task, Callable[[], tuple[dict[str, Any], float]]]]:
    """(task, get its result) as runs finish: in this process, a process pool, or
    Dask. On Ctrl-C the pool's runs that finished but were not yet yielded go
    to ``harvest``, and the workers stop."""
    if not tasks:
        return
    if client is not None:
        from distributed import as_completed as dask_completed

        from distributed import Event

        stop = f"packetpath-stop-{uuid.uuid4().hex}"
        futures = client.map(_simulate_dask, [run] * len(tasks), [t.values for t in tasks], [stop] * len(tasks), pure=False)
        by_key = {f.key: t for f, t in zip(futures, tasks, strict=True)}
        try:
            with client.as_current():
                for future in dask_completed(futures):
                    yield by_key[future.key], future.result
        finally:  # runs already computing stop too, not only the queued ones
            Event(stop, client=client).set()
            client.cancel(futures)
        return
    if jobs == 1:
        for task in tasks:
            yield task, lambda task=task: _simulate(run, task.values)
        return
    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), initializer=_worker_init, initargs=(os.getpid(),)) as pool:
        futures = {pool.submit(_simulate, run, task.values): task for task in tasks}
        yielded, interrupted = set(), False
        try:
            for future in as_completed(futures):
                yielded.add(future)
                yield futures[future], future.result
        except KeyboardInterrupt:
            interrupted = True
            harvest += [(task, f.result) for f, task in futures.items()
                        if f not in yielded and f.done() and not f.cancelled() and f.exception() is None]
            # runs in flight are not finished: stop them; the pool then fails the
            # rest itself (cancelling them too would race it, Python 3.11)
            for process in list(getattr(pool, "_processes", {}).values()):
                process.terminate()
            raise
        finally:
            if not interrupted:
                for future in futures:
                    future.cancel()


def _worker_init(parent: int) -> None:
    """A pool worker leaves Ctrl-C to its parent (which keeps what finished)
    and exits when the parent dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(parent)


def exit_with_parent(parent: int) -> None:
    """In a child process: exit as soon as ``parent`` is gone, even killed by
    SIGKILL (the child is then re-parented, which a thread notices)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="die-with-parent").start()


def _connect(scheduler: Any, timeout: float = 5.0) -> Any:
    """A Dask client: given one, or connected to an address (a clear ConfigError within seconds if unreachable)."""
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - a dependency
        raise ConfigError("--scheduler needs dask.distributed (pip install 'dask[distributed]')") from None
    if isinstance(scheduler, Client):
        return scheduler
    address = str(scheduler)
    from distributed.comm.addressing import get_address_host_port, parse_address

    try:  # a malformed address never reaches Client, whose half-built object would complain on exit
        scheme, where = parse_address(address)
        if scheme == "inproc" and not _inproc_listening(where):  # an in-process cluster is this process's own
            raise ValueError("no scheduler of this process listens there (an inproc:// address reaches only its own process)")
        if scheme not in ("tcp", "tls", "inproc"):
            raise ValueError(f"the {scheme}:// scheme reaches no scheduler a sweep can use")
        if scheme != "inproc":
            get_address_host_port(address)
    except ValueError as e:
        raise ConfigError(f"--scheduler '{address}': {e}; expected tcp://HOST:PORT or tls://HOST:PORT") from None
    try:
        return Client(address, timeout=f"{timeout}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        reason = " ".join(str(e).split()) or type(e).__name__
        if len(reason) > 200:
            reason = reason[:200] + "..."
        raise ConfigError(f"cannot reach the Dask scheduler at '{address}' within {timeout:g} s: {reason}") from None


def _inproc_listening(where: str) -> bool:
    """Whether a Dask listener of this process has the inproc address ``where``."""
    from distributed.comm.inproc import global_manager

    try:
        return global_manager.get_listener_for(where) is not None
    except (ValueError, AssertionError):  # another process's address, or not an inproc address at all
        return False


# -- the sweep -------------------------------------------------------------------


def sweep(
    scenario: ScenarioLike,
    grid: Grid,
    *,
    set: Overrides = None,
    seed: int | None = None,
    random: int | None = None,
    store: Store | str | os.PathLike | None = None,
    scheduler: Any = None,
    jobs: int | None = None,
    run: RunFn | None = None,
    progress: bool = True,
    flush_s: float = 1.0,
):
    """Simulate every point of a grid (or ``random`` of them) and return a pandas
    DataFrame, one row per point in grid order: every parameter, every metric,
    seed, engine version, run id.

    ``grid`` maps dotted keys to values (``{"traffic.size": [64, 1500]}``) or
    is a list of ``"key=v1,v2"``; ``set`` fixes other parameters; ``seed`` is
    every run's seed and the seed of the ``random`` draw. With ``store`` the
    rows are appended to that Parquet store as runs finish, and runs already
    stored are not run again. ``scheduler``: a Dask scheduler address or
    client instead of the local process pool."""
    tasks = tasks_for(scenario, grid, set=set, seed=seed, random=random)
    stored: set[str] = {*()}  # (`set` is this function's overrides)
    rows = execute(tasks, store=store, jobs=jobs, scheduler=scheduler, run=run, progress=progress, flush_s=flush_s, found=stored)
    df = frame(rows)
    if "profile" in parse_grid(grid):  # not a parameter: the machine beneath each run
        df.insert(1, "profile", [t.profile for t in tasks])
    df.attrs["swept"] = list(parse_grid(grid))
    df.attrs["new"] = len({t.run_id for t in tasks} - stored)  # simulated by this call
    df.attrs["stored"] = len(stored)  # found already stored
    return df


def reports(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The full reports of store rows."""
    return [json.loads(r["report"]) for r in rows]
