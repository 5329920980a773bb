"""The report's metrics: dotted path in the report JSON, unit, one-line meaning.

Every metric is declared once, in the engine (``crates/engine/src/metrics.rs``),
beside the report it describes; this module reads that table, as ``schema``
reads the parameter table, so Python never keeps a second list. Names follow
what Intel PCM and NIC counters report, so a simulated number can be put beside
a measured one. The CLI's tables and the docs' metric reference use this list;
a test checks it against a real report.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import packetpath._engine as _engine


class Metric(NamedTuple):
    path: str
    unit: str
    meaning: str


_TABLE: dict[str, Any] = json.loads(_engine.metrics_json())

METRICS: tuple[Metric, ...] = tuple(Metric(m["path"], m["unit"], m["meaning"]) for m in _TABLE["metrics"])

# Where a real server reports the same quantity, so a simulated number can be
# put beside a measured one (the engine's table says which tool and counter).
COUNTERPARTS: dict[str, str] = {m["path"]: m["counterpart"] for m in _TABLE["metrics"] if m["counterpart"]}

# Report sections present only in some runs (null otherwise).
OPTIONAL_SECTIONS: tuple[str, ...] = tuple(_TABLE["optional_sections"])


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
