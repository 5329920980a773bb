"""Dask workers on a batch cluster, for sweeps and reproductions beyond one
machine (``--scheduler``).

dask-jobqueue does the work: it starts a Dask scheduler where it is called
(a login node), and submits batch jobs that each start one single-threaded
worker per core (a task is one whole simulation). Compute nodes need
packetpath importable by the job's Python: a virtualenv on shared storage
with the wheel of ``make wheel`` installed (no Rust toolchain needed there),
activated by ``--prologue``.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from packetpath.errors import ConfigError

KINDS = {"slurm": "SLURMCluster", "pbs": "PBSCluster"}
_WALLTIME = re.compile(r"\d+:[0-5]\d:[0-5]\d")


def batch_cluster(kind: str, *, cores: int, memory: str, walltime: str, queue: str | None = None,
                  account: str | None = None, prologue: list[str] | None = None, python: str | None = None) -> Any:
    """A dask-jobqueue cluster whose every job runs ``cores`` one-thread workers
    sharing ``memory``; no job is submitted until it is scaled."""
    if kind not in KINDS:
        raise ConfigError(f"cluster kind '{kind}': expected one of {', '.join(KINDS)}")
    if cores < 1:
        raise ConfigError(f"--cores = {cores}: must be at least 1")
    if not _WALLTIME.fullmatch(walltime):
        raise ConfigError(f"--walltime = '{walltime}': expected HH:MM:SS (e.g. 01:30:00)")
    try:
        from dask.utils import parse_bytes

        size = parse_bytes(memory)
    except (ValueError, TypeError, OverflowError):  # ("1e400" is an infinite float)
        raise ConfigError(f"--memory = '{memory}': expected a size such as 16GB or 64GiB") from None
    if size < 2**20 * cores:
        raise ConfigError(f"--memory = '{memory}': too little for {cores} worker(s); give at least 1MB per core, e.g. 4GB")
    # A job-script field holds one line: a newline would inject a command into the script.
    for option, value in (("--queue", queue), ("--account", account), ("--python", python), *(("--prologue", p) for p in prologue or [])):
        if value is not None and ("\n" in value or "\r" in value or not value.strip()):
            raise ConfigError(f"{option} = {value!r}: must be one non-empty line")
    try:
        import dask_jobqueue
    except ImportError:
        raise ConfigError("packetpath cluster needs dask-jobqueue: pip install 'packetpath[cluster]'") from None
    return getattr(dask_jobqueue, KINDS[kind])(
        cores=cores,
        processes=cores,  # one process per core, one thread each: the engine runs a simulation per task
        memory=memory,
        walltime=walltime,
        queue=queue,
        account=account,
        job_script_prologue=list(prologue or []),
        python=python or sys.executable,
        scheduler_options={"dashboard_address": None},
    )
