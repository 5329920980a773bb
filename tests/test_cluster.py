"""Beyond one machine: a sweep and a tune on Dask workers that a separate
`dask scheduler` and `dask worker` pair serve (as on a cluster, on loopback here: the
`scheduler` fixture of conftest.py), and the batch jobs `packetpath cluster` would submit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
SWEEP = ["sweep", "l2fwd", "--grid", "traffic.size=64,1500", "--set", "sim.duration=40us", "--set", "sim.warmup=20us", "--json"]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "packetpath"), *args], capture_output=True, text=True, timeout=300)


def test_a_sweep_on_a_separate_scheduler_and_worker_gives_the_local_rows(tmp_path, scheduler):
    remote = cli(*SWEEP, "--scheduler", scheduler, "--store", str(tmp_path / "remote"))
    local = cli(*SWEEP, "--jobs", "1", "--store", str(tmp_path / "local"))
    assert remote.returncode == 0, remote.stderr
    assert local.returncode == 0, local.stderr
    rows = json.loads(remote.stdout)
    assert len(rows) == 2 and rows == json.loads(local.stdout)


def test_a_tune_on_the_cluster_gives_the_local_trials(tmp_path, scheduler):
    tune = ["tune", "l2fwd", "--space", "cpu.cores=1..2", "--space", "llc.ddio_ways=1..3", "--minimize", "cpu.cores",
            "--constraint", "drop_rate<0.5", "--trials", "3", "--set", "sim.duration=40us", "--set", "sim.warmup=20us", "--json"]
    remote = cli(*tune, "--scheduler", scheduler, "--store", str(tmp_path / "remote"))
    local = cli(*tune, "--jobs", "1", "--store", str(tmp_path / "local"))
    assert remote.returncode == 0, remote.stderr
    assert local.returncode == 0, local.stderr
    trials = lambda r: json.loads(r.stdout)["trials"]  # noqa: E731
    assert trials(remote) == trials(local) and len(trials(local)) >= 3


def test_cluster_dry_run_prints_the_slurm_job_it_would_submit():
    r = cli("cluster", "slurm", "--cores", "8", "--memory", "32GB", "--walltime", "02:00:00", "--queue", "long",
            "--prologue", "source /shared/pp/bin/activate", "--python", "python", "--dry-run")
    assert r.returncode == 0, r.stderr
    script = r.stdout
    for line in ("#SBATCH -p long", "#SBATCH --cpus-per-task=8", "#SBATCH -t 02:00:00", "source /shared/pp/bin/activate"):
        assert line in script, script
    # one single-threaded worker per core, run by the venv's python
    worker = next(x for x in script.splitlines() if "dask_worker" in x)
    assert worker.startswith("python -m") and "--nworkers 8" in worker and "--nthreads 1" in worker, worker


@pytest.mark.parametrize("args, message", [
    (["lsf"], "cluster kind 'lsf': expected one of slurm, pbs"),
    (["slurm", "--walltime", "2h"], "--walltime = '2h': expected HH:MM:SS"),
    (["slurm", "--memory", "lots"], "--memory = 'lots': expected a size"),
    (["slurm", "--memory", "1e400"], "--memory = '1e400': expected a size"),  # (an infinite float: the fuzz test found it)
])
def test_cluster_bad_input_is_one_line_and_exit_2(args, message):
    r = cli("cluster", *args, "--dry-run")
    assert r.returncode == 2 and r.stderr.startswith(f"error: {message}"), r.stderr
    assert "Traceback" not in r.stderr


def test_a_stopped_sweep_stops_its_runs_on_the_workers(tmp_path, scheduler):
    """A run the sweep no longer wants stops computing: the worker (one thread)
    takes the next sweep's run at once instead of after the abandoned run's minutes."""
    long = subprocess.Popen([str(BIN / "packetpath"), "sweep", "l2fwd", "--grid", "traffic.size=1500", "--set", "sim.duration=3s",
                             "--scheduler", scheduler, "--store", str(tmp_path / "long")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(8)  # the long run is computing on the only worker thread
    os.killpg(long.pid, signal.SIGINT)
    assert long.wait(timeout=60) == 130, long.stderr.read()
    start = time.time()
    short = cli(*SWEEP, "--scheduler", scheduler, "--store", str(tmp_path / "short"))
    assert short.returncode == 0, short.stderr
    assert time.time() - start < 60, time.time() - start
