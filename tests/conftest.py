"""Shared fixtures: the CLI in-process (typer's CliRunner) and as a real
subprocess of the installed ``packetpath`` script."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

import fakepaper
from packetpath.cli import app

PACKETPATH = Path(sys.executable).with_name("packetpath")


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str


def _runner() -> CliRunner:
    try:  # click < 8.2 mixes stderr into stdout unless told not to
        return CliRunner(mix_stderr=False)
    except TypeError:
        return CliRunner()


@pytest.fixture
def cli():
    """``cli("run", "l2fwd", env={...})`` -> Outcome, in this process."""
    runner = _runner()

    def invoke(*args: str, env: dict[str, str] | None = None) -> Outcome:
        r = runner.invoke(app, list(args), env=env)
        return Outcome(r.exit_code, r.stdout, r.stderr)

    return invoke


@pytest.fixture
def shell():
    """``shell("run", "l2fwd")`` -> Outcome, as a subprocess of the installed script."""

    def invoke(*args: str) -> Outcome:
        p = subprocess.run([str(PACKETPATH), *args], capture_output=True, text=True, timeout=600)
        return Outcome(p.returncode, p.stdout, p.stderr)

    return invoke


@pytest.fixture
def bad_toml(tmp_path: Path) -> Path:
    """A scenario file with a TOML syntax error on line 3."""
    path = tmp_path / "broken.toml"
    path.write_text('description = "broken"\n[traffic]\nrate = 100Gbps\n')
    return path


@pytest.fixture
def fake_paper(monkeypatch):
    """``fake_paper(scenarios)`` installs the test paper module and returns its name."""

    def install(scenarios: dict = fakepaper.SCENARIOS) -> str:
        monkeypatch.setitem(sys.modules, f"packetpath.reproduce.{fakepaper.PAPER}", fakepaper.module(scenarios))
        return fakepaper.PAPER

    return install


@pytest.fixture
def scheduler(tmp_path):
    """A `dask scheduler` and a `dask worker` of one process, each its own
    command as a batch job would start them; yields the scheduler's address."""
    file = tmp_path / "scheduler.json"
    procs = [subprocess.Popen([str(PACKETPATH.with_name("dask")), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(file)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        for _ in range(600):
            if file.exists() and file.stat().st_size > 0:
                break
            time.sleep(0.1)
        address = json.loads(file.read_text())["address"]
        procs.append(subprocess.Popen([str(PACKETPATH.with_name("dask")), "worker", "--scheduler-file", str(file), "--nworkers", "1", "--nthreads", "1",
                                       "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        from distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(1, timeout=120)
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
            p.wait(timeout=30)
