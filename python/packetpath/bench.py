"""``packetpath bench``: how fast the engine simulates a fixed suite.

Each run happens in a fresh process, so its peak RSS is that scenario's alone
(plus the interpreter, about 30 MiB). Only `packetpath.run` is timed;
process start-up and imports are not. Numbers are medians over ``repeat`` runs.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import resource
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from packetpath import api
from packetpath.scenario import load_scenario

SUITE: dict[str, tuple[str, dict[str, Any]]] = {
    # name: (built-in scenario, overrides). The DDIO-testbed runs offer the
    # full 100 Gbps open loop (no PAUSE slowing the source), as they always
    # have, so their figures stay comparable across versions.
    "l2fwd-1500B-2core": ("l2fwd", {"traffic.size": 1500, "cpu.cores": 2, "traffic.rate": "100Gbps", "nic.flow_control": False}),
    "l2fwd-64B-1core": ("l2fwd", {"traffic.size": 64, "cpu.cores": 1, "traffic.rate": "100Gbps", "nic.flow_control": False}),
    "l3fwd-64B-4core": ("l3fwd", {"nic.flow_control": False}),
    "nat-200G-1500B-14core-host": ("nat", {}),
    "nat-200G-1500B-14core-nmNFV": ("nat", {"nic.header_split": True, "nic.payload_mem": "nicmem", "nic.tx_inline": True}),
    "kvs-4core-nmKVS": ("kvs", {}),
    "shring8-200G-1500B-16core": ("shring", {}),
}


def bench(repeat: int = 3, suite: dict[str, tuple[str, dict[str, Any]]] = SUITE, set_sample: int = 1) -> list[dict[str, Any]]:
    """One result per suite entry: scenario, simulated_packets_per_wall_s,
    real_time_ratio (simulated time / wall time), events_per_wall_s,
    peak_rss_mib, wall_s_median, build_s_median (building the world alone:
    caches, rings, flow tables filled) and packets_per_run_s (simulated
    packets over the wall time after the build). With ``set_sample`` > 1
    each entry also runs with ``llc.set_sample`` and reports its speed-up
    over the full model (whole runs, and after the build) and its error:
    hit rates (percentage points), throughput and p99 latency (%)."""
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    results = []
    # max_tasks_per_child=1: every run gets a new process, so its peak RSS is its own
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), max_tasks_per_child=1) as pool:
        for name, (scenario, overrides) in suite.items():
            full = _timed(pool, load_scenario(scenario, overrides), repeat)
            row = {"scenario": name, **full["figures"]}
            # The same world, simulated for a nanosecond: what building it costs.
            build = load_scenario(scenario, {**overrides, "sim.warmup": "0ns", "sim.duration": "1ns"})
            row["build_s_median"] = _timed(pool, build, repeat)["figures"]["wall_s_median"]
            run_s = max(row["wall_s_median"] - row["build_s_median"], 1e-9)
            row["packets_per_run_s"] = full["report"]["sim"]["packets"] / run_s
            if set_sample > 1:
                part = _timed(pool, load_scenario(scenario, {**overrides, "llc.set_sample": set_sample}), repeat)
                row |= {f"sampled_{k}": v for k, v in part["figures"].items()}
                row["sampled_speedup"] = full["figures"]["wall_s_median"] / part["figures"]["wall_s_median"]
                # Building the world costs the same either way (NAT fills its
                # flow tables first): the speed-up of the simulation proper.
                part_run_s = max(part["figures"]["wall_s_median"] - row["build_s_median"], 1e-9)
                row["sampled_speedup_after_build"] = run_s / part_run_s
                row |= _sampling_error(full["report"], part["report"])
            results.append(row)
    return results


# An assumed pace of a full-system simulator (gem5, SimBricks' hosts),
# not a measurement: Sandberg et al. (IISWC'15) put a detailed out-of-order
# full-system simulator at ~0.1 MIPS and its simplified modes at 1-10 MIPS,
# i.e. 1/30 000 to 1/300 of a ~3 GIPS core; 1/2000 sits between (the figure
# the project's speed goal was set against). `vs_full_system_sims` is how
# many times that pace a run reaches.
FULL_SYSTEM_SIM_REAL_TIME = 1 / 2000


def _timed(pool: ProcessPoolExecutor, values: dict[str, Any], repeat: int) -> dict[str, Any]:
    samples = [pool.submit(_measure, values).result() for _ in range(repeat)]
    wall = statistics.median(s["wall_s"] for s in samples)
    report = samples[0]["report"]  # same scenario and seed: every run simulates the same
    sim = report["sim"]
    real_time = sim["sim_time_ps"] * 1e-12 / wall
    return {
        "report": report,
        "figures": {
            "simulated_packets_per_wall_s": sim["packets"] / wall,
            "real_time_ratio": real_time,
            "vs_full_system_sims": real_time / FULL_SYSTEM_SIM_REAL_TIME,
            "events_per_wall_s": sim["events"] / wall,
            "peak_rss_mib": max(s["peak_rss_mib"] for s in samples),
            "wall_s_median": wall,
        },
    }


HIT_RATES = ("pcie_write_hit_rate", "pcie_read_hit_rate", "llc_hit_rate_cpu")


def _sampling_error(full: dict[str, Any], part: dict[str, Any]) -> dict[str, float]:
    """How far a set-sampled run is from the full model's."""
    def pct(key: str, sub: str | None = None) -> float:
        a, b = (r[key][sub] if sub else r[key] for r in (full, part))
        return abs(b - a) / a * 100 if a else 0.0

    return {
        "sampled_hit_rate_error_pp": max(abs(part[k] - full[k]) * 100 for k in HIT_RATES),
        "sampled_throughput_error_pct": pct("throughput_gbps"),
        "sampled_p99_error_pct": pct("latency_ns", "p99"),
    }


# The soak: 200 Gbps (two 100 GbE NICs of 1500 B frames) for a whole simulated second.
# Open loop (no PAUSE holding the sources back): the frame count is known.
SOAK = ("l2fwd", {"nic.count": 2, "cpu.cores": 2, "traffic.size": 1500, "traffic.rate": "100Gbps", "nic.flow_control": False})


SOAK_MIN_SAMPLES = 10
"""RSS samples a soak needs before its growth says anything."""
SOAK_FLAT_MIB = 16.0
"""Growth within this (allocator noise) counts as flat."""


def soak(sim_time: str = "1s", every_s: float = 0.5, scenario: tuple[str, dict[str, Any]] = SOAK) -> dict[str, Any]:
    """Run one long scenario in a child process, sampling its resident set
    size every ``every_s`` wall seconds: memory must not grow with simulated
    time. ``growth_mib`` is the last sample minus the one a tenth of the way
    through the run (after the world is built and the caches are full)."""
    name, overrides = scenario
    values = load_scenario(name, {**overrides, "sim.warmup": "0ms", "sim.duration": sim_time})
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    child = ctx.Process(target=_soak_child, args=(values, results, os.getpid()))
    start = time.perf_counter()
    child.start()
    samples: list[tuple[float, float]] = []
    try:
        while child.is_alive():
            rss = _rss_mib(child.pid)
            if rss is not None:
                samples.append((time.perf_counter() - start, rss))
            try:
                outcome = results.get(timeout=every_s)
                break
            except queue.Empty:  # still running
                continue
        else:
            try:
                outcome = results.get(timeout=5)
            except queue.Empty:
                raise RuntimeError(f"the soak run died (exit code {child.exitcode})") from None
    finally:  # Ctrl-C or an error here: the child goes too (killed outright, it notices by itself)
        if child.is_alive():
            child.terminate()
    child.join()
    if isinstance(outcome, str):
        raise RuntimeError(outcome)
    wall = outcome["wall_s"]
    settled = [rss for t, rss in samples if t >= 0.1 * wall] or [s[1] for s in samples]
    return {
        "scenario": f"{name} {sim_time} at 200 Gbps",
        "simulated_packets": outcome["report"]["sim"]["packets"],
        "wall_s": wall,
        "simulated_packets_per_wall_s": outcome["report"]["sim"]["packets"] / wall,
        "rss_samples": len(samples),
        "rss_settled_mib": settled[0],
        "rss_end_mib": settled[-1],
        "rss_max_mib": max(settled),
        "growth_mib": settled[-1] - settled[0],
        # a trend needs points: a run too short to sample shows no growth because it could not
        "verdict": "memory flat" if len(samples) >= SOAK_MIN_SAMPLES and settled[-1] - settled[0] <= SOAK_FLAT_MIB
        else "memory grew" if len(samples) >= SOAK_MIN_SAMPLES
        else f"inconclusive: {len(samples)} RSS samples, fewer than {SOAK_MIN_SAMPLES}; lengthen --soak-time",
    }


def _soak_child(values: dict[str, Any], results: Any, parent: int) -> None:
    from packetpath.sweep import exit_with_parent

    exit_with_parent(parent)
    try:
        results.put(_measure(values))
    except Exception as e:  # reported by the parent
        results.put(f"{type(e).__name__}: {e}")


def _rss_mib(pid: int | None) -> float | None:
    """A live process's resident set (Linux /proc); None where unavailable."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _measure(values: dict[str, Any]) -> dict[str, Any]:
    start = time.perf_counter()
    report = api.run(values)
    wall = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    rss_mib = rss / 2**20 if sys.platform == "darwin" else rss / 2**10
    return {"wall_s": wall, "report": report, "peak_rss_mib": rss_mib}
