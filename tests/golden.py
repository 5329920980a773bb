"""Golden reports: a digest of every built-in scenario's report, and of a few
variants that switch the cache hierarchy's mechanisms one by one.

A change meant to leave every result alone (a speed change, a refactor)
must leave these digests alone; `tests/test_golden.py` checks them, as
gem5's regression tests compare each run's statistics with stored ones. A
change meant to move results regenerates them, and the diff of the data
file names the runs it moved:

    make golden        # = python tests/golden.py --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from packetpath import api
from packetpath.scenario import builtin_names

DATA = Path(__file__).parent / "data" / "golden_reports.json"

# Variants: (name, scenario, overrides). Each switches one mechanism of the
# memory model off or on, so that a digest covers the paths a default run
# does not take, and runs the Fig 7 WorkPackage point the reproductions
# spend most of their time on.
VARIANTS: list[tuple[str, str, dict[str, Any]]] = [
    ("l2fwd/inclusive", "l2fwd", {"llc.inclusive": True}),
    ("l2fwd/random-hash-flat", "l2fwd", {"llc.slice_hash": "random", "mem.hugepage": "flat"}),
    ("l2fwd/no-prefetch", "l2fwd", {"l2.prefetch_adjacent": False, "l2.prefetch_streamer": False}),
    ("l2fwd/lru", "l2fwd", {"llc.replacement": "lru"}),
    ("l2fwd/no-ddio", "l2fwd", {"llc.ddio_ways": 0}),
    ("l2fwd/set-sample-4", "l2fwd", {"llc.set_sample": 4}),
    ("l2fwd/controller", "l2fwd", {"dram.model": "controller"}),
    ("l2fwd/controller-no-ddio", "l2fwd", {"dram.model": "controller", "llc.ddio_ways": 0}),
    ("workpackage/controller", "workpackage", {"dram.model": "controller", "antagonist.cores": 4}),
    ("netdimm-latency/dnic", "netdimm-latency", {"netdimm.nic": "dnic"}),
    ("netdimm-latency/inic", "netdimm-latency", {"netdimm.nic": "inic"}),
    ("workpackage/nicmem-fig7", "workpackage", {
        "profile": "nicmem-cascadelake", "cpu.cores": 7, "nic.count": 2, "traffic.rate": "100Gbps",
        "app.wp_reads": 8, "app.wp_size": "16MiB", "corunner.enabled": False,
        "sim.warmup": "0.5ms", "sim.duration": "0.5ms"}),
]


def runs() -> dict[str, tuple[str, dict[str, Any]]]:
    """Run name -> (scenario, overrides)."""
    out: dict[str, tuple[str, dict[str, Any]]] = {n: (n, {}) for n in builtin_names()}
    out.update({name: (scenario, overrides) for name, scenario, overrides in VARIANTS})
    return out


def digest(report: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(report, sort_keys=True).encode()).hexdigest()


def digests() -> dict[str, str]:
    return {name: digest(api.run(scenario, set=overrides or None)) for name, (scenario, overrides) in runs().items()}


def stored() -> dict[str, str]:
    return json.loads(DATA.read_text())["digests"]


def write() -> None:
    DATA.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"about": "sha256 of each run's report (json, sorted keys); regenerate with `make golden`",
                       "digests": digests()}, indent=1, sort_keys=True)
    DATA.write_text(text + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/golden.py --write")
    write()
    print(f"wrote {DATA}")
