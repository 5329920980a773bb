"""Failures a hostile user or a crash produces, each refused or survived: the
results store (junk part files, concurrent writers, read-only), workers that
outlive their parent, Ctrl-C, and bad input through the CLI and Python."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import PACKETPATH
from packetpath import api
from packetpath.errors import ConfigError
from packetpath.store import Store, StoreWarning
from packetpath.sweep import sweep

SHORT = {"sim.duration": "60us", "sim.warmup": "20us"}
GRID = {"traffic.size": [64, 1500], "cpu.cores": [1, 2]}


def raw_run_ids(store: Path) -> list[str]:
    """Every run id in the part files, read past the store's own view."""
    return [i for f in sorted(store.glob("part-*.parquet")) for i in pq.read_table(f, columns=["run_id"]).column("run_id").to_pylist()]


def test_junk_empty_and_truncated_part_files_are_quarantined(tmp_path, shell):
    store = tmp_path / "s"
    sweep("l2fwd", GRID, set=SHORT, jobs=1, store=store, progress=False, flush_s=0)
    good = sorted(store.glob("part-*.parquet"))
    (store / "part-junk.parquet").write_bytes(b"not parquet at all")
    (store / "part-empty.parquet").write_bytes(b"")
    (store / "part-truncated.parquet").write_bytes(good[0].read_bytes()[:-40])
    with pytest.warns(StoreWarning, match="part-empty.parquet is not readable Parquet"):
        rows = Store(store).rows()
    assert len(rows) == 4  # every good row kept
    assert sorted(p.name for p in (store / ".quarantine").iterdir()) == ["part-empty.parquet", "part-junk.parquet", "part-truncated.parquet"]
    (store / "part-junk2.parquet").write_bytes(b"\x00" * 100)
    out = shell("results", "show", "--store", str(store))
    assert out.code == 0 and out.stderr.startswith("warning: store ") and "part-junk2.parquet is not readable Parquet" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    again = sweep("l2fwd", GRID, set=SHORT, jobs=1, store=store, progress=False, run=_must_not_run)
    assert len(again) == 4  # nothing re-run: the good rows were found


def _must_not_run(values: dict) -> dict:
    raise AssertionError("a stored run ran again")


def test_two_sweeps_into_one_store_at_once_write_each_run_once(tmp_path):
    store = tmp_path / "s"
    cmd = [str(PACKETPATH), "sweep", "l2fwd", "--grid", "traffic.size=64,256,1024,1500", "--grid", "cpu.cores=1,2",
           "--set", "sim.duration=60us", "--set", "sim.warmup=20us", "--jobs", "1", "--flush-every", "0", "--store", str(store)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        assert p.wait(timeout=300) == 0, p.stderr.read()
    ids = raw_run_ids(store)
    assert len(ids) == 8 and len(set(ids)) == 8, ids  # no duplicate written, none lost
    assert len(Store(store).rows()) == 8


def test_an_unwritable_store_is_refused_before_anything_runs(tmp_path):
    if os.geteuid() == 0:  # root writes anywhere chmod allows nothing: use a filesystem that refuses everyone
        store = Path("/proc/packetpath-store")
    else:
        (tmp_path / "ro").mkdir(mode=0o555)
        store = tmp_path / "ro" / "s"
    with pytest.raises(ConfigError, match=r"store .*: not writable"):
        sweep("l2fwd", GRID, set=SHORT, jobs=1, store=store, progress=False, run=_must_not_run)


def test_workers_exit_when_the_sweep_is_killed(tmp_path):
    cmd = [str(PACKETPATH), "sweep", "l2fwd", "--grid", "traffic.size=64,128,256,512,1024,1500", "--grid", "cpu.cores=1,2",
           "--set", "sim.duration=20ms", "--jobs", "2", "--store", str(tmp_path / "s")]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while not _children(p.pid) and time.time() < deadline:
        time.sleep(0.05)
    workers = _children(p.pid)
    assert workers, "the pool never started"
    p.kill()
    p.wait()
    deadline = time.time() + 10
    while any(_alive(w) for w in workers) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers), "workers outlived their parent"


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_ctrl_c_keeps_finished_runs_and_says_how_to_resume(tmp_path):
    store = tmp_path / "s"
    cmd = [str(PACKETPATH), "sweep", "l2fwd", "--grid", "traffic.size=64,128,256,512,1024,1500", "--grid", "cpu.cores=1,2",
           "--set", "sim.duration=100ms", "--jobs", "2", "--flush-every", "1000", "--store", str(store)]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(4)  # some runs finish; with flush-every 1000 none is written yet
    os.killpg(p.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group, workers included
    err = p.communicate(timeout=60)[1]
    assert p.returncode == 130, err
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("interrupted: "), err
    stored = len(Store(store).rows())
    assert stored > 0 and f"{stored} of 12 runs stored" in lines[0] and "run the same command again to resume" in lines[0]
