"""Side by side with peer simulators, on the same input.

The LLC model against pycachesim (PyPI, a C cache simulator) on one address
trace: the hit and miss counts must be identical under LRU, and the speed
ratio is reported for pycachesim's per-access API (`CacheSimulator.load`, as
a Python model would drive it) and its batch API (`iterload`). Both sides
get the trace as the same kind of NumPy uint64 array and are timed from
outside the call; pycachesim's batch API is also timed on a ready Python
list, its own fastest input.
"""

from __future__ import annotations

import random
import time
from typing import Any

from packetpath import _engine


def trace(n: int, sets: int, ways: int, seed: int = 1) -> list[int]:
    """Line addresses: 70 % random over twice the cache's lines, 30 % a
    sequential stream -- hits, misses and evictions all happen."""
    rng = random.Random(seed)
    lines = sets * ways
    out, stream = [], 1 << 24
    for _ in range(n):
        if rng.random() < 0.7:
            out.append(rng.randrange(2 * lines))
        else:
            stream += 1
            out.append(stream)
    return out


def cache_vs_pycachesim(n: int = 1_000_000, sets: int = 2048, ways: int = 11, seed: int = 1) -> dict[str, Any]:
    """Replay one trace through both; raises ImportError without pycachesim."""
    from cachesim import Cache, CacheSimulator, MainMemory

    import numpy as np

    lines = np.asarray(trace(n, sets, ways, seed), dtype=np.uint64)
    addrs = lines * np.uint64(64)
    # Both sides get a NumPy array and are timed from outside, reading the
    # array included (the engine's own timer would leave it out).
    start = time.perf_counter()
    hits, misses, _ = _engine.lru_trace(sets, ways, lines)
    ours_s = time.perf_counter() - start

    def fresh():
        mem, cache = MainMemory(), Cache("LLC", sets, ways, 64, "LRU")
        mem.load_to(cache)
        mem.store_from(cache)
        return cache, CacheSimulator(cache, mem)

    batch, _ = fresh()
    start = time.perf_counter()
    batch.backend.iterload(addrs, 8)
    batch_s = time.perf_counter() - start
    # pycachesim's own best input is a Python list (it iterates an array
    # element by element as Python objects): timed too, the list prepared.
    as_list, _ = fresh()
    listed = addrs.tolist()
    start = time.perf_counter()
    as_list.backend.iterload(listed, 8)
    list_s = time.perf_counter() - start
    per_call, sim = fresh()
    calls = addrs[: min(n, 200_000)].tolist()  # the per-call API is slow; time a prefix
    start = time.perf_counter()
    for a in calls:
        sim.load(a, 8)
    call_s = time.perf_counter() - start
    return {
        "accesses": n,
        "sets": sets,
        "ways": ways,
        "hits": hits,
        "misses": misses,
        "pycachesim_hits": batch.backend.HIT_count,
        "pycachesim_misses": batch.backend.MISS_count,
        "identical": (hits, misses) == (batch.backend.HIT_count, batch.backend.MISS_count),
        "accesses_per_s": n / ours_s,
        "pycachesim_iterload_accesses_per_s": n / batch_s,
        "pycachesim_iterload_list_accesses_per_s": n / list_s,
        "pycachesim_load_accesses_per_s": len(calls) / call_s,
        "speedup_vs_iterload": batch_s / ours_s,
        "speedup_vs_iterload_list": list_s / ours_s,
        "speedup_vs_load": (n / ours_s) / (len(calls) / call_s),
    }
