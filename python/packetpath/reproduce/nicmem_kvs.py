"""Reproduce the key-value store results of "NIC Memory for the Masses"
(Pismenny et al., ASPLOS'22, Sec. 6.6): MICA with hot items served
zero-copy from nicmem (nmKVS) against MICA in host memory.

Every run uses the `nicmem-cascadelake` profile with one 100 GbE NIC and 4
server cores (`app.nf = kvs`); 800 K items of 128 B keys and 1024 B values,
keys are the traffic's flows. GET requests are 200 B frames, SETs carry the
value (1224 B); a GET response is 1094 B. C1 is a 256 KiB hot area (the
ConnectX-5's nicmem: 256 hot items), C2 64 MiB (65 536 items, the paper's
emulated future device). The client is open loop at 100 Gbps of requests,
above what 4 cores serve, so throughput is the server's (responses per
second, as Gbps on the wire).
"""

from __future__ import annotations

from typing import Any

from packetpath.plots import figure, series
from packetpath.reproduce import Claim, pct_change, relative_change

PAPER = "nicmem-kvs"
PROFILE = "nicmem-cascadelake"
ITEMS = 800_000
CONFIGS = {"C1": ("256KiB", 256), "C2": ("64MiB", 65_536)}
GET, SET = 200, 1224
FIG15_SHARES = [0.0, 0.25, 0.5, 0.75, 1.0]
FIG16_SETS = [0.0, 0.25, 0.5, 0.75, 1.0]
SIM = {"warmup": "1ms", "duration": "1ms"}


def _run(cfg: str, nm: bool, hot_share: float, set_share: float = 0.0) -> dict:
    area, hot = CONFIGS[cfg]
    sizes = {"size": GET} if set_share == 0 else (
        {"size": SET} if set_share == 1 else
        {"size_dist": "bimodal", "bimodal_small": GET, "bimodal_large": SET, "bimodal_small_share": 1 - set_share})
    return {
        "profile": PROFILE,
        "nic": {"count": 1},
        "cpu": {"cores": 4},
        "app": {"nf": "kvs"},
        "kvs": {"hot_area": area if nm else 0},
        "traffic": {"rate": "100Gbps", "flows": ITEMS, "flow_popularity": "hot", "hot_flows": hot, "hot_share": hot_share} | sizes,
        "sim": SIM,
    }


def scenarios() -> dict[str, dict]:
    runs = {}
    for cfg in CONFIGS:
        for nm in (False, True):
            mode = "nmKVS" if nm else "MICA"
            for sh in FIG15_SHARES:
                runs[f"fig15/{cfg}/{mode}/{sh}"] = _run(cfg, nm, sh)
            for st in FIG16_SETS:
                runs[f"fig16/{cfg}/{mode}/{st}"] = _run(cfg, nm, 1.0, st)
    return runs


def _gain(r: dict[str, dict], fig: str, cfg: str, x: float, metric: str = "throughput_gbps") -> float | None:
    base, nm = r[f"{fig}/{cfg}/MICA/{x}"], r[f"{fig}/{cfg}/nmKVS/{x}"]
    get = (lambda d: d["latency_ns"][metric]) if metric in ("mean", "p99") else (lambda d: d[metric])
    return None if get(base) == 0 or get(nm) == 0 else pct_change(get(nm), get(base))


def _best(values: list[float | None], sign: int) -> float | None:
    vals = [v for v in values if v is not None]
    return (max if sign > 0 else min)(vals) if vals else None


def _claim(figure: str, claim: str, metric: str, paper: float, simulated: float | None) -> Claim:
    if simulated is None:
        return Claim(PAPER, figure, claim, metric, paper, None, "not measurable: no request of the window completed", False)
    return relative_change(PAPER, figure, claim, metric, paper, simulated)


def claims(r: dict[str, dict]) -> list[Claim]:
    out: list[Claim] = []
    for cfg, thr, lat, tail in (("C1", 21.0, -14.0, -21.0), ("C2", 79.0, -43.0, -42.0)):
        out.append(_claim("Fig 15", f"100% GET, {cfg}: throughput up to +{thr:g}%", "throughput_gbps", thr,
                          _best([_gain(r, "fig15", cfg, s) for s in FIG15_SHARES], +1)))
        out.append(_claim("Fig 15", f"100% GET, {cfg}: mean latency up to {lat:g}%", "latency_ns.mean", lat,
                          _best([_gain(r, "fig15", cfg, s, "mean") for s in FIG15_SHARES], -1)))
        out.append(_claim("Fig 15", f"100% GET, {cfg}: tail latency up to {tail:g}%", "latency_ns.p99", tail,
                          _best([_gain(r, "fig15", cfg, s, "p99") for s in FIG15_SHARES], -1)))
    out.append(Claim(PAPER, "Fig 15", "closed-loop unloaded latency: up to -6% (C1) / -19% (C2)", "latency_ns.mean", -19.0, None,
                     "not reproduced: no closed-loop client", False))
    for cfg, best in (("C1", 23.0), ("C2", 77.0)):
        gains = [_gain(r, "fig16", cfg, s) for s in FIG16_SETS]
        worst = _best(gains, -1)
        out.append(Claim(PAPER, "Fig 16", f"GET/SET mixes, all hits, {cfg}: never more than 5% worse", "throughput_gbps, worst change (%)",
                         ">= -5", worst, "worst change >= -5%", worst is not None and worst >= -5.0))
        out.append(_claim("Fig 16", f"GET/SET mixes, all hits, {cfg}: best case +{best:g}%", "throughput_gbps", best, _best(gains, +1)))
    out.append(Claim(PAPER, "Fig 16", "GET/SET mixes with every GET missing the hot area (nohit)", "throughput_gbps", "within 5%", None,
                     "not reproduced: the client cannot aim GETs and SETs at different keys", False))
    return out


def figures(r: dict[str, dict]) -> list[dict[str, Any]]:
    figs = []
    for cfg in CONFIGS:
        figs.append(figure(f"fig15-{cfg}", "Fig 15", f"Fig 15: 100% GET, {cfg}", "share of requests at hot items", "throughput (Gbps)", [
            series(m, runs := [f"fig15/{cfg}/{m}/{s}" for s in FIG15_SHARES], FIG15_SHARES, [r[n]["throughput_gbps"] for n in runs])
            for m in ("MICA", "nmKVS")]))
        figs.append(figure(f"fig16-{cfg}", "Fig 16", f"Fig 16: GET/SET mixes, all hits, {cfg}", "share of SETs", "throughput (Gbps)", [
            series(m, runs := [f"fig16/{cfg}/{m}/{s}" for s in FIG16_SETS], FIG16_SETS, [r[n]["throughput_gbps"] for n in runs])
            for m in ("MICA", "nmKVS")]))
    return figs
