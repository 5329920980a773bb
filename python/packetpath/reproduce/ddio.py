"""Reproduce "Reexamining Direct Cache Access to Optimize I/O Intensive
Applications for Multi-hundred-gigabit Networks" (Farshin et al., USENIX ATC'20).

Every run uses the `ddio-skylake` profile (Xeon Gold 6140 + ConnectX-5) and
FastClick-style L2 forwarding; the figures differ only in what the paper
varied. Paper values are read off the text (figures give no tables); each
claim names its figure and the sentence it tests.
"""

from __future__ import annotations

from typing import Any

from packetpath.plots import figure, paper_level, paper_points, series
from packetpath.reproduce import (CREDIT_LOOP, CREDIT_LOOP_WHY, Claim, Runs, all_of, bound_by, count, crossover, in_stages, latency, metric, monotone, ordering, pct_change,
                                  ratio, relative_change, share, throughput, up_to)

PAPER = "ddio"
PROFILE = "ddio-skylake"
UNSOURCED, UNSOURCED_WHY = CREDIT_LOOP, CREDIT_LOOP_WHY

FIG6_SIZES = [256, 512, 1024, 1500]
FIG6_RINGS = [128, 256, 512, 1024, 2048, 4096]
FIG8_RATES = [10, 25, 50, 60, 70, 75, 80, 85, 90, 95, 100]
FIG10_CORES = [1, 2, 4, 6, 8]
FIG11_CORES = [1, 2, 4]
FIG11_WAYS = [2, 4, 6, 8]
FIG2_RINGS = [256, 512, 1024, 2048]  # per core, 2 cores
FIG5_WAYS = [2, 4, 6, 8, 11]
# Fig 9: calls of std::mt19937 per packet; "ten such calls take ~70 cycles".
FIG9_CALLS = [0, 20, 40, 60, 80, 100, 150]
CYCLES_PER_CALL = 7
FIG2_WAYS = [2, 4, 8]
# The campus trace of Table 2 and Fig 14 has mixed sizes averaging 981 B; a
# 64 B / 1500 B mix with the same mean stands in for it (we have no trace).
MIXED = {"size_dist": "bimodal", "bimodal_small": 64, "bimodal_large": 1500, "bimodal_small_share": round((1500 - 981) / (1500 - 64), 4)}
# Fig 14: CAT gives each application its own ways, away from DDIO's (ResQ).
FIG14_CAT = ["0x007", "0x038"]
# Fig 12: the stateful chain (NAPT + LB) on 18 cores with 256 descriptors each
# (Sec. 7), the campus trace at 100 Gbps. Its busiest core gets 2.78x
# (load-aware rules) or 1.69x (round-robin) the average share of packets: a
# share s of the frames aimed at core 0 gives it s + (1 - s) / 18 of them.
FIG12_CORES = 18
FIG12_IMBALANCE = {"high": 2.78, "low": 1.69}
FIG12_WAYS = [2, 4, 6, 8]
# Assumption: the paper does not give the trace's flow count.
FIG12_FLOWS = 20_000
# Sec 3.1: the measured window of the PAUSE count, ms.
SEC31_MS = 5
# The stages of a packet's latency that DDIO's ways act on: a write miss
# holds the NIC's Rx DMA (nic_rx, pcie_dma), a core's read miss slows the
# core and fills its ring (core, ring_wait), Tx reads a line from memory
# (tx_queue). The source's queue and the wire are outside the host.
DDIO_STAGES = ("nic_rx", "pcie_dma", "ring_wait", "core", "tx_queue")
# What bounds a core-limited forwarder: its cores, or (they fall behind) its rings.
CORE_BOUND = ("cores", "Rx descriptors")
# The runs behind orderings and trends, rerun over SEEDS seeds.
SEEDED = ("fig6/", "fig5/", "fig9/", "fig10/", "fig11/", "fig2/", "fig14/")


def _scenario(cores: int, ring: int, size: int | None = 1500, rate: float = 100, ways: int = 2, **extra: Any) -> dict:
    s: dict[str, Any] = {
        "profile": PROFILE,
        "cpu": {"cores": cores},
        "nic": {"rx_ring_size": ring},
        "llc": {"ddio_ways": ways},
        "traffic": {"rate": f"{rate}Gbps"} | ({"size": size} if size else MIXED),
        "app": {"nf": "l2fwd"},
    }
    for section, values in extra.items():
        s.setdefault(section, {}).update(values)
    return s


def scenarios() -> dict[str, dict]:
    runs: dict[str, dict] = {}
    for size in FIG6_SIZES:
        for ring in FIG6_RINGS:
            runs[f"fig6/{size}B/{ring}"] = _scenario(1, ring, size)
    for rate in FIG8_RATES:
        runs[f"fig8/{rate}G"] = _scenario(2, 2048, 1500, rate)
    for ways in FIG5_WAYS:
        runs[f"fig5/{ways}w"] = _scenario(1, 4096, 1024, ways=ways)
    for calls in FIG9_CALLS:
        # the profile's NF cycles plus the dummy computation
        runs[f"fig9/{calls}calls"] = _scenario(2, 2048, app={"nf_cycles": 40 + CYCLES_PER_CALL * calls})
    # Sec 4.1-4.3 setup: the I/O application on 2 fixed ways (0x0C0), a
    # cache-hungry co-runner on 2 others; then the NIC moves to the remote socket.
    cosetup = {"llc": {"cat_masks": ["0x0c0"]}, "corunner": {"enabled": True, "cat_mask": "0x030", "buffer": "16MiB"}}
    runs["sec4.3/alone"] = _scenario(1, 4096, 1024, llc={"cat_masks": ["0x0c0"]})
    runs["sec4.3/local"] = _scenario(1, 4096, 1024, **cosetup)
    runs["sec4.3/remote"] = _scenario(1, 4096, 1024, nic={"remote_socket": [True]}, **cosetup)
    for cores in FIG10_CORES:
        runs[f"fig10/{cores}c"] = _scenario(cores, 256)
    for cores in FIG11_CORES:
        for ways in FIG11_WAYS:
            runs[f"fig11/{cores}c/{ways}w"] = _scenario(cores, 4096 // cores, ways=ways)
    for ways in FIG2_WAYS:
        for ring in FIG2_RINGS:
            runs[f"fig2/{ways}w/{ring}"] = _scenario(2, ring, ways=ways)
    for ways, label in ((2, "on"), (0, "off")):
        runs[f"table2/ddio-{label}"] = _scenario(4, 1024, None, ways=ways)
    for level, ratio in FIG12_IMBALANCE.items():
        share = round((ratio - 1) / (FIG12_CORES - 1), 4)
        for ways in FIG12_WAYS:
            runs[f"fig12/{level}/{ways}w"] = _scenario(
                FIG12_CORES, 256, None, ways=ways,
                app={"nf": "nat_lb", "flow_table_size": 65536},
                traffic={"flows": FIG12_FLOWS, "target_share": share, "target_size": 0})
    two = {"count": 2}
    cat = {"cat_masks": FIG14_CAT}
    runs["fig14/i-alone"] = _scenario(4, 1024, None, llc=cat | {"cat_masks": FIG14_CAT[:1]})
    runs["fig14/ii-2way"] = _scenario(4, 1024, None, nic=two, llc=cat)
    runs["fig14/iii-4way"] = _scenario(4, 1024, None, ways=4, nic=two, llc=cat)
    runs["fig14/iv-remote"] = _scenario(4, 1024, None, nic=two | {"remote_socket": [False, True]}, llc=cat)
    runs["fig14/v-ddio-off"] = _scenario(4, 1024, None, nic=two | {"ddio": [True, False]}, llc=cat)
    # Sec 3.1 (3): one core forwarding at 100 Gbps, 1024 Rx and Tx
    # descriptors, the one experiment with PAUSE on (it counts PAUSE frames);
    # the frame size is not given, 1500 B assumed (as Fig 7's).
    runs["sec3.1/pause"] = _scenario(1, 1024, 1500, sim={"duration": f"{SEC31_MS}ms"}, nic={"flow_control": True})
    return runs


def _knee(xs: list[float], ys: list[float], drop: float = 0.05) -> float | None:
    """First x where y has fallen more than `drop` below its value at the
    lowest x; None if it never does on the grid."""
    for x, y in zip(xs, ys):
        if ys[0] - y > drop:
            return x
    return None


def claims(r: Runs) -> list[Claim]:
    P = PAPER
    wh, rh = "pcie_write_hit_rate", "pcie_read_hit_rate"
    out = r.collect()

    # Fig 6 -- one core, hit rate vs Rx descriptors and packet size.
    for size in (1024, 1500):
        out.append(monotone(P, "Fig 6", f"{size} B: PCIe write hit rate falls with more Rx descriptors", wh,
                            "non-increasing", [r.sample(f"fig6/{size}B/{n}", wh) for n in FIG6_RINGS]))
    out.append(share(P, "Fig 6", "1500 B, 128 descriptors: ~10% misses", wh, 0.90, r["fig6/1500B/128"][wh]))
    out.append(share(P, "Fig 6", "1500 B, 4096 descriptors: DDIO at ~40% hit rate", wh, 0.40, r["fig6/1500B/4096"][wh]))

    # Fig 8 -- two cores, 1500 B, 4096 descriptors, offered load sweep.
    low = [r[f"fig8/{g}G"][wh] for g in FIG8_RATES if g <= 70]
    out.append(share(P, "Fig 8", "write hit ~75% (25% allocations) at most throughputs", wh, 0.75, sum(low) / len(low)))
    out.append(crossover(P, "Fig 8", "write hit rate degrades above ~75 Gbps", wh, FIG8_RATES, 75,
                         _knee(FIG8_RATES, [r[f"fig8/{g}G"][wh] for g in FIG8_RATES])))
    # A read-hit knee the simulation does not show is missing, not a knee at the grid's end.
    out.append(crossover(P, "Fig 8", "read hit rate stays high until ~98 Gbps, then degrades", rh, FIG8_RATES, 98,
                         _knee(FIG8_RATES, [r[f"fig8/{g}G"][rh] for g in FIG8_RATES])))

    # Fig 5 -- tuning IIO LLC WAYS, 1024 B at 100 Gbps, 4096 descriptors.
    out.append(monotone(P, "Fig 5", "more IIO LLC WAYS raise the PCIe write hit rate (1024 B, 4096 desc.)", wh,
                        "non-decreasing", [r.sample(f"fig5/{w}w", wh) for w in FIG5_WAYS]))
    out.append(monotone(P, "Fig 5", "more IIO LLC WAYS raise the PCIe read hit rate (1024 B, 4096 desc.)", rh,
                        "non-decreasing", [r.sample(f"fig5/{w}w", rh) for w in FIG5_WAYS]))
    # Fig 5's caption: "The achieved throughput is 82-86 Gbps in this experiment" (one core), over the whole ways sweep.
    out.append(all_of(P, "Fig 5", "one core forwards 82-86 Gbps of 1024 B frames (4096 desc., at every IIO LLC WAYS setting)",
                      "throughput_gbps", [throughput(P, "Fig 5", f"{w} ways", "throughput_gbps", 84.0, r[f"fig5/{w}w"]["throughput_gbps"])
                                          for w in FIG5_WAYS]))

    # Sec 4.3 -- a NIC on the remote socket: no I/O lines in the local LLC,
    # and the I/O application's cache misses grow ~20x over "the local socket
    # without any contention" (no co-runner).
    alone, remote = r["sec4.3/alone"], r["sec4.3/remote"]
    out.append(share(P, "Sec 4.3", "remote-socket DMA does not end up in the local LLC (write hits)", wh, 0.0, remote[wh]).as_anchor(
        "by construction: the model sends a remote socket's DMA to memory, no simulation decides it"))
    out.append(ratio(P, "Sec 4.3", "the I/O application's LLC misses grow ~20x via the remote socket", "llc_misses_per_packet",
                     20.0, remote["llc_misses_per_packet"] / max(alone["llc_misses_per_packet"], 1e-9)))

    # Fig 9 -- extra computation per packet: throughput falls past ~60 calls.
    thr = [r[f"fig9/{c}calls"]["throughput_gbps"] for c in FIG9_CALLS]
    out.append(crossover(P, "Fig 9", "throughput starts to fall beyond ~60 calls (~400 cycles) per packet", "throughput_gbps",
                         FIG9_CALLS, 60, next((c for c, t in zip(FIG9_CALLS, thr) if t < 0.95 * thr[0]), None)))
    out.append(ordering(P, "Fig 9", "once CPU-bound, the write hit rate rises (150 calls vs 40)", wh, ["150 calls", "40 calls"],
                        {"150 calls": r.sample("fig9/150calls", wh), "40 calls": r.sample("fig9/40calls", wh)}))

    # Fig 7's caption: "our testbed cannot exceed 90 Gbps when only one core is forwarding packets":
    # one-sided, over the one-core runs of Figs 6-7 (every size and ring), and for the
    # caption's reason: the one core bounds it.
    one = {n: r[n] for n in (f"fig6/{size}B/{ring}" for size in FIG6_SIZES for ring in FIG6_RINGS)}
    top = max(one, key=lambda n: one[n]["throughput_gbps"])
    out.append(bound_by(throughput(P, "Fig 7", "one core cannot exceed 90 Gbps (every size and ring of Figs 6-7)", "throughput_gbps",
                                   90.0, up_to(x["throughput_gbps"] for x in one.values()), bound="at most"),
                        {top: one[top]}, CORE_BOUND, "only one core forwarding"))

    # Fig 10 -- 256 descriptors per core, more cores.
    hits = [r[f"fig10/{c}c"][wh] for c in FIG10_CORES]
    best = FIG10_CORES[max(range(len(hits)), key=hits.__getitem__)]
    # One statement ("beyond a certain point (i.e., four cores)"), scored once: where the hit rate peaks.
    out.append(crossover(P, "Fig 10", "hit rate improves up to 4 cores, then falls", wh, FIG10_CORES, 4, best))

    # Fig 11 -- more DDIO ways, total 4096 descriptors.
    for cores in FIG11_CORES:
        out.append(monotone(P, "Fig 11", f"{cores} core(s): more DDIO ways raise the write hit rate", wh,
                            "non-decreasing", [r.sample(f"fig11/{cores}c/{w}w", wh) for w in FIG11_WAYS]))
    # "More ways act like more cores": more cores (same 4096 descriptors) raise the hit rate as more ways do.
    out.append(ordering(P, "Fig 11", "more ways act like more cores: 2 cores beat 1 core at 2 ways", wh,
                        ["2 cores", "1 core"], {"2 cores": r.sample("fig11/2c/2w", wh), "1 core": r.sample("fig11/1c/2w", wh)}))

    # Fig 2 -- more ways allow more descriptors at equal or better p99. (It plots
    # only latency; its runs' hit rates are Fig 11's 2-core series, scored there.)
    biggest = FIG2_RINGS[-1]
    out.append(in_stages(monotone(P, "Fig 2", f"{2 * biggest} descriptors: p99 falls with more DDIO ways", "latency_ns.p99",
                                  "non-increasing", [r.sample(f"fig2/{w}w/{biggest}", "latency_ns.p99") for w in FIG2_WAYS]),
                         r.seeds(f"fig2/{FIG2_WAYS[0]}w/{biggest}"), r.seeds(f"fig2/{FIG2_WAYS[-1]}w/{biggest}"), DDIO_STAGES, "DDIO ways"))

    # Fig 12 -- stateful chain on 18 cores: more DDIO ways cut the p99 when
    # the load is imbalanced ("up to": the best of 4, 6 and 8 ways vs 2).
    def p99(level: str, ways: int) -> float:
        return metric(r[f"fig12/{level}/{ways}w"], "latency_ns.p99")

    cut = {level: min(pct_change(p99(level, w), p99(level, 2)) for w in FIG12_WAYS[1:]) for level in FIG12_IMBALANCE}
    best_ways = {level: min(FIG12_WAYS[1:], key=lambda w, lv=level: p99(lv, w)) for level in FIG12_IMBALANCE}
    for level, paper_pct, what in (("high", -21.0, "by up to ~21%"), ("low", -2.0, "by only ~2%")):
        out.append(in_stages(relative_change(P, "Fig 12", f"{FIG12_IMBALANCE[level]}x imbalance: more DDIO ways cut the chain's p99 {what}",
                                             "latency_ns.p99", paper_pct, cut[level]),
                             [r[f"fig12/{level}/2w"]], [r[f"fig12/{level}/{best_ways[level]}w"]], DDIO_STAGES, "DDIO ways"))
    # 94 vs 97 Gbps: each level's throughput must be told from the other's (the imbalance is what differs).
    for level, gbps in (("high", 94.0), ("low", 97.0)):
        other = "low" if level == "high" else "high"
        out.append(throughput(P, "Fig 12", f"{FIG12_IMBALANCE[level]}x imbalance: the chain forwards {gbps:g} Gbps", "throughput_gbps",
                              gbps, r[f"fig12/{level}/2w"]["throughput_gbps"],
                              others={f"the {FIG12_IMBALANCE[other]}x run": r[f"fig12/{other}/2w"]["throughput_gbps"]}))

    # Table 2 -- L2 forwarding, DDIO on vs off (each report read where its claim is made, so each claim names its runs).
    out.append(throughput(P, "Table 2", "L2 forwarding with DDIO reaches 98.01 Gbps", "throughput_gbps", 98.01,
                          r["table2/ddio-on"]["throughput_gbps"]))
    on, off = r["table2/ddio-on"], r["table2/ddio-off"]
    out.append(relative_change(P, "Table 2", "disabling DDIO lowers L2 forwarding throughput (98.01 -> 87.02 Gbps)",
                               "throughput_gbps", pct_change(87.02, 98.01), pct_change(off["throughput_gbps"], on["throughput_gbps"])))
    out.append(in_stages(relative_change(P, "Table 2", "disabling DDIO raises median latency (500.82 -> 1058.15 us)", "latency_ns.p50",
                                         pct_change(1058.15, 500.82), pct_change(metric(off, "latency_ns.p50"), metric(on, "latency_ns.p50"))),
                         [on], [off], DDIO_STAGES, "DDIO off"))
    out.append(latency(P, "Table 2", "median latency with DDIO 500.82 us", "latency_ns.p50", 500_820, metric(on, "latency_ns.p50")))

    # Fig 14 -- 200 Gbps over two NICs; the high-priority application's p99.
    hp = {k.split("/")[1]: r.sample(k, "per_nic.0.latency_ns.p99") for k in r if k.startswith("fig14/")}
    mean = {case: sum(v) / len(v) for case, v in hp.items()}
    seeds = lambda case: r.seeds(f"fig14/{case}")  # noqa: E731
    out.append(in_stages(relative_change(P, "Fig 14", "contention via 2-way DDIO makes the high-priority p99 ~30% worse",
                                         "per_nic[0].latency_ns.p99", 30.0, pct_change(mean["ii-2way"], mean["i-alone"])),
                         seeds("i-alone"), seeds("ii-2way"), DDIO_STAGES, "contention for the DDIO ways"))
    out.append(in_stages(ordering(P, "Fig 14", "4 DDIO ways recover the p99", "per_nic[0].latency_ns.p99", ["ii-2way", "iii-4way"], hp),
                         seeds("ii-2way"), seeds("iii-4way"), DDIO_STAGES, "DDIO ways"))
    out.append(ordering(P, "Fig 14", "bypassing the cache via the remote socket recovers the p99", "per_nic[0].latency_ns.p99",
                        ["ii-2way", "iv-remote"], hp))

    # Sec 3.1 (3) -- PAUSE frames the NIC sent per packet it received.
    p = r["sec3.1/pause"]
    per_pkt = p["pause_frames"] / max(p["rx_pps"] * SEC31_MS / 1e3, 1.0)
    out.append(count(P, "Sec 3.1", "one core at 100 Gbps, 1024 Rx & Tx descriptors: ~179 k PAUSE frames per ~80 M packets received",
                     "pause_frames per packet", 179e3 / 80e6, per_pkt))
    return out


# Why each claim that does not pass fails, in terms of the model (by claim text).
CREDITS = ("with PAUSE off, the model's bottleneck is the root port's posted credits in front of the Rx rings (the "
           "measured 92-line IIO write buffer over a credit loop no source measures, `pcie.credit_loop`), not the core")
CHAIN_CAP = ("both imbalances stop at the same posted-credit cap, ~84 Gbps (the measured 92-line IIO write buffer over the "
             "profile's 375 ns credit loop, which no source measures), so the imbalance, which sets the paper's 94 vs 97, "
             "does not move it")
WHY = {
    "2.78x imbalance: the chain forwards 94 Gbps": CHAIN_CAP,
    "1.69x imbalance: the chain forwards 97 Gbps": CHAIN_CAP,
    "1500 B, 128 descriptors: ~10% misses":
        "at 128 descriptors the ring's buffers, completions and descriptors fit in the 2 DDIO ways with room to spare, so "
        "every DMA write hits; what evicted a tenth of the testbed's I/O lines (other software's lines, the kernel, the "
        "unpublished L3 policy) is not in the model",
    "write hit ~75% (25% allocations) at most throughputs":
        "a buffer's reuse distance is the ring size in packets whatever the rate, so the hit rate is the same at every "
        "throughput; at 4096 descriptors the ring's buffers overflow the DDIO ways and hit less than the testbed's",
    "one core forwards 82-86 Gbps of 1024 B frames (4096 desc., at every IIO LLC WAYS setting)":
        "one core keeps up with 100 Gbps of 1024 B frames: the testbed's core or its one Tx ring "
        "was the limit. The ConnectX-5's Tx descheduling of a ring whose frames fill its share of the Tx buffer is in the "
        "engine (`nic.tx_queue_buffer`) but off: the share is unpublished, and a value fitted to this figure would be an anchor",
    "the I/O application's LLC misses grow ~20x via the remote socket":
        "with the cores keeping up, the local application's header reads almost always hit the line the NIC has just "
        "written, so the ratio to the remote case (every header from DRAM) is larger than the testbed's",
    "hit rate improves up to 4 cores, then falls":
        "the cores are never the bottleneck at 1500 B, so more cores cannot consume buffers "
        "sooner: the ring size, not the core count, sets the reuse distance, and more cores only add rings",
    "disabling DDIO lowers L2 forwarding throughput (98.01 -> 87.02 Gbps)":
        "the loss comes from the root port: with DDIO off every line is committed through a memory channel and each "
        "frame's partial last line is an RFO from DRAM, so its posted credits are held longer; how much that costs rests "
        "on the credit loop no source measures (`pcie.credit_loop`) and on how long the memory controllers' write "
        "queues hold them",
    "median latency with DDIO 500.82 us":
        "the testbed's ~500 us medians mean packets queued in host software queues; " + CREDITS + ", so the NIC's Rx "
        "buffer holds most of the latency (tens of us) and drops the rest, and the rings stay nearly empty",
    "one core at 100 Gbps, 1024 Rx & Tx descriptors: ~179 k PAUSE frames per ~80 M packets received":
        "PAUSE follows the Rx buffer's fill: " + CREDITS + ", so the buffer crosses mlx5's XOFF threshold more often "
        "than behind the testbed's core",
}


def why(c: Claim) -> str:
    return WHY.get(c.claim, "")


def figures(r: dict[str, dict]) -> list[dict[str, Any]]:
    """The reproduced figures as data: the PNGs of `plots` and the interactive
    charts of `packetpath report` are both drawn from this. Hit rates are
    shares, as the claims give them."""
    figs = []
    figs.append(figure("fig6", "Fig 6", "Fig 6: 1 core, 2-way DDIO", "Rx descriptors", "PCIe write hit rate", [
        series(f"{size} B", runs := [f"fig6/{size}B/{n}" for n in FIG6_RINGS], FIG6_RINGS, [r[n]["pcie_write_hit_rate"] for n in runs])
        for size in FIG6_SIZES
    ], xscale="log2", paper=[paper_points("paper: 1500 B", [128, 4096], [0.9, 0.4])]))
    runs = [f"fig8/{g}G" for g in FIG8_RATES]
    figs.append(figure("fig8", "Fig 8", "Fig 8: 2 cores, 1500 B, 4096 descriptors", "throughput (Gbps)", "PCIe hit rate", [
        series(label, runs, [r[n]["throughput_gbps"] for n in runs], [r[n][key] for n in runs])
        for key, label in (("pcie_write_hit_rate", "write"), ("pcie_read_hit_rate", "read"))
    ], paper=[paper_level("paper: write hit rate ~0.75", 0.75)]))
    runs = [f"fig10/{c}c" for c in FIG10_CORES]
    figs.append(figure("fig10", "Fig 10", "Fig 10", "cores (256 descriptors each)", "PCIe hit rate", [
        series(label, runs, FIG10_CORES, [r[n][key] for n in runs])
        for key, label in (("pcie_write_hit_rate", "write"), ("pcie_read_hit_rate", "read"))
    ]))
    figs.append(figure("fig11", "Fig 11", "Fig 11: 4096 descriptors in total", "DDIO ways", "PCIe write hit rate", [
        series(f"{c} core(s)", runs := [f"fig11/{c}c/{w}w" for w in FIG11_WAYS], FIG11_WAYS, [r[n]["pcie_write_hit_rate"] for n in runs])
        for c in FIG11_CORES
    ]))
    figs.append(figure("fig2", "Fig 2", "Fig 2", "Rx descriptors (2 cores)", "p99 latency (us)", [
        series(f"{w}W", runs := [f"fig2/{w}w/{n}" for n in FIG2_RINGS], [2 * n for n in FIG2_RINGS], [metric(r[n], "latency_ns.p99") / 1e3 for n in runs])
        for w in FIG2_WAYS
    ], xscale="log2"))
    runs = [f"fig9/{c}calls" for c in FIG9_CALLS]
    figs.append(figure("fig9", "Fig 9", "Fig 9: 2 cores, 1500 B", "dummy calls per packet (~7 cycles each)", "throughput (Gbps)", [
        series("throughput", runs, FIG9_CALLS, [r[n]["throughput_gbps"] for n in runs])
    ]))
    runs = [f"fig5/{w}w" for w in FIG5_WAYS]
    figs.append(figure("fig5", "Fig 5", "Fig 5: 1024 B, 4096 descriptors", "IIO LLC WAYS (DDIO ways)", "PCIe hit rate", [
        series(label, runs, FIG5_WAYS, [r[n][key] for n in runs])
        for key, label in (("pcie_write_hit_rate", "write"), ("pcie_read_hit_rate", "read"))
    ]))
    figs.append(figure("fig12", "Fig 12", "Fig 12: stateful chain, 18 cores", "DDIO ways", "p99 latency (us)", [
        series(f"{ratio}x imbalance", runs := [f"fig12/{level}/{w}w" for w in FIG12_WAYS], FIG12_WAYS,
               [metric(r[n], "latency_ns.p99") / 1e3 for n in runs])
        for level, ratio in FIG12_IMBALANCE.items()
    ]))
    cases = [k for k in r if k.startswith("fig14/")]
    figs.append(figure("fig14", "Fig 14", "Fig 14: 200 Gbps over two NICs", "", "high-priority p99 (us)", [
        series("p99", cases, [c.split("/")[1] for c in cases], [metric(r[c]["per_nic"][0], "latency_ns.p99") / 1e3 for c in cases])
    ], kind="bar"))
    return figs
