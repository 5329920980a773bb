"""The tolerance policy of CLAIMS.md, kind by kind, passing and failing."""

from __future__ import annotations

import math

import pytest

from packetpath.reproduce import (
    PCT_FLOOR,
    Claim,
    all_of,
    bound_by,
    external_cap,
    in_stages,
    like,
    score,
    comparable,
    count,
    cores_needed,
    crossover,
    latency,
    monotone,
    ordering,
    pct_change,
    ratio,
    relative_change,
    share,
    span,
    throughput,
)

HEAD = ("paper", "Fig 1", "a claim", "metric")


def passes(constructor, *args, **kwargs) -> bool:
    claim = constructor(*HEAD, *args, **kwargs)
    assert isinstance(claim, Claim) and claim.tolerance
    return claim.passed


def test_pct_change():
    assert pct_change(120, 100) == pytest.approx(20)
    assert pct_change(77, 100) == pytest.approx(-23)


@pytest.mark.parametrize(
    ("paper", "simulated", "ok"),
    [
        (-23, -23, True),
        (-23, -11.5, True),  # 0.5 X
        (-23, -34.5, True),  # 1.5 X
        (-23, -11, False),
        (-23, -35, False),
        (-23, 23, False),  # wrong sign
        (19, 10, True),
        (19, 9, False),
        (19, -15, False),
        (19, math.nan, False),
    ],
)
def test_relative_change(paper, simulated, ok):
    assert passes(relative_change, paper, simulated) is ok


def test_relative_change_needs_a_change():
    with pytest.raises(ValueError):
        relative_change(*HEAD, 0, 0)


@pytest.mark.parametrize(
    ("paper", "simulated", "ok"),
    [
        (2.1, 2.1, True),
        (2.1, 1.55, True),  # 1 + 0.5 * 1.1
        (2.1, 2.65, True),  # 1 + 1.5 * 1.1
        (2.1, 1.5, False),
        (2.1, 2.7, False),
        (38, 20, True),
        (38, 19, False),
        (0.5, 0.5, True),  # a ratio below one: bounds swap
        (0.5, 0.2, False),
    ],
)
def test_ratio(paper, simulated, ok):
    assert passes(ratio, paper, simulated) is ok


@pytest.mark.parametrize(
    ("simulated", "ok"), [(100, True), (90, True), (110, True), (89, False), (111, False), (None, False)]
)
def test_throughput_within_ten_percent(simulated, ok):
    assert passes(throughput, 100, simulated) is ok


@pytest.mark.parametrize(
    ("simulated", "ok"), [(1000, True), (500, True), (2000, True), (499, False), (2001, False), (math.inf, False)]
)
def test_latency_within_factor_two(simulated, ok):
    assert passes(latency, 1000, simulated) is ok


@pytest.mark.parametrize(("simulated", "ok"), [(1.0, True), (0.5, True), (2.0, True), (0.49, False), (2.01, False), (math.nan, False)])
def test_comparable_within_factor_two(simulated, ok):
    assert comparable("p", "Fig 1", "A comparable to B", "m", simulated).passed is ok


@pytest.mark.parametrize(("simulated", "ok"), [(0.40, True), (0.25, True), (0.55, True), (0.24, False), (0.56, False)])
def test_share_within_fifteen_points(simulated, ok):
    assert passes(share, 0.40, simulated) is ok


def seeds(*means: float, sd: float = 0.0) -> list[list[float]]:
    """Three seeds per point around each mean, with standard deviation ``sd``."""
    return [[m - sd, m, m + sd] for m in means]


@pytest.mark.parametrize(
    ("direction", "values", "slack", "verdict"),
    [
        ("non-increasing", seeds(0.9, 0.8, 0.8, 0.4), 0, "pass"),
        ("non-increasing", seeds(0.9, 0.8, 0.85, 0.4), 0, "fail"),  # a step the wrong way beyond noise
        ("non-increasing", seeds(0.9, 0.8, 0.85, 0.4), 0.06, "pass"),  # ... within the stated slack
        ("non-increasing", seeds(0.9, 0.8, 0.85, 0.4, sd=0.03), 0, "pass"),  # ... within 2 sd of the seeds
        ("non-decreasing", seeds(1, 2, 2, 3), 0, "pass"),
        ("non-decreasing", seeds(1.0, 1.0, 1.0, 1.0), 0, "inconclusive"),  # flat: trivially "no decrease"
        ("non-decreasing", seeds(1.0, 1.002, 1.004), 0, "inconclusive"),  # net change under 1 %
        ("non-decreasing", seeds(1.0, 1.1, 1.2, sd=0.1), 0, "inconclusive"),  # net change under 2 sd
        ("non-decreasing", seeds(1), 0, "fail"),  # one point is no trend
        ("non-decreasing", [[1, 1, 1], [1, math.nan, 2]], 0, "fail"),  # a seed without samples
    ],
)
def test_monotone(direction, values, slack, verdict):
    assert monotone(*HEAD, direction, values, slack=slack).verdict == verdict


def test_monotone_rejects_unknown_direction():
    with pytest.raises(ValueError):
        monotone(*HEAD, "up", seeds(1, 2))


def test_noise_judged_claims_need_three_seeds():
    with pytest.raises(ValueError, match="at least 3 seeds"):
        monotone(*HEAD, "non-decreasing", [1.0, 2.0])
    with pytest.raises(ValueError, match="at least 3 seeds"):
        ordering(*HEAD, ["a", "b"], {"a": [2.0, 2.0], "b": [1.0, 1.0]})


def test_ordering():
    v = lambda a, d, h: {"arm": [a] * 3, "dpa": [d] * 3, "host": [h] * 3}  # noqa: E731
    assert ordering(*HEAD, ["host", "dpa", "arm"], v(1.0, 2.0, 3.0)).verdict == "pass"
    assert ordering(*HEAD, ["host", "dpa", "arm"], v(1.0, 3.0, 2.0)).verdict == "fail"
    assert ordering(*HEAD, ["host", "dpa"], v(1.0, 2.0, 2.0)).verdict == "inconclusive"  # a tie decides nothing


def test_two_identical_configurations_give_an_inconclusive_ordering():
    """The same configuration run twice differs only by its seeds: no order."""
    same = [78.7, 78.5, 78.6]
    c = ordering(*HEAD, ["2 ways", "4 ways"], {"2 ways": same, "4 ways": list(reversed(same))})
    assert c.verdict == "inconclusive" and not c.passed and "noise" in c.why
    # differences smaller than 2 sd of the seeds decide nothing either way ...
    assert ordering(*HEAD, ["a", "b"], {"a": [10.0, 11.0, 12.0], "b": [9.5, 10.5, 11.5]}).verdict == "inconclusive"
    assert ordering(*HEAD, ["b", "a"], {"a": [10.0, 11.0, 12.0], "b": [9.5, 10.5, 11.5]}).verdict == "inconclusive"
    # ... nor do differences under 1 % of the value, however steady the seeds
    assert ordering(*HEAD, ["a", "b"], {"a": [100.5] * 3, "b": [100.0] * 3}).verdict == "inconclusive"
    assert ordering(*HEAD, ["a", "b"], {"a": [102.0] * 3, "b": [100.0] * 3}).verdict == "pass"


def test_ordering_prints_the_seeds_spread():
    c = ordering(*HEAD, ["a", "b"], {"a": [3.0, 4.0, 5.0], "b": [1.0, 1.0, 1.0]})
    assert c.simulated == {"a": 4.0, "b": 1.0} and c.spread == {"a": 1.0, "b": 0.0}
    from packetpath.reproduce._report import simulated_text

    assert simulated_text(c) == "a: 4 ± 1, b: 1 ± 0"


def test_like_is_inconclusive_at_a_shared_cap():
    capped = {"offered_gbps": 197.4, "drop_rate": 0.02, "pcie_util": {"upstream": 0.99, "downstream": 0.3}}
    free = {"offered_gbps": 197.4, "drop_rate": 0.02, "pcie_util": {"upstream": 0.80, "downstream": 0.3},
            "drops": {"rx_buffer": 10, "no_descriptor": 90, "software": 0}}
    assert like(*HEAD, "no change", 186.0, 187.0, reports=[capped, capped]).verdict == "inconclusive"
    assert like(*HEAD, "no change", 186.0, 187.0, reports=[capped, free]).verdict == "pass"
    assert like(*HEAD, "no change", 150.0, 187.0, reports=[capped, capped]).verdict == "fail"  # not alike: the cap does not excuse it
    lossless = {"offered_gbps": 100.0, "drop_rate": 0.0, "pcie_util": {"upstream": 0.5, "downstream": 0.2}}
    assert external_cap(lossless) == "the offered load" and external_cap(free) is None
    in_front = free | {"drops": {"rx_buffer": 100, "no_descriptor": 0, "software": 0}}
    assert external_cap(in_front).startswith("the NIC's Rx buffer")


def test_as_fast_as_uses_the_throughput_rule():
    with pytest.raises(ValueError, match="empty"):
        ratio(*HEAD, 1.0, 1.0)
    assert throughput(*HEAD, 1.0, 1.08).passed and not throughput(*HEAD, 1.0, 1.12).passed


@pytest.mark.parametrize(
    ("bound", "paper", "simulated", "ok"),
    [
        ("at least", 0.46, 0.90, True),  # one-sided: far above is fine
        ("at least", 0.46, 0.32, True),
        ("at least", 0.46, 0.30, False),
        ("at most", 0.16, 0.0, True),
        ("at most", 0.16, 0.32, False),
    ],
)
def test_one_sided_share(bound, paper, simulated, ok):
    assert share(*HEAD, paper, simulated, bound=bound).passed is ok


def test_one_sided_relative_change():
    # "never more than 5 % worse": anything better passes; -7.5 % is the far edge of the band
    assert relative_change(*HEAD, -5.0, 20.0, bound="at least").passed
    assert relative_change(*HEAD, -5.0, -7.5, bound="at least").passed
    assert not relative_change(*HEAD, -5.0, -8.0, bound="at least").passed


def test_all_of_combines_parts():
    p, f = share(*HEAD, 0.4, 0.42), share(*HEAD, 0.4, 0.9)
    i = ordering(*HEAD, ["a", "b"], {"a": [1.0] * 3, "b": [1.0] * 3})
    assert all_of(*HEAD, [p, p]).verdict == "pass"
    assert all_of(*HEAD, [p, i]).verdict == "inconclusive"
    assert all_of(*HEAD, [p, i, f]).verdict == "fail"


def test_score_line():
    p, f = share(*HEAD, 0.4, 0.42), share(*HEAD, 0.4, 0.9)
    i = ordering(*HEAD, ["a", "b"], {"a": [1.0] * 3, "b": [1.0] * 3})
    a = p.as_anchor("calibrated")
    assert score([p, p, f, i, a]) == "2 pass of 4 scored (1 inconclusive, 1 anchors, 1 fail)"
    assert not a.passed and a.to_json()["verdict"] == "anchor" and a.to_json()["pass"] is False


@pytest.mark.parametrize(
    ("simulated", "ok"), [(75, True), (70, True), (80, True), (85, False), (60, False), (None, False)]  # None: no knee is no pass
)
def test_crossover_within_one_grid_step(simulated, ok):
    grid = [50, 60, 65, 70, 75, 80, 85, 90, 95, 100]
    assert passes(crossover, grid, 75, simulated) is ok


@pytest.mark.parametrize(
    ("paper", "simulated", "ok"),
    [
        (12, 12, True),
        (12, 10, True),
        (12, 14, True),
        (12, 9, False),
        (12, 15, False),
        (None, None, True),
        (12, None, False),
        (None, 16, False),
    ],
)
def test_cores_needed_within_two(paper, simulated, ok):
    assert passes(cores_needed, paper, simulated) is ok


def test_claim_json_shape():
    c = share(*HEAD, 0.4, 0.42)
    assert list(c.to_json()) == ["paper", "figure", "claim", "metric", "paper_value", "simulated", "tolerance", "verdict", "spread", "why", "runs",
                                 "bounds", "pass"]
    assert c.to_json()["pass"] is True and c.to_json()["verdict"] == "pass"
    assert c.tolerance == "±15 pp (0.25 to 0.55)"


@pytest.mark.parametrize(("simulated", "ok"), [(0.0011, True), (0.0044, True), (0.00099, False), (0.0046, False)])
def test_count_within_factor_two(simulated, ok):
    assert count("p", "Sec 3.1", "PAUSE frames per packet", "m", 0.0022, simulated).passed is ok


def test_claims_on_a_narrow_terminal_never_split_a_word():
    from rich.console import Console

    from packetpath.reproduce import Claim, rich_table

    long = Claim("netdimm", "Fig 12b", "with L3F the co-runner's memory latency is up to 30.9 % better than with iNIC",
                 "corunner.latency_ns (% change, NetDIMM vs iNIC)", -30.9, [-4.98, -0.71, 2.69, 1.12, 0.76],
                 "same sign, -46.4% to -15.5%", "fail", why="out of order beyond noise")
    short = Claim("ddio", "Fig 6", "hit rate falls", "pcie_write_hit_rate", 0.4, 0.41, "±15 pp", "pass")
    console = Console(width=80, record=True, color_system=None)
    console.print(rich_table([long, short], title="netdimm: reproduced claims", width=80))
    text = console.export_text()
    lines = text.splitlines()
    assert max(map(len, lines)) <= 80
    words = set(text.split())
    for c in (long, short):
        assert set(c.claim.split()) <= words and set(c.metric.split()) <= words, c.claim
    assert lines[1].startswith("FAIL   Fig 12b · with L3F") and "out of order beyond noise" in text
    assert lines[-1] == "1 pass of 2 scored (0 inconclusive, 0 anchors, 1 fail)"
    # a wide terminal keeps the table
    wide = Console(width=200, record=True, color_system=None)
    wide.print(rich_table([long, short], width=200))
    assert "┃ figure" in wide.export_text()


def test_like_shows_the_papers_words_never_the_simulated_reference():
    c = like(*HEAD, "like privRing", 186.0, 187.0)
    assert c.paper_value == "like privRing" and c.simulated == 186.0 and "187" in c.tolerance


def test_like_must_tell_the_alternatives_apart():
    # the worse ring is inside the band too: whichever ring dshRing used, it would pass
    c = like(*HEAD, "like the better ring", 183.0, 184.0, others={"the worse ring": 178.0})
    assert c.verdict == "inconclusive" and "the worse ring" in c.why
    # the alternative is outside the band: a pass tells them apart
    assert like(*HEAD, "like the better ring", 183.0, 184.0, others={"the worse ring": 150.0}).verdict == "pass"
    # inside the band but nearer the alternative (a gain that should vanish, kept at 60 %)
    c = like(*HEAD, "-1%", 107.2, 100.0, others={"the uniform gain": 112.3})
    assert c.verdict == "fail" and "nearer the uniform gain" in c.why


def test_throughput_must_tell_the_alternatives_apart():
    assert throughput(*HEAD, 195.0, 187.8, others={"host at 2 ways": 176.5}).verdict == "inconclusive"
    assert throughput(*HEAD, 195.0, 194.0, others={"host at 2 ways": 150.0}).verdict == "pass"


@pytest.mark.parametrize(("paper", "simulated", "ok"), [
    (0.90, 1.0, False),   # "~10 % misses" is not passed by no miss at all
    (0.90, 0.95, True),
    (0.90, 0.75, True),
    (0.097, 0.0, False),  # a 9.7 % cost is not passed by no cost at all
    (0.097, 0.0485, True),
    (0.0, 0.0, True),     # the paper's own value may be the trivial one
    (1.0, 1.0, True),
])
def test_a_share_near_zero_or_one_excludes_the_trivial_value(paper, simulated, ok):
    assert share(*HEAD, paper, simulated).passed is ok


def test_a_tie_is_not_a_win():
    assert ordering(*HEAD, ["a", "b"], {"a": [5.0, 5.0, 5.0], "b": [5.0, 5.0, 5.0]}).verdict == "inconclusive"


def test_percent_metrics_use_a_percentage_point_floor():
    # +0.8 % against a constant 0: "1 % of the value" would be 0.008 pp
    dpi, zero = [0.6, 0.8, 1.0], [0.0] * 3
    assert ordering(*HEAD, ["dpi", "zero"], {"dpi": dpi, "zero": zero}).verdict == "pass"
    assert ordering(*HEAD, ["dpi", "zero"], {"dpi": dpi, "zero": zero}, floor=PCT_FLOOR).verdict == "inconclusive"


@pytest.mark.parametrize(("values", "ok"), [([-22.0, -30.0, -38.0], True), ([-11.0, -57.0], True), ([-10.0, -30.0], False),
                                             ([-30.0, -58.0], False), ([-30.0, 5.0], False), ([-30.0, math.nan], False),
                                             ([-6.7, -8.0], False)])  # the far end (-38.6 %) is not reproduced
def test_span_scores_a_range_once(values, ok):
    c = span(*HEAD, -21.3, -38.6, values)
    assert c.passed is ok and c.paper_value == "-21.3% to -38.6%"


def _stages(source: float, nic: float) -> dict:
    return {"latency_breakdown_ns": {"source_queue": source, "nic_rx": nic, "core": 500.0, "total": source + nic + 500.0}}


def test_a_latency_change_must_lie_where_the_mechanism_acts():
    ok = relative_change(*HEAD, -30.0, -30.0)
    # the change lies in the NIC's Rx wait: the mechanism's stage
    assert in_stages(ok, [_stages(1000, 9000)], [_stages(1000, 2000)], ("nic_rx",), "DDIO ways").passed
    # the same numbers, but the change lies in the source's queue (PAUSE): a pass for another reason
    c = in_stages(ok, [_stages(9000, 1000)], [_stages(2000, 1000)], ("nic_rx",), "DDIO ways")
    assert c.verdict == "fail" and "source_queue" in c.why
    # a fail keeps its verdict and learns where the change lies
    bad = relative_change(*HEAD, -30.0, -2.0)
    assert in_stages(bad, [_stages(9000, 1000)], [_stages(8800, 1000)], ("nic_rx",), "DDIO ways").why.startswith("0%")


def test_a_throughput_must_be_bounded_by_what_the_paper_says():
    ok = throughput(*HEAD, 94.0, 90.7)
    core = {"bottleneck": {"resource": "cores"}}
    credits = {"bottleneck": {"resource": "posted credits"}}
    assert bound_by(ok, {"run": core}, ("cores",), "the busiest core").passed
    c = bound_by(ok, {"run": credits}, ("cores",), "the busiest core")
    assert c.verdict == "fail" and "posted credits" in c.why


def test_a_latency_in_ns_reads_in_us_as_the_figures_draw_it():
    from packetpath.reproduce import latency
    from packetpath.reproduce._report import paper_text, rows, simulated_text, tolerance_text

    c = latency("ddio", "Table 2", "median latency 500.82 us", "latency_ns.p50", 500_820, 30_511)
    assert (paper_text(c), simulated_text(c), tolerance_text(c)) == ("500.8 us", "30.51 us", "within 2x (250 to 1000 us)")
    assert "e+05" not in " ".join(rows([c])[0])
    # a ratio or share of latencies, or a short one, stays as it is
    short = latency("x", "Fig 1", "a short latency", "latency_ns.p50", 800, 900)
    assert simulated_text(short) == "900" and tolerance_text(short) == short.tolerance
