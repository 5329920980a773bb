"""Callgrind instruction counts of fixed workloads (the speed log in CHANGELOG.md and docs/contributing.md).

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
- With `--operations` instead (`make operations`): what one simulated
  packet of l2fwd 1500 B costs, by modelled operation. A copy of the engine
  is built with the cache, DRAM-calendar and event-queue primitives kept
  out of line, so callgrind counts their calls; each is shown per packet
  with its instructions per call (a few more than inline: the call itself).
  A second run on the memory controllers shows their parts the same way,
  each inclusive of the parts it calls.

Needs valgrind; the engine is the `run` example, the path given.
"""

from __future__ import annotations

import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from packetpath.reproduce import nicmem_nfv, shring
from packetpath.sweep import make_task, offered_packets

FIG7 = [
    ("nicmem Fig 7 point, host", nicmem_nfv, "fig7/host/r1024/b16M/n8/w8"),
    ("nicmem Fig 7 point, nmNFV", nicmem_nfv, "fig7/nmNFV/r1024/b16M/n8/w8"),
    ("shRing Fig 7 WorkPackage run", shring, "fig7/shRing/4/12r/10MiB/write"),
]


def callgrind(engine: str, scenario: dict, out: str = "/dev/null") -> tuple[int, dict]:
    """Instructions callgrind counts for one run of `scenario`, and its report."""
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", engine,
                           json.dumps(scenario, default=str)], capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1)), json.loads(done.stdout)


def instructions(engine: str, scenario: dict) -> int:
    return callgrind(engine, scenario)[0]


def l2fwd(size: int, cores: int, duration: str, extra: dict | None = None):
    """l2fwd at 100 Gbps with flow control off, as `packetpath bench` runs it (and `extra`)."""
    return make_task(f"l2fwd-{duration}", {"cpu": {"cores": cores}, "traffic": {"size": size, "rate": "100Gbps"},
                                           "nic": {"flow_control": False},
                                           "sim": {"warmup": "0.2ms", "duration": duration}, **(extra or {})})


def per_packet(engine: str, size: int, cores: int, extra: dict | None = None) -> float:
    tasks = [l2fwd(size, cores, duration, extra) for duration in ("1ms", "4ms")]
    short, long = (instructions(engine, t.values) for t in tasks)
    return (long - short) / (offered_packets(tasks[1].config) - offered_packets(tasks[0].config))


# The primitives `--operations` counts: (file, function, the end of the
# name callgrind gives it, what the table calls it).
PRIMITIVES = [
    ("crates/engine/src/mem/cache.rs", "lookup_in", "Cache::lookup_in", "cache tag lookups (LLC, snoop filter, L2s)"),
    ("crates/engine/src/mem/cache.rs", "touch", "Cache::touch", "replacement-state updates"),
    ("crates/engine/src/mem/cache.rs", "insert_at", "Cache::insert_at", "inserts with a victim choice"),
    ("crates/engine/src/mem/cache.rs", "remove", "Cache::remove", "removals"),
    ("crates/engine/src/mem/cache.rs", "sets_of_run", "Cache::sets_of_run", "set-index runs of a DMA"),
    ("crates/engine/src/mem/dram/calendar.rs", "book", "Calendar::book", "DRAM calendar bookings"),
    ("crates/engine/src/mem/prefetch.rs", "access", "Streamer::access", "streamer lookups"),
    ("crates/engine/src/sim/mod.rs", "push", "EventQueue<E>::push", "event pushes"),
    ("crates/engine/src/sim/mod.rs", "pop", "EventQueue<E>::pop", "event pops"),
]

# What the memory controllers' parts cost in an l2fwd run on them
# (`dram.model = controller`), each inclusive of what it calls: a step
# holds the cycles it runs, a cycle holds its command search.
CONTROLLER_PARTS = [
    ("crates/engine/src/mem/dram/host.rs", "step", "Controllers::step", "controller steps (a DRAM cycle of the channels it wakes)"),
    ("crates/engine/src/mem/dram/controller.rs", "offer", "Channel::offer", "requests a controller's queue takes"),
    ("crates/engine/src/mem/dram/controller.rs", "tick", "Channel::tick", "channel cycles with work (data back, a command, a move)"),
    ("crates/engine/src/mem/dram/controller.rs", "issue", "Channel::issue", "of them, command searches"),
    ("crates/engine/src/mem/dram/controller.rs", "next_event", "Channel::next_event", "next-event searches (after each such cycle)"),
]


def out_of_line_engine(repo: Path, work: Path) -> Path:
    """Build a copy of the engine whose PRIMITIVES are `#[inline(never)]`."""
    for name in ("Cargo.toml", "Cargo.lock"):
        shutil.copy(repo / name, work / name)
    shutil.copytree(repo / "crates", work / "crates")
    for path, function, _, _ in PRIMITIVES + CONTROLLER_PARTS:
        f = work / path
        text, n = re.subn(rf"( *)(?:#\[inline(?:\((?:always|never)\))?\]\n *)?((?:pub(?:\([a-z]+\))? )?fn {function}\b)",
                          r"\1#[inline(never)]\n\1\2", f.read_text(), count=1)
        if n != 1:
            sys.exit(f"{path}: fn {function} not found")
        f.write_text(text)
    # (a target directory of its own beside the project's, so a second run
    # rebuilds only the engine, not every dependency)
    target = repo / "target" / "operations"
    subprocess.run(["cargo", "build", "--release", "--quiet", "--example", "run", "-p", "packetpath-engine"],
                   cwd=work, check=True, env=os.environ | {"CARGO_TARGET_DIR": str(target)})
    return target / "release" / "examples" / "run"


def calls(callgrind_out: Path) -> tuple[collections.Counter, collections.Counter]:
    """Calls of each function and the instructions inside them, from a callgrind output file."""
    names: dict[str, str] = {}
    n, cost = collections.Counter(), collections.Counter()
    callee, pending = "", False
    for line in callgrind_out.read_text().splitlines():
        if line.startswith(("fn=", "cfn=")):
            m = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line)
            if m.group(2):
                names[m.group(1)] = m.group(2)
            if line.startswith("cfn="):
                callee = names[m.group(1)]
        elif line.startswith("calls="):
            n[callee] += int(line[6:].split()[0])
            pending = True
        elif pending:
            cost[callee] += int(line.split()[1])
            pending = False
    return n, cost


def operations(repo: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        engine = out_of_line_engine(repo, Path(tmp))
        out = Path(tmp) / "callgrind.out"
        for label, extra, parts in [("", None, PRIMITIVES), (", dram.model = controller", {"dram": {"model": "controller"}}, CONTROLLER_PARTS)]:
            total, report = callgrind(str(engine), l2fwd(1500, 2, "4ms", extra).values, str(out))
            packets = report["sim"]["packets"]
            n, cost = calls(out)
            print(f"l2fwd 1500 B, 2 cores{label}, 4.2 ms: {packets} packets, {total / packets:,.0f} instructions per packet (this build)")
            inside = 0
            for _, _, suffix, what in parts:
                k = sum(v for f, v in n.items() if f.endswith(suffix))
                c = sum(v for f, v in cost.items() if f.endswith(suffix))
                inside += c
                print(f"  {what}: {k / packets:.1f} per packet, {c / max(k, 1):.0f} instructions each")
            if parts is PRIMITIVES:
                print(f"  together: {inside / packets:,.0f} instructions per packet")


# mem_bench on the DDIO testbed's DRAM (6 x DDR4-2666, 10 fill buffers a core).
MEM_BENCH = {"sim": {"kind": "mem_bench"}, "cpu": {"mlp": 10, "freq": "2.3GHz", "max_cores": 18},
             "dram": {"channels": 6, "latency": "90ns", "speed": "DDR4-2666"}}


def mem_bench_cost(engine: str, cores: int, delay: int) -> tuple[float, float]:
    """Instructions per DRAM request and per DRAM clock cycle of a mem_bench run (the
    difference of a long and a short run, so start-up cancels)."""
    runs = [callgrind(engine, MEM_BENCH | {"mem_bench": {"cores": cores, "delay": delay, "loads": n}}) for n in (1000, 4000)]
    (i0, r0), (i1, r1) = runs
    requests = r1["mem_bench"]["requests"] - r0["mem_bench"]["requests"]
    cycles = r1["sim"]["events"] - r0["sim"]["events"]
    return (i1 - i0) / requests, (i1 - i0) / cycles


# hostnet on the host network study's server: its profile's values (the engine example reads no profile).
HOSTNET_PROFILE = "hostnet-cascadelake"


def hostnet_cost(engine: str, cores: int, c2m: str, p2m: str) -> float:
    """Instructions per memory request (line read or written at a controller) of a hostnet
    run: the difference of a long and a short run, so start-up cancels."""
    runs = []
    for d in ("50us", "150us"):
        task = make_task("", {"profile": HOSTNET_PROFILE, "sim": {"kind": "hostnet", "warmup": "10us", "duration": d},
                              "hostnet": {"c2m_cores": cores, "c2m": c2m, "p2m": p2m}})
        runs.append((callgrind(engine, task.values), float(task.config["sim.duration"])))
    ((i0, r0), d0), ((i1, r1), d1) = runs
    lines = lambda r, d: r["hostnet"]["memory_gbytes_s"] * d / 1e3 / 64  # noqa: E731  (GB/s x ps -> lines)
    return (i1 - i0) / (lines(r1, d1) - lines(r0, d0))


def main(engine: str) -> None:
    for cores, c2m, p2m in [(1, "read", "write"), (6, "read_write", "write")]:
        print(f"hostnet, {cores} C2M-{c2m} core(s) beside P2M-{p2m}: {hostnet_cost(engine, cores, c2m, p2m):,.0f} instructions per memory request")
    for cores, delay in [(17, 0), (17, 200)]:
        per_request, per_cycle = mem_bench_cost(engine, cores, delay)
        print(f"mem_bench, {cores} injectors, delay {delay}: {per_request:,.0f} instructions per DRAM request, "
              f"{per_cycle:,.0f} per DRAM cycle")
    for size, cores in [(1500, 2), (64, 1)]:
        print(f"l2fwd {size} B, {cores} core{'s' * (cores > 1)}, per packet: {per_packet(engine, size, cores):,.0f}")
    # the memory controllers in a packet run, DDIO on and off
    for label, extra in [("", {}), (", DDIO off", {"llc": {"ddio_ways": 0}})]:
        cost = per_packet(engine, 1500, 2, {"dram": {"model": "controller"}, **extra})
        print(f"l2fwd 1500 B, 2 cores, dram.model = controller{label}, per packet: {cost:,.0f}")
    for label, paper, run in FIG7:
        values = make_task(run, paper.scenarios()[run]).values
        print(f"{label} ({run}): {instructions(engine, values) / 1e6:,.1f} M")


if __name__ == "__main__":
    if sys.argv[1:] == ["--operations"]:
        operations(Path(__file__).resolve().parent.parent)
    elif len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        sys.exit("usage: python tools/instructions.py ENGINE (the `run` example binary) | --operations")
