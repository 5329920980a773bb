"""The ``packetpath`` command: one sub-command per noun.

    packetpath run SCENARIO [--set KEY=VALUE ...] [--seed N] [--json]
    packetpath scenarios | profiles | params [SCENARIO]
    packetpath reproduce PAPER [--json] [--out DIR] [--jobs N]
    packetpath bench [--json] [--repeat N]
    packetpath sweep SCENARIO --grid KEY=V1,V2 [--grid ...] [--random N] [--scheduler ADDR] [--store DIR]
    packetpath tune SCENARIO --space KEY=LO..HI [--minimize KEY] [--constraint 'METRIC<X'] [--trials N] [--plot STEM]
    packetpath results show | query "SQL"    [--store DIR]
    packetpath plot METRIC --x KEY [--by KEY] [--kind line|scatter|heatmap] [--store DIR] [--out STEM]
    packetpath report [--out DIR] [--from DIR ...] | --store DIR
    packetpath cluster slurm|pbs --jobs N --cores C --memory SIZE [--walltime HH:MM:SS] [--dry-run]

Bad input — an unknown key or name, a bad unit or value, a missing or
malformed file — prints one line ``error: ...`` on stderr and exits 2. An
engine failure prints ``engine error: ...`` and exits 3. No traceback.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys
import textwrap
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from packetpath import api, bench, metrics, profiles, scenario
from packetpath.metrics import bottleneck_sentence, latency_sentence
from packetpath.errors import ConfigError, EngineError
from packetpath.reproduce import reproduce as reproduce_paper
from packetpath.reproduce import rich_table as claims_table
from packetpath.tables import value_text

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Simulate the server network I/O path: wire, NIC, PCIe, LLC/DDIO, DRAM, cores.",
)

# click's usage errors, from whichever click typer uses (its vendored copy or the package)
UsageError = typer.BadParameter.__mro__[1]
NoArgsIsHelp = getattr(sys.modules[UsageError.__module__], "NoArgsIsHelpError", None)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
def _folder(text: str | Path) -> Path:
    """A --store or --out folder: '' would be the working directory, never what was meant."""
    if isinstance(text, Path):  # a default
        return text
    if not text.strip():
        raise typer.BadParameter("empty; give a folder")
    return Path(text)


ScenarioArg = Annotated[
    str,
    typer.Argument(
        metavar="SCENARIO", help="Built-in scenario name (see `packetpath scenarios`) or path of a .toml file."
    ),
]


def version_text() -> str:
    """The package and engine versions, and the commit when run from a git checkout."""
    import subprocess

    from packetpath import __version__, _engine

    here = Path(__file__).resolve()
    git = ["git", "-C", str(here.parent)]
    try:
        # (only packetpath's own checkout: the file tracked by the repository git finds)
        ours = subprocess.run([*git, "ls-files", "--error-unmatch", here.name], capture_output=True, timeout=5).returncode == 0
        commit = subprocess.run([*git, "describe", "--always", "--dirty"], capture_output=True, text=True, timeout=5).stdout.strip() if ours else ""
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"packetpath {__version__} (engine {_engine.__version__}{', commit ' + commit if commit else ''})"


def _version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and commit, and exit.")] = False,
) -> None:
    """Simulate the server network I/O path: wire, NIC, PCIe, LLC/DDIO, DRAM, cores."""


def main() -> None:
    # a warning (a quarantined store file) is one line, like an error
    warnings.showwarning = lambda message, *_args, **_kw: typer.echo(f"warning: {' '.join(str(message).split())}", err=True)
    try:
        code = app(standalone_mode=False)
    except UsageError as e:  # a bad option value, an unknown option or command, a missing argument
        if NoArgsIsHelp is not None and isinstance(e, NoArgsIsHelp):  # `packetpath` alone: the help
            typer.echo(e.ctx.get_help() if e.ctx else str(e))
            raise SystemExit(0) from None
        command = e.ctx.command_path if e.ctx else "packetpath"
        typer.echo(f"error: {' '.join(e.format_message().split())} (see '{command} --help')", err=True)
        code = 2
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("interrupted", err=True)
        code = 130
    raise SystemExit(code if isinstance(code, int) else 0)


def _command(name: str, group: typer.Typer | None = None) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a sub-command whose expected failures become one line and an exit code."""

    def register(fn: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> None:
            try:
                fn(*args, **kwargs)
            except (typer.Exit, typer.Abort, typer.BadParameter, BrokenPipeError):
                raise
            except KeyboardInterrupt as e:  # a sweep says how many runs it kept and how to resume
                _fail(130, "interrupted", str(e) or "nothing was stored")
            except (ConfigError, OSError) as e:
                _fail(2, "error", str(e))
            except EngineError as e:
                _fail(3, "engine error", str(e))
            except Exception as e:  # a bug: still one line, the traceback on request
                if os.environ.get("PACKETPATH_DEBUG"):
                    raise
                _fail(
                    1,
                    "internal error",
                    f"{type(e).__name__}: {e} (a packetpath bug; PACKETPATH_DEBUG=1 shows the traceback)",
                )

        return (group or app).command(name)(wrapper)

    return register


def _fail(code: int, prefix: str, message: str) -> None:
    typer.echo(f"{prefix}: {' '.join(message.split())}", err=True)
    raise typer.Exit(code)


def _console() -> Console:
    """The terminal's width on a terminal; 160 columns in logs and pipes, where
    rich's default of 80 would squeeze every table."""
    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=160)
    return console


def _print_json(obj: Any) -> None:
    typer.echo(json.dumps(obj, indent=2))


@_command("run")
def run_cmd(
    scenario_: ScenarioArg,
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set", metavar="KEY=VALUE", help="Override a parameter, e.g. --set traffic.rate=50Gbps (repeatable)."
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of every random stream (overrides sim.seed).")] = None,
    json_: JsonFlag = False,
    all_: Annotated[bool, typer.Option("--all", help="Also list the metrics this kind of run does not report.")] = False,
    seeds: Annotated[int, typer.Option(min=1, max=1000, help="Run this many seeds (the scenario's, or --seed, and the ones after) and give each metric's mean ± sd.")] = 1,
) -> None:
    """Simulate one scenario and print its report."""
    if seeds > 1:
        _run_seeds(scenario_, set_, seed, seeds, json_)
        return
    with _RunProgress(scenario_, quiet=json_) as progress:
        report = api.run(scenario_, set=set_, seed=seed, progress=progress)
    if json_:
        # As gem5's config.json: every parameter's value, and where each not
        # left at its default came from, so the run can be repeated.
        rows = api.params(scenario_, set=set_, seed=seed)
        report["scenario"] = {"name": scenario_, "packetpath": version_text(),
                              "values": {p["key"]: p["value"] for p in rows},
                              "from": {p["key"]: p["origin"] for p in rows if p["origin"] != "default"}}
        _print_json(report)
        return
    _console().print(_report_table(scenario_, report, all_))
    if scope := _scope(scenario_, set_, seed):
        typer.echo(scope)
    if report.get("what_ifs"):
        typer.echo(textwrap.fill("what-if: " + ", ".join(report["what_ifs"]) + "; the rest of each part as the profile has it",
                                 80, subsequent_indent="  "))
    if report.get("bottleneck"):
        typer.echo(textwrap.fill(bottleneck_sentence(report["bottleneck"]), 80, subsequent_indent="  "))
    if report.get("latency_breakdown_ns", {}).get("total"):
        typer.echo(textwrap.fill(latency_sentence(report["latency_breakdown_ns"]), 80, subsequent_indent="  "))
    if report.get("timeline"):
        _console().print(_timeline_table(report["timeline"]))
    if report.get("pause_frames"):  # the source was held back: its offered load is not traffic.rate
        typer.echo(textwrap.fill(f"note: the ports sent {report['pause_frames']:,} PAUSE frames (nic.flow_control), so the source "
                                 f"offered {report['offered_wire_gbps']:.4g} Gbps on the wire, what the server let it send, not traffic.rate",
                                 80, subsequent_indent="  "))


def _run_seeds(scenario_: str, set_: list[str] | None, seed: int | None, n: int, json_: bool) -> None:
    """One scenario over `n` seeds, run like a sweep's points: each metric's mean and sample sd."""
    import statistics

    from packetpath.sweep import sweep as run_sweep

    first = scenario.resolve(scenario_, set_, seed).seed
    # (the seeds are the sweep's axis: a --set sim.seed only says where they start)
    overrides = [x for x in set_ or [] if x.split("=", 1)[0].strip() != "sim.seed"]
    df = run_sweep(scenario_, {"sim.seed": list(range(first, first + n))}, set=overrides or None, progress=not json_)
    stats = {}
    for m in metrics.METRICS:
        if m.path in df.columns:
            values = [float(v) for v in df[m.path] if v is not None and v == v]
            if values:
                stats[m.path] = {"unit": m.unit, "mean": statistics.fmean(values), "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
                                 "values": values}
    if json_:
        _print_json({"scenario": scenario_, "seeds": list(range(first, first + n)), "metrics": stats})
        return
    table = Table("metric", "unit", "mean", "± sd", title=f"{scenario_} over {n} seeds ({first}..{first + n - 1})")
    for path, st in stats.items():
        table.add_row(path, st["unit"], _number(st["mean"]), _number(st["sd"]))
    _console().print(table)


def _scope(scenario_: str, set_: list[str] | None, seed: int | None) -> str:
    """What a packet run's counts are per: NICs, cores per NIC, the rate per port."""
    v = {p["key"]: p["value"] for p in api.params(scenario_, set=set_, seed=seed)}
    if v["sim.kind"] != "packet":
        return ""
    nics, cores = int(v["nic.count"]), int(v["cpu.cores"])
    rate = value_text(v["traffic.rate"])
    return textwrap.fill(f"scope: {nics} NIC{'s' * (nics > 1)} x {cores} core{'s' * (cores > 1)} = {nics * cores} packet core{'s' * (nics * cores > 1)}; "
                         f"offered {nics} x {rate} on the wire (traffic.rate is per port, with preamble and gap, "
                         "as the *_wire_gbps metrics; offered_gbps and throughput_gbps count frame bits)", 80, subsequent_indent="  ")


class _RunProgress:
    """A progress bar with an ETA on stderr for a run that lasts more than a
    few seconds; a short run prints nothing."""

    AFTER_S = 3.0

    def __init__(self, name: str, quiet: bool = False):
        import time

        self.name, self.quiet, self.clock, self.bar = name, quiet, time.monotonic, None
        self.start = self.clock()

    def __call__(self, done: float) -> None:
        if self.bar is None:
            if self.quiet or self.clock() - self.start < self.AFTER_S:
                return
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn(f"simulating {self.name}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                                TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                                console=Console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("run", total=1.0)
        self.bar.update(self.task, completed=done)

    def __enter__(self) -> _RunProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.stop()


def _timeline_table(samples: list[dict[str, Any]]) -> Table:
    """sim.sample_period's samples, one row each."""
    table = Table("t (us)", "tx (Gbps)", "arrived", "dropped", "ring set", title="timeline")
    for s in samples:
        table.add_row(_number(s["t_us"]), _number(s["tx_gbps"]), _number(s["arrived"]), _number(s["dropped"]),
                      "shared" if s["ring_set"] else "private")
    return table


def _report_table(name: str, report: dict[str, Any], show_all: bool = False) -> Table:
    """The report's metrics; those absent from it (another kind of run's, or
    no samples) only with ``show_all``."""
    nics = report.get("per_nic", [])
    per_nic = nics if len(nics) > 1 else []
    table = Table("metric", "unit", "total", *(f"nic {i}" for i in range(len(per_nic))), title=name)
    for m in metrics.METRICS:
        cells = [metrics.value(r, m.path) for r in (report, *per_nic)]
        if show_all or any(c is not None for c in cells):
            table.add_row(m.path, m.unit, *map(_number, cells))
    sim = report["sim"]
    table.caption = (
        f"seed {sim['seed']} · {sim['packets']:,} packets · {sim['events']:,} events · "
        f"{sim['sim_time_ps'] / 1e9:g} ms simulated · engine {sim['engine_version']}"
        + _convergence(sim.get("convergence"))
    )
    return table


def _convergence(c: dict[str, Any] | None) -> str:
    """The caption's note on how a sim.until = converged run stopped."""
    if c is None:
        return ""
    err = " / ".join("unknown" if e < 0 else f"±{100 * e:.2g} %" for e in (c["throughput_rel_error"], c["latency_rel_error"]))
    how = "stopped early, converged" if c["converged"] else "did not converge"
    return f" · {how} after {c['batches']} batches ({c['measured_ps'] / 1e9:g} ms measured; throughput / latency {err})"


def _number(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, float) and abs(x) < 1e4:
        return f"{x:.4g}"
    return f"{x:,.0f}" if isinstance(x, (int, float)) else str(x)


@_command("scenarios")
def scenarios_cmd(json_: JsonFlag = False) -> None:
    """List the built-in scenarios."""
    described = scenario.builtin_descriptions()
    if json_:
        _print_json([{"name": n, "description": d} for n, d in described.items()])
    else:
        for name, description in described.items():
            typer.echo(_fill(f"{name} — {description}"))


def _fill(text: str, indent: str = "") -> str:
    """A line of a listing wrapped to the terminal (80 columns when not a terminal), never inside a word."""
    width = max(40, _console().width)
    return textwrap.fill(text, width, initial_indent=indent, subsequent_indent=indent + "  ", break_on_hyphens=False)


@_command("profiles")
def profiles_cmd(json_: JsonFlag = False) -> None:
    """List the hardware profiles (with --json: their values, sources and anchors)."""
    loaded = profiles.load_all()
    if json_:
        _print_json([p.to_json() for p in loaded])
    else:
        for p in loaded:
            typer.echo(_fill(f"{p.name} — {p.description}"))
            for a in p.anchors:
                typer.echo(_fill(f"anchor {a.key}: {a.paper} {', '.join(a.figures)} (those claims are shown, not scored)", indent="    "))


@_command("params")
def params_cmd(
    scenario_: Annotated[
        str | None, typer.Argument(metavar="[SCENARIO]", help="Show this scenario's values instead of the defaults.")
    ] = None,
    prefix: Annotated[
        str | None, typer.Argument(metavar="[PREFIX]", help="Only the parameters whose key starts with this (llc, dram.write).")
    ] = None,
    json_: JsonFlag = False,
) -> None:
    """List the parameters: key, unit, default (or the scenario's value) and doc.

    `params llc` lists the llc section's; `params l2fwd llc` shows l2fwd's values of them."""
    if prefix is None and scenario_ is not None and _is_key_prefix(scenario_):
        scenario_, prefix = None, scenario_
    rows = api.params(scenario_, prefix=prefix or "")
    if not rows:
        sections = sorted({d["key"].split(".")[0] for d in api.params()})
        raise ConfigError(f"no parameter key starts with {prefix!r}; sections are {', '.join(sections)}")
    if json_:
        _print_json(rows)
        return
    table = Table(title=scenario_)
    table.add_column("key", no_wrap=True)
    for column in ["unit", "value" if scenario_ else "default", *(["from"] if scenario_ else []), "doc"]:
        table.add_column(column)
    for p in rows:
        unit = "" if p["unit"] == "none" else p["unit"]
        kind = p["kind"]
        doc = p["doc"] + (f" (one of: {', '.join(kind['choice'])})" if isinstance(kind, dict) else "")
        cells = [p["key"], unit, value_text(p["value"]), *([p["origin"]] if scenario_ else []), doc]
        table.add_row(*map(Text, cells))  # Text, not markup: values and docs may contain [brackets]
    _console().print(table)


def _is_key_prefix(text: str) -> bool:
    """Whether `text` is no scenario (built-in or file) but starts some parameter's key."""
    if text in scenario.builtin_names() or Path(text).suffix == ".toml" or Path(text).exists():
        return False
    return any(d["key"].startswith(text) for d in api.params())


@_command("reproduce")
def reproduce_cmd(
    paper: Annotated[str, typer.Argument(metavar="PAPER", help="Paper to reproduce, e.g. ddio.")],
    json_: JsonFlag = False,
    out: Annotated[
        Path | None, typer.Option(parser=_folder, help="Write a report folder: claims.json, runs.json, claims.md, plots.")
    ] = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Worker processes (default: every core).")
    ] = None,
    store: Annotated[Path | None, typer.Option(parser=_folder, help="Results store: runs are appended; runs already stored are skipped.")] = None,
    scheduler: Annotated[str | None, typer.Option(metavar="ADDRESS", help="Dask scheduler instead of local processes.")] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit with code 1 unless every scored claim passes (fail or inconclusive: 1).")
    ] = False,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", metavar="KEY=VALUE", help="Override a parameter in every run, e.g. --set dram.model=controller (repeatable): the claims judged on a what-if."),
    ] = None,
) -> None:
    """Run a paper's scenarios and print each claim beside the paper's value."""
    claims = reproduce_paper(paper, jobs=jobs, out=out, store=store, scheduler=scheduler, set=set_)
    if json_:
        _print_json([c.to_json() for c in claims])
    else:
        console = _console()
        what_if = f" with {', '.join(set_)}" if set_ else ""
        console.print(claims_table(claims, title=f"{paper}: reproduced claims{what_if}", width=console.width))
    if out is not None:
        typer.echo(f"report written to {out}", err=True)
    if strict and not all(c.verdict in ("pass", "anchor") for c in claims):
        raise typer.Exit(1)


@_command("bench")
def bench_cmd(
    json_: JsonFlag = False,
    repeat: Annotated[int, typer.Option(min=1, help="Runs per scenario; the median is reported.")] = 3,
    peers: Annotated[bool, typer.Option("--peers", help="Instead: the LLC model beside pycachesim on one trace.")] = False,
    soak: Annotated[bool, typer.Option("--soak", help="Instead: one long run at 200 Gbps, its memory sampled as it goes.")] = False,
    soak_time: Annotated[str, typer.Option(help="Simulated time of the --soak run.")] = "1s",
    set_sample: Annotated[
        int, typer.Option(min=1, help="Also run each scenario with llc.set_sample = N and report its speed-up and error.")
    ] = 1,
) -> None:
    """Measure simulation speed and memory on a fixed suite of scenarios."""
    if soak or peers:
        if soak:
            result = bench.soak(soak_time)
        else:
            from packetpath import peers as side_by_side

            result = side_by_side.cache_vs_pycachesim()
        if json_:
            _print_json(result)
        else:
            for key, value in result.items():
                _console().print(f"{key:36} {value:,.6g}" if isinstance(value, float) else f"{key:36} {value}")
        return
    results = bench.bench(repeat, set_sample=set_sample)
    if json_:
        _print_json(results)
        return
    import pandas as pd

    columns = ["packets / wall s", "sim time / wall", "× assumed gem5 pace", "events / wall s", "peak RSS MiB", "wall s (median)", "build s", "packets / s after build"]
    if set_sample > 1:
        columns += [f"1/{set_sample} sets: speed-up", "after build", "hit-rate error (pp)", "throughput error %", "p99 error %"]
    rows = []
    for r in results:
        cells = [
            _number(r["simulated_packets_per_wall_s"]),
            f"{r['real_time_ratio']:.3g}",
            f"{r['vs_full_system_sims']:.0f}",
            _number(r["events_per_wall_s"]),
            f"{r['peak_rss_mib']:.1f}",
            f"{r['wall_s_median']:.3f}",
            f"{r['build_s_median']:.3f}",
            _number(r["packets_per_run_s"]),
        ]
        if set_sample > 1:
            cells += [f"{r['sampled_speedup']:.2f}", f"{r['sampled_speedup_after_build']:.2f}", f"{r['sampled_hit_rate_error_pp']:.2f}",
                      f"{r['sampled_throughput_error_pct']:.2f}", f"{r['sampled_p99_error_pct']:.1f}"]
        rows.append([r["scenario"], *cells])
    _print_frame(pd.DataFrame(rows, columns=["scenario", *columns]))


StoreOpt = Annotated[Path, typer.Option("--store", parser=_folder, help="Results store: a directory of Parquet files.")]
DEFAULT_STORE = Path("results")


@_command("sweep")
def sweep_cmd(
    scenario_: ScenarioArg,
    grid: Annotated[
        list[str] | None,
        typer.Option("--grid", metavar="KEY=V1,V2,...", help="Values of one swept parameter (repeatable: the grid is every combination)."),
    ] = None,
    random: Annotated[int | None, typer.Option("--random", metavar="N", help="Run N random points of the grid (deterministic given --seed).")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", metavar="KEY=VALUE", help="Fix a parameter for every run (repeatable).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of every run, and of the --random draw.")] = None,
    scheduler: Annotated[str | None, typer.Option(metavar="ADDRESS", help="Dask scheduler (tcp://host:8786) instead of the local process pool.")] = None,
    store: StoreOpt = DEFAULT_STORE,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Local worker processes (default: every core).")] = None,
    flush_every: Annotated[float, typer.Option(min=0, metavar="SECONDS", help="Runs finishing within this long share one Parquet file (0: one file per run).")] = 1.0,
    json_: JsonFlag = False,
) -> None:
    """Simulate every point of a parameter grid; rows go to the results store as runs finish."""
    from packetpath.sweep import sweep as run_sweep

    df = run_sweep(scenario_, grid or [], set=set_, seed=seed, random=random, store=store, scheduler=scheduler, jobs=jobs, flush_s=flush_every)
    swept = df.attrs.get("swept", [])
    shown = df[["run_id", *swept, *_summary_metrics(df)]]
    if json_:
        typer.echo(shown.to_json(orient="records", indent=2))
    else:
        title = f"{scenario_}: {len(df)} runs, {df.attrs['new']} new, {df.attrs['stored']} already stored (store {store})"
        _print_frame(_short_ids(shown), title=title)


SUMMARY_METRICS = ("throughput_gbps", "drop_rate", "latency_ns.p99", "pcie_write_hit_rate", "pcie_read_hit_rate")


def _summary_metrics(df) -> list[str]:
    """What a sweep's table shows: a packet run's headline metrics, or the first five of
    the run kind's own (`mem_bench.latency_ns`, ...)."""
    kind = df["sim.kind"].iloc[0] if "sim.kind" in df.columns and len(df) else "packet"
    if kind == "packet":
        return list(SUMMARY_METRICS)
    prefix = "dpa." if kind == "dpa" else f"{kind}."
    return [m.path for m in metrics.METRICS if m.path.startswith(prefix) and m.path in df.columns][:5]


@_command("tune")
def tune_cmd(
    scenario_: ScenarioArg,
    space: Annotated[
        list[str] | None,
        typer.Option("--space", metavar="KEY=LOW..HIGH|V1,V2", help="A searched parameter: a whole-number range or a list of values (repeatable)."),
    ] = None,
    minimize: Annotated[list[str] | None, typer.Option("--minimize", metavar="KEY", help="Objective to minimise: a searched parameter or a metric (repeatable; the order is the priority).")] = None,
    maximize: Annotated[list[str] | None, typer.Option("--maximize", metavar="KEY", help="Objective to maximise, after the --minimize ones (repeatable).")] = None,
    constraint: Annotated[list[str] | None, typer.Option("--constraint", metavar="METRIC<VALUE", help="A trial is feasible when every constraint holds (<, <=, >, >=; repeatable).")] = None,
    trials: Annotated[int, typer.Option(min=1, help="Distinct points to simulate, counting those a resumed study already holds.")] = 40,
    batch: Annotated[int, typer.Option(min=1, help="Points the sampler proposes at a time (fixed, so a seed gives the same trials on any machine).")] = 4,
    set_: Annotated[list[str] | None, typer.Option("--set", metavar="KEY=VALUE", help="Fix a parameter for every trial (repeatable).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of every run and of the sampler.")] = 0,
    study: Annotated[str | None, typer.Option(metavar="PATH|URL", help="Optuna storage: an SQLite file or a database URL (default: STORE/tune.db).")] = None,
    study_name: Annotated[str | None, typer.Option(metavar="NAME", help="Study name in that storage (default: tune-SCENARIO).")] = None,
    scheduler: Annotated[str | None, typer.Option(metavar="ADDRESS", help="Dask scheduler (tcp://host:8786) instead of the local process pool.")] = None,
    store: StoreOpt = DEFAULT_STORE,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Trials run at once (default: every core).")] = None,
    plot: Annotated[Path | None, typer.Option(metavar="STEM", help="Also draw the trials and the frontier to STEM.png and STEM.svg.")] = None,
    json_: JsonFlag = False,
) -> None:
    """Search parameters for a goal (Optuna): the best point and the frontier; every trial goes to the results store."""
    from packetpath.tune import tune

    result = tune(scenario_, space or [], minimize=minimize or [], maximize=maximize or [], constraints=constraint or [],
                  trials=trials, batch=batch, set=set_, seed=seed, store=store, study=study, study_name=study_name,
                  scheduler=scheduler, jobs=jobs)
    if plot is not None:
        from packetpath.plots import plot_tune

        plot_tune(result, plot)
    if json_:
        _print_json(result)
        return
    import pandas as pd

    keys = [o["key"] for o in result["objectives"]]

    def row(t: dict[str, Any]) -> dict[str, Any]:
        return {**t["point"], **{f"{k} (objective)": t["values"][k] for k in keys if k not in t["point"]},
                **{k: v for k, v in t["constrained"].items() if k not in keys}, "run_id": t["run_id"][:8]}

    goal = ", ".join(f"{o['direction']} {o['key']}" for o in result["objectives"])
    where = f"study {result['study']['name']} in {result['study']['storage'] or 'memory'}"
    if result["frontier"]:
        _print_frame(pd.DataFrame([row(t) for t in result["frontier"]]),
                     title=f"{scenario_}: frontier ({goal}; {', '.join(result['constraints']) or 'no constraint'})")
    best = result["best"]
    if best:
        typer.echo(f"best: {' '.join(f'{k}={v}' for k, v in best['point'].items())} (run {best['run_id'][:8]})")
    else:
        typer.echo(f"no trial met {', '.join(result['constraints'])}")
        if result.get("closest"):
            c = result["closest"]
            got = ", ".join(f"{k} = {_number(v) if v is not None else 'none'}" for k, v in c["constrained"].items())
            typer.echo(f"closest: {' '.join(f'{k}={v}' for k, v in c['point'].items())} ({got}; run {c['run_id'][:8]})")
    search = result["search"]
    if search["exhaustive"]:
        typer.echo(textwrap.fill(f"exhaustive: all {search['space']} points of the space tried, so the answer is proven "
                                 f"(for this scenario and seed); {where}", 80, subsequent_indent="  "))
    else:
        from packetpath.tune import axis_values, parse_space

        grid = " ".join(f"--grid {k}={','.join(_grid_item(v) for v in axis_values(spec))}" for k, spec in parse_space(space or []).items())
        fixed = "".join(f" --set {x}" for x in set_ or []) + f" --seed {seed}"
        typer.echo(textwrap.fill(f"a search, not a proof: {search['tried']} of {search['space']} points tried; "
                                 f"confirm with: packetpath sweep {scenario_} {grid}{fixed}; {where}", 80, subsequent_indent="  "))


def _grid_item(v: Any) -> str:
    """A value as --grid writes it (a list's items joined by +)."""
    return "+".join(value_text(x) for x in v) if isinstance(v, list) else value_text(v)


def _short_ids(df: Any) -> Any:
    """A run id's first 8 hex digits tell runs apart in a table (JSON keeps them whole)."""
    return df.assign(run_id=df["run_id"].str[:8])


def _cell(v: Any) -> str:
    if hasattr(v, "strftime"):  # a timestamp: to the second (NaT and dates past pandas' range as text)
        try:
            return v.strftime("%Y-%m-%d %H:%M:%S")
        except (ValueError, NotImplementedError):
            return str(v)
    return str(v) if isinstance(v, (str, int)) else _number(v)


def _print_frame(df: Any, title: str = "") -> None:
    console = _console()
    console.print(_frame_table(df, title, width=console.width))


def _frame_table(df: Any, title: str, width: int) -> Any:
    """A DataFrame as a table, or, when the table would not fit ``width``
    columns without splitting its cells, one block per row: its first
    column and cell, then "column value" pairs packed into lines, never split."""
    cells = [[_cell(v) for v in row] for row in df.itertuples(index=False)]
    columns = [str(c) for c in df.columns]
    natural = 1 + sum(3 + max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns))
    if natural <= width:
        table = Table(title=title or None)
        for column in columns:
            table.add_column(column, overflow="fold")
        for row in cells:
            table.add_row(*map(Text, row))
        return table
    from rich.console import Group

    # each block opens with its first column's name and value
    lead = len(columns[0]) + 1 + max(len(r[0]) for r in cells) + 2 if cells else 2
    out = [Text(title, style="bold")] if title else []
    for row in cells:
        # "column value" pairs, packed greedily; a pair never splits
        line, fresh = f"{columns[0] + ' ' + row[0]:<{lead}}", True
        for pair in (f"{c} {v}" for c, v in zip(columns[1:], row[1:], strict=True)):
            if not fresh and len(line) + 3 + len(pair) > width:
                out.append(Text(line))
                line, fresh = " " * lead, True
            line += pair if fresh else "   " + pair
            fresh = False
        out.append(Text(line))
    return Group(*out)


results_app = typer.Typer(no_args_is_help=True, help="Query the results store (DuckDB over its Parquet files; the view is `runs`).")
app.add_typer(results_app, name="results")


@_command("show", results_app)
def results_show_cmd(
    store: StoreOpt = DEFAULT_STORE,
    limit: Annotated[int, typer.Option(min=1, help="Rows to show (the most recent).")] = 20,
    json_: JsonFlag = False,
) -> None:
    """Summarise the store and show its most recent runs."""
    from packetpath.store import Store

    s = Store.existing(store)
    df = s.query(
        'SELECT run_id, scenario, name, seed, engine_version, throughput_gbps, "latency_ns.p99", '
        f"pcie_write_hit_rate, wall_s, finished_at FROM runs ORDER BY finished_at DESC LIMIT {limit}"
    )
    if json_:
        typer.echo(df.to_json(orient="records", indent=2, date_format="iso"))
        return
    total = int(s.query("SELECT count(*) AS n FROM runs")["n"][0])
    _print_frame(_short_ids(df), title=f"store {store}: {total} runs in {len(s.files())} files")


@_command("query", results_app)
def results_query_cmd(
    sql: Annotated[str, typer.Argument(metavar="SQL", help='e.g. \'SELECT "traffic.size", avg(throughput_gbps) FROM runs GROUP BY 1\'')],
    store: StoreOpt = DEFAULT_STORE,
    json_: JsonFlag = False,
) -> None:
    """Run SQL over the view `runs` (one row per run; dotted columns in double quotes)."""
    from packetpath.store import Store

    df = Store.existing(store).query(sql)
    if json_:
        typer.echo(df.to_json(orient="records", indent=2, date_format="iso"))
    else:
        _print_frame(df)


@_command("plot")
def plot_cmd(
    metric: Annotated[str, typer.Argument(metavar="METRIC", help="Metric column, e.g. throughput_gbps or latency_ns.p99.")],
    x: Annotated[str, typer.Option("--x", metavar="KEY", help="Parameter on the x axis.")],
    by: Annotated[str | None, typer.Option("--by", metavar="KEY", help="One line per value of this parameter (heatmap: the y axis).")] = None,
    kind: Annotated[str, typer.Option(help="line, scatter or heatmap.")] = "line",
    where: Annotated[str | None, typer.Option(metavar="SQL", help="Condition on the runs, e.g. '\"cpu.cores\" = 2'; a comparison's value may carry its unit ('\"traffic.rate\" >= 25Gbps').")] = None,
    store: StoreOpt = DEFAULT_STORE,
    out: Annotated[Path, typer.Option(metavar="STEM", help="Output path without extension; writes STEM.png and STEM.svg.")] = Path("plot"),
) -> None:
    """Plot a metric against a parameter from the results store (PNG and SVG)."""
    from packetpath.plots import plot_store
    from packetpath.store import writable_folder

    if not str(out).strip() or out.name in ("", ".", ".."):
        raise ConfigError(f"--out '{out}': give a file stem, e.g. plots/throughput")
    writable_folder(out.parent, f"--out {out}: its folder", "--out")
    for path in plot_store(store, metric, x, by=by, kind=kind, where=where, out=out):
        typer.echo(str(path))


@_command("report")
def report_cmd(
    out: Annotated[Path, typer.Option(parser=_folder, help="Folder of the report; the page is OUT/index.html.")] = Path("out/report"),
    from_: Annotated[
        list[Path] | None,
        typer.Option("--from", metavar="DIR", help="A `reproduce --out` folder to read (repeatable); without it the papers are reproduced into OUT."),
    ] = None,
    paper: Annotated[list[str] | None, typer.Option(help="Papers to reproduce when no --from is given (default: all).")] = None,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Worker processes (default: every core).")] = None,
    store: Annotated[Path | None, typer.Option(help="Alone: report on this results store (a sweep's), one chart per metric against the swept parameters. With --paper: the store of the reproduced runs (resumable).")] = None,
) -> None:
    """Write one offline HTML page: every reproduced figure as a chart beside its claims, or a sweep store's metrics."""
    from packetpath import htmlreport, sweepreport
    from packetpath.store import writable_folder

    writable_folder(out, f"--out {out}", "--out")  # before any paper is reproduced into it
    if store is not None and not from_ and not paper:
        path = sweepreport.build(store, out)
    else:
        path = htmlreport.build(out, folders=from_ or [], papers=paper or [], jobs=jobs, store=store)
    typer.echo(str(path))


@_command("cluster")
def cluster_cmd(
    kind: Annotated[str, typer.Argument(metavar="KIND", help="Batch system: slurm or pbs.")],
    jobs: Annotated[int, typer.Option(min=1, help="Batch jobs to submit.")] = 1,
    cores: Annotated[int, typer.Option(min=1, help="Cores per job: one single-threaded Dask worker each.")] = 1,
    memory: Annotated[str, typer.Option(metavar="SIZE", help="Memory per job (16GB, 64GiB), shared by its workers.")] = "4GB",
    walltime: Annotated[str, typer.Option(metavar="HH:MM:SS", help="Wall time of each job.")] = "01:00:00",
    queue: Annotated[str | None, typer.Option(help="Partition (Slurm) or queue (PBS).")] = None,
    account: Annotated[str | None, typer.Option(help="Account to charge.")] = None,
    prologue: Annotated[list[str] | None, typer.Option(metavar="CMD", help="Shell line run before the workers start, e.g. 'source /shared/venv/bin/activate' (repeatable).")] = None,
    python: Annotated[str | None, typer.Option(help="Python the jobs run (default: this one; 'python' after a --prologue that activates a venv).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the job script and submit nothing.")] = False,
) -> None:
    """Start Dask workers as batch jobs (dask-jobqueue); sweeps and reproductions reach them with --scheduler."""
    import time

    from packetpath.cluster import batch_cluster

    cluster = batch_cluster(kind, cores=cores, memory=memory, walltime=walltime, queue=queue, account=account,
                            prologue=prologue, python=python)
    submit = {"slurm": "sbatch", "pbs": "qsub"}[kind]
    if not dry_run and shutil.which(submit) is None:  # jobqueue would say "submitted" and wait for jobs that never come
        cluster.close()
        raise ConfigError(f"cluster {kind}: {submit} not found on PATH; run this on the cluster's login node "
                          "(--dry-run prints the job script anywhere)")
    try:
        if dry_run:
            typer.echo(cluster.job_script())
            return
        cluster.scale(jobs=jobs)
        typer.echo(f"scheduler at {cluster.scheduler_address}: {jobs} job(s) of {cores} worker(s) submitted")
        typer.echo(f"  packetpath sweep SCENARIO --grid ... --scheduler {cluster.scheduler_address}")
        typer.echo("Ctrl-C cancels the jobs.")
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        typer.echo("jobs cancelled", err=True)
    finally:
        cluster.close()
