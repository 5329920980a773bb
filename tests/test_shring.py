"""shRing end to end: the paper's scenarios through the Python API, checking
the claims whose mechanism the model has (the working set shrinking with
sharing, RxList defeating descriptor prefetch, sharing's cost), and that
every claim of the paper module is printed."""

from __future__ import annotations

import pytest

import packetpath
from packetpath.reproduce import SEEDS, Runs, shring


@pytest.fixture(scope="module")
def runs():
    names = [f"fig2/{shring._list(n)}" for n in shring.SHARING] + ["fig6/list/8"]
    all_runs = shring.scenarios()
    return {n: packetpath.run(all_runs[n]) for n in names}


def test_sharing_shrinks_memory_traffic_and_raises_ddio_hits(runs):
    mem = [shring._mem_bw(runs[f"fig2/{shring._list(n)}"]) for n in shring.SHARING]
    hits = [runs[f"fig2/{shring._list(n)}"]["pcie_write_hit_rate"] for n in shring.SHARING]
    # non-increasing (2% noise allowed), and much lower at /8
    assert all(b <= a * 1.02 for a, b in zip(mem, mem[1:])) and mem[-1] < 0.7 * mem[0], mem
    assert hits[-1] > hits[0] + 0.3, hits


def test_sharing_costs_synchronisation_and_rxlist_stalls_the_nic(runs):
    sync = [shring._rings(runs[f"fig2/{shring._list(n)}"])["sync_cycles_per_packet"] for n in shring.SHARING]
    assert sync[0] == 0 and all(s > 0 for s in sync[1:]), sync
    assert "rings" not in runs["fig2/privRing"]
    # Fig 6b: the paper measured 16.3 us of NIC processing at 1:8 with RxList. The stall shows where the
    # posted credits do not cap the NIC first: at the shortest credit loop (at the profile's 375 ns they
    # do, and the claim, decided by a loop no source measures, is not scored).
    (corner,) = shring.UNSOURCED.values()
    wait = shring._rings(packetpath.run(shring.scenarios()["fig6/list/8"], set=corner))["nic_rx_wait_ns"] / 1e3
    assert 16.3 / 2 <= wait <= 16.3 * 2, wait


def test_claims_cover_every_figure_and_print_what_is_missing():
    # Claims computed over fake reports: every figure of CLAIMS.md is present,
    # and any the model cannot run says why.
    claims = shring.claims(_fake_runs())
    figures = {c.figure.split()[1].rstrip("abcdefg") for c in claims if c.figure.startswith("Fig")}
    # Fig 1 is arithmetic on the paper's Table 1: drawn, never a claim
    assert {"2", "3", "6", "7", "8", "9", "10", "11", "12", "13"} <= figures and "1" not in figures
    assert all(c.verdict == "fail" for c in claims if c.simulated is None)
    # every ring forwards alike in the fake: a tie is not a win in any of Fig 7's 60 configurations
    fig7 = next(c for c in claims if c.claim == "shRing/8 outperforms privRing in all 60 configurations")
    assert fig7.simulated == 0.0 and fig7.verdict == "fail"


def _fake_runs(fake: dict | None = None) -> Runs:
    fake = fake or {name: _fake_report() for name in shring.scenarios()}
    return Runs({name: [report] * SEEDS for name, report in fake.items()})


def _fake_report() -> dict:
    return {
        "throughput_gbps": 100.0, "rx_pps": 1e6, "drop_rate": 0.0, "cycles_per_packet": 1000.0, "pcie_write_hit_rate": 0.5, "llc_hit_rate_cpu": 0.5,
        "ring_occupancy_mean": 10.0, "latency_ns": {"mean": 1000.0}, "mem_bw_gbytes_s": {"read": 1.0, "write": 1.0},
        "rings": {"sync_cycles_per_packet": 1.0, "repost_wait_ns": 1.0, "nic_rx_wait_ns": 1.0, "dshring_switches": 0, "dshring_shared_share": 1.0},
        "timeline": [{"t_us": 250.0 * i, "tx_gbps": 100.0, "arrived": 10, "dropped": 0, "ring_set": 0} for i in range(1, 33)],
    }


def test_fig13_claims_read_the_ring_set_at_the_end_of_each_phase():
    fake = {name: _fake_report() for name in shring.scenarios()}
    # dshRing on the shared rings from 2 ms to 5 ms only: private, shared, private at the phase ends.
    for nf in ("nat", "lb"):
        for s in fake[f"fig13/{nf}/dshRing"]["timeline"]:
            s["ring_set"] = int(2000 < s["t_us"] <= 5000)
    fig13 = [c for c in shring.claims(_fake_runs(fake)) if c.figure == "Fig 13"]
    assert len(fig13) == 8 and all(c.passed for c in fig13 if "ring set" in c.metric), fig13
    # privRing and shRing/8 forward alike in the fake: "like the better of them" decides nothing
    assert all(c.verdict == "inconclusive" for c in fig13 if "ring set" not in c.metric), fig13
    for s in fake["fig13/nat/dshRing"]["timeline"]:
        s["ring_set"] = 1
    fig13 = {c.claim: c.passed for c in shring.claims(_fake_runs(fake)) if c.figure == "Fig 13"}
    assert not fig13["NAT: dshRing starts on privRing and switches to shRing once the balanced load is high"]
    assert not fig13["NAT: dshRing switches back to privRing under the pathological load"]
