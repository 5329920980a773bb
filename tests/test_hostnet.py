"""`sim.kind = hostnet`: cores and a DMA device contending for memory through their
domains' credits (the host network study, SIGCOMM'24), checked against what is
known without the paper's results: Little's law on each domain's credits, a
device alone reaching its own rate, and clear errors; and the sixth reproduction
run whole (it takes seconds)."""

from __future__ import annotations

import pytest

import packetpath
from packetpath import ConfigError
from packetpath.reproduce import reproduce, score


def hostnet(**kv) -> dict:
    return packetpath.run({"profile": "hostnet-cascadelake", "sim": {"kind": "hostnet", "duration": "100us", "warmup": "10us"},
                           "hostnet": kv})["hostnet"]


def test_a_device_alone_moves_its_rate_with_the_credits_littles_law_gives():
    r = hostnet(c2m_cores=0, p2m="write")
    assert r["p2m_gbytes_s"] == pytest.approx(14.0, rel=0.01)
    # occupancy = arrival rate x latency, in lines
    assert r["iio_occupancy"] == pytest.approx(r["p2m_gbytes_s"] / 64 * r["p2m_latency_ns"], rel=0.02)
    assert r["p2m_latency_ns"] == pytest.approx(300, rel=0.02)  # unloaded: iio.write_latency


def test_cores_keep_their_fill_buffers_full_and_move_lfb_x_64_over_latency():
    r = hostnet(c2m_cores=2, p2m="none")
    assert r["lfb_occupancy"] == pytest.approx(10, rel=0.01)  # cpu.mlp
    assert r["c2m_gbytes_s"] == pytest.approx(2 * 10 * 64 / r["c2m_read_latency_ns"], rel=0.02)
    assert r["p2m_gbytes_s"] == 0


def test_too_few_credits_bound_the_device():
    small = packetpath.run({"profile": "hostnet-cascadelake", "sim": {"kind": "hostnet", "duration": "100us", "warmup": "10us"},
                            "hostnet": {"c2m_cores": 0}, "iio": {"write_buffer": 16}})["hostnet"]
    # 16 lines per ~300 ns: about 3.4 GB/s, far below the 14 GB/s the device offers
    assert small["p2m_gbytes_s"] == pytest.approx(16 * 64 / small["p2m_latency_ns"], rel=0.03)
    assert small["p2m_gbytes_s"] < 4


def test_read_write_loops_write_back_a_line_per_line_stored():
    r = hostnet(c2m_cores=2, c2m="read_write", p2m="none")
    assert r["c2m_write_gbytes_s"] == pytest.approx(r["c2m_gbytes_s"], rel=0.05)
    assert r["c2m_write_latency_ns"] == pytest.approx(10, rel=0.2)  # cha.write_latency, unloaded


def test_same_seed_same_bytes_and_the_seed_places_the_pages():
    a, b = hostnet(c2m_cores=3, c2m="read_write"), hostnet(c2m_cores=3, c2m="read_write")
    assert a == b
    other = packetpath.run({"profile": "hostnet-cascadelake", "sim": {"kind": "hostnet", "duration": "100us", "warmup": "10us", "seed": 2},
                            "hostnet": {"c2m_cores": 3, "c2m": "read_write"}})["hostnet"]
    assert other != a


def test_the_window_counts_its_own_time_only():
    # a window shorter than a DRAM cycle: no fill buffer counted beyond the cores' 10 each
    r = packetpath.run({"profile": "hostnet-cascadelake", "sim": {"kind": "hostnet", "duration": "1000ps", "warmup": "20000500ps"},
                        "hostnet": {"c2m_cores": 1, "p2m": "none"}})["hostnet"]
    assert r["lfb_occupancy"] <= 10 and r["refreshes"] == 0


@pytest.mark.parametrize("values, message", [
    ({"profile": "ddio-skylake", "sim": {"kind": "hostnet"}}, "llc.ddio_ways = 2: hostnet models DDIO off"),
    ({"profile": "hostnet-cascadelake", "sim": {"kind": "hostnet"}, "hostnet": {"c2m_cores": 8}}, "hostnet.c2m_cores = 8: at most cpu.max_cores - 1 = 7"),
    ({"profile": "hostnet-cascadelake", "iio": {"write_buffer": 64}}, "iio.write_buffer: a parameter of sim.kind = hostnet, but sim.kind = packet"),
    ({"profile": "hostnet-cascadelake", "sim": {"kind": "hostnet"}, "hostnet": {"p2m": "both"}}, "hostnet.p2m"),
    ({"profile": "hostnet-cascadelake", "sim": {"kind": "hostnet"}, "hostnet": {"p2m_rate": "20GB/s"}},
     "hostnet.p2m_rate = 20 GB/s: above the device's PCIe Gen3 x16 link, 15.75 GB/s"),
    ({"profile": "hostnet-cascadelake", "sim": {"kind": "hostnet", "until": "converged"}}, "sim.until = converged: a hostnet run measures sim.duration after sim.warmup; allowed: duration"),
])
def test_bad_input_is_a_clear_error(values, message):
    with pytest.raises(ConfigError, match=message.replace(".", r"\.").replace("(", r"\(").replace(")", r"\)")):
        packetpath.run(values)


def test_the_reproduction_runs_whole_and_scores_its_claims(tmp_path):
    claims = reproduce("hostnet", jobs=2, out=tmp_path)
    line = score(claims)
    assert len(claims) >= 30 and "scored" in line
    assert (tmp_path / "claims.md").exists() and (tmp_path / "fig3-q1.png").exists()
    # The blue regime of quadrant 1 is the mechanism's: C2M degrades, P2M does not.
    verdicts = {c.claim: c.verdict for c in claims}
    assert verdicts["quadrant 1: P2M throughput unaffected (1-6 C2M cores)"] == "pass"
    assert verdicts["quadrant 1: more C2M load, worse C2M degradation"] == "pass"
    # every claim that does not pass says why, in terms of the model
    assert all(c.why for c in claims if c.verdict in ("fail", "inconclusive")), [c.claim for c in claims if not c.why and c.verdict != "pass"]


def test_bank_samples_count_a_thousand_reads_each():
    # ~0.1 reads/ns on the first channel for 1 ms: some 70 samples of 1000 reads
    r = packetpath.run({"profile": "hostnet-cascadelake", "sim": {"kind": "hostnet", "duration": "1ms", "warmup": "10us"},
                        "hostnet": {"c2m_cores": 1, "p2m": "none"}})["hostnet"]
    assert 0 <= r["bank_deviation_2"] <= r["bank_deviation_15"] <= 1
