"""nmKVS reproduction: the scenarios' mechanisms through the Python API
(nohit GETs miss the hot area, a closed-loop client keeps one request in
flight), and every claim of the paper module judged over fake reports."""

from __future__ import annotations

import packetpath
from packetpath.reproduce import Runs, nicmem_kvs

SHORT = {"warmup": "0.2ms", "duration": "0.3ms"}


def _short(run: dict, rate: str | None = None) -> dict:
    return run | {"sim": SHORT} | ({"traffic": run["traffic"] | {"rate": rate}} if rate else {})


def test_nohit_gets_send_their_values_over_pcie_and_allhit_ones_do_not():
    runs = nicmem_kvs.scenarios()
    # At 5 Gbps nothing queues or drops, so per-packet bytes compare directly.
    down = {name: packetpath.run(_short(runs[name], "5Gbps"))["pcie_bytes_per_packet"]["downstream"]
            for name in ("fig16/C2/MICA/0.0", "fig16nohit/C2/nmKVS/0.0", "fig16/C2/nmKVS/0.0")}
    # All GETs: nohit pays the value over PCIe like MICA; allhit saves ~1 KiB per response.
    assert abs(down["fig16nohit/C2/nmKVS/0.0"] - down["fig16/C2/MICA/0.0"]) < 16, down
    assert down["fig16/C2/MICA/0.0"] - down["fig16/C2/nmKVS/0.0"] > 900, down


def test_the_closed_loop_client_is_unloaded():
    r = packetpath.run(_short(nicmem_kvs.scenarios()["closed/C2/nmKVS/1.0"]))
    assert r["drop_rate"] == 0 and r["throughput_gbps"] < 10, r["throughput_gbps"]


def test_claims_cover_fig15_fig16_and_the_unloaded_latency():
    fake = {name: {"throughput_gbps": 50.0 + ("nmKVS" in name), "latency_ns": {"mean": 1000.0, "p99": 2000.0}}
            for name in nicmem_kvs.scenarios()}
    claims = nicmem_kvs.claims(Runs({name: [report] for name, report in fake.items()}))
    assert {c.figure for c in claims} == {"Fig 15", "Fig 16", "Sec 6.6"}
    assert len(claims) == 11 and all(c.simulated is not None for c in claims)
    # "no more than 5 % worse in both (C1) and (C2)", allhit and nohit: one claim (+2 % everywhere)
    never = [c for c in claims if "never more than 5% worse" in c.claim]
    assert len(never) == 1 and never[0].passed and len(never[0].simulated) == 4
