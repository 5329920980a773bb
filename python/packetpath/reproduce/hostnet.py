"""Reproduce "Understanding the Host Network" (Vuppalapati, Agarwal, Schuh,
Kasikci, Krishnamurthy and Agarwal, SIGCOMM'24; the extended tech report).

Every run uses the `hostnet-cascadelake` profile (the paper's Table 1
Cascade Lake server, DDIO and prefetchers off as in §2.2) and the `hostnet`
run kind: C2M cores streaming through their own 1 GiB buffers, C2M-Read
(loads) or C2M-ReadWrite (stores: a read for ownership and a write-back),
beside storage DMA at ~14 GB/s, P2M-Write (memory writes) or P2M-Read. The
four quadrants (§2.2, Fig 3) pair them, on 1-6 C2M cores.

Paper values come from the text where it states them. Where it states only a
figure, the value was read off the tech report's vector plots (the figures'
gnuplot polylines in `tech-report.pdf` of the authors' repository
host-architecture/understanding-the-host-network, commit 3de28417, to about
0.1 % of an axis): `FIG_*` below, each marked.

Beside the simulation, the paper's own analytic model (§6, Fig 9; the
repository's `mio/model.py`, `compute_readlat`) is evaluated on the
simulation's own controller counters, as the authors evaluate it on their
servers' uncore counters: a reader sees where the closed form and the
mechanism agree.
"""

from __future__ import annotations

from typing import Any

from packetpath.plots import figure, paper_points, series
from packetpath.reproduce import Claim, Runs, judged, latency, monotone, ratio, relative_change, share, span, throughput

PAPER = "hostnet"
PROFILE = "hostnet-cascadelake"
CORES = [1, 2, 3, 4, 5, 6]
QUADRANTS = {1: ("read", "write"), 2: ("read", "read"), 3: ("read_write", "write"), 4: ("read_write", "read")}
PEAK_GBS = 46.9  # Table 1: 2 x DDR4-2933
CHANNELS = 2
# Appendix C: the ConnectX-5's RDMA writes and reads move ~98 Gbps alone, the SSDs ~112 Gbps.
RDMA_RATE = "12.25GB/s"
# Every run is cheap: all are rerun over SEEDS seeds for the trends and "unaffected" claims.
SEEDED = ("",)

# Fig 3, digitised (see the module's docstring): degradation (isolated / colocated) at 1-6 C2M cores.
FIG3_C2M = {1: [1.235, 1.307, 1.427, 1.559, 1.660, 1.714], 2: [1.103, 1.157, 1.239, 1.330, 1.408, 1.477],
            3: [1.300, 1.440, 1.515, 1.304, 1.390, 1.392], 4: [1.170, 1.303, 1.444, 1.383, 1.523, 1.532]}
FIG3_P2M = {1: [1.003, 1.004, 1.004, 1.004, 1.002, 1.002], 2: [1.0] * 6,
            3: [1.003, 1.005, 1.063, 1.456, 1.720, 1.864], 4: [1.000, 1.000, 1.003, 1.007, 1.015, 1.027]}
# Fig 3 Q3, digitised: C2M and P2M memory bandwidth (GB/s) at 6 cores.
FIG3_Q3_BW6 = (27.51, 8.245)
# Fig 6a/6b, digitised: the C2M-Read domain (LFB) latency alone, 1 and 6 cores (ns).
FIG6A_LFB = (71.05, 103.1)
FIG6B_LFB = (84.13, 223.1)

# The paper's formula (§6, Fig 9; mio/model.py): constants in ns.
CONST_READ_CPU = 71.0
CONST_WRITE_CPU = 10.0
T_SWITCH = 8.18
T_TRANS = 2.73
T_ACT = T_PRE = 14.32


def _run(c2m: str, p2m: str, cores: int, rate: str | None = None, duration: str = "200us") -> dict:
    s = {"profile": PROFILE, "sim": {"kind": "hostnet", "duration": duration, "warmup": "20us"},
         "hostnet": {"c2m_cores": cores, "c2m": c2m, "p2m": p2m}}
    if rate:
        s["hostnet"]["p2m_rate"] = rate
    return s


def scenarios() -> dict[str, dict]:
    runs = {f"p2m/{p2m}": _run("read", p2m, 0) for p2m in ("write", "read")}
    # Fig 7d: one C2M-Read core, with and without P2M-Write, long enough for a few hundred bank samples
    for p2m in ("none", "write"):
        runs[f"banks/{p2m}"] = _run("read", p2m, 1, duration="3ms")
    for c2m in ("read", "read_write"):
        for n in CORES:
            runs[f"c2m/{c2m}/{n}"] = _run(c2m, "none", n)
    for q, (c2m, p2m) in QUADRANTS.items():
        for n in CORES:
            runs[f"q{q}/{n}"] = _run(c2m, p2m, n)
            runs[f"rdma/q{q}/{n}"] = _run(c2m, p2m, n, RDMA_RATE)
    return runs


def _h(report: dict) -> dict:
    return report["hostnet"]


def _alone(q: int, n: int, side: str) -> str:
    """The run with quadrant q's C2M loop on n cores (side "c2m") or its P2M device (side "p2m") alone."""
    c2m, p2m = QUADRANTS[q]
    return f"c2m/{c2m}/{n}" if side == "c2m" else f"p2m/{p2m}"


def _degradation(alone: dict, colocated: dict, side: str) -> float:
    """Isolated over colocated throughput of one side, from two reports."""
    key = f"{side}_gbytes_s"
    return alone["hostnet"][key] / colocated["hostnet"][key]


def _deg(r: Runs, q: int, n: int, side: str) -> float:
    """Degradation of C2M or P2M in quadrant q with n C2M cores."""
    return _degradation(r[_alone(q, n, side)], r[f"q{q}/{n}"], side)


def _deg_seeds(r: Runs, q: int, n: int, side: str) -> list[float]:
    return [_degradation(a, b, side) for a, b in zip(r.seeds(_alone(q, n, side)), r.seeds(f"q{q}/{n}"), strict=True)]


def formula_latency(h: dict, read_write: bool, adjusted: bool = False) -> float:
    """The C2M-Read domain latency by the paper's formula (Fig 9) from a run's
    controller counters: the unloaded constant plus the queueing delay of
    write-to-read switches, writes ahead (write HoL), row misses (top of
    queue) and reads ahead (read HoL); C2M-ReadWrite adds the C2M-Write
    constant (§6). ``adjusted``: the repository's variant for quadrant 4
    (`readlatcpuadj`), where reads also wait for a full read queue: while it
    is full, the reads ahead are the CHA's, per channel."""
    o, reads = h["read_queue_occupancy"], max(h["cas_reads"], 1)
    if adjusted:
        p = h["read_queue_full"]
        o = (1 - p) * o + p * h["cha_read_occupancy"] / CHANNELS
    acts_w = h["activates"] - h["read_activates"]
    pre_read = h["conflict_precharges"] * h["read_activates"] / max(h["read_activates"] + acts_w, 1)
    qd = (o * h["write_to_read_switches"] / reads * T_SWITCH + o * h["cas_writes"] / reads * T_TRANS
          + h["read_activates"] / reads * T_ACT + pre_read / reads * T_PRE + max(0.0, o - 1) * T_TRANS)
    return CONST_READ_CPU + qd + (CONST_WRITE_CPU if read_write else 0.0)


def formula_gbytes_s(h: dict, cores: int, quadrant: int | None) -> float:
    """C2M throughput by the domain bound T = C x 64 / L (§4), C the cores' fill
    buffers in use, L the formula's latency (its quadrant 4 variant there;
    ``quadrant`` None: the C2M loop of quadrant 1, alone)."""
    read_write = quadrant in (3, 4)
    return cores * h["lfb_occupancy"] * 64 / formula_latency(h, read_write, adjusted=quadrant == 4)


def claims(r: Runs) -> list[Claim]:
    P = PAPER
    out = r.collect()
    deg = {(q, n, s): _deg(r, q, n, s) for q in QUADRANTS for n in CORES for s in ("c2m", "p2m")}
    h = lambda name: _h(r[name])  # noqa: E731
    unaffected = lambda q, ns: {n: round(deg[q, n, "p2m"], 3) for n in ns}  # noqa: E731

    # --- §2.2, Fig 3: the four quadrants ---
    out.append(span(P, "Fig 3 (Q1)", "quadrant 1: C2M throughput degrades 1.2-1.7x over 1-6 C2M cores",
                    "c2m degradation - 1 (%)", 20, 70, [100 * (deg[1, n, "c2m"] - 1) for n in CORES]))
    out.append(judged(P, "Fig 3 (Q1)", "quadrant 1: P2M throughput unaffected (1-6 C2M cores)", "p2m degradation",
                      "1.00 (Fig 3: at most 1.004)", unaffected(1, CORES), "every point below 1.03", max(unaffected(1, CORES).values()) < 1.03))
    one = h("q1/1")
    out.append(judged(P, "Sec. 2.2", "quadrant 1: C2M degrades with memory bandwidth far from saturated (1 C2M core)",
                      "c2m degradation; memory GB/s", "> 1.1 below 60 % of 46.9 GB/s",
                      {"degradation": round(deg[1, 1, "c2m"], 3), "memory_gbytes_s": round(one["memory_gbytes_s"], 2)},
                      "degradation above 1.1, memory below 60 % of peak",
                      deg[1, 1, "c2m"] > 1.1 and one["memory_gbytes_s"] < 0.6 * PEAK_GBS))
    out.append(monotone(P, "Fig 3 (Q1)", "quadrant 1: more C2M load, worse C2M degradation", "c2m degradation",
                        "non-decreasing", [_deg_seeds(r, 1, n, "c2m") for n in CORES]))
    out.append(judged(P, "Fig 3 (Q2)", "quadrant 2 degrades C2M less than quadrant 1 (every core count)", "c2m degradation",
                      "Q2 < Q1", {n: (round(deg[2, n, "c2m"], 3), round(deg[1, n, "c2m"], 3)) for n in CORES},
                      "Q2 below Q1 at each of 1-6 cores", all(deg[2, n, "c2m"] < deg[1, n, "c2m"] for n in CORES)))
    out.append(judged(P, "Fig 3 (Q2)", "quadrant 2: C2M degrades, P2M unaffected", "c2m, p2m degradation",
                      "C2M > 1.05 at 6 cores; P2M below 1.03", {"c2m@6": round(deg[2, 6, "c2m"], 3), "p2m": unaffected(2, CORES)},
                      "C2M above 1.05 at 6 cores, P2M below 1.03 everywhere",
                      deg[2, 6, "c2m"] > 1.05 and max(unaffected(2, CORES).values()) < 1.03))
    q4 = h("q4/6")
    out.append(judged(P, "Fig 3 (Q4)", "quadrant 4 as quadrant 2: C2M degrades, P2M unaffected, memory not saturated",
                      "c2m, p2m degradation; memory GB/s", "C2M > 1.05; P2M < 1.03; memory < 90 % of peak at 6 cores",
                      {"c2m@6": round(deg[4, 6, "c2m"], 3), "p2m": unaffected(4, CORES), "memory@6": round(q4["memory_gbytes_s"], 2)},
                      "C2M above 1.05 at 6 cores, P2M below 1.03 everywhere (Fig 3: at most 1.027), memory below 42.2 GB/s",
                      deg[4, 6, "c2m"] > 1.05 and max(unaffected(4, CORES).values()) < 1.03 and q4["memory_gbytes_s"] < 0.9 * PEAK_GBS))
    out.append(judged(P, "Fig 3 (Q3)", "quadrant 3 with 2 or fewer C2M cores: C2M degrades, P2M does not", "c2m, p2m degradation",
                      "C2M > 1.1, P2M < 1.03", {n: (round(deg[3, n, "c2m"], 3), round(deg[3, n, "p2m"], 3)) for n in (1, 2)},
                      "C2M above 1.1 and P2M below 1.03 at 1 and 2 cores",
                      all(deg[3, n, "c2m"] > 1.1 and deg[3, n, "p2m"] < 1.03 for n in (1, 2))))
    out.append(judged(P, "Fig 3 (Q3)", "quadrant 3, red regime: P2M degrades more than C2M from 4 C2M cores", "p2m vs c2m degradation",
                      "P2M > C2M at 4-6 cores (Fig 3: 1.46-1.86 vs 1.30-1.39)",
                      {n: (round(deg[3, n, "p2m"], 3), round(deg[3, n, "c2m"], 3)) for n in (4, 5, 6)},
                      "P2M above C2M at each of 4-6 cores", all(deg[3, n, "p2m"] > deg[3, n, "c2m"] for n in (4, 5, 6))))
    out.append(judged(P, "Sec. 5.2", "quadrant 3, 3 to 4 C2M cores: C2M's degradation falls while P2M's rises sharply",
                      "c2m, p2m degradation", "C2M down, P2M up by > 0.2 (Fig 3: 1.52 -> 1.30, 1.06 -> 1.46)",
                      {"c2m": (round(deg[3, 3, "c2m"], 3), round(deg[3, 4, "c2m"], 3)), "p2m": (round(deg[3, 3, "p2m"], 3), round(deg[3, 4, "p2m"], 3))},
                      "C2M's falls and P2M's rises by more than 0.2",
                      deg[3, 4, "c2m"] < deg[3, 3, "c2m"] and deg[3, 4, "p2m"] - deg[3, 3, "p2m"] > 0.2))
    out.append(ratio(P, "Fig 3 (Q3)", "quadrant 3: P2M degrades 1.86x with 6 C2M cores (figure)", "p2m degradation",
                     FIG3_P2M[3][5], deg[3, 6, "p2m"]))
    q3 = h("q3/6")
    out.append(share(P, "Fig 3 (Q3)", "quadrant 3, 6 C2M cores: C2M takes 77 % of the memory bandwidth (figure)",
                     "c2m share of memory GB/s", FIG3_Q3_BW6[0] / sum(FIG3_Q3_BW6),
                     (q3["c2m_gbytes_s"] + q3["c2m_write_gbytes_s"]) / q3["memory_gbytes_s"]))
    out.append(throughput(P, "Fig 3 (Q1)", "quadrant 1, 6 C2M cores: C2M reads 23.0 GB/s beside P2M (figure)",
                          "hostnet.c2m_gbytes_s", 22.97, h("q1/6")["c2m_gbytes_s"]))
    out.append(throughput(P, "Sec. 2", "a sequential read microbenchmark reaches more than 90 % of the 46.9 GB/s peak",
                          "hostnet.memory_gbytes_s", 0.9 * PEAK_GBS, h("c2m/read/6")["memory_gbytes_s"], bound="at least"))

    # --- §4: domains ---
    out.append(judged(P, "Sec. 4", "P2M-Write alone at ~14 GB/s uses ~65 of its 92 IIO credits", "hostnet.iio_occupancy", 65,
                      round(h("p2m/write")["iio_occupancy"], 1), "within 10 %", abs(h("p2m/write")["iio_occupancy"] / 65 - 1) <= 0.1
                      ).as_anchor("arithmetic on profile inputs: iio.write_latency x hostnet.p2m_rate / 64 B (both from Sec. 4 and Sec. 5.1)"))
    out.append(latency(P, "Sec. 4", "C2M-Read domain latency unloaded ~70 ns (1 core)", "hostnet.c2m_read_latency_ns", 70,
                       h("c2m/read/1")["c2m_read_latency_ns"]))
    # The LFB latency: a load's; a store's read for ownership and then its write-back's (Sec. 4.2)
    lfb = lambda name: h(name)["c2m_read_latency_ns"] + (h(name)["c2m_write_latency_ns"] or 0)  # noqa: E731
    lfb_rise = lambda c2m: 100 * (lfb(f"c2m/{c2m}/6") / lfb(f"c2m/{c2m}/1") - 1)  # noqa: E731
    out.append(relative_change(P, "Fig 6a", "C2M-Read alone: LFB latency rises 45 % from 1 to 6 cores (figure: 71 -> 103 ns)",
                               "hostnet.c2m_read_latency_ns", 100 * (FIG6A_LFB[1] / FIG6A_LFB[0] - 1), lfb_rise("read")))
    out.append(relative_change(P, "Fig 6b", "C2M-ReadWrite alone: LFB latency rises 165 % from 1 to 6 cores (figure: 84 -> 223 ns)",
                               "c2m_read_latency_ns + c2m_write_latency_ns", 100 * (FIG6B_LFB[1] / FIG6B_LFB[0] - 1), lfb_rise("read_write")))

    # --- §5.1: the blue regime, quadrant 1 ---
    lat = lambda name: h(name)["c2m_read_latency_ns"]  # noqa: E731
    out.append(span(P, "Fig 7a", "quadrant 1: C2M-Read domain latency 1.26-1.8x higher with P2M (1-6 cores)",
                    "c2m read latency ratio - 1 (%)", 26, 80, [100 * (lat(f"q1/{n}") / lat(f"c2m/read/{n}") - 1) for n in CORES]))
    out.append(judged(P, "Fig 7b", "quadrant 1: P2M raises the read queue's occupancy (queueing at the MC), every core count",
                      "hostnet.read_queue_occupancy", "with > without",
                      {n: (round(h(f"q1/{n}")["read_queue_occupancy"], 2), round(h(f"c2m/read/{n}")["read_queue_occupancy"], 2)) for n in CORES},
                      "higher with P2M at each of 1-6 cores",
                      all(h(f"q1/{n}")["read_queue_occupancy"] > h(f"c2m/read/{n}")["read_queue_occupancy"] for n in CORES)))
    out.append(share(P, "Fig 7c", "C2M-Read alone, 1 core: row miss ratio below 4 %", "hostnet.read_row_miss_ratio",
                     0.04, h("c2m/read/1")["read_row_miss_ratio"], bound="at most"))
    out.append(ratio(P, "Fig 7c", "quadrant 1: P2M raises the row miss ratio up to 4x", "read_row_miss_ratio colocated / alone",
                     4.0, max(h(f"q1/{n}")["read_row_miss_ratio"] / h(f"c2m/read/{n}")["read_row_miss_ratio"] for n in CORES)))
    # Fig 7d: the share of 1000-read samples whose busiest of 4 banks served >= 1.5x (2x) their mean, with and without P2M
    for key, lo, hi in (("bank_deviation_15", 0.50, 0.70), ("bank_deviation_2", 0.13, 0.22)):
        got = {p: round(h(f"banks/{p}")[key], 3) for p in ("none", "write")}
        out.append(judged(P, "Fig 7d", f"quadrant 1, 1 C2M core: bank deviation >= {'1.5' if key.endswith('15') else '2'}x "
                          f"in {lo:.0%}-{hi:.0%} of samples, with and without P2M", f"hostnet.{key}", f"{lo:.2f}-{hi:.2f}", got,
                          "each within the range widened by 15 points (the share rule)",
                          all(lo - 0.15 <= v <= hi + 0.15 for v in got.values())))
    out.append(share(P, "Fig 7f", "quadrant 1, 1 C2M core: the write queue is almost never full", "hostnet.write_queue_full",
                     0.0047, h("q1/1")["write_queue_full"]))
    out.append(share(P, "Fig 7f", "quadrant 1: the write queue is full less than 30 % of the time (1-6 cores)", "hostnet.write_queue_full",
                     0.30, max(h(f"q1/{n}")["write_queue_full"] for n in CORES), bound="at most"))
    p2m_rise = lambda q, n: h(f"q{q}/{n}")["p2m_latency_ns"] - h("p2m/write")["p2m_latency_ns"]  # noqa: E731
    out.append(judged(P, "Fig 7e", "quadrant 1: P2M-Write latency rises by less than 25 ns, less than C2M-Read's (2-6 cores)",
                      "hostnet.p2m_latency_ns rise (ns)", "< 25 and below C2M-Read's rise",
                      {n: round(p2m_rise(1, n), 1) for n in CORES[1:]}, "below 25 ns and below the C2M-Read rise at each point",
                      all(0 <= p2m_rise(1, n) < 25 and p2m_rise(1, n) < lat(f"q1/{n}") - lat(f"c2m/read/{n}") for n in CORES[1:])))
    iio = [h(f"q1/{n}")["iio_occupancy"] for n in CORES]
    out.append(judged(P, "Fig 7g", "quadrant 1: IIO credits in use rise slightly and stay well below 92", "hostnet.iio_occupancy",
                      "69 -> 72 (figure), limit 92", {n: round(v, 1) for n, v in zip(CORES, iio, strict=True)},
                      "rising from 1 to 6 cores, every point below 0.9 x 92", iio[-1] > iio[0] and max(iio) < 0.9 * 92))

    # --- §5.2: the red regime, quadrant 3 ---
    out.append(judged(P, "Fig 8d", "quadrant 3, 1-2 C2M cores: P2M-Write latency rises ~20-30 ns, no P2M degradation",
                      "hostnet.p2m_latency_ns rise (ns)", "20-30", {n: round(p2m_rise(3, n), 1) for n in (1, 2)},
                      "each rise within [10, 45] ns (half the low end to 1.5x the high), P2M degradation below 1.03",
                      all(10 <= p2m_rise(3, n) <= 45 for n in (1, 2)) and max(deg[3, 1, "p2m"], deg[3, 2, "p2m"]) < 1.03))
    out.append(share(P, "Fig 8e", "quadrant 3, 3 C2M cores: the write queue is full 75 % of the time", "hostnet.write_queue_full",
                     0.75, h("q3/3")["write_queue_full"]))
    out.append(share(P, "Fig 8e", "quadrant 3, 4 or more C2M cores: the write queue is full nearly all the time", "hostnet.write_queue_full",
                     0.97, min(h(f"q3/{n}")["write_queue_full"] for n in (4, 5, 6))))
    out.append(ratio(P, "Fig 8d", "quadrant 3, 3 to 4 C2M cores: P2M-Write domain latency rises 1.5x", "hostnet.p2m_latency_ns",
                     1.5, h("q3/4")["p2m_latency_ns"] / h("q3/3")["p2m_latency_ns"]))
    out.append(ratio(P, "Fig 8a", "quadrant 3, 3 to 4 C2M cores: C2M-Read domain latency rises only ~12 %", "hostnet.c2m_read_latency_ns",
                     1.12, lat("q3/4") / lat("q3/3")))
    out.append(judged(P, "Fig 8f", "quadrant 3, 4 or more C2M cores: the IIO's 92 write credits are exhausted", "hostnet.iio_occupancy",
                      "~92", {n: round(h(f"q3/{n}")["iio_occupancy"], 1) for n in (4, 5, 6)}, "every point at 0.95 x 92 or above",
                      all(h(f"q3/{n}")["iio_occupancy"] >= 0.95 * 92 for n in (4, 5, 6))))
    out.append(judged(P, "Sec. 5.2", "quadrant 3: the C2M-Write domain latency stays flat while P2M-Write's inflates (3-6 cores)",
                      "hostnet.c2m_write_latency_ns, p2m_latency_ns", "C2M-Write ~10 ns; P2M-Write up",
                      {n: (round(h(f"q3/{n}")["c2m_write_latency_ns"], 1), round(h(f"q3/{n}")["p2m_latency_ns"], 1)) for n in (3, 4, 5, 6)},
                      "C2M-Write below 20 ns and P2M-Write 1.2x its unloaded latency at 6 cores",
                      all(h(f"q3/{n}")["c2m_write_latency_ns"] < 20 for n in (3, 4, 5, 6))
                      and h("q3/6")["p2m_latency_ns"] > 1.2 * h("p2m/write")["p2m_latency_ns"]))
    rises = {"c2m": lat("q3/6") - lat("q3/5"), "p2m": h("q3/6")["p2m_latency_ns"] - h("q3/5")["p2m_latency_ns"]}
    out.append(judged(P, "Sec. 5.2", "quadrant 3, 5 to 6 C2M cores: both domain latencies rise by ~50 ns", "latency rise (ns)", 50,
                      {k: round(v, 1) for k, v in rises.items()}, "each within [25, 75] ns", all(25 <= v <= 75 for v in rises.values())))

    # --- Appendix A: P2M-Read's spare credits ---
    out.append(judged(P, "Fig 13d/14d", "quadrants 2 and 4: P2M reads in flight stay far below the ~164 credits", "hostnet.iio_occupancy",
                      "< 164", {f"q{q}": round(max(h(f"q{q}/{n}")["iio_occupancy"] for n in CORES), 1) for q in (2, 4)},
                      "every point below 0.9 x 164", all(h(f"q{q}/{n}")["iio_occupancy"] < 0.9 * 164 for q in (2, 4) for n in CORES)))

    # --- Appendix C: the same quadrants with the RDMA NIC's lower P2M load ---
    lower = {f"q{q}": (round(sum(_degradation(r[_alone(q, n, "c2m")], r[f"rdma/q{q}/{n}"], "c2m") for n in CORES) / 6, 3),
                       round(sum(deg[q, n, "c2m"] for n in CORES) / 6, 3)) for q in QUADRANTS}
    out.append(judged(P, "Appendix C", "with the NIC's 98 Gbps of RDMA instead of the SSDs' 112 Gbps, C2M degrades slightly less (quadrants 1-4)",
                      "mean c2m degradation over 1-6 cores (RDMA, SSD)", "RDMA below SSD", lower,
                      "lower with RDMA in each quadrant (the text gives no size)", all(a < b for a, b in lower.values())))

    # --- §6: the paper's formula on the simulation's counters ---
    errs = {f"q{q}/{n}": 100 * (formula_gbytes_s(h(f"q{q}/{n}"), n, q) / h(f"q{q}/{n}")["c2m_gbytes_s"] - 1)
            for q in (1, 2, 4) for n in CORES}
    out.append(judged(P, "Fig 11", "the formula captures C2M throughput within 10 % in quadrants 1, 2 and 4",
                      "formula vs simulated c2m_gbytes_s (%)", "within ±10 %", {k: round(v, 1) for k, v in errs.items()},
                      "every point within ±10 %", all(abs(v) <= 10 for v in errs.values())))
    return out


RED = ("the model's write queue is full far less often than the server's (Fig 8e), so the P2M writes never back up into "
       "the IIO's 92 credits: its drains (down to dram.write_low = 0; Intel's watermarks are unpublished) hold the reads "
       "back, and the C2M loops slow down before their write-backs pile up")
MAP = ("the address map (DRAMsim3's field order with Intel's bank XOR; Intel's is unpublished) keeps a 4 KiB page's lines "
       "in one row of one bank: streams rarely conflict and the bank load comes in page-sized lumps")


def why(c: Claim) -> str:
    """The mechanism a failing claim lacks, by what it is about (one cause fails several)."""
    if c.figure in ("Fig 7c", "Fig 7d"):
        return MAP
    if "quadrant 3" in c.claim:
        return RED
    if c.figure == "Fig 3 (Q1)":
        return ("at one core the isolated C2M latency (from the anchored dram.latency, a sequential loop's row hits) sits "
                "~5 ns under the paper's 71 ns while the colocated one matches its 90 ns, so the degradation is higher")
    if c.figure == "Fig 3 (Q4)":
        return ("P2M-Read's path outside DRAM is unmeasured (taken as the P2M-Write way in and the C2M way back, ~360 ns "
                "unloaded): with 6 C2M cores its reads in flight reach the 164 credits in bursts")
    if c.figure == "Fig 11":
        return "quadrant 2 alone: the formula's read head-of-line term counts more queueing beside P2M reads than the model's reads see"
    return ""


def figures(r: dict) -> list[dict[str, Any]]:
    figs = []
    for q, (c2m, p2m) in QUADRANTS.items():
        runs = [f"q{q}/{n}" for n in CORES]
        rw = c2m == "read_write"
        sim = {s: [_degradation(r[_alone(q, n, s)], r[f"q{q}/{n}"], s) for n in CORES] for s in ("c2m", "p2m")}
        alone = 3 if rw else 1  # (the loop alone: its quadrant's latency formula without the quadrant 4 variant)
        model = [formula_gbytes_s(r[f"c2m/{c2m}/{n}"]["hostnet"], n, alone) / formula_gbytes_s(r[f"q{q}/{n}"]["hostnet"], n, q) for n in CORES]
        figs.append(figure(f"fig3-q{q}", f"Fig 3 (Q{q})", f"Fig 3, quadrant {q}: C2M-{'ReadWrite' if rw else 'Read'} beside P2M-{p2m.title()}",
                           "C2M cores", "degradation (isolated / colocated)", [
                               series("C2M (simulated)", runs, CORES, sim["c2m"]),
                               series("P2M (simulated)", runs, CORES, sim["p2m"]),
                               series("C2M (paper's formula on the simulated counters)", runs, CORES, model)],
                           paper=[paper_points("paper: C2M (figure)", CORES, FIG3_C2M[q]), paper_points("paper: P2M (figure)", CORES, FIG3_P2M[q])]))
    return figs
