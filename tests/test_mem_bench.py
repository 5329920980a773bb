"""`sim.kind = mem_bench` on the DDIO testbed's profile against a measured server:
Intel MLC's loaded-latency curve on a Xeon Gold 6140 (the DDIO paper's CPU), in
`crates/engine/tests/data/memory/` with its source. MLC measured both sockets
(12 channels); the profile is one socket (6), so its bandwidths are halved."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

import packetpath
from packetpath import ConfigError

DATA = Path(__file__).parents[1] / "crates/engine/tests/data/memory/mlc_skylake_gold6140.csv"
# The file's header: idle latency local 90.2 / 89.1 ns; peak injection bandwidth (MB/s, both
# sockets) of read/write mixes.
MLC_IDLE_NS = (90.2 + 89.1) / 2
MLC_PEAK_GBS = {1.0: 211.1942 / 2, 0.75: 193.422 / 2, 2 / 3: 192.554 / 2, 0.5: 185.5561 / 2}
INJECTORS = 17  # MLC loads every core but the probe's


def mlc_curve() -> tuple[np.ndarray, np.ndarray]:
    """MLC's (per-socket GB/s, ns) points, by rising bandwidth."""
    rows = [r for r in csv.reader(line for line in DATA.read_text().splitlines() if not line.startswith("#"))]
    points = sorted((float(r[2]) / 1e3 / 2, float(r[1])) for r in rows[1:])
    return np.array([p[0] for p in points]), np.array([p[1] for p in points])


def bench(**mem_bench) -> dict:
    return packetpath.run({"profile": "ddio-skylake", "sim": {"kind": "mem_bench"}, "mem_bench": mem_bench})["mem_bench"]


def test_idle_latency_within_5_percent_of_mlc():
    lat = bench(cores=0)["latency_ns"]
    assert abs(lat / MLC_IDLE_NS - 1) < 0.05, lat


def test_loaded_latency_within_10_percent_of_mlc_up_to_80_percent_of_peak():
    bw, ns = mlc_curve()
    limit = 0.8 * MLC_PEAK_GBS[1.0]
    compared = []
    for delay in (3000, 1000, 500, 300, 200, 150, 100, 50):
        m = bench(cores=INJECTORS, delay=delay)
        assert m["gbytes_s"] <= limit, (delay, m["gbytes_s"])
        mlc = float(np.interp(m["gbytes_s"], bw, ns))
        compared.append((delay, m["gbytes_s"], m["latency_ns"], mlc))
    bad = [c for c in compared if abs(c[2] / c[3] - 1) > 0.10]
    assert not bad, compared
    # Latency rises with load, as MLC's does.
    lats = [c[2] for c in compared]
    assert lats == sorted(lats), compared


FILL_BUFFER_BOUND = pytest.mark.xfail(strict=True, reason=(
    "the model's cores keep at most cpu.mlp = 10 misses in flight (Skylake's fill buffers): 17 x 10 "
    "lines / 128 ns = 85 GB/s per socket; MLC's own curve implies ~272 lines in flight "
    "(105 GB/s x 166 ns / 64 B), parallelism beyond the fill buffers (the L2's queue and its "
    "prefetchers) that the model lacks. A written-back line frees its buffer sooner, so the "
    "1:1 mix comes within 10 %"))


@pytest.mark.parametrize("share", [
    pytest.param(1.0, marks=FILL_BUFFER_BOUND),
    pytest.param(0.75, marks=FILL_BUFFER_BOUND),
    pytest.param(2 / 3, marks=FILL_BUFFER_BOUND),
    0.5,
])
def test_peak_bandwidth_of_read_write_mixes_within_10_percent_of_mlc(share):
    peak = bench(cores=INJECTORS, delay=0, read_share=share)["gbytes_s"]
    assert abs(peak / MLC_PEAK_GBS[share] - 1) < 0.10, peak


def test_peak_is_the_fill_buffers_over_the_loaded_latency():
    """Little's law: with no delay the injectors keep every fill buffer busy."""
    m = bench(cores=INJECTORS, delay=0)
    bound = (INJECTORS * 10) * 64 / m["injector_latency_ns"]
    assert m["gbytes_s"] == pytest.approx(bound, rel=0.05)


def test_writes_fill_the_write_queue_and_reads_wait_for_drains():
    reads = bench(cores=INJECTORS, delay=0)
    mixed = bench(cores=INJECTORS, delay=0, read_share=0.5)
    assert reads["write_gbytes_s"] == 0 and reads["write_queue_occupancy"] == 0
    assert mixed["write_gbytes_s"] == pytest.approx(mixed["read_gbytes_s"], rel=0.1)
    assert mixed["write_queue_occupancy"] > 5
    assert mixed["latency_ns"] > reads["latency_ns"] * 1.2


def test_same_seed_same_bytes():
    a = packetpath.run("mlc")
    b = packetpath.run("mlc")
    assert a == b


@pytest.mark.parametrize("sets, needle", [
    ({"mem_bench.cores": 18}, "mem_bench.cores = 18: at most cpu.max_cores - 1 = 17"),
    ({"dram.write_high": 40}, "dram.write_high = 40: at most dram.write_queue = 32"),
    ({"dram.write_queue": 8}, "dram.write_high = 32: at most dram.write_queue = 8, the writes the queue holds"),
    ({"dram.write_low": 32}, "dram.write_low = 32: must be below dram.write_high = 32"),
    ({"dram.write_idle": 40}, "dram.write_idle = 40: must be below dram.write_queue = 32"),
    ({"dram.latency": "30ns"}, "dram.latency = 30.0 ns: the idle load-to-use latency must exceed"),
    ({"dram.speed": "DDR4-3200"}, "dram.speed = DDR4-3200: moves 25600 MB/s per channel, but dram.channel_bw = 21333 MB/s is DDR4-2666's"),
    ({"profile": "sapphirerapids-cx7"}, "dram.channel_bw = 38400 MB/s: no DDR4 speed bin moves that"),
])
def test_bad_controller_settings_are_refused_in_one_line(sets, needle):
    with pytest.raises(ConfigError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        packetpath.run("mlc", set=sets)


@pytest.mark.parametrize("scenario, key, value, kind", [
    ("l2fwd", "mem_bench.cores", 2, "mem_bench"),
    ("mlc", "antagonist.cores", 2, "packet"),
])
def test_a_parameter_of_another_kind_is_refused(scenario, key, value, kind):
    with pytest.raises(ConfigError, match=f"{key}: a parameter of sim.kind = {kind}"):
        packetpath.run(scenario, set={key: value})


@pytest.mark.parametrize("key, value", [("dram.page_policy", "closed"), ("dram.read_queue", 8)])
def test_a_controller_parameter_needs_the_controller_in_a_packet_run(key, value):
    with pytest.raises(ConfigError, match=f"{key}: a parameter of the memory controller, but dram.model = calendar; set dram.model = controller"):
        packetpath.run("l2fwd", set={"dram.model": "calendar", key: value})


def test_a_write_flood_does_not_starve_the_probe():
    """Injectors writing only, one channel: the write queue refills as fast as it drains, and
    the probe's reads still move between drains (a bounded wait, not a hang)."""
    m = packetpath.run("mlc", set={"dram.channels": 1, "dram.channel_bw": "21333MB/s", "mem_bench.delay": 0,
                                   "mem_bench.read_share": 0, "mem_bench.loads": 200})["mem_bench"]
    assert m["write_queue_full"] > 0.5
    assert 200 < m["latency_ns"] < 5000, m["latency_ns"]


def test_a_sweep_shows_its_kinds_metrics(cli, tmp_path):
    out = cli("sweep", "mlc", "--grid", "mem_bench.delay=200,2000", "--set", "mem_bench.loads=100",
              "--store", str(tmp_path / "s"), "--json")
    assert out.code == 0, out.stderr
    rows = json.loads(out.stdout)
    assert all(r["mem_bench.latency_ns"] > 80 for r in rows) and "throughput_gbps" not in rows[0]
