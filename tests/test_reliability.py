"""Failures a hostile user or a crash produces, each refused or survived: the
results store (junk part files, concurrent writers, read-only), workers that
outlive their parent, Ctrl-C, and bad input through the CLI and Python."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import PACKETPATH
import packetpath
from packetpath.errors import ConfigError
from packetpath.store import Store, StoreWarning
from packetpath.sweep import sweep

SHORT = {"sim.duration": "60us", "sim.warmup": "20us"}
GRID = {"traffic.size": [64, 1500], "cpu.cores": [1, 2]}


def raw_run_ids(store: Path) -> list[str]:
    """Every run id in the part files, read past the store's own view."""
    return [i for f in sorted(store.glob("part-*.parquet")) for i in pq.read_table(f, columns=["run_id"]).column("run_id").to_pylist()]


def test_reading_leaves_junk_in_place_and_a_writer_sets_it_aside(tmp_path, shell):
    store = tmp_path / "s"
    sweep("l2fwd", GRID, set=SHORT, jobs=1, store=store, progress=False, flush_s=0)
    good = sorted(store.glob("part-*.parquet"))
    (store / "part-junk.parquet").write_bytes(b"not parquet at all")
    (store / "part-empty.parquet").write_bytes(b"")
    (store / "part-truncated.parquet").write_bytes(good[0].read_bytes()[:-40])
    with pytest.warns(StoreWarning, match="part-empty.parquet is not a readable results file .* left out of this read, not moved"):
        rows = Store(store).rows()
    assert len(rows) == 4  # every good row kept
    assert not (store / ".quarantine").exists()  # a reader moves nothing
    (store / "part-junk2.parquet").write_bytes(b"\x00" * 100)
    out = shell("results", "show", "--store", str(store))
    assert out.code == 0 and out.stderr.startswith("warning: store ") and "is not a readable results file" in out.stderr
    assert not (store / ".quarantine").exists()
    again = sweep("l2fwd", GRID, set=SHORT, jobs=1, store=store, progress=False, run=_must_not_run)
    assert len(again) == 4  # nothing re-run: the good rows were found
    # a writer (a new run appended) sets aside what is proven not to be a results file
    sweep("l2fwd", {"traffic.size": [512]}, set=SHORT, jobs=1, store=store, progress=False)
    assert sorted(p.name for p in (store / ".quarantine").iterdir()) == [
        "part-empty.parquet", "part-junk.parquet", "part-junk2.parquet", "part-truncated.parquet"]
    assert len(Store(store).rows()) == 5
    # Parquet of another schema (someone else's file, a newer "engine_version" in it) is left out, not read as a newer store
    import pyarrow as pa

    pq.write_table(pa.table({"engine_version": ["4.0"], "x": [1]}), store / "part-foreign.parquet")
    with pytest.warns(StoreWarning, match="part-foreign.parquet is not a readable results file .no column 'run_id'"):
        Store(store).check_writable()
    assert (store / "part-foreign.parquet").exists()


def test_a_read_that_runs_out_of_memory_moves_nothing(tmp_path, monkeypatch):
    store = tmp_path / "s"
    sweep("l2fwd", GRID, set=SHORT, jobs=1, store=store, progress=False, flush_s=0)
    parts = sorted(store.glob("part-*.parquet"))

    def oom(*args, **kwargs):
        raise MemoryError("std::bad_alloc")

    monkeypatch.setattr("pyarrow.parquet.ParquetFile", oom)
    with pytest.warns(StoreWarning, match="left out of this read, not moved"):
        assert Store(store).rows() == []
    # even a writer moves only what is proven foreign or corrupt: a failed allocation proves nothing
    with pytest.warns(StoreWarning):
        Store(store).files(repair=True)
    monkeypatch.undo()
    assert sorted(store.glob("part-*.parquet")) == parts and len(Store(store).rows()) == 4


def test_a_fifo_a_read_only_store_and_a_quarantine_file_are_survived(tmp_path):
    store = tmp_path / "s"
    sweep("l2fwd", {"traffic.size": [64]}, set=SHORT, jobs=1, store=store, progress=False, flush_s=0)
    os.mkfifo(store / "part-fifo.parquet")  # opening it would block forever
    (store / "part-junk.parquet").write_bytes(b"junk")
    (store / ".quarantine").write_text("a file where the folder should be")
    with pytest.warns(StoreWarning, match="part-fifo.parquet is not a readable results file .not a regular file"):
        assert len(Store(store).rows()) == 1
    with pytest.warns(StoreWarning, match="part-junk.parquet .* left in place"):
        sweep("l2fwd", {"traffic.size": [128]}, set=SHORT, jobs=1, store=store, progress=False)
    assert (store / "part-junk.parquet").exists() and len(Store(store).rows()) == 2
    os.chmod(store, 0o555)
    try:
        with pytest.warns(StoreWarning):
            assert len(Store(store).rows()) == 2  # read-only: still readable
    finally:
        os.chmod(store, 0o755)


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
           "--set", "sim.duration=100ms", "--set", "dram.model=calendar", "--jobs", "2", "--flush-every", "1000",
           "--store", str(store)]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    # some runs finish (the first take ~2 s each on the calendar); with flush-every 1000 none is written yet
    time.sleep(6)
    os.killpg(p.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group, workers included
    err = p.communicate(timeout=60)[1]
    assert p.returncode == 130, err
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("interrupted: "), err
    stored = len(Store(store).rows())
    assert stored > 0 and f"{stored} of 12 runs stored" in lines[0] and "run the same command again to resume" in lines[0]


def test_ctrl_c_stops_a_long_single_run_at_once():
    # 2 simulated seconds take a minute or more; the engine checks for signals every 2^16 events
    p = subprocess.Popen([str(PACKETPATH), "run", "l2fwd", "--set", "sim.duration=2s"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(3)
    start = time.time()
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and time.time() - start < 5, err
    assert out == "" and err.replace("\r", "\n").strip().splitlines()[-1].startswith("interrupted"), err


@pytest.mark.parametrize("args", [
    ["nicmem-copy", "--set", "copy_bench.size=1000000000", "--set", "copy_bench.iterations=1000000"],
    ["dpa-kv", "--set", "dpa_bench.workload=latency", "--set", "dpa_bench.packets=100000000"],
    ["netdimm-latency", "--set", "netdimm.messages=10000000"],
], ids=["copy_bench", "dpa", "netdimm"])
def test_ctrl_c_stops_every_run_kind_at_once(args):
    p = subprocess.Popen([str(PACKETPATH), "run", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    time.sleep(3)
    assert p.poll() is None, p.communicate()  # still running: the run is long
    start = time.time()
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and time.time() - start < 5, err
    assert err.replace("\r", "\n").strip().splitlines()[-1].startswith("interrupted"), err


def test_ctrl_c_stops_a_long_flow_table_build():
    # 16 M flows preloaded into NAT's tables take seconds to build, before any event runs
    p = subprocess.Popen([str(PACKETPATH), "run", "nat", "--set", "traffic.flows=16000000", "--set", "app.flow_table_size=8388608",
                          "--set", "sim.duration=10us", "--set", "sim.warmup=10us"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    time.sleep(1.0)
    if p.poll() is not None:
        pytest.skip("this machine built 16 M flows in under a second")
    start = time.time()
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and time.time() - start < 2, err
    assert err.strip().splitlines()[-1].startswith("interrupted"), err


def test_a_dpa_run_too_big_for_memory_is_refused_with_its_estimate():
    import resource

    def limit() -> None:  # a 4 GiB address space, as `ulimit -v 4194304`
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    p = subprocess.run([str(PACKETPATH), "run", "dpa-kv", "--set", "dpa_bench.workload=latency", "--set", "dpa_bench.packets=1000000000"],
                       capture_output=True, text=True, timeout=120, preexec_fn=limit)
    assert p.returncode == 2 and p.stderr.startswith("error: dpa_bench.packets = 1000000000: ") and "per-packet records" in p.stderr, p.stderr


def test_progress_is_told_and_changes_nothing():
    short = {"sim.duration": "10ms", "sim.warmup": "1ms"}
    calls: list[float] = []
    seen = packetpath.run("l2fwd", set=short, progress=calls.append)
    assert len(calls) >= 3 and calls == sorted(calls) and 0 < calls[0] and calls[-1] <= 1, calls
    assert seen == packetpath.run("l2fwd", set=short)

    def stop(done: float) -> None:
        raise RuntimeError(f"stopped at {done:.2f}")

    with pytest.raises(RuntimeError, match="stopped at 0"):
        packetpath.run("l2fwd", set=short, progress=stop)


# -- bad input, by the hundred ---------------------------------------------------------

def _bad_value(d: dict) -> str | None:
    """A value of the parameter's own kind that is wrong for it, as --set text."""
    kind = d["kind"]
    if isinstance(kind, dict):
        return "not-a-choice"
    if kind == "bool" or kind == "bool_list":
        return "maybe"
    if kind in ("int", "float"):
        return "7parsecs" if d["unit"] not in ("none", "") else "-1e300"
    if kind in ("int_list", "float_list"):
        return "1,zz"
    return None  # free text: anything goes


def _bad_sets() -> list[tuple[str, str]]:
    from packetpath import schema

    out = [(d["key"], v) for d in schema.definitions() if (v := _bad_value(d)) is not None]
    out += [(d["key"][:-1] + "q", "1") for d in schema.definitions()[:40]]  # misspelt keys
    return out


BAD_SETS = _bad_sets()


def test_two_hundred_bad_values_are_refused_in_one_line_naming_the_key(cli):
    assert len(BAD_SETS) >= 250
    for key, value in BAD_SETS:
        out = cli("run", "l2fwd", "--set", f"{key}={value}")
        assert out.code == 2, (key, value, out.stdout[-300:], out.stderr)
        line = out.stderr.strip()
        assert line.startswith("error: ") and "\n" not in line, (key, line)
        assert key.split(".")[0] in line, (key, value, line)  # the key (or its did-you-mean) is named


def test_bad_values_through_python_are_config_errors():
    import packetpath

    for key, value in BAD_SETS[::5]:
        with pytest.raises(ConfigError) as e:
            packetpath.load_scenario("l2fwd", set=[f"{key}={value}"])
        assert "\n" not in str(e.value) and key.split(".")[0] in str(e.value)


def _deep(n: int) -> dict:
    d: dict = {"x": 1}
    for _ in range(n):
        d = {"a": d}
    return d


def _self_referencing() -> dict:
    d: dict = {"traffic": {}}
    d["traffic"]["loop"] = d
    return d


PYTHON_BAD = [
    (lambda p: p.run(123), "scenario 123"),
    (lambda p: p.run(None), "scenario None"),
    (lambda p: p.run([]), "scenario []"),
    (lambda p: p.run(b""), "scenario b''"),
    (lambda p: p.run(""), "empty"),
    (lambda p: p.run("l2fwd", set=123), "set = 123"),
    (lambda p: p.run("l2fwd", set=[None]), "set item None"),
    (lambda p: p.run(_self_referencing()), "nested more than"),
    (lambda p: p.run(_deep(3000)), "nested more than"),
    (lambda p: p.run({"traffic.size": 64, "traffic": {"size": 128}}), "traffic.size: given twice"),
    (lambda p: p.run({"traffic": {"size": float("nan")}}), "traffic.size = nan"),
    (lambda p: p.run({"traffic": {"rate": float("inf")}}), "traffic.rate = inf"),
    (lambda p: p.run({"nic": {"ddio": [True, float("nan")]}}), "nic.ddio"),
    (lambda p: p.run({"traffic": {"size": 64.5}}), "whole number of bytes"),
    (lambda p: p.run({"traffic": {"phase_at": ["1s"], "phase_rate": ["10Gbps"]}}), "at or after the run's end"),
    (lambda p: p.run({"sim": {"sample_period": "1ps"}}), "sim.sample_period"),
    (lambda p: p.run({"traffic": {"pcap": "trace.pcap"}}), "only read with traffic.size_dist = pcap"),
    (lambda p: p.Results("/no/such/store"), "no such directory"),
    (lambda p: p.sweep("l2fwd", grid=5), "grid = 5"),
    (lambda p: p.sweep("l2fwd", grid={"traffic.size": [64]}, jobs=-3), "jobs = -3"),
    (lambda p: p.sweep("l2fwd", grid={"traffic.size": [64]}, flush_s=float("nan")), "flush_s = nan"),
    (lambda p: p.sweep("l2fwd", grid={"traffic.size": list(range(1, 1001)), "cpu.cores": list(range(1, 1001)),
                                     "llc.ddio_ways": list(range(1000))}), "more than 1000000 simulations"),
]


@pytest.mark.parametrize(("call", "says"), PYTHON_BAD, ids=[s for _, s in PYTHON_BAD])
def test_python_bad_input_is_a_config_error(call, says):
    import packetpath

    with pytest.raises(ConfigError) as e:
        call(packetpath)
    assert says in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_a_malformed_profile_table_is_a_config_error():
    from packetpath.profiles import Profile

    for table in ([], {"description": "x", "values": 5}, {"description": "x", "values": {"a": 1}, "sources": "s"}):
        with pytest.raises(ConfigError, match="profile 'p'"):
            Profile.from_table("p", table)


def test_a_billion_point_grid_samples_without_building_it():
    from packetpath.sweep import tasks_for

    axes = {"traffic.size": list(range(64, 1064)), "cpu.cores": [1, 2] * 500, "app.nf_cycles": list(range(1, 1001))}
    tasks = tasks_for("l2fwd", axes, random=2, seed=3)
    assert len(tasks) == 2 and tasks == tasks_for("l2fwd", axes, random=2, seed=3)


def test_bad_files_are_refused_before_they_are_read(tmp_path, cli):
    binary = tmp_path / "binary.toml"
    binary.write_bytes(bytes(range(256)) * 4)
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * (2 << 20))
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.toml"
    zero.symlink_to("/dev/zero")
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    for path, says in ((binary, "not text"), (big, "limit"), (fifo, "not a regular file"), (zero, "not a regular file"),
                       (folder, "not a regular file")):
        out = cli("run", str(path))
        assert out.code == 2 and out.stderr.startswith(f"error: {path}: ") and says in out.stderr, out.stderr
    # a FIFO named as the pcap trace is refused, not waited on
    pcap = tmp_path / "trace.pcap"
    os.mkfifo(pcap)
    out = cli("run", "l2fwd", "--set", "traffic.size_dist=pcap", "--set", f"traffic.pcap={pcap}")
    assert out.code == 2 and "not a regular file" in out.stderr, out.stderr


@pytest.mark.parametrize("args", [
    ["sweep", "l2fwd", "--grid", "traffic.size=64", "--scheduler", "not a url"],
    ["run", "l2fwd", "--seed", "abc"],
    ["sweep", "l2fwd", "--grid", "traffic.size=64", "--jobs", "0"],
    ["sweep", "l2fwd", "--grid", "traffic.size=64", "--flush-every", "-1"],
    ["results", "show", "--limit", "0"],
    ["no-such-command"],
])
def test_usage_errors_are_one_line(shell, args):
    out = shell(*args)
    assert out.code == 2 and out.stderr.startswith("error: ") and len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_an_address_space_limit_is_honoured_before_anything_is_built():
    """Under `ulimit -v 3G` a scenario needing 4.7 GiB is refused with the
    estimate (exit 2), instead of aborting mid-build with a Rust backtrace."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    p = subprocess.run([str(PACKETPATH), "run", "nat", "--set", "app.flow_table_size=16777216", "--set", "sim.duration=10us"],
                       capture_output=True, text=True, preexec_fn=limit, timeout=120)
    assert p.returncode == 2, p.stderr[-2000:]
    assert p.stderr.startswith("error: app.flow_table_size = 16777216: the scenario needs about 4.7 GiB") and "more than the" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


SAMPLE_PCAP = Path(__file__).parents[1] / "crates/engine/tests/data/traffic/sample50.pcap"


def test_a_run_id_covers_the_contents_of_the_trace_it_replays(tmp_path, monkeypatch):
    from packetpath.sweep import make_task

    trace = tmp_path / "trace.pcap"
    trace.write_bytes(SAMPLE_PCAP.read_bytes())
    pcap = {"traffic.size_dist": "pcap", "traffic.pcap": str(trace)}
    before = make_task("t", "l2fwd", set=pcap).run_id
    assert make_task("t", "l2fwd", set=pcap).run_id == before
    data = bytearray(SAMPLE_PCAP.read_bytes())
    data[-1] ^= 0xFF  # the same file name, other contents
    trace.write_bytes(bytes(data))
    assert make_task("t", "l2fwd", set=pcap).run_id != before


def test_a_relative_trace_is_made_absolute_where_the_scenario_names_it(tmp_path, monkeypatch):
    from packetpath.scenario import resolve

    folder = tmp_path / "exp"
    folder.mkdir()
    (folder / "ok.pcap").write_bytes(SAMPLE_PCAP.read_bytes())
    (folder / "s.toml").write_text('profile = "ddio-skylake"\n[traffic]\nsize_dist = "pcap"\npcap = "ok.pcap"\n')
    monkeypatch.chdir(tmp_path)  # not the scenario's folder
    s = resolve("exp/s.toml")
    assert s.values["traffic.pcap"] == str(folder / "ok.pcap") and s.config["traffic.pcap"] == str(folder / "ok.pcap")
    # from --set (or a dict) a relative path is the working directory's
    assert resolve("l2fwd", set={"traffic.pcap": "exp/ok.pcap", "traffic.size_dist": "pcap"}).values["traffic.pcap"] == str(folder / "ok.pcap")


@pytest.mark.parametrize("out", ["", "/", "FILE"])
def test_a_bad_out_folder_is_refused_before_any_run(out, tmp_path, fake_paper):
    from packetpath.reproduce import reproduce

    if out == "FILE":
        out = tmp_path / "a-file"
        out.write_text("x")
    with pytest.raises(ConfigError, match="--out"):
        reproduce(fake_paper(), jobs=1, out=out, run=_must_not_run, progress=False)


@pytest.mark.parametrize("store", [123, "", "  "])
def test_a_store_that_is_no_path_is_a_config_error(store):
    with pytest.raises(ConfigError, match="store = "):
        sweep("l2fwd", GRID, set=SHORT, jobs=1, store=store, progress=False, run=_must_not_run)


def test_a_run_id_covers_the_engine_build(monkeypatch):
    from packetpath import store
    from packetpath.sweep import make_task

    assert store.ENGINE_BUILD  # the binding carries the digest of the model's sources
    before = make_task("t", "l2fwd").run_id
    monkeypatch.setattr(store, "ENGINE_BUILD", "another build")
    assert store.config_hash(make_task("t", "l2fwd").config) != before


def _jumbo_pcap(path: Path, frames: int = 20, size: int = 9000) -> Path:
    """A pcap of UDP frames of ``size`` bytes on the wire (only the headers captured)."""
    import struct

    eth = b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00"
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, size - 14, 0, 0, 64, 17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    udp = struct.pack("!HHHH", 1234, 80, size - 34, 0)
    head = eth + ip + udp
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    for i in range(frames):
        out += struct.pack("<IIII", 0, i, len(head), size) + head
    path.write_bytes(out)
    return path


def test_a_trace_of_jumbo_frames_meets_the_frame_size_check(tmp_path, cli):
    trace = _jumbo_pcap(tmp_path / "jumbo.pcap")
    with pytest.raises(ConfigError, match=r"traffic.pcap = .*jumbo.pcap: its largest frame is \d+ B; mempool.mbuf_size"):
        packetpath.run("l2fwd", set={**SHORT, "traffic.size_dist": "pcap", "traffic.pcap": str(trace)})
    out = cli("run", "l2fwd", "--set", "traffic.size_dist=pcap", "--set", f"traffic.pcap={trace}")
    assert out.code == 2 and out.stderr.startswith("error: traffic.pcap") and len(out.stderr.strip().splitlines()) == 1


def test_a_frame_needing_half_the_write_buffer_still_flows():
    # 4096 B frames take 65 of the 8 KiB write buffer's 128 lines: one frame's credits in flight at a time.
    # (A pump scheduled "in the past" once left the Rx path waiting for good: 0 Gbps, every frame dropped.)
    r = packetpath.run("l2fwd", set={"traffic.size": 4096, "mempool.mbuf_size": 10000, "nic.flow_control": False})
    assert 40 < r["throughput_gbps"] < 70 and r["pcie_flow"]["write_buffer_lines_max"] <= 130, r["throughput_gbps"]


def test_a_run_that_measured_no_access_reports_no_hit_rate():
    r = packetpath.run("l2fwd", set={"sim.warmup": "0ns", "sim.duration": "100ns"})
    assert r["pcie_write_hit_rate"] is None and r["pcie_read_hit_rate"] is None and r["llc_hit_rate_cpu"] is None


# Hostile input, round three: each one line `error: ...` and exit 2 before anything runs.
HOSTILE_CLI = [
    (("reproduce", "../../os"), "unknown paper '../../os'"),
    (("reproduce", "_runner"), "unknown paper '_runner'"),
    (("reproduce", "ddio.x"), "unknown paper"),
    (("cluster", "slurm", "--memory", "0GB", "--dry-run"), "--memory = '0GB'"),
    (("cluster", "slurm", "--walltime", "99:99:99", "--dry-run"), "--walltime = '99:99:99'"),
    (("cluster", "slurm", "--queue", "a\nb", "--dry-run"), "--queue = 'a\\nb': must be one non-empty line"),
    (("cluster", "slurm", "--prologue", "source x\nrm -rf ~", "--dry-run"), "--prologue"),
    (("sweep", "l2fwd", "--grid", "traffic.size=64", "--grid", "traffic.size=128"), "given twice"),
    (("sweep", "l2fwd", "--grid", "traffic.size=64,128", "--set", "traffic.size=256"), "both swept (--grid) and fixed (--set)"),
    (("sweep", "l2fwd", "--grid", "sim.seed=1,2,3", "--seed", "5"), "--grid sim.seed with --seed 5"),
    (("sweep", "l2fwd", "--grid", "sim.kind=packet,copy_bench"), "--grid sim.kind"),
    (("sweep", "l2fwd", "--grid", "traffic.size=64", "--jobs", "100000000000000000000"), "jobs = 100000000000000000000"),
    (("results", "query", "", "--store", "."), "query: empty"),
    (("results", "query", "SELECT * FROM range(3000000000)", "--store", "."), "query: more than 10000000 rows"),
    (("report", "--out", "/"), "a filesystem root"),
    (("report", "--out", "/proc/x"), "not writable"),
    (("plot", "throughput_gbps", "--x", "traffic.size", "--out", "/"), "--out '/': give a file stem"),
    (("plot", "throughput_gbps", "--x", "traffic.size", "--out", "/proc/x/y"), "not writable"),
    (("results", "query", "   ", "--store", "."), "query: empty"),
    (("tune", "l2fwd", "--space", "cpu.cores=1..2", "--maximize", "pcie_bench.gbps"), "does not report it"),
    (("tune", "l2fwd", "--space", "cpu.cores=1..2", "--space", "cpu.cores=3..4", "--minimize", "cpu.cores"), "given twice"),
    (("tune", "l2fwd", "--space", "cpu.cores=1..2", "--minimize", "cpu.cores", "--constraint", "dpa.gops>1"), "does not report it"),
    (("tune", "l2fwd", "--space", "cpu.cores=1..2", "--minimize", "cpu.cores", "--constraint", "drop_rate<nan"), "must be a finite number"),
    (("tune", "l2fwd", "--space", "cpu.cores=1..2", "--minimize", "cpu.cores", "--constraint", "drop_rate<inf"), "must be a finite number"),
    (("sweep", "l2fwd", "--grid", "traffic.size=64", "--scheduler", "inproc://x"), "no scheduler of this process listens there"),
    (("sweep", "l2fwd", "--grid", "traffic.size=64", "--scheduler", "ucx://1.2.3.4:1"), "the ucx:// scheme reaches no scheduler"),
]


@pytest.mark.parametrize(("args", "message"), HOSTILE_CLI, ids=[" ".join(a)[:60] for a, _ in HOSTILE_CLI])
def test_hostile_command_lines_get_one_line_and_exit_2(args, message, cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = cli(*args)
    assert out.code == 2, (out.code, out.stdout[-300:], out.stderr)
    assert out.stderr.startswith("error: ") and message in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr


HOSTILE_PYTHON = [
    (lambda: packetpath.run("l2fwd", progress="x"), "progress = 'x'"),
    (lambda: packetpath.sweep("l2fwd", grid=[123], progress=False), "grid item 123"),
    (lambda: packetpath.sweep("l2fwd", grid={"traffic.size": [64]}, store=123, progress=False), "store = 123"),
    (lambda: packetpath.tune("l2fwd", {"cpu.cores": 5}, minimize=["cpu.cores"]), "--space cpu.cores=5"),
    (lambda: packetpath.tune("l2fwd", 42, minimize=["cpu.cores"]), "space = 42"),
    (lambda: packetpath.tune("l2fwd", [7], minimize=["cpu.cores"]), "--space item 7"),
]


@pytest.mark.parametrize(("call", "message"), HOSTILE_PYTHON, ids=[m for _, m in HOSTILE_PYTHON])
def test_hostile_python_calls_raise_config_error(call, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        call()


def test_reproduce_of_no_paper_is_a_config_error():
    from packetpath.reproduce import reproduce

    for paper in (None, 3, "../x", "_claims"):
        with pytest.raises(ConfigError, match="unknown paper"):
            reproduce(paper, progress=False)


def test_a_swept_profile_is_a_column(tmp_path):
    df = sweep("l2fwd", {"profile": ["ddio-skylake", "nicmem-cascadelake"]}, set=SHORT, jobs=1, progress=False)
    assert list(df["profile"]) == ["ddio-skylake", "nicmem-cascadelake"] and df.attrs["swept"] == ["profile"]


def _group_alive(pgid: int) -> list[str]:
    """The live (not zombie) processes of process group ``pgid``."""
    out = subprocess.run(["ps", "-eo", "pid=,pgid=,stat="], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if line.split()[1] == str(pgid) and not line.split()[2].startswith("Z")]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL, signal.SIGINT])
def test_the_soak_child_does_not_outlive_its_parent(sig):
    p = subprocess.Popen([str(PACKETPATH), "bench", "--soak", "--soak-time", "5s"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(4)  # the child is simulating
    assert len(_group_alive(p.pid)) >= 2  # the CLI and its soak child
    os.kill(p.pid, sig)  # the parent alone
    p.wait(timeout=30)
    deadline = time.time() + 10
    while _group_alive(p.pid) and time.time() < deadline:
        time.sleep(0.2)
    assert not _group_alive(p.pid)


def test_a_cluster_without_its_batch_system_is_refused(cli, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    out = cli("cluster", "slurm", "--jobs", "1")
    assert out.code == 2 and "sbatch not found on PATH" in out.stderr and len(out.stderr.strip().splitlines()) == 1


TUNE = ["tune", "l2fwd", "--space", "cpu.cores=1..2", "--space", "llc.ddio_ways=1..3", "--minimize", "cpu.cores",
        "--trials", "3", "--set", "sim.duration=40us", "--set", "sim.warmup=20us", "--jobs", "1"]


def test_two_tunes_started_together_on_a_new_store_both_finish(tmp_path):
    cmd = [str(PACKETPATH), *TUNE, "--store", str(tmp_path / "s")]
    procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        assert p.wait(timeout=300) == 0, p.stderr.read()


def test_ctrl_c_mid_tune_says_what_is_kept_and_leaves_no_trial_running(tmp_path):
    import optuna

    store = tmp_path / "s"
    long = [*TUNE[:-6], "--trials", "6", "--set", "sim.duration=2s", "--jobs", "1", "--store", str(store)]
    p = subprocess.Popen([str(PACKETPATH), *long], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(6)
    os.killpg(p.pid, signal.SIGINT)
    err = p.communicate(timeout=60)[1]
    assert p.returncode == 130 and "trials of study 'tune-l2fwd' complete in sqlite:" in err and "run the same command again" in err, err
    assert len([x for x in err.splitlines() if x.strip()]) == 1, err
    st = optuna.load_study(study_name="tune-l2fwd", storage=f"sqlite:///{store / 'tune.db'}")
    assert not [t for t in st.trials if t.state == optuna.trial.TrialState.RUNNING]


def test_a_lookup_reads_only_the_parts_that_hold_the_runs_wanted(tmp_path, monkeypatch):
    store = tmp_path / "s"
    df = sweep("l2fwd", {"traffic.size": [64, 128, 256]}, set=SHORT, jobs=1, store=store, progress=False, flush_s=0)
    assert len(list(store.glob("part-*.parquet"))) == 3  # one part per run
    s = Store(store)
    seen = []
    real = Store.connect
    monkeypatch.setattr(Store, "connect", lambda self, files=None: seen.append(files) or real(self, files))
    one = df["run_id"][1]
    assert [r["run_id"] for r in s.rows([one])] == [one] and len(seen[-1]) == 1
    assert s.rows(["no-such-run"]) == [] and len(seen) == 1  # no part holds it: nothing is opened
    assert s.engine_versions() == [packetpath.__version__] and len(seen) == 1  # from the parts' index, no query


@pytest.mark.parametrize("json_", [False, True])
def test_a_query_of_null_or_far_timestamps_prints(cli, tmp_path, json_):
    store = tmp_path / "s"
    store.mkdir()
    out = cli("results", "query", "SELECT NULL::TIMESTAMP AS u, TIMESTAMP '290000-01-01' AS t", "--store", str(store), *(["--json"] if json_ else []))
    assert out.code == 0 and "290000-01-01" in out.stdout, out.stderr


@pytest.mark.parametrize("args", [("report", "--out", ""), ("reproduce", "ddio", "--out", ""),
                                  ("sweep", "l2fwd", "--grid", "traffic.size=64", "--store", ""), ("results", "show", "--store", " ")])
def test_an_empty_folder_option_is_refused_not_taken_as_the_working_directory(args, shell, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = shell(*args)
    assert out.code == 2 and out.stderr.startswith("error: Invalid value for") and "empty; give a folder" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and not list(tmp_path.iterdir())  # nothing written here
