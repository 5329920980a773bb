"""The reproduce runner, with a test-only paper module and a fake engine run."""

from __future__ import annotations

import json
import pytest

from packetpath import ConfigError, EngineError
from packetpath.reproduce import load_paper, papers, reproduce

from fakepaper import PAPER, SCENARIOS


def fake_run(scenario: dict) -> dict:
    """Stands in for packetpath.run: a report that depends on the scenario."""
    if scenario.get("traffic.size") == 666:
        raise EngineError("boom (scenario <dict>, seed 1)")
    return {"throughput_gbps": scenario.get("traffic.size", 1500) / 15, "sim": {"seed": 1}}


@pytest.mark.parametrize("jobs", [1, 2])
def test_runs_every_scenario_and_judges_claims(fake_paper, jobs):
    claims = reproduce(fake_paper(), jobs=jobs, run=fake_run, progress=False)
    assert [c.claim for c in claims] == ["large forwards at size/15", "small forwards at size/15"]
    assert [c.passed for c in claims] == [True, False]


def test_writes_the_report_folder(fake_paper, tmp_path):
    out = tmp_path / "report"
    claims = reproduce(fake_paper(), jobs=1, out=out, run=fake_run, progress=False)
    assert sorted(p.name for p in out.iterdir()) == ["claims.json", "claims.md", "fig1.png", "runs.json"]
    assert json.loads((out / "claims.json").read_text()) == [c.to_json() for c in claims]
    runs = json.loads((out / "runs.json").read_text())
    assert list(runs) == ["large", "small"]
    # the scenario recorded is the resolved one: profile merged, flat keys
    assert runs["large"]["scenario"]["llc.ways"] == 11 and runs["large"]["scenario"]["traffic.size"] == 1500
    assert runs["small"]["report"] == fake_run({"traffic.size": 64})
    md = (out / "claims.md").read_text()
    assert "| Fig 1 | large forwards at size/15 |" in md and "1 pass of 2 scored (0 inconclusive, 0 anchors, 1 fail)" in md
    assert (out / "fig1.png").read_bytes().startswith(b"\x89PNG")


def test_a_bad_scenario_names_the_run(fake_paper):
    with pytest.raises(ConfigError, match=r"^fakepaper/bad: unknown parameter 'traffic.sise'"):
        reproduce(fake_paper({"bad": {"traffic.sise": 64}}), jobs=1, run=fake_run, progress=False)


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_engine_failure_names_the_run(fake_paper, jobs):
    # jobs=2: the error crosses back from a worker process
    with pytest.raises(EngineError, match=r"^fakepaper/doomed: boom \(scenario <dict>, seed 1\)"):
        reproduce(fake_paper({**SCENARIOS, "doomed": {"traffic.size": 666}}), jobs=jobs, run=fake_run, progress=False)


def test_unknown_paper():
    with pytest.raises(ConfigError, match=r"unknown paper 'nope'; papers are"):
        reproduce("nope")


def test_papers_lists_paper_modules_only():
    assert all(not name.startswith("_") for name in papers())


def test_cli_prints_the_claim_table_and_json(fake_paper, cli, monkeypatch, tmp_path):
    monkeypatch.setattr("packetpath.api.run", fake_run)
    fake_paper()
    table = cli("reproduce", PAPER, "--jobs", "1", env={"COLUMNS": "200"})
    assert table.code == 0, table.stderr
    assert "PASS" in table.stdout and "FAIL" in table.stdout and "1 pass of 2 scored (0 inconclusive, 0 anchors, 1 fail)" in table.stdout
    out = cli("reproduce", PAPER, "--jobs", "1", "--json", "--out", str(tmp_path / "r"))
    assert out.code == 0, out.stderr
    claims = json.loads(out.stdout)
    assert [c["pass"] for c in claims] == [True, False]
    assert set(claims[0]) == {"paper", "figure", "claim", "metric", "paper_value", "simulated", "tolerance", "verdict", "spread", "why",
                            "runs", "bounds", "pass"}
    assert (tmp_path / "r" / "claims.md").exists()
    strict = cli("reproduce", PAPER, "--jobs", "1", "--strict")
    assert strict.code == 1 and "1 pass of 2 scored (0 inconclusive, 0 anchors, 1 fail)" in strict.stdout.replace("\n", " ")


@pytest.mark.parametrize("paper", papers())
def test_every_scenario_of_every_paper_validates(paper):
    from packetpath.sweep import make_task

    runs = load_paper(paper).scenarios()
    assert runs
    for name, scenario in runs.items():
        make_task(name, scenario)  # resolves the profile and validates in the engine; raises ConfigError naming the key


def test_a_profile_anchor_turns_its_claims_into_anchors(fake_paper, monkeypatch):
    from packetpath.profiles import Profile

    profile = Profile.from_table("toy", {
        "description": "a toy machine",
        "values": {"nic": {"line_rate": "100Gbps"}, "llc": {"ways": 11}},
        "sources": {"nic.line_rate": "calibrated against fakepaper Fig 1: the throughput it shows", "llc.ways": "a datasheet"},
    })
    assert [(a.key, a.paper, a.figures) for a in profile.anchors] == [("nic.line_rate", "fakepaper", ("Fig 1",))]
    monkeypatch.setattr("packetpath.profiles.anchors", lambda: list(profile.anchors))
    claims = reproduce(fake_paper(), jobs=1, run=fake_run, progress=False)
    assert [c.verdict for c in claims] == ["anchor", "anchor"] and not any(c.passed for c in claims)
    assert "nic.line_rate calibrated against fakepaper Fig 1" in claims[0].why
    from packetpath.reproduce import score

    assert score(claims) == "0 pass of 0 scored (0 inconclusive, 2 anchors, 0 fail)"


@pytest.mark.parametrize(("figure", "touched"), [("Fig 14", True), ("Fig 14c", True), ("Fig 1", False), ("Fig 14 / Sec. 6", True),
                                                 ("Fig 13c/d", False), ("Table 14", False)])
def test_an_anchor_touches_its_figure_and_its_panels(figure, touched):
    from packetpath.profiles import Anchor

    assert Anchor("p", "k", "dpa", ("Fig 14",), "s").touches("dpa", figure) is touched
    assert not Anchor("p", "k", "dpa", ("Fig 14",), "s").touches("ddio", "Fig 14")
    assert Anchor("p", "k", "nicmem", ("Fig 14",), "s").touches("nicmem-nfv", "Fig 14")


def test_a_garbled_anchor_is_refused():
    from packetpath.profiles import Profile

    with pytest.raises(ConfigError, match="source of 'llc.ways' is calibrated against a paper but not in the form"):
        Profile.from_table("toy", {"description": "x", "values": {"llc": {"ways": 11}},
                                   "sources": {"llc.ways": "calibrated against the paper's Fig 3"}})


def test_every_shipped_anchor_names_a_paper_module():
    from packetpath import profiles

    for a in profiles.anchors():
        assert any(p == a.paper or p.startswith(a.paper + "-") for p in papers()), a


def test_seeded_runs_run_over_three_seeds(fake_paper):
    seen = []

    def run(scenario):
        seen.append(scenario.get("sim.seed"))
        return fake_run(scenario)

    module = fake_paper()
    import sys

    sys.modules[f"packetpath.reproduce.{module}"].SEEDED = ("large",)
    reproduce(module, jobs=1, run=run, progress=False)
    assert sorted(s for s in seen if s is not None) == [2, 3] and len(seen) == 4


def _install(monkeypatch, scenarios: dict, claims) -> str:
    """A paper module with these scenarios and this claims function."""
    import sys
    import types

    paper = types.ModuleType(f"packetpath.reproduce.{PAPER}")
    paper.PAPER, paper.scenarios, paper.claims = PAPER, lambda: scenarios, claims
    monkeypatch.setitem(sys.modules, f"packetpath.reproduce.{PAPER}", paper)
    return PAPER


def _anchor_fig1(monkeypatch):
    from packetpath.profiles import Anchor

    monkeypatch.setattr("packetpath.profiles.anchors", lambda: [Anchor("toy", "nic.line_rate", PAPER, ("Fig 1",), "calibrated against fakepaper Fig 1")])


def test_claims_are_stamped_with_the_runs_they_read(fake_paper, monkeypatch):
    from packetpath.reproduce import throughput

    def claims(r):
        out = r.collect()
        both = r["a"]["throughput_gbps"] + r["b"]["throughput_gbps"]
        out.append(throughput(PAPER, "Fig 2", "a and b", "throughput_gbps", 200.0, both))
        out.append(throughput(PAPER, "Fig 2", "the same sum, said again", "throughput_gbps", 100.0, both / 2))
        out.append(throughput(PAPER, "Fig 3", "b alone", "throughput_gbps", 100.0, r["b"]["throughput_gbps"]))
        return out

    name = _install(monkeypatch, {"a": {"traffic.size": 1500}, "b": {"traffic.size": 1200}}, claims)
    got = reproduce(name, jobs=1, run=fake_run, progress=False)
    assert [c.runs for c in got] == [("a", "b"), ("a", "b"), ("b",)]

    def together(r):  # claims built in one list all carry what the list read
        out = r.collect()
        out += [throughput(PAPER, "Fig 2", "a", "throughput_gbps", 100.0, r["a"]["throughput_gbps"]),
                throughput(PAPER, "Fig 3", "b", "throughput_gbps", 80.0, r["b"]["throughput_gbps"])]
        return out

    name = _install(monkeypatch, {"a": {"traffic.size": 1500}, "b": {"traffic.size": 1200}}, together)
    assert [c.runs for c in reproduce(name, jobs=1, run=fake_run, progress=False)] == [("a", "b"), ("a", "b")]


def test_a_claim_on_anchored_runs_only_is_an_anchor(monkeypatch):
    from packetpath.reproduce import throughput

    def claims(r):
        out = r.collect()
        out.append(throughput(PAPER, "Fig 1", "the fitted point", "throughput_gbps", 100.0, r["fit"]["throughput_gbps"]))
        # the same configuration under another name and figure: the fit scored again
        out.append(throughput(PAPER, "Fig 2", "the fitted point again", "throughput_gbps", 100.0, r["again"]["throughput_gbps"]))
        # an anchored run beside one that is not: scored
        out.append(throughput(PAPER, "Fig 2", "a trend through it", "throughput_gbps", 180.0,
                              r["again"]["throughput_gbps"] + r["other"]["throughput_gbps"]))
        return out

    _anchor_fig1(monkeypatch)
    name = _install(monkeypatch, {"fit": {"traffic.size": 1500}, "again": {"traffic.size": 1500}, "other": {"traffic.size": 1200}}, claims)
    got = reproduce(name, jobs=1, run=fake_run, progress=False)
    assert [c.verdict for c in got] == ["anchor", "anchor", "pass"]
    assert "again = fit (Fig 1)" in got[1].why and "judged alone: pass" in got[1].why


def test_a_result_is_scored_once(monkeypatch, tmp_path):
    from packetpath.reproduce import throughput

    def claims(r):
        out = r.collect()
        out.append(throughput(PAPER, "Fig 2", "hit rates", "throughput_gbps", 100.0, r["x"]["throughput_gbps"]))
        out.append(throughput(PAPER, "Fig 11", "the same series", "throughput_gbps", 100.0, r["y"]["throughput_gbps"]))
        return out

    name = _install(monkeypatch, {"x": {"traffic.size": 1500}, "y": {"traffic.size": 1500}}, claims)
    with pytest.raises(ValueError, match="scores the same result as 'Fig 2: hit rates'"):
        reproduce(name, jobs=1, run=fake_run, progress=False, out=tmp_path / "r")
    assert (tmp_path / "r" / "claims.json").exists()  # the report is written first: no run is lost


def test_a_throughput_claim_says_what_bounds_its_runs(monkeypatch):
    from packetpath.reproduce import share, throughput

    def run(scenario):
        return fake_run(scenario) | {"hit": 0.5, "bottleneck": {"resource": "posted credits"}}

    def claims(r):
        out = r.collect()
        out.append(throughput(PAPER, "Fig 1", "forwards", "throughput_gbps", 100.0, r["a"]["throughput_gbps"]))
        out.append(share(PAPER, "Fig 1", "a hit rate", "hit", 0.5, r["a"]["hit"]))
        return out

    name = _install(monkeypatch, {"a": {"traffic.size": 1500}}, claims)
    got = reproduce(name, jobs=1, run=run, progress=False)
    assert got[0].bounds == {"a": "posted credits"} and got[1].bounds is None


@pytest.mark.parametrize(("figure", "touched"), [("Fig 2a", True), ("Fig 2", False), ("Fig 2c", False), ("Fig 2g", False)])
def test_a_panel_anchor_covers_its_own_panel_only(figure, touched):
    from packetpath.profiles import Anchor

    assert Anchor("p", "app.wp_reads", "shring", ("Fig 2a",), "s").touches("shring", figure) is touched


def test_the_shring_fig_2a_anchor_is_declared_in_a_profile():
    from packetpath import profiles

    mine = [a for a in profiles.anchors() if a.paper == "shring"]
    assert [(a.profile, a.key, a.figures) for a in mine] == [("nicmem-cascadelake", "app.wp_reads", ("Fig 2a",))]


def test_a_claim_the_unsourced_values_decide_is_not_scored(monkeypatch, tmp_path):
    from packetpath.reproduce import throughput

    def claims(r):
        out = r.collect()
        # (the fake run's throughput is traffic.size / 15: 100 Gbps at 1500 B)
        out.append(throughput(PAPER, "Fig 1", "decided by the size", "throughput_gbps", 100.0, r["a"]["throughput_gbps"]))
        out.append(throughput(PAPER, "Fig 2", "fails at every size", "throughput_gbps", 500.0, r["a"]["throughput_gbps"]))
        return out

    name = _install(monkeypatch, {"a": {"traffic.size": 1500}}, claims)
    import sys

    module = sys.modules[f"packetpath.reproduce.{name}"]
    module.UNSOURCED = {"small": {"traffic.size": 64}, "same": {"traffic.size": 1500}}
    module.UNSOURCED_WHY = "the unknown size"
    seen = []

    def run(scenario):
        seen.append(scenario.get("traffic.size"))
        return fake_run(scenario)

    got = reproduce(name, jobs=1, run=run, progress=False, out=tmp_path / "r")
    assert sorted(seen) == [64, 1500], "every run again at each corner (one of the same configuration runs once)"
    assert [c.verdict for c in got] == ["anchor", "fail"]
    assert got[0].why == ("not scored: the unknown size decide it; it passes with the profile's values; same, "
                          "not with small (fail)")
    runs = json.loads((tmp_path / "r" / "runs.json").read_text())
    assert set(runs) == {"a", "unsourced1/a", "unsourced2/a"}, "the corners' runs are in the report"


def test_claims_that_differ_at_a_corner_are_a_module_mistake(monkeypatch, tmp_path):
    from packetpath.reproduce import throughput

    def claims(r):
        out = r.collect()
        size = r["a"]["throughput_gbps"] * 15
        out.append(throughput(PAPER, "Fig 1", f"forwards {size:.0f} B frames", "throughput_gbps", 100.0, r["a"]["throughput_gbps"]))
        return out

    name = _install(monkeypatch, {"a": {"traffic.size": 1500}}, claims)
    import sys

    sys.modules[f"packetpath.reproduce.{name}"].UNSOURCED = {"small": {"traffic.size": 64}}
    with pytest.raises(ValueError, match="the same claims at every corner"):
        reproduce(name, jobs=1, run=fake_run, progress=False, out=tmp_path / "r")
    assert (tmp_path / "r" / "claims.json").exists(), "the report is written first: no run is lost"
