"""The CLI: listings, and the bad-input contract (one line on stderr, exit 2, no traceback)."""

from __future__ import annotations

import json

import pytest

from packetpath import profiles, schema
from packetpath.scenario import builtin_descriptions

# (arguments, what the one error line must say); "{bad_toml}" is replaced by a broken file
BAD_INPUTS = [
    (["run", "l2fwd", "--set", "nic.rx_ring_sz=64"], "did you mean 'nic.rx_ring_size'"),
    (["run", "l2fwd", "--set", "traffic.rate=100GBs"], "traffic.rate = '100GBs' has unknown unit 'GBs'"),
    (["run", "l2fwd", "--set", "llc.ddio_ways=12"], "llc.ddio_ways = 12: must be <= llc.ways = 11"),
    (["run", "l2fwd", "--set", "nic.rx_ring_size=1000"], "nic.rx_ring_size = 1000: must be a power of two"),
    (["run", "l2fwd", "--set", "traffic.rate=200Gbps"], "above nic.line_rate"),
    (["run", "l2fwd", "--set", "traffic.rate"], "expected key=value"),
    (["run", "no-such-scenario"], "unknown scenario 'no-such-scenario'"),
    (["run", "missing.toml"], "missing.toml: no such file"),
    (["run", "{bad_toml}"], "malformed TOML"),
    (["params", "no-such-scenario"], "unknown scenario 'no-such-scenario'"),
    (["reproduce", "no-such-paper"], "unknown paper 'no-such-paper'"),
    # nicmem (issue 3): too much nicmem, a split beyond the packet, too much inlined, too many queues
    (["run", "nat", "--set", "nic.nicmem_size=128MiB"], "nic.nicmem_size = 134217728 B: more than the NIC exposes"),
    (["run", "nat", "--set", "nic.header_split=true", "--set", "nic.split_offset=2000"], "nic.split_offset = 2000 B: beyond the largest frame"),
    (["run", "nat", "--set", "nic.header_split=true", "--set", "nic.tx_inline=true", "--set", "nic.split_offset=1200"], "more than nic.max_wqe_size"),
    (["run", "nat", "--set", "nic.host_queues=8"], "nic.host_queues = 8: more than the 7 queues"),
    # shRing (issue 5): a sharing degree that does not divide the cores, an unknown discipline, a ring the NIC cannot use
    (["run", "nat", "--set", "rings.sharing=4"], "rings.sharing = 4: must divide cpu.cores = 7"),
    (["run", "l2fwd", "--set", "rings.discipline=tree"], "rings.discipline"),
    (["run", "l2fwd", "--set", "rings.sharing=0"], "rings.sharing = 0"),
    (["run", "l2fwd", "--set", "rings.dynamic=true"], "rings.dynamic = true: needs rings.sharing > 1"),
    # nmKVS (issue 4): a hot area larger than nicmem, more hot items than items, an unknown distribution
    (["run", "kvs", "--set", "kvs.hot_area=128MiB"], "kvs.hot_area = 134217728 B: more than the NIC's nicmem"),
    (["run", "kvs", "--set", "traffic.hot_flows=900000"], "traffic.hot_flows = 900000: more hot items than traffic.flows = 800000"),
    (["run", "kvs", "--set", "traffic.flow_popularity=pareto"], "traffic.flow_popularity"),
    (["run", "kvs", "--set", "traffic.hot_share=1.5"], "traffic.hot_share = 1.5"),
    (["run", "l2fwd", "--set", "rings.sharing=1", "--set", "rings.dshring_mem_bw=25Gbps"], "rings.dshring_mem_bw"),
    (["run", "l2fwd", "--set", "rings.sharing=2", "--set", "nic.rx_ring_size=1000"], "nic.rx_ring_size = 1000: must be a power of two"),
    # load phases (shRing Fig 13)
    (["run", "l2fwd", "--set", "traffic.phase_at=1ms,2ms", "--set", "traffic.phase_rate=50Gbps"],
     "traffic.phase_rate: 1 entries for the 2 phases of traffic.phase_at"),
    (["run", "l2fwd", "--set", "traffic.phase_at=1ms", "--set", "traffic.phase_rate=500Gbps"], "traffic.phase_rate = 500Gbps: above nic.line_rate"),
    (["run", "l2fwd", "--set", "traffic.phase_at=1ms", "--set", "traffic.phase_target_share=2"], "traffic.phase_target_share"),
    (["run", "l2fwd", "--set", "sim.sample_period=10"], "sim.sample_period = 10"),
    # closed-loop client and nohit mixes (nmKVS)
    (["run", "kvs", "--set", "traffic.closed_loop=-1"], "traffic.closed_loop = -1"),
    (["run", "kvs", "--set", "traffic.client_turnaround=5"], "traffic.client_turnaround = 5"),
    (["run", "kvs", "--set", "traffic.hot_share_small=0"], "traffic.hot_share_small = 0: needs flow_popularity = hot and size_dist = bimodal"),
    (["run", "kvs", "--set", "traffic.hot_share_small=2"], "traffic.hot_share_small = 2"),
    (["run", "l2fwd", "--set", "llc.set_sample=3"], "llc.set_sample = 3: must be a power of two"),
    # Rx header inlining (nmNFV option)
    (["run", "l2fwd", "--set", "nic.rx_inline=true"], "nic.rx_inline = true: needs nic.header_split = true"),
]


def _args(args, bad_toml):
    return [str(bad_toml) if a == "{bad_toml}" else a for a in args]


def assert_one_line_error(outcome, expected):
    assert outcome.code == 2, outcome
    assert "Traceback" not in outcome.stderr
    lines = outcome.stderr.splitlines()
    assert len(lines) == 1, outcome.stderr
    assert lines[0].startswith("error: ") and expected in lines[0], lines[0]
    assert outcome.stdout == ""


@pytest.mark.parametrize(("args", "expected"), BAD_INPUTS)
def test_bad_input_in_process(cli, bad_toml, args, expected):
    assert_one_line_error(cli(*_args(args, bad_toml)), expected)


@pytest.mark.parametrize(("args", "expected"), BAD_INPUTS)
def test_bad_input_as_a_process(shell, bad_toml, args, expected):
    assert_one_line_error(shell(*_args(args, bad_toml)), expected)


def test_malformed_toml_names_the_line(cli, bad_toml):
    assert "line 3" in cli("run", str(bad_toml)).stderr


def test_unknown_profile_in_a_scenario_file(cli, tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('profile = "no-such-profile"\n')
    assert_one_line_error(cli("run", str(path)), "unknown profile 'no-such-profile'; profiles are ")


def _unwrapped(text: str) -> list[str]:
    """A listing's lines with their wrapped continuations (two spaces deeper than
    the line they continue: 2 under a name, 6 under an anchor) joined back."""
    lines: list[str] = []
    for line in text.splitlines():
        depth = len(line) - len(line.lstrip(" "))
        if lines and depth in (2, 6):
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return lines


def test_scenarios_lists_every_builtin(cli):
    out = cli("scenarios", env={"COLUMNS": "80"})
    assert out.code == 0
    assert max(map(len, out.stdout.splitlines())) <= 80
    assert _unwrapped(out.stdout) == [f"{n} — {d}" for n, d in builtin_descriptions().items()]
    listed = json.loads(cli("scenarios", "--json").stdout)
    assert [s["name"] for s in listed] == list(builtin_descriptions())


def test_profiles_lists_every_profile(cli):
    out = cli("profiles", env={"COLUMNS": "80"})
    assert out.code == 0
    assert max(map(len, out.stdout.splitlines())) <= 80
    lines = _unwrapped(out.stdout)
    assert [x for x in lines if not x.startswith(" ")] == [f"{p.name} — {p.description}" for p in profiles.load_all()]
    assert "    anchor nic.pipeline_mpps: dpa Fig 14a, Fig 14b (those claims are shown, not scored)" in lines
    listed = json.loads(cli("profiles", "--json").stdout)
    assert [p["name"] for p in listed] == profiles.names()
    assert all(set(p["sources"]) == set(p["values"]) for p in listed)
    bf3 = next(p for p in listed if p["name"] == "bf3")
    assert {"key": "host.ipc", "paper": "dpa", "figures": ["Fig 3"]}.items() <= bf3["anchors"][0].items()


def test_params_lists_every_parameter_with_unit_and_doc(cli):
    out = cli("params", env={"COLUMNS": "400"})
    assert out.code == 0
    for d in schema.definitions():
        line = next((line for line in out.stdout.splitlines() if f" {d['key']} " in line), None)
        assert line is not None, f"{d['key']} not listed"
        assert d["doc"] in line and d["default"] in line
        if d["unit"] != "none":
            assert f" {d['unit']} " in line


def test_params_json_matches_the_engine(cli):
    listed = json.loads(cli("params", "--json").stdout)
    assert [(p["key"], p["unit"], p["doc"]) for p in listed] == [
        (d["key"], d["unit"], d["doc"]) for d in schema.definitions()
    ]
    assert all(p["origin"] == "default" and p["value"] == p["default"] for p in listed)


def test_params_of_a_scenario_shows_its_values(cli):
    listed = {p["key"]: p for p in json.loads(cli("params", "l2fwd", "--json").stdout)}
    assert listed["traffic.size"]["value"] == 1500 and listed["traffic.size"]["origin"] == "scenario"
    assert listed["llc.ways"]["origin"] == "profile ddio-skylake"
    assert listed["nic.count"]["origin"] == "default"
    table = cli("params", "l2fwd", env={"COLUMNS": "400"}).stdout
    assert any(" traffic.size " in line and " 1500 " in line and " scenario " in line for line in table.splitlines())


def test_params_filters_by_key_prefix(cli):
    keys = [p["key"] for p in json.loads(cli("params", "llc", "--json").stdout)]
    assert keys and all(k.startswith("llc") for k in keys) and "llc.ddio_ways" in keys
    listed = {p["key"]: p for p in json.loads(cli("params", "hostnet", "dram.", "--json").stdout)}
    assert set(listed) == {k for k in listed if k.startswith("dram.")} and listed["dram.speed"]["value"] == "DDR4-2933"
    out = cli("params", "l2fwd", "nosuch")
    assert out.code == 2 and "no parameter key starts with 'nosuch'; sections are" in out.stderr


def test_version_names_package_engine_and_commit(cli):
    out = cli("--version")
    assert out.code == 0 and out.stdout.startswith("packetpath ") and "(engine " in out.stdout


def test_run_json_carries_the_resolved_scenario(cli):
    report = json.loads(cli("run", "hostnet", "--json", "--set", "hostnet.c2m_cores=2", "--seed", "7").stdout)
    s = report["scenario"]
    assert s["name"] == "hostnet" and s["packetpath"].startswith("packetpath ")
    assert s["values"]["hostnet.c2m_cores"] == 2 and s["from"]["hostnet.c2m_cores"] == "--set"
    assert s["values"]["sim.seed"] == 7 and s["from"]["sim.seed"] == "--seed"
    assert s["from"]["dram.speed"] == "profile hostnet-cascadelake" and "nic.count" not in s["from"]
    assert len(s["values"]) == len(schema.definitions())


def test_help_works(cli):
    out = cli("--help")
    assert out.code == 0
    for command in ("run", "scenarios", "params", "profiles", "reproduce", "bench"):
        assert command in out.stdout


class FailingEngine:
    """Stands in for the binding: validation works, the run panics."""

    def __init__(self, engine):
        self.validate_json = engine.validate_json

    @staticmethod
    def run_json(scenario, progress=None):
        from packetpath import EngineError

        raise EngineError("engine bug: queue underflow")


def test_engine_failure_names_scenario_and_seed_and_exits_3(cli, monkeypatch):
    import packetpath.api

    monkeypatch.setattr(packetpath.api, "_engine", FailingEngine(packetpath.api._engine))
    out = cli("run", "l2fwd", "--set", "traffic.size=64", "--seed", "7")
    assert out.code == 3 and "Traceback" not in out.stderr
    assert out.stderr == "engine error: engine bug: queue underflow (scenario l2fwd --set traffic.size=64, seed 7)\n"


def test_a_bug_is_one_line_too(cli, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("oops")

    monkeypatch.setattr("packetpath.api.run", broken)
    out = cli("run", "l2fwd")
    assert out.code == 1
    assert out.stderr.startswith("internal error: KeyError: 'oops'") and len(out.stderr.splitlines()) == 1


def test_run_hides_what_the_run_does_not_report_and_says_when_pause_held_the_source(cli):
    short = ["--set", "sim.duration=1ms", "--set", "sim.warmup=1ms"]  # long enough for the Rx buffer to fill
    out = cli("run", "l2fwd", *short, "--set", "nic.flow_control=true", env={"COLUMNS": "200"})
    assert out.code == 0 and "throughput_gbps" in out.stdout and "dpa.gops" not in out.stdout and "netdimm.pcie_ns" not in out.stdout
    assert "note: the ports sent" in out.stdout and "PAUSE frames (nic.flow_control)" in out.stdout
    every = cli("run", "l2fwd", *short, "--all", env={"COLUMNS": "200"})
    assert every.code == 0 and "dpa.gops" in every.stdout and "netdimm.pcie_ns" in every.stdout
    quiet = cli("run", "l2fwd", *short, "--set", "nic.flow_control=false", "--set", "traffic.rate=10Gbps")
    assert quiet.code == 0 and "PAUSE" not in quiet.stdout


def test_sweep_says_what_it_ran_and_readers_refuse_a_missing_store(cli, tmp_path):
    store = tmp_path / "s"
    args = ["sweep", "l2fwd", "--grid", "traffic.size=64,1500", "--set", "sim.duration=40us", "--set", "sim.warmup=20us",
            "--jobs", "1", "--store", str(store)]
    first = cli(*args, env={"COLUMNS": "200"})
    assert first.code == 0 and "2 runs, 2 new, 0 already stored" in first.stdout, first.stdout
    again = cli(*args[:3], "traffic.size=64,1500,256", *args[4:], env={"COLUMNS": "200"})
    assert again.code == 0 and "3 runs, 1 new, 2 already stored" in again.stdout, again.stdout
    # at 80 columns every row is a block of "column value" pairs that never split
    narrow = cli("results", "show", "--store", str(store), env={"COLUMNS": "80"})
    lines = narrow.stdout.splitlines()
    assert narrow.code == 0 and max(map(len, lines)) <= 80, narrow.stdout
    text = narrow.stdout
    assert text.count("scenario l2fwd") == 3 and "name traffic.size=256" in text and "┃" not in text
    for command in (["results", "show"], ["results", "query", "SELECT 1 FROM runs"], ["plot", "throughput_gbps", "--x", "traffic.size"]):
        out = cli(*command, "--store", str(tmp_path / "nope"))
        assert out.code == 2 and out.stderr.startswith(f"error: store {tmp_path / 'nope'}: no such directory"), (command, out.stderr)


def test_run_over_seeds_gives_mean_and_sd(cli):
    out = json.loads(cli("run", "hostnet", "--seeds", "3", "--seed", "5", "--json").stdout)
    assert out["seeds"] == [5, 6, 7]
    c2m = out["metrics"]["hostnet.c2m_gbytes_s"]
    assert len(c2m["values"]) == 3 and min(c2m["values"]) <= c2m["mean"] <= max(c2m["values"]) and c2m["sd"] > 0
    table = cli("run", "hostnet", "--seeds", "2", env={"COLUMNS": "100"}).stdout
    assert "hostnet over 2 seeds (1..2)" in table and "± sd" in table


def test_a_packet_run_says_what_its_counts_are_per(cli):
    out = cli("run", "nat", "--set", "sim.duration=0.05ms", "--set", "sim.warmup=0.05ms", "--set", "traffic.rate=40G", env={"COLUMNS": "80"})
    assert out.code == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "scope: 2 NICs x 7 cores = 14 packet cores; offered 2 x 40G on the wire (traffic.rate is per port" in text


def test_a_narrow_record_layout_names_its_first_column():
    import pandas as pd
    from rich.console import Console

    from packetpath.cli import _frame_table

    df = pd.DataFrame({"run_id": ["937d58b964999b9cde85"], "traffic.size": [64], "throughput_gbps": [7.045],
                       "latency_ns.p99": [76479.0], "drop_rate": [0.9075], "llc.ddio_ways": [11]})
    console = Console(width=60, record=True, color_system=None)
    console.print(_frame_table(df, "", width=60))
    lines = console.export_text().splitlines()
    assert lines[0].startswith("run_id 937d58b964999b9cde85  traffic.size 64") and max(map(len, lines)) <= 60
