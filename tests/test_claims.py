"""The tolerance policy of CLAIMS.md, kind by kind, passing and failing."""

from __future__ import annotations

import math

import pytest

from packetpath.reproduce import (
    Claim,
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


@pytest.mark.parametrize(
    ("direction", "values", "slack", "ok"),
    [
        ("non-increasing", [0.9, 0.8, 0.8, 0.4], 0, True),
        ("non-increasing", [0.9, 0.8, 0.81, 0.4], 0, False),
        ("non-increasing", [0.9, 0.8, 0.81, 0.4], 0.02, True),
        ("non-decreasing", [1, 2, 2, 3], 0, True),
        ("non-decreasing", [1, 2, 1.5, 3], 0, False),
        ("non-decreasing", [1, 2, 1.5, 3], 0.5, True),
        ("non-decreasing", [1], 0, False),  # one point is no trend
        ("non-decreasing", [1, math.nan], 0, False),
    ],
)
def test_monotone(direction, values, slack, ok):
    assert passes(monotone, direction, values, slack=slack) is ok


def test_monotone_rejects_unknown_direction():
    with pytest.raises(ValueError):
        monotone(*HEAD, "up", [1, 2])


def test_ordering():
    assert passes(ordering, ["host", "dpa", "arm"], {"arm": 1.0, "dpa": 2.0, "host": 3.0})
    assert not passes(ordering, ["host", "dpa", "arm"], {"arm": 1.0, "dpa": 3.0, "host": 2.0})
    assert not passes(ordering, ["host", "dpa"], {"dpa": 2.0, "host": 2.0})  # a tie is no order


@pytest.mark.parametrize(
    ("simulated", "ok"), [(75, True), (70, True), (80, True), (85, False), (60, False), (None, False)]
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
    assert list(c.to_json()) == ["paper", "figure", "claim", "metric", "paper_value", "simulated", "tolerance", "pass"]
    assert c.to_json()["pass"] is True
    assert c.tolerance == "±15 pp (0.25 to 0.55)"


@pytest.mark.parametrize(("simulated", "ok"), [(0.0011, True), (0.0044, True), (0.00099, False), (0.0046, False)])
def test_count_within_factor_two(simulated, ok):
    assert count("p", "Sec 3.1", "PAUSE frames per packet", "m", 0.0022, simulated).passed is ok
