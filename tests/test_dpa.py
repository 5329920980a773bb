"""The BlueField-3 DPA workloads end to end: profile, runs, CLI errors, the paper module."""

from __future__ import annotations

import json

import pytest

import packetpath
from packetpath import metrics
from packetpath.reproduce import papers
from packetpath.reproduce import dpa as paper
from packetpath.sweep import make_task

from test_cli import assert_one_line_error

BF3 = {"profile": "bf3", "sim": {"kind": "dpa"}}


def run(**bench):
    return packetpath.run({**BF3, "dpa_bench": bench})


def test_the_report_carries_the_dpa_metrics():
    r = run(workload="chase", working_set="2MiB", accesses=500)
    for m in metrics.METRICS:
        if m.path.startswith("dpa."):
            assert isinstance(metrics.value(r, m.path), float), m.path
    assert r["dpa"]["latency_ns"] > 0


def test_same_seed_same_bytes():
    a = run(workload="net", net_mode="kv", kv_dist="zipf", threads=64, packets=50)
    b = run(workload="net", net_mode="kv", kv_dist="zipf", threads=64, packets=50)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_dpa_is_wimpier_per_thread_but_scales():
    one = run(workload="compute", threads=1)["dpa"]["gops"]
    many = run(workload="compute", threads=64)["dpa"]["gops"]
    host = run(workload="compute", proc="host", threads=1)["dpa"]["gops"]
    assert host > 10 * one
    assert abs(many / one - 64) < 1


def test_shipped_dpa_scenario_runs():
    r = packetpath.run("dpa-kv")
    assert r["dpa"]["kv_mops"] > 0 and r["dpa"]["net_buf"] == "arm"


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        (["dpa_bench.workload=compute", "dpa_bench.threads=191"], "dpa_bench.threads = 191: more than the 190 usable dpa threads"),
        (
            ["dpa_bench.workload=bandwidth", "dpa_bench.mem=host", "dpa_bench.mem2=arm", "dpa_bench.threads=8", "dpa_bench.mem2_threads=4"],
            "cannot use host and Arm memory together",
        ),
        (["dpa_bench.workload=chase", "dpa_bench.working_set=2GiB"], "dpa_bench.working_set = 2147483648 B: larger than dpa memory"),
        (["dpa_bench.workload=compute", "dpa_bench.proc=gpu"], "dpa_bench.proc"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, sets, message):
    args = ["run", "dpa-kv"]
    for s in sets:
        args += ["--set", s]
    assert_one_line_error(cli(*args), message)


def test_paper_module_is_discovered_and_its_scenarios_validate():
    assert "dpa" in papers()
    scenarios = paper.scenarios()
    assert len(scenarios) > 100
    for name, s in scenarios.items():
        make_task(name, s)
