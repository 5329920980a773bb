"""The ``packetpath`` command: one sub-command per noun.

    packetpath run SCENARIO [--set KEY=VALUE ...] [--seed N] [--json]
    packetpath scenarios | profiles | params [SCENARIO]
    packetpath reproduce PAPER [--json] [--out DIR] [--jobs N]
    packetpath bench [--json] [--repeat N]

Bad input — an unknown key or name, a bad unit or value, a missing or
malformed file — prints one line ``error: ...`` on stderr and exits 2. An
engine failure prints ``engine error: ...`` and exits 3. No traceback.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from packetpath import api, bench, metrics, profiles, scenario
from packetpath.errors import ConfigError, EngineError
from packetpath.reproduce import reproduce as reproduce_paper
from packetpath.reproduce import rich_table as claims_table

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Simulate the server network I/O path: wire, NIC, PCIe, LLC/DDIO, DRAM, cores.",
)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
ScenarioArg = Annotated[
    str,
    typer.Argument(
        metavar="SCENARIO", help="Built-in scenario name (see `packetpath scenarios`) or path of a .toml file."
    ),
]


def main() -> None:
    app()


def _command(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a sub-command whose expected failures become one line and an exit code."""

    def register(fn: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> None:
            try:
                fn(*args, **kwargs)
            except (typer.Exit, typer.Abort, typer.BadParameter, BrokenPipeError):
                raise
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

        return app.command(name)(wrapper)

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
) -> None:
    """Simulate one scenario and print its report."""
    report = api.run(scenario_, set=set_, seed=seed)
    if json_:
        _print_json(report)
    else:
        _console().print(_report_table(scenario_, report))


def _report_table(name: str, report: dict[str, Any]) -> Table:
    nics = report.get("per_nic", [])
    per_nic = nics if len(nics) > 1 else []
    table = Table("metric", "unit", "total", *(f"nic {i}" for i in range(len(per_nic))), title=name)
    for m in metrics.METRICS:
        cells = [metrics.value(r, m.path) for r in (report, *per_nic)]
        table.add_row(m.path, m.unit, *map(_number, cells))
    sim = report["sim"]
    table.caption = (
        f"seed {sim['seed']} · {sim['packets']:,} packets · {sim['events']:,} events · "
        f"{sim['sim_time_ps'] / 1e9:g} ms simulated · engine {sim['engine_version']}"
    )
    return table


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
            typer.echo(f"{name} — {description}")


@_command("profiles")
def profiles_cmd(json_: JsonFlag = False) -> None:
    """List the hardware profiles (with --json: their values and sources)."""
    loaded = profiles.load_all()
    if json_:
        _print_json([p.to_json() for p in loaded])
    else:
        for p in loaded:
            typer.echo(f"{p.name} — {p.description}")


@_command("params")
def params_cmd(
    scenario_: Annotated[
        str | None, typer.Argument(metavar="[SCENARIO]", help="Show this scenario's values instead of the defaults.")
    ] = None,
    json_: JsonFlag = False,
) -> None:
    """List every parameter: key, unit, default (or the scenario's value) and doc."""
    rows = api.params(scenario_)
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
        cells = [p["key"], unit, _text(p["value"]), *([p["origin"]] if scenario_ else []), doc]
        table.add_row(*map(Text, cells))  # Text, not markup: values and docs may contain [brackets]
    _console().print(table)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ",".join(map(_text, value)) or "[]"
    return str(value)


@_command("reproduce")
def reproduce_cmd(
    paper: Annotated[str, typer.Argument(metavar="PAPER", help="Paper to reproduce, e.g. ddio.")],
    json_: JsonFlag = False,
    out: Annotated[
        Path | None, typer.Option(help="Write a report folder: claims.json, runs.json, claims.md, plots.")
    ] = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Worker processes (default: every core).")
    ] = None,
) -> None:
    """Run a paper's scenarios and print each claim beside the paper's value."""
    claims = reproduce_paper(paper, jobs=jobs, out=out)
    if json_:
        _print_json([c.to_json() for c in claims])
    else:
        _console().print(claims_table(claims, title=f"{paper}: reproduced claims"))
    if out is not None:
        typer.echo(f"report written to {out}", err=True)


@_command("bench")
def bench_cmd(
    json_: JsonFlag = False,
    repeat: Annotated[int, typer.Option(min=1, help="Runs per scenario; the median is reported.")] = 3,
    peers: Annotated[bool, typer.Option("--peers", help="Instead: the LLC model beside pycachesim on one trace.")] = False,
) -> None:
    """Measure simulation speed and memory on a fixed suite of scenarios."""
    if peers:
        from packetpath import peers as side_by_side

        result = side_by_side.cache_vs_pycachesim()
        if json_:
            _print_json(result)
        else:
            for key, value in result.items():
                _console().print(f"{key:36} {value:,.6g}" if isinstance(value, float) else f"{key:36} {value}")
        return
    results = bench.bench(repeat)
    if json_:
        _print_json(results)
        return
    table = Table()
    table.add_column("scenario", no_wrap=True)
    for column in ("packets / wall s", "sim time / wall", "events / wall s", "peak RSS MiB", "wall s (median)"):
        table.add_column(column, justify="right")
    for r in results:
        table.add_row(
            r["scenario"],
            _number(r["simulated_packets_per_wall_s"]),
            f"{r['real_time_ratio']:.3g}",
            _number(r["events_per_wall_s"]),
            f"{r['peak_rss_mib']:.1f}",
            f"{r['wall_s_median']:.3f}",
        )
    _console().print(table)
