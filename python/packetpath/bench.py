"""``packetpath bench``: how fast the engine simulates a fixed suite.

Each run happens in a fresh process, so its peak RSS is that scenario's alone
(plus the interpreter, about 30 MiB). Only `packetpath.run` is timed;
process start-up and imports are not. Numbers are medians over ``repeat`` runs.
"""

from __future__ import annotations

import multiprocessing
import resource
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from packetpath import api
from packetpath.scenario import load_scenario

SUITE: dict[str, tuple[str, dict[str, Any]]] = {
    # name: (built-in scenario, overrides)
    "l2fwd-1500B-2core": ("l2fwd", {"traffic.size": 1500, "cpu.cores": 2, "traffic.rate": "100Gbps"}),
    "l2fwd-64B-1core": ("l2fwd", {"traffic.size": 64, "cpu.cores": 1, "traffic.rate": "100Gbps"}),
    "l3fwd-64B-4core": ("l3fwd", {}),
    "nat-200G-1500B-14core-host": ("nat", {}),
    "nat-200G-1500B-14core-nmNFV": ("nat", {"nic.header_split": True, "nic.payload_mem": "nicmem", "nic.tx_inline": True}),
    "kvs-4core-nmKVS": ("kvs", {}),
    "shring8-200G-1500B-16core": ("shring", {}),
}


def bench(repeat: int = 3, suite: dict[str, tuple[str, dict[str, Any]]] = SUITE) -> list[dict[str, Any]]:
    """One result per suite entry: scenario, simulated_packets_per_wall_s,
    real_time_ratio (simulated time / wall time), events_per_wall_s,
    peak_rss_mib, wall_s_median."""
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    results = []
    # max_tasks_per_child=1: every run gets a new process, so its peak RSS is its own
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), max_tasks_per_child=1) as pool:
        for name, (scenario, overrides) in suite.items():
            values = load_scenario(scenario, overrides)
            samples = [pool.submit(_measure, values).result() for _ in range(repeat)]
            wall = statistics.median(s["wall_s"] for s in samples)
            sim = samples[0]["sim"]  # same scenario and seed: every run simulates the same
            results.append(
                {
                    "scenario": name,
                    "simulated_packets_per_wall_s": sim["packets"] / wall,
                    "real_time_ratio": sim["sim_time_ps"] * 1e-12 / wall,
                    "events_per_wall_s": sim["events"] / wall,
                    "peak_rss_mib": max(s["peak_rss_mib"] for s in samples),
                    "wall_s_median": wall,
                }
            )
    return results


def _measure(values: dict[str, Any]) -> dict[str, Any]:
    start = time.perf_counter()
    report = api.run(values)
    wall = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    rss_mib = rss / 2**20 if sys.platform == "darwin" else rss / 2**10
    return {"wall_s": wall, "sim": report["sim"], "peak_rss_mib": rss_mib}
