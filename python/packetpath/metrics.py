"""The report's metrics: dotted path in the report JSON, unit, one-line meaning.

Names follow what Intel PCM and NIC counters report, so a simulated number can
be put beside a measured one. The CLI's tables and the docs' metric reference use this list;
a test checks it against a real report, so a new engine metric lands here too.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Metric(NamedTuple):
    path: str
    unit: str
    meaning: str


METRICS: tuple[Metric, ...] = (
    Metric("offered_gbps", "Gbps", "frame bits offered per second (FCS included; preamble and inter-frame gap not)"),
    Metric("throughput_gbps", "Gbps", "frame bits that left the Tx ports per second, same accounting"),
    Metric("offered_wire_gbps", "Gbps", "the offered load on the wire: frame bits plus each frame's preamble, SFD and inter-frame gap (20 B), as `traffic.rate` counts it"),
    Metric("throughput_wire_gbps", "Gbps", "what left the Tx ports on the wire, same accounting (a port's line rate is its ceiling)"),
    Metric("rx_pps", "pps", "packets received by the cores per second"),
    Metric("drop_rate", "", "share of offered packets dropped, for any of the reasons below"),
    Metric("drops.rx_buffer", "packets", "dropped because the NIC's receive buffer was full"),
    Metric("drops.no_descriptor", "packets", "dropped for lack of a free Rx descriptor"),
    Metric("drops.software", "packets", "dropped by the application (its software queue was full)"),
    Metric("pause_frames", "frames", "802.3x PAUSE frames (XOFF and XON) the ports sent (`nic.flow_control`)"),
    Metric("latency_ns.p50", "ns", "median wire-to-wire latency; with `nic.flow_control`, from when the source made the frame (time PAUSE held it at the source included)"),
    Metric("latency_ns.p99", "ns", "99th-percentile latency"),
    Metric("latency_ns.p999", "ns", "99.9th-percentile latency"),
    Metric("latency_ns.mean", "ns", "mean latency"),
    Metric("latency_ns.max", "ns", "largest latency seen"),
    Metric("latency_breakdown_ns.source_queue", "ns", "mean latency, stage by stage (the parts add up to `total`): held at the source by PAUSE"),
    Metric("latency_breakdown_ns.nic_rx", "ns", "arriving at the port and waiting in the NIC's Rx buffer until its DMA starts (descriptor, link, posted credits)"),
    Metric("latency_breakdown_ns.pcie_dma", "ns", "the Rx DMA until the frame's completion is visible in host memory"),
    Metric("latency_breakdown_ns.ring_wait", "ns", "in the completion ring until a core takes it"),
    Metric("latency_breakdown_ns.core", "ns", "the core's burst (this and the burst's other packets) until its Tx doorbell leaves"),
    Metric("latency_breakdown_ns.tx_queue", "ns", "the NIC's Tx path: doorbell, WQE and data reads, Tx buffer, until the wire"),
    Metric("latency_breakdown_ns.wire", "ns", "serialisation on the Tx port"),
    Metric("latency_breakdown_ns.total", "ns", "the mean latency of the packets the breakdown covers (as `latency_ns.mean`, without the histogram's rounding)"),
    Metric("pcie_write_hit_rate", "", "DMA writes whose line the LLC's tag lookup found, in the LLC or (non-inclusive LLC) in an L2 the snoop filter tracks (PCM's ItoM hits); null when there was no DMA write"),
    Metric("pcie_read_hit_rate", "", "DMA reads served on chip, by the LLC or a snooped L2 (PCM's PCIeRdCur hits); null when there was no DMA read"),
    Metric("llc_hit_rate_cpu", "", "share of the cores' L2 misses that hit in the LLC; null when no L2 missed"),
    Metric("l2_prefetches_per_packet", "lines", "lines the L2 prefetchers (adjacent-line, streamer) fetched per received packet"),
    Metric("sf_back_invalidations_per_packet", "lines", "L2 copies dropped because a non-inclusive LLC's snoop filter evicted their entry, per received packet"),
    Metric("dma_rfo_reads_per_packet", "lines", "DMA writes covering part of a line whose rest was read from DRAM for the merge (RFO misses, PCM's \"PCIe write partial cache line\"), per received packet"),
    Metric("mem_bw_gbytes_s.read", "GB/s", "DRAM read bandwidth"),
    Metric("mem_bw_gbytes_s.write", "GB/s", "DRAM write bandwidth"),
    Metric("pcie_util.upstream", "", "PCIe link utilisation, device to host (DMA writes, read requests)"),
    Metric("pcie_util.downstream", "", "PCIe link utilisation, host to device (read completions, doorbells)"),
    Metric("pcie_bytes_per_packet.upstream", "B", "PCIe payload bytes (packet data, completions) device to host per received packet"),
    Metric("pcie_bytes_per_packet.downstream", "B", "PCIe payload bytes (descriptors, packet data, doorbells, nicmem posts) host to device per received packet"),
    Metric("domain_latency_ns.c2m_read", "ns", "host network domains (Vuppalapati et al., SIGCOMM'24): cores' LLC misses served by DRAM, until the data is back (null without one)"),
    Metric("domain_latency_ns.p2m_write", "ns", "host network domains: a DMA write at the root port until the LLC or memory has taken its last line (what holds an IIO write-buffer entry)"),
    Metric("domain_latency_ns.p2m_read", "ns", "host network domains: a DMA read at the root port until its last line is there"),
    Metric("pcie_flow.write_buffer_lines_mean", "lines", "posted credits a NIC held (64 B lines of its root port's write buffer: in flight, being committed, or their UpdateFC in flight), time-weighted mean; 0 with `pcie.write_buffer` unbounded"),
    Metric("pcie_flow.write_buffer_lines_max", "lines", "most posted credits a NIC held at once"),
    Metric("pcie_flow.credit_stall_share", "", "share of the time a NIC's Rx DMA waited for posted credits (memory back-pressure on the link)"),
    Metric("pcie_flow.read_tags_mean", "tags", "read tags a NIC held (outstanding MRd), time-weighted mean"),
    Metric("pcie_flow.read_tags_max", "tags", "most read tags a NIC held at once"),
    Metric("pcie_flow.dma_requests_per_s", "1/s", "MWr and MRd TLPs the NICs issued per second"),
    Metric("nicmem_rx_share", "", "split frames whose payload landed in nicmem (the rest spilled to host buffers)"),
    Metric("ring_occupancy_mean", "descriptors", "time-averaged Rx completions written by the NIC and not yet polled, per core's completion ring"),
    Metric("llc_misses_per_packet", "lines", "LLC misses of the packet-processing cores per received packet (PCM L3 misses)"),
    Metric("cycles_per_packet", "cycles", "busy core cycles (work and memory stalls) per received packet"),
    Metric("core_util", "", "share of the packet cores' time spent working rather than idle"),
    Metric("corunner.mean_latency_ns", "ns", "co-runner's mean memory access latency (null without a co-runner)"),
    Metric("corunner.gbytes_s", "GB/s", "co-runner's streaming bandwidth"),
    Metric("antagonist.gbytes_s", "GB/s", "antagonist cores' memory bandwidth in all (absent without antagonists)"),
    Metric("antagonist.mean_latency_ns", "ns", "antagonist cores' mean memory access latency"),
    Metric("pcie_bench.gbps", "Gbps", "pcie-bench scenarios: payload bandwidth of back-to-back DMA (null otherwise)"),
    Metric("pcie_bench.transfers_per_s", "1/s", "pcie-bench scenarios: DMA transfers per second"),
    Metric("pcie_bench.latency_ns.p50", "ns", "pcie-bench scenarios: median time from issue to completion of one DMA"),
    Metric("copy_bench.gbytes_s", "GB/s", "copy microbenchmark: bytes copied per second (null otherwise)"),
    Metric("copy_bench.ns_per_line", "ns", "copy microbenchmark: time per 64 B line"),
    Metric("mem_bench.latency_ns", "ns", "loaded-latency microbenchmark: the probe core's mean load-to-use latency of dependent random loads (MLC's latency; null otherwise)"),
    Metric("mem_bench.latency_p99_ns", "ns", "loaded-latency microbenchmark: the probe's 99th-percentile load latency"),
    Metric("mem_bench.gbytes_s", "GB/s", "loaded-latency microbenchmark: lines read and written per second by all cores (the socket's memory bandwidth)"),
    Metric("mem_bench.injector_latency_ns", "ns", "loaded-latency microbenchmark: the injector cores' mean read latency"),
    Metric("mem_bench.dram_read_latency_ns", "ns", "loaded-latency microbenchmark: mean read latency inside the memory controllers, queue to last data beat"),
    Metric("mem_bench.row_hit_rate", "", "loaded-latency microbenchmark: column commands that found their row open and used (PCM's page hits)"),
    Metric("mem_bench.read_queue_occupancy", "requests", "loaded-latency microbenchmark: mean reads queued per channel (PCM's RPQ occupancy)"),
    Metric("mem_bench.write_queue_occupancy", "requests", "loaded-latency microbenchmark: mean writes queued per channel (PCM's WPQ occupancy)"),
    Metric("mem_bench.write_queue_full", "", "loaded-latency microbenchmark: share of cycles a channel's write queue was full"),
    Metric("mem_bench.bank_imbalance", "", "loaded-latency microbenchmark: column commands of the busiest bank over the mean bank's"),
    Metric("hostnet.c2m_gbytes_s", "GB/s", "host network runs: the C2M loops' throughput, lines loaded or stored per second (null otherwise)"),
    Metric("hostnet.p2m_gbytes_s", "GB/s", "host network runs: the P2M device's DMA throughput"),
    Metric("hostnet.memory_gbytes_s", "GB/s", "host network runs: all lines read and written at the memory controllers per second"),
    Metric("hostnet.c2m_read_latency_ns", "ns", "host network runs: C2M-Read domain latency, a load's fill buffer to its data back (the study's LFB latency)"),
    Metric("hostnet.p2m_latency_ns", "ns", "host network runs: P2M domain latency, an IIO entry to write-queue admission (P2M-Write) or to the data back (P2M-Read)"),
    Metric("hostnet.c2m_write_latency_ns", "ns", "host network runs: C2M-Write domain latency, a write-back's fill buffer to the CHA"),
    Metric("hostnet.lfb_occupancy", "lines", "host network runs: mean fill buffers in use per C2M core"),
    Metric("hostnet.iio_occupancy", "lines", "host network runs: mean IIO buffer entries in use (the P2M domain's credits)"),
    Metric("hostnet.read_row_miss_ratio", "", "host network runs: reads that needed their row opened, per read (ACTs for reads per line read)"),
    Metric("hostnet.read_queue_occupancy", "requests", "host network runs: mean reads pending per channel (PCM's RPQ occupancy)"),
    Metric("hostnet.bank_deviation_15", "", "host network runs: share of 1000-read samples in which the busiest of 4 banks served at least 1.5x their mean (the study's bank deviation)"),
    Metric("hostnet.write_queue_full", "", "host network runs: share of cycles a channel's write queue was full"),
    Metric("dpa.gops", "Gops", "BF3 compute workload: multiplications per ns over all threads (null otherwise)"),
    Metric("dpa.latency_ns", "ns", "BF3 chase: mean load-to-use latency; latency workload: mean reflector round trip"),
    Metric("dpa.gbytes_s", "GB/s", "BF3 bandwidth workload: useful bytes read or written per second"),
    Metric("dpa.throughput_gbps", "Gbps", "BF3 net workload: frame bits handled per second"),
    Metric("dpa.mpps", "Mpps", "BF3 net workload: packets handled per microsecond"),
    Metric("dpa.drop_rate", "", "BF3 net workload: share of offered packets dropped (a thread's ring was full)"),
    Metric("dpa.kv_mops", "Mops", "BF3 KV aggregation: key-value tuples aggregated per microsecond"),
    Metric("netdimm.breakdown_ns.total", "ns", "NetDIMM scenarios: mean one-way latency, the sum of the parts below (null otherwise)"),
    Metric("netdimm.breakdown_ns.tx_copy", "ns", "NetDIMM scenarios: sender's buffer allocation and copy into the DMA buffer"),
    Metric("netdimm.breakdown_ns.tx_flush", "ns", "NetDIMM scenarios: writing the frame back from the sender's caches (NetDIMM only)"),
    Metric("netdimm.breakdown_ns.io_reg_access", "ns", "NetDIMM scenarios: NIC register accesses (status read, doorbell / kick-off)"),
    Metric("netdimm.breakdown_ns.tx_dma", "ns", "NetDIMM scenarios: the NIC fetching descriptor and frame"),
    Metric("netdimm.breakdown_ns.wire", "ns", "NetDIMM scenarios: MAC/PHY, serialisation, cables and switches"),
    Metric("netdimm.breakdown_ns.rx_dma", "ns", "NetDIMM scenarios: the NIC writing frame and descriptor, until the polling driver sees it"),
    Metric("netdimm.breakdown_ns.rx_invalidate", "ns", "NetDIMM scenarios: invalidating and re-reading the descriptor (NetDIMM only)"),
    Metric("netdimm.breakdown_ns.rx_copy", "ns", "NetDIMM scenarios: receiver's allocation and copy (or in-memory clone)"),
    Metric("netdimm.latency_ns.p99", "ns", "NetDIMM scenarios: 99th-percentile one-way latency"),
    Metric("netdimm.pcie_ns", "ns", "NetDIMM scenarios: mean time per message crossing PCIe (PCIe NIC only)"),
    Metric("netdimm.sustained_gbps", "Gbps", "NetDIMM scenarios: frame bits per second a stream of such messages sustains (bottleneck resource)"),
    Metric("netdimm.ncache_hit_rate", "", "NetDIMM scenarios: receiving NetDIMM's nCache hits over host reads"),
    Metric("imc.row_hit_rate", "", "packet runs with dram.model = controller (absent otherwise): column commands that found their row open and used (PCM's page hits)"),
    Metric("imc.read_row_miss_ratio", "", "packet runs with the controllers: reads that needed their row opened, per read"),
    Metric("imc.read_queue_occupancy", "requests", "packet runs with the controllers: mean reads queued per channel (PCM's RPQ occupancy)"),
    Metric("imc.write_queue_occupancy", "requests", "packet runs with the controllers: mean writes queued per channel (PCM's WPQ occupancy)"),
    Metric("imc.read_queue_full", "", "packet runs with the controllers: share of cycles a channel's read queue was full"),
    Metric("imc.write_queue_full", "", "packet runs with the controllers: share of cycles a channel's write queue was full"),
    Metric("imc.bank_imbalance", "", "packet runs with the controllers: column commands of the busiest bank over the mean bank's"),
    Metric("rings.sync_cycles_per_packet", "cycles", "shared rings (rings.sharing > 1; absent otherwise): core cycles per packet handing descriptors back (atomics, coherence transfers, spinning)"),
    Metric("rings.repost_wait_ns", "ns", "shared rings: mean time a re-armed descriptor waited before the NIC could reuse it (RxArr: behind other cores' descriptors)"),
    Metric("rings.nic_rx_wait_ns", "ns", "shared rings: mean time a frame waited in the NIC for a descriptor (RxList: descriptor-cache misses)"),
    Metric("rings.dshring_switches", "", "dshRing: switches between private and shared rings in the measured window"),
    Metric("rings.dshring_shared_share", "", "dshRing: share of the measured window on the shared rings (1 for static sharing)"),
)


# Where a real server reports the same quantity, so a simulated number can be
# put beside a measured one (Intel PCM's tools, the mlx5 driver's ethtool
# counters, NVIDIA NEO-Host, Intel MLC). "≈" marks a counter that counts a
# superset or a near relative.
COUNTERPARTS: dict[str, str] = {
    "offered_gbps": "the traffic generator's Tx rate in L2 bits (pktgen, TRex)",
    "throughput_gbps": "mlx5 `tx_bytes_phy` × 8 per second (frame bytes with FCS)",
    "offered_wire_gbps": "the traffic generator's L1 rate (TRex and pktgen show both L1 and L2)",
    "throughput_wire_gbps": "testpmd's Tx rate plus 20 B a frame (L1)",
    "rx_pps": "DPDK `rte_eth_stats.ipackets` per second (testpmd's Rx-pps)",
    "drops.rx_buffer": "mlx5 `rx_discards_phy` (port buffer full)",
    "drops.no_descriptor": "mlx5 `rx_out_of_buffer` (no software buffer posted)",
    "pause_frames": "mlx5 `tx_pause_ctrl_phy`",
    "pcie_write_hit_rate": "pcm-pcie `-e`: ItoM (and ItoMCacheNear) hits over all",
    "pcie_read_hit_rate": "pcm-pcie `-e`: PCIRdCur hits over all",
    "llc_hit_rate_cpu": "PCM `L3HIT` (per core)",
    "llc_misses_per_packet": "PCM `L3MISS` per packet",
    "dma_rfo_reads_per_packet": "pcm-pcie RFO (PCIe partial-line writes) per packet",
    "mem_bw_gbytes_s.read": "pcm-memory READ (UNC_M_CAS_COUNT.RD × 64 B)",
    "mem_bw_gbytes_s.write": "pcm-memory WRITE (UNC_M_CAS_COUNT.WR × 64 B)",
    "pcie_bytes_per_packet.upstream": "≈ pcm-iio IB write bytes per packet",
    "pcie_bytes_per_packet.downstream": "≈ pcm-iio IB read + OB write bytes per packet",
    "pcie_flow.credit_stall_share": "≈ NEO-Host's Outbound Stalled Writes",
    "cycles_per_packet": "`perf stat` cycles of the packet cores per packet",
    "core_util": "DPDK's busy-poll share (1 - empty polls)",
    "mem_bench.latency_ns": "Intel MLC `--loaded_latency` (its latency column)",
    "mem_bench.gbytes_s": "Intel MLC `--loaded_latency` (its bandwidth column)",
    "mem_bench.row_hit_rate": "1 - UNC_M_PRE_COUNT.PAGE_MISS / CAS count (PCM's page hits)",
    "mem_bench.read_queue_occupancy": "UNC_M_RPQ_OCCUPANCY / cycles",
    "mem_bench.write_queue_occupancy": "UNC_M_WPQ_OCCUPANCY / cycles",
    "mem_bench.write_queue_full": "UNC_M_WPQ_CYCLES_FULL / cycles",
    "hostnet.c2m_gbytes_s": "the study's C2M application throughput (its `mio` tools)",
    "hostnet.p2m_gbytes_s": "the study's P2M throughput (pcm-iio IB write or read)",
    "hostnet.memory_gbytes_s": "pcm-memory READ + WRITE",
    "hostnet.c2m_read_latency_ns": "the study's LFB latency by Little's law: L1D_PEND_MISS.PENDING / L1D.REPLACEMENT",
    "hostnet.p2m_latency_ns": "the study's IIO latency by Little's law: IIO occupancy / insertions",
    "hostnet.lfb_occupancy": "L1D_PEND_MISS.PENDING / cycles",
    "hostnet.iio_occupancy": "the IIO's write or read buffer occupancy (uncore IIO counters)",
    "hostnet.read_row_miss_ratio": "UNC_M_ACT_COUNT.RD / UNC_M_CAS_COUNT.RD",
    "hostnet.read_queue_occupancy": "UNC_M_RPQ_OCCUPANCY / cycles",
    "hostnet.write_queue_full": "UNC_M_WPQ_CYCLES_FULL / cycles",
    "imc.row_hit_rate": "1 - UNC_M_PRE_COUNT.PAGE_MISS / CAS count (PCM's page hits)",
    "imc.read_queue_occupancy": "UNC_M_RPQ_OCCUPANCY / cycles",
    "imc.write_queue_occupancy": "UNC_M_WPQ_OCCUPANCY / cycles",
    "imc.read_queue_full": "UNC_M_RPQ_CYCLES_FULL / cycles",
    "imc.write_queue_full": "UNC_M_WPQ_CYCLES_FULL / cycles",
}


# Report sections present only in some runs (null otherwise).
OPTIONAL_SECTIONS = ("corunner", "antagonist", "imc", "pcie_bench", "copy_bench", "mem_bench", "hostnet", "dpa", "netdimm", "rings")


def always(metric: Metric) -> bool:
    """Whether every packet-forwarding report carries this metric."""
    return metric.path.split(".")[0] not in OPTIONAL_SECTIONS


def value(report: dict[str, Any], path: str) -> Any:
    """``value(report, "latency_ns.p99")`` -> ``report["latency_ns"]["p99"]``; None if absent
    (per-NIC entries carry only the metrics that exist per NIC). A number
    indexes a list: ``"per_nic.0.latency_ns.p99"``."""
    node: Any = report
    for part in path.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node


def bottleneck_sentence(b: dict[str, Any]) -> str:
    """What bounds a run, in one sentence."""
    if b["resource"] == "offered load":
        return (f"bound by the offered load: nothing dropped; busiest resource {b['next']} "
                f"at {b['next_utilisation']:.1%}")
    return (f"bound by {b['resource']} at {b['utilisation']:.1%}: {b['evidence']}; "
            f"next: {b['next']} at {b['next_utilisation']:.1%}")


_STAGES = {"source_queue": "source", "nic_rx": "NIC Rx", "pcie_dma": "PCIe+DMA", "ring_wait": "ring",
           "core": "core", "tx_queue": "NIC Tx", "wire": "wire"}


def latency_sentence(b: dict[str, Any]) -> str:
    """The mean latency as the sum of its stages (µs)."""
    parts = " + ".join(f"{label} {b[key] / 1e3:.3g}" for key, label in _STAGES.items() if b[key] > 0)
    return f"latency: mean {b['total'] / 1e3:.3g} us = {parts}"
