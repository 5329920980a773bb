"""A test-only paper module for the reproduce runner: two scenarios, one
claim per run (throughput = 100 Gbps), one plot."""

from __future__ import annotations

import types

PAPER = "fakepaper"

SCENARIOS = {
    "large": {"profile": "ddio-skylake", "traffic": {"size": 1500}},
    "small": {"traffic.size": 64},
}


def module(scenarios: dict) -> types.ModuleType:
    from packetpath.reproduce import throughput

    paper = types.ModuleType(f"packetpath.reproduce.{PAPER}")
    paper.PAPER = PAPER
    paper.scenarios = lambda: scenarios

    def claims(results):
        return [
            throughput(PAPER, "Fig 1", f"{name} forwards at size/15", "throughput_gbps", 100.0, r["throughput_gbps"])
            for name, r in results.items()
        ]

    def plots(results, out_dir):
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots()
        ax.bar(list(results), [r["throughput_gbps"] for r in results.values()])
        fig.savefig(out_dir / "fig1.png")
        plt.close(fig)

    paper.claims = claims
    paper.plots = plots
    return paper
