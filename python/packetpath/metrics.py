"""The report's metrics: dotted path in the report JSON, unit, one-line meaning.

Names follow what Intel PCM and NIC counters report, so a simulated number can
be put beside a measured one. The CLI's tables and the README use this list;
a test checks it against a real report, so a new engine metric lands here too.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Metric(NamedTuple):
    path: str
    unit: str
    meaning: str


METRICS: tuple[Metric, ...] = (
    Metric("offered_gbps", "Gbps", "load offered on the wire (frames + preamble + inter-frame gap)"),
    Metric("throughput_gbps", "Gbps", "load forwarded back onto the wire, same accounting"),
    Metric("rx_pps", "pps", "packets received by the cores per second"),
    Metric("drop_rate", "", "share of offered packets dropped, for any of the reasons below"),
    Metric("drops.rx_buffer", "packets", "dropped because the NIC's receive buffer was full"),
    Metric("drops.no_descriptor", "packets", "dropped for lack of a free Rx descriptor"),
    Metric("drops.software", "packets", "dropped by the application (its software queue was full)"),
    Metric("latency_ns.p50", "ns", "median wire-to-wire latency"),
    Metric("latency_ns.p99", "ns", "99th-percentile latency"),
    Metric("latency_ns.p999", "ns", "99.9th-percentile latency"),
    Metric("latency_ns.mean", "ns", "mean latency"),
    Metric("latency_ns.max", "ns", "largest latency seen"),
    Metric("pcie_write_hit_rate", "", "DMA writes that updated a line already in the LLC (PCM's ItoM hits)"),
    Metric("pcie_read_hit_rate", "", "DMA reads served by the LLC (PCM's PCIeRdCur hits)"),
    Metric("llc_hit_rate_cpu", "", "share of the cores' LLC lookups that hit"),
    Metric("mem_bw_gbytes_s.read", "GB/s", "DRAM read bandwidth"),
    Metric("mem_bw_gbytes_s.write", "GB/s", "DRAM write bandwidth"),
    Metric("pcie_util.upstream", "", "PCIe link utilisation, device to host (DMA writes, read requests)"),
    Metric("pcie_util.downstream", "", "PCIe link utilisation, host to device (read completions, doorbells)"),
    Metric("ring_occupancy_mean", "", "mean Rx ring occupancy (descriptors filled by the NIC, not yet polled)"),
    Metric("cycles_per_packet", "cycles", "core cycles spent per received packet"),
)


def value(report: dict[str, Any], path: str) -> Any:
    """``value(report, "latency_ns.p99")`` -> ``report["latency_ns"]["p99"]``; None if absent
    (per-NIC entries carry only the metrics that exist per NIC)."""
    node: Any = report
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node
