"""Callgrind instruction counts of the workloads in the README's speed log.

    make instructions

Instruction counts repeat exactly where wall time on a shared machine does
not, so the speed log compares engines by them (and confirms with paired
wall times, `farm-bench`).

- Per packet: (instructions of a 4 ms run - of a 1 ms run) / frames offered
  in the 3 ms between, so start-up and warm-up cancel: l2fwd at 100 Gbps
  with the engine's defaults and flow control off, as `packetpath bench`
  runs it, 1500 B on 2 cores and 64 B on 1.
- Whole runs: the Fig 7 WorkPackage points the nicmem-NFV and shRing
  reproductions spend most of their time on.

Needs valgrind; the engine is the `run` example, the path given.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

from packetpath.reproduce import nicmem_nfv, shring
from packetpath.sweep import make_task, offered_packets

FIG7 = [
    ("nicmem Fig 7 point, host", nicmem_nfv, "fig7/host/r1024/b16M/n8/w8"),
    ("nicmem Fig 7 point, nmNFV", nicmem_nfv, "fig7/nmNFV/r1024/b16M/n8/w8"),
    ("shRing Fig 7 WorkPackage run", shring, "fig7/shRing/4/12r/10MiB/write"),
]


def instructions(engine: str, scenario: dict) -> int:
    """Instructions callgrind counts for one run of `scenario`."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", engine,
                           json.dumps(scenario, default=str)], capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))


def per_packet(engine: str, size: int, cores: int) -> float:
    tasks = [make_task(f"l2fwd-{duration}", {"cpu": {"cores": cores}, "traffic": {"size": size, "rate": "100Gbps"},
                                             "nic": {"flow_control": False},
                                             "sim": {"warmup": "0.2ms", "duration": duration}})
             for duration in ("1ms", "4ms")]
    short, long = (instructions(engine, t.values) for t in tasks)
    return (long - short) / (offered_packets(tasks[1].config) - offered_packets(tasks[0].config))


def main(engine: str) -> None:
    for size, cores in [(1500, 2), (64, 1)]:
        print(f"l2fwd {size} B, {cores} core{'s' * (cores > 1)}, per packet: {per_packet(engine, size, cores):,.0f}")
    for label, paper, run in FIG7:
        values = make_task(run, paper.scenarios()[run]).values
        print(f"{label} ({run}): {instructions(engine, values) / 1e6:,.1f} M")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tools/instructions.py ENGINE (the `run` example binary)")
    main(sys.argv[1])
