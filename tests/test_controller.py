"""Packet runs served by the memory controllers (`dram.model = controller`):
requests reach the controllers in time order, a core's DRAM reads go out
through its fill buffers, and a device's writes to DRAM hold their posted
credits until the write queue takes them. The controller alone is checked
against DRAMsim3 and MLC in test_mem_bench.py; here, what it does to a run."""

from __future__ import annotations

import pytest

import packetpath

SHORT = {"sim.warmup": "100us", "sim.duration": "300us"}
CTL = {"dram.model": "controller"}
CAL = {"dram.model": "calendar"}


def run(scenario="l2fwd", **sets):
    return packetpath.run(scenario, set=dict(SHORT, **sets))


def test_a_light_load_sees_what_the_calendar_sees():
    """At 5 Gbps nothing queues in memory: both models give the idle path,
    so the run is the same to within the row buffer's luck (and the first
    pass over the cold Rx ring, whose descriptor reads the controllers
    serve bank by bank, shifting the core's phase a little). (At 10 Gbps
    of 64 B frames the core itself is near saturation, its ring holds a
    standing queue of ~10 us that the warm-up's history decides, and the
    two models' means differ by that luck, not by memory.)"""
    light = {"traffic.rate": "5Gbps", "traffic.size": 64}
    cal, ctl = run(**light, **CAL), run(**light, **CTL)
    assert ctl["throughput_gbps"] == pytest.approx(cal["throughput_gbps"], rel=0.01)
    assert ctl["latency_ns"]["mean"] == pytest.approx(cal["latency_ns"]["mean"], rel=0.05)
    assert "imc" in ctl and "imc" not in cal


def test_same_seed_same_report():
    a, b = run(**CTL, **{"llc.ddio_ways": 0}), run(**CTL, **{"llc.ddio_ways": 0})
    assert a == b


def test_counters_and_the_bottleneck_name_the_controller():
    r = run(**CTL, **{"llc.ddio_ways": 0})
    imc = r["imc"]
    assert imc["cas_writes"] > 0 and imc["cas_reads"] > 0
    assert 0 <= imc["row_hit_rate"] <= 1 and imc["write_queue_occupancy"] > 0
    names = [x["name"] for x in r["bottleneck"]["resources"]]
    assert "memory controller" in names


def test_antagonists_meet_a_loaded_controller():
    """More memory-bound cores: more bandwidth, and each of their reads (and
    the packet cores') waits longer in the queues."""
    sets = dict(CTL, **{"antagonist.pattern": "random"})
    two = run(**sets, **{"antagonist.cores": 2})
    eight = run(**sets, **{"antagonist.cores": 8})
    assert eight["antagonist"]["gbytes_s"] > 2 * two["antagonist"]["gbytes_s"]
    assert eight["antagonist"]["mean_latency_ns"] > two["antagonist"]["mean_latency_ns"]
    assert eight["imc"]["read_queue_occupancy"] > two["imc"]["read_queue_occupancy"]
    assert eight["domain_latency_ns"]["c2m_read"] > two["domain_latency_ns"]["c2m_read"]


def test_memory_loops_alone_saturate_where_mlc_does():
    """Sixteen cores reading at random saturate the socket near MLC's
    measured all-read peak on the Xeon Gold 6140 (105.6 GB/s per socket,
    82 % of the six channels' 128 GB/s: test_mem_bench.py's data)."""
    r = run(**CTL, **{"antagonist.cores": 16, "antagonist.pattern": "random", "traffic.rate": "1Gbps"})
    total = r["mem_bw_gbytes_s"]["read"] + r["mem_bw_gbytes_s"]["write"]
    assert total == pytest.approx(211.1942 / 2, rel=0.15), total


def test_a_chase_costs_a_loaded_latency_per_read():
    """WorkPackage's dependent reads over a buffer far beyond the LLC: each
    extra read adds about one DRAM load-to-use latency to a packet's cycles."""
    sets = dict(CTL, **{"app.wp_size": "1GiB", "corunner.enabled": False, "traffic.rate": "5Gbps"})
    few, many = run("workpackage", **sets, **{"app.wp_reads": 4}), run("workpackage", **sets, **{"app.wp_reads": 12})
    per_read = (many["cycles_per_packet"] - few["cycles_per_packet"]) / 8
    latency = many["domain_latency_ns"]["c2m_read"] * 2.3  # cycles at the profile's 2.3 GHz
    assert per_read == pytest.approx(latency, rel=0.25), (per_read, latency)


def test_ddio_off_writes_hold_their_credits_until_the_write_queue_takes_them():
    """A shallower write queue fills sooner: the root port's entries wait
    longer, the posted credits run out more often."""
    sets = dict(CTL, **{"llc.ddio_ways": 0})
    deep = run(**sets)
    shallow = run(**sets, **{"dram.write_queue": 8, "dram.write_high": 8, "dram.write_idle": 4})
    assert shallow["domain_latency_ns"]["p2m_write"] > deep["domain_latency_ns"]["p2m_write"]
    assert shallow["pcie_flow"]["credit_stall_share"] >= deep["pcie_flow"]["credit_stall_share"]


def test_a_device_read_from_dram_waits_for_the_controllers():
    """DDIO off, the NIC's Tx reads frames from DRAM: a read completes when
    the controllers return its last line, so antagonists loading the channels
    lengthen the P2M-Read domain, and the frames wait for it in order."""
    sets = dict(CTL, **{"llc.ddio_ways": 0, "antagonist.pattern": "random", "traffic.rate": "50Gbps"})
    quiet = run(**sets, **{"antagonist.cores": 0})
    loaded = run(**sets, **{"antagonist.cores": 12})
    p2m = lambda r: r["domain_latency_ns"]["p2m_read"]
    assert p2m(loaded) > 1.2 * p2m(quiet), (p2m(quiet), p2m(loaded))
    assert p2m(quiet) > 90.0 * 0.9  # (most lines from DRAM: about an idle read or more)
    assert loaded["imc"]["read_queue_occupancy"] > quiet["imc"]["read_queue_occupancy"]


def test_the_c2m_read_domain_averages_the_reads_back():
    """A poll of long chases ends after the window with reads in flight: the
    domain latency averages the reads whose data is back (it read low when
    it divided by the misses issued)."""
    sets = dict(CTL, **{"app.wp_reads": 800, "app.wp_size": "1GiB", "corunner.enabled": False, "traffic.rate": "1Gbps"})
    r = run("workpackage", **sets)
    assert r["domain_latency_ns"]["c2m_read"] > 90.0, r["domain_latency_ns"]
