"""`packetpath tune`: a search for a goal, checked against the grid it replaces."""

from __future__ import annotations

import json

import pytest

from packetpath.errors import ConfigError
from packetpath.plots import plot_tune
from packetpath.store import Store
from packetpath.sweep import sweep
from packetpath.tune import Constraint, parse_space, tune

# l2fwd at 100 Gbps with 2048 Rx descriptors per core: the more cores, the
# larger the DMA footprint, so the DDIO ways a 90 % PCIe write hit rate needs
# grow with the cores -- the fewest ways, then the fewest cores, is not a corner.
BASE = {"nic.flow_control": False, "sim.duration": "0.5ms", "nic.rx_ring_size": 2048}
SPACE = {"cpu.cores": (1, 4), "llc.ddio_ways": (1, 6)}
GOAL = {"minimize": ["llc.ddio_ways", "cpu.cores"], "constraints": ["pcie_write_hit_rate>0.9"]}


def test_tune_finds_the_optimum_a_grid_sweep_confirms(tmp_path):
    grid = sweep("l2fwd", {k: list(range(lo, hi + 1)) for k, (lo, hi) in SPACE.items()}, set=BASE, seed=2,
                 jobs=2, progress=False, store=tmp_path / "grid")
    ok = grid[grid.pcie_write_hit_rate > 0.9].sort_values(["llc.ddio_ways", "cpu.cores"])
    want = {"cpu.cores": int(ok.iloc[0]["cpu.cores"]), "llc.ddio_ways": int(ok.iloc[0]["llc.ddio_ways"])}
    assert want["llc.ddio_ways"] > 1  # not a corner of the space

    r = tune("l2fwd", SPACE, **GOAL, trials=16, set=BASE, seed=2, jobs=2, progress=False, store=tmp_path / "tune")
    assert r["best"]["point"] == want
    # 16 distinct points of 24 were simulated, each stored once
    runs = {t["run_id"] for t in r["trials"]}
    assert len(runs) == 16
    assert {row["run_id"] for row in Store(tmp_path / "tune").rows()} == runs
    # the frontier: feasible, none dominated, the best on it
    front = r["frontier"]
    assert r["best"] in front and all(t["feasible"] for t in front)
    for a in front:
        for b in r["trials"]:
            if b["feasible"] and b is not a:
                va, vb = a["values"], b["values"]
                assert not (all(vb[k] <= va[k] for k in va) and vb != va)
    # and the grid agrees on every point tune visited
    by_point = {(int(row["cpu.cores"]), int(row["llc.ddio_ways"])): row["pcie_write_hit_rate"] > 0.9 for _, row in grid.iterrows()}
    assert all(by_point[(t["point"]["cpu.cores"], t["point"]["llc.ddio_ways"])] == t["feasible"] for t in r["trials"])


def test_a_study_persists_and_resumes(tmp_path):
    first = tune("l2fwd", SPACE, **GOAL, trials=4, set=BASE, seed=3, jobs=2, progress=False, store=tmp_path)
    assert (tmp_path / "tune.db").is_file()
    again = tune("l2fwd", SPACE, **GOAL, trials=7, set=BASE, seed=3, jobs=2, progress=False, store=tmp_path)
    ids = lambda r: {t["run_id"] for t in r["trials"]}  # noqa: E731
    assert ids(first) < ids(again) and len(ids(again)) == 7
    assert [t["number"] for t in again["trials"][: len(first["trials"])]] == [t["number"] for t in first["trials"]]


def test_a_study_resumes_only_its_own_problem(tmp_path):
    # Every point of this space overfills the default mempool (8 rings of
    # 8192 and more), though each axis alone is fine: the first batch is
    # refused, and no trial of it stays running in the study.
    space = {"cpu.cores": (8, 9), "nic.rx_ring_size": [8192, 16384]}
    goal = {"minimize": ["cpu.cores"], "trials": 3, "seed": 1, "jobs": 1, "progress": False}
    short = {"sim.warmup": "0.05ms", "sim.duration": "0.1ms"}
    with pytest.raises(ConfigError, match="mempool.size"):
        tune("l2fwd", space, **goal, set=short, store=tmp_path / "a")
    import optuna
    st = optuna.load_study(study_name="tune-l2fwd", storage=f"sqlite:///{tmp_path / 'a' / 'tune.db'}")
    assert {t.state.name for t in st.trials} == {"FAIL"}
    # fixed, the same command gives what a fresh study gives
    fixed = {**short, "mempool.size": 262143}
    again = tune("l2fwd", space, **goal, set=fixed, store=tmp_path / "a")
    fresh = tune("l2fwd", space, **goal, set=fixed, store=tmp_path / "b")
    assert [t["point"] for t in again["trials"]] == [t["point"] for t in fresh["trials"]]
    # a study with trials is not resumed for another problem
    with pytest.raises(ConfigError, match=r"holds 3 trials of another problem \(its set differ\)"):
        tune("l2fwd", space, **goal, set={**fixed, "traffic.size": 64}, store=tmp_path / "a")


def test_constraints_and_spaces_parse_or_fail_clearly():
    c = Constraint.parse("drop_rate<0.001")
    assert (c.metric, c.op, c.bound) == ("drop_rate", "<", 0.001)
    assert c.violation({"drop_rate": 0.0005}) == 0 and c.violation({"drop_rate": 0.003}) == pytest.approx(0.002)
    assert Constraint.parse("throughput_gbps >= 90").violation({"throughput_gbps": 90}) == 0
    assert parse_space(["cpu.cores=1..8", "llc.replacement=lru,qlru"]) == {"cpu.cores": (1, 8), "llc.replacement": ["lru", "qlru"]}
    for bad, message in [
        (lambda: Constraint.parse("drop_rate=0.1"), "expected METRIC<VALUE"),
        (lambda: Constraint.parse("drop_rat<0.1"), "not a report metric"),
        (lambda: parse_space(["cpu.core=1..8"]), "unknown parameter"),
        (lambda: parse_space(["cpu.cores=8..1"]), "LOW <= HIGH"),
        (lambda: parse_space({"cpu.cores": (1.5, 4)}), "whole numbers"),
        (lambda: tune("l2fwd", {"cpu.cores": (0, 4)}, minimize=["cpu.cores"]), "cpu.cores = 0"),
        (lambda: parse_space(["cpu.cores=1..x"]), "whole numbers"),
        (lambda: tune("l2fwd", SPACE, constraints=["drop_rate<0.1"]), "no objective"),
        (lambda: tune("l2fwd", {"llc.replacement": ["lru"]}, minimize=["llc.replacement"]), "not numbers"),
        (lambda: tune("l2fwd", SPACE, minimize=["cpu.cores"], trials=0), "trials = 0"),
    ]:
        with pytest.raises(ConfigError, match=message):
            bad()


def test_cli_tune_prints_the_best_point_and_plots(cli, tmp_path):
    args = ["tune", "l2fwd", "--space", "cpu.cores=1..2", "--space", "llc.ddio_ways=4..5", "--minimize", "llc.ddio_ways",
            "--minimize", "cpu.cores", "--constraint", "pcie_write_hit_rate>0.9", "--trials", "4", "-j", "1",
            "--store", str(tmp_path), "--plot", str(tmp_path / "front"), *(f"--set={k}={v}" for k, v in BASE.items())]
    out = cli(*args, "--json")
    assert out.code == 0, out.stderr
    r = json.loads(out.stdout)
    assert len({t["run_id"] for t in r["trials"]}) == 4 and (tmp_path / "front.png").stat().st_size > 0
    text = cli(*args)
    assert text.code == 0 and "best: cpu.cores=" in text.stdout
    bad = cli("tune", "l2fwd", "--space", "cpu.cores=1..2", "--minimize", "cpu.cores", "--constraint", "drop<1")
    assert bad.code == 2 and "not a report metric" in bad.stderr


def test_plot_of_a_one_objective_tune(tmp_path):
    trials = [{"number": i, "point": {"cpu.cores": i}, "values": {"cpu.cores": i}, "feasible": i > 1, "run_id": str(i)}
              for i in range(1, 4)]
    result = {"objectives": [{"key": "cpu.cores", "direction": "minimize"}], "trials": trials, "frontier": trials[1:2],
              "best": trials[1], "constraints": ["drop_rate<0.001"]}
    assert [p.suffix for p in plot_tune(result, tmp_path / "one")] == [".png", ".svg"]


def test_a_maximised_metric_and_a_minimised_parameter(tmp_path):
    # fewest cores first, then most throughput: the best has one core, and
    # the frontier trades the two off (each point beats every other on at
    # least one objective)
    r = tune("l2fwd", {"cpu.cores": (1, 3)}, minimize=["cpu.cores"], maximize=["throughput_gbps"], trials=3,
             set={**BASE, "traffic.size": 64, "sim.duration": "0.2ms"}, jobs=1, progress=False)
    assert [o["direction"] for o in r["objectives"]] == ["minimize", "maximize"]
    assert r["best"]["point"]["cpu.cores"] == 1  # the first objective decides
    front = r["frontier"]
    for a in front:
        for b in front:
            if a is not b:
                assert a["values"]["cpu.cores"] < b["values"]["cpu.cores"] or \
                    a["values"]["throughput_gbps"] > b["values"]["throughput_gbps"]


def test_a_space_within_the_budget_is_tried_whole(tmp_path):
    # 6 points, 8 trials: every point once, and the answer is the grid's
    r = tune("l2fwd", {"llc.ddio_ways": (1, 6)}, minimize=["llc.ddio_ways"], constraints=["pcie_write_hit_rate>0.9"],
             trials=8, set={**BASE, "cpu.cores": 4}, seed=2, jobs=2, progress=False, store=tmp_path)
    assert r["search"] == {"exhaustive": True, "tried": 6, "space": 6}
    assert sorted(t["point"]["llc.ddio_ways"] for t in r["trials"]) == [1, 2, 3, 4, 5, 6]
    feasible = sorted(t["point"]["llc.ddio_ways"] for t in r["trials"] if t["constrained"]["pcie_write_hit_rate"] > 0.9)
    assert (r["best"] or {}).get("point") == ({"llc.ddio_ways": feasible[0]} if feasible else None)


def test_a_failed_search_names_its_closest_trial_and_counts_exactly(cli, tmp_path):
    out = cli("tune", "l2fwd", "--space", "llc.ddio_ways=1..6", "--trials", "4", "--minimize", "llc.ddio_ways",
              "--constraint", "throughput_gbps>1000", "--set", "sim.duration=0.3ms", "--store", str(tmp_path), env={"COLUMNS": "80"})
    assert out.code == 0, out.stderr
    assert "no trial met throughput_gbps>1000" in out.stdout and "closest: llc.ddio_ways=" in out.stdout
    assert "a search, not a proof: 4 of 6 points tried; confirm with: packetpath sweep" in " ".join(out.stdout.split())
    assert "--grid llc.ddio_ways=1,2,3,4,5,6" in out.stdout.replace("\n  ", " ")
