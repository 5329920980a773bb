"""Sweeps, the results store, plots and the HTML report (issue 8)."""

from __future__ import annotations

import html
import json
import re
import os
import shutil
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

import packetpath
from conftest import PACKETPATH
from packetpath import api, htmlreport
from packetpath.errors import ConfigError, EngineError
from packetpath.reproduce import reproduce
from packetpath.store import Store
from packetpath.sweep import sweep

SHORT = {"sim.duration": "100us", "sim.warmup": "50us"}
GRID = {"traffic.size": [64, 1500], "cpu.cores": [1, 2]}
VOLATILE = ["wall_s", "finished_at"]


def stable(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=VOLATILE).sort_values("run_id").reset_index(drop=True)


def failing_after_two(values: dict) -> dict:
    """A run function that is 'killed' on the third run."""
    if values.get("cpu.cores") == 2 and values.get("traffic.size") == 1500:
        raise EngineError("interrupted")
    return api.run(values)


def short_run(values: dict) -> dict:
    """The real engine on short simulations (for the report test)."""
    return api.run({**values, **{"sim.duration": "40us", "sim.warmup": "20us"}})


def test_local_sweep_rows_are_deterministic(tmp_path):
    a = sweep("l2fwd", GRID, set=SHORT, jobs=2, progress=False)
    b = sweep("l2fwd", GRID, set=SHORT, jobs=1, progress=False, store=tmp_path / "s")
    assert len(a) == 4 and list(a["traffic.size"]) == [64, 64, 1500, 1500]
    pd.testing.assert_frame_equal(stable(a), stable(b))
    assert set(a["engine_version"]) == {packetpath.__version__} and a["run_id"].is_unique
    assert {"throughput_gbps", "latency_ns.p99", "llc.ways", "seed", "report"} <= set(a.columns)


def test_dask_local_cluster_gives_the_rows_of_a_local_sweep(tmp_path):
    from distributed import LocalCluster

    local = sweep("l2fwd", GRID, set=SHORT, jobs=1, progress=False)
    with LocalCluster(n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None) as cluster:
        remote = sweep("l2fwd", GRID, set=SHORT, scheduler=cluster.scheduler_address, store=tmp_path / "s", progress=False)
    pd.testing.assert_frame_equal(stable(local), stable(remote))
    assert len(Store(tmp_path / "s").rows()) == 4


def test_interrupted_sweep_resumes_without_loss_or_duplicates(tmp_path):
    store = tmp_path / "s"
    with pytest.raises(EngineError, match="interrupted"):
        sweep("l2fwd", GRID, set=SHORT, jobs=1, store=store, run=failing_after_two, progress=False)
    assert len(Store(store).rows()) == 3  # the runs that finished before the failure
    calls = []
    resumed = sweep("l2fwd", GRID, set=SHORT, jobs=1, store=store, progress=False,
                    run=lambda v: calls.append(v) or api.run(v))
    assert len(calls) == 1  # only the missing run
    whole = sweep("l2fwd", GRID, set=SHORT, jobs=1, progress=False)
    pd.testing.assert_frame_equal(stable(resumed), stable(whole))
    stored = Store(store).query("SELECT run_id, count(*) AS n FROM runs GROUP BY run_id")
    assert len(stored) == 4 and set(stored["n"]) == {1}


def test_a_killed_sweep_process_resumes(tmp_path):
    store = tmp_path / "s"
    grid = ["--grid", "traffic.size=64,128,256,512,1024,1500", "--grid", "cpu.cores=1,2"]
    args = [str(PACKETPATH)]
    cmd = [*args, "sweep", "l2fwd", *grid, "--set", "sim.duration=300us", "--set", "sim.warmup=50us", "--jobs", "1", "--flush-every", "0", "--store", str(store)]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while len(Store(store).files()) < 3 and time.time() < deadline and p.poll() is None:
        time.sleep(0.01)
    p.kill()
    p.wait()
    before = len(Store(store).rows())
    assert before >= 3
    assert not list((store / ".tmp").glob("*")) or all(f.suffix == ".parquet" for f in (store / ".tmp").glob("*"))
    done = subprocess.run([*cmd, "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = Store(store).query("SELECT run_id, count(*) AS n FROM runs GROUP BY run_id")
    assert len(rows) == 12 and set(rows["n"]) == {1}


def test_random_points_are_deterministic():
    grid = {"traffic.size": [64, 128, 256, 512, 1024, 1500], "cpu.cores": [1, 2]}
    ran = []
    fake = lambda v: ran.append(v) or {"throughput_gbps": 1.0, "sim": {}}  # noqa: E731
    a = sweep("l2fwd", grid, random=3, seed=5, jobs=1, run=fake, progress=False)
    b = sweep("l2fwd", grid, random=3, seed=5, jobs=1, run=fake, progress=False)
    assert len(a) == 3 and list(a["run_id"]) == list(b["run_id"])
    assert set(a["seed"]) == {5}


def test_duckdb_queries_and_results_object(tmp_path):
    sweep("l2fwd", GRID, set=SHORT, jobs=1, store=tmp_path / "s", progress=False)
    res = packetpath.Results(tmp_path / "s")
    df = res.query('SELECT "traffic.size", max(throughput_gbps) AS t FROM runs GROUP BY 1 ORDER BY 1')
    assert list(df["traffic.size"]) == [64, 1500] and df["t"].iloc[1] > df["t"].iloc[0]
    assert len(res) == 4 and len(res.df) == 4
    page = res._repr_html_()
    assert "4 runs" in page and "<table" in page
    with pytest.raises(ConfigError, match="query failed"):
        res.query("SELECT nope FROM runs")


def test_plots_png_and_svg(tmp_path):
    store = tmp_path / "s"
    sweep("l2fwd", GRID, set=SHORT, jobs=1, store=store, progress=False)
    for kind in ("line", "scatter", "heatmap"):
        paths = packetpath.Results(store).plot("throughput_gbps", x="traffic.size", by="cpu.cores", kind=kind, out=tmp_path / kind)
        assert [p.suffix for p in paths] == [".png", ".svg"]
        assert paths[0].read_bytes().startswith(b"\x89PNG") and b"<svg" in paths[1].read_bytes()
    # axes with units
    svg = (tmp_path / "line.svg").read_text()
    assert "traffic.size (B)" in svg and "throughput_gbps (Gbps)" in svg


def test_a_plot_never_averages_over_a_swept_parameter(tmp_path):
    store = tmp_path / "s"
    sweep("l2fwd", GRID, set=SHORT, jobs=1, store=store, progress=False)
    with pytest.raises(ConfigError, match=r"average over swept parameter cpu.cores \(cpu.cores: 1, 2\): pick one with "
                                          r"--where '\"cpu.cores\" = 1' or draw it with --by cpu.cores"):
        packetpath.Results(store).plot("throughput_gbps", x="traffic.size", out=tmp_path / "p")
    paths = packetpath.Results(store).plot("throughput_gbps", x="traffic.size", where='"cpu.cores" = 1', out=tmp_path / "p")
    assert paths[0].exists()


def test_cli_sweep_results_plot(cli, tmp_path):
    store = str(tmp_path / "s")
    out = cli("sweep", "l2fwd", "--grid", "traffic.size=64,1500", "--set", "sim.duration=100us",
              "--set", "sim.warmup=50us", "--store", store, "--jobs", "1", "--json")
    assert out.code == 0, out.stderr
    assert [r["traffic.size"] for r in json.loads(out.stdout)] == [64, 1500]
    q = cli("results", "query", 'SELECT count(*) AS n FROM runs', "--store", store, "--json")
    assert q.code == 0 and json.loads(q.stdout) == [{"n": 2}]
    assert cli("results", "show", "--store", store).code == 0
    p = cli("plot", "throughput_gbps", "--x", "traffic.size", "--store", store, "--out", str(tmp_path / "fig"))
    assert p.code == 0, p.stderr
    assert p.code == 0, p.stderr
    assert (tmp_path / "fig.png").exists() and (tmp_path / "fig.svg").exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--grid", "traffic.sise=64,128"], "did you mean 'traffic.size"),
        ([], "empty grid"),
        (["--grid", "traffic.size="], "empty grid"),
        (["--grid", "traffic.size=64", "--scheduler", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler"),
    ],
)
def test_sweep_bad_input(cli, tmp_path, args, expected):
    store = tmp_path / "s"
    start = time.time()
    out = cli("sweep", "l2fwd", *args, "--store", str(store))
    assert out.code == 2 and out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], out.stderr
    assert time.time() - start < 15 and not store.exists()  # nothing written


def test_a_store_from_a_newer_engine_is_refused(cli, tmp_path):
    store = Store(tmp_path / "s")
    sweep("l2fwd", {"traffic.size": [64]}, set=SHORT, jobs=1, store=store, progress=False)
    con = store.connect()
    newer = con.sql("SELECT * REPLACE ('99.0.0' AS engine_version) FROM runs").to_arrow_table()
    import pyarrow.parquet as pq

    pq.write_table(newer, store.path / "part-zzz.parquet")
    out = cli("sweep", "l2fwd", "--grid", "traffic.size=64", "--store", str(store.path))
    assert out.code == 2 and out.stderr.startswith("error: store ") and "newer than this engine" in out.stderr
    assert len(out.stderr.splitlines()) == 1


def test_reproduce_runs_through_the_store(fake_paper, tmp_path):
    from test_reproduce import fake_run

    store = tmp_path / "s"
    reproduce(fake_paper(), jobs=1, run=fake_run, progress=False, store=store)
    assert len(Store(store).rows()) == 2
    calls = []
    claims = reproduce(fake_paper(), jobs=1, run=lambda v: calls.append(v) or fake_run(v), progress=False, store=store)
    assert calls == [] and [c.passed for c in claims] == [True, False]


def _chromium() -> str | None:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and os.environ.get("PACKETPATH_REQUIRE_CHROMIUM"):
        pytest.fail("chromium is not installed (.ci/run installs Debian's chromium package)")
    return found


def test_html_report_renders_in_headless_chromium(tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("chromium not installed")
    reproduce("ddio", jobs=2, out=tmp_path / "ddio", run=short_run, progress=False)
    page = htmlreport.build(tmp_path / "report", folders=[tmp_path / "ddio"])
    text = page.read_text()
    assert not re.search(r"<(script|link)[^>]+(src|href)=\"https?:", text)  # plotly.js is beside the page: offline
    assert (page.parent / "plotly.min.js").stat().st_size > 1e6 and page.stat().st_size < 1e6  # one copy, not in the page
    p = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
         f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=10000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    dom = p.stdout
    figures = 9  # Figs 2, 5, 6, 8, 9, 10, 11, 12, 14
    assert dom.count('<div class="figure"') == figures and f'data-charts="{figures}"' in dom and 'data-errors="0"' in dom, dom[-3000:]
    # every chart drawn: Plotly's plot, legend and hover layers are three SVGs
    assert dom.count('class="main-svg"') == 3 * figures
    # the full title, a table of contents, the paper's values over the curves, the seeds' spread
    assert "Reexamining Direct Cache Access to Optimize I/O Intensive Applications" in dom and "<h2>Contents</h2>" in dom
    assert "paper: 1500 B" in text and '"error_y":{"array"' in text.replace(" ", "")
    # each claim once: under its figure, or among the claims on no drawn figure
    claims = json.loads((tmp_path / "ddio" / "claims.json").read_text())
    for c in claims:
        assert dom.count(f"<td>{html.escape(c['claim'], quote=False)}</td>") == 1, c["claim"]
    assert "PASS" in dom and "nic.rx_ring_size" in dom
    # each figure's runs say what bounds them
    assert dom.count("<th>bound by</th>") == figures and re.search(r"<td>[A-Za-z ]+ \(\d+%\)</td>", dom)
    # and how their mean latency splits into stages
    assert re.search(r"<td>mean [\d.]+ us = NIC Rx [\d.]+ \+ PCIe\+DMA", dom)
    # the score line and every verdict, each with its own style
    assert re.search(r'class="summary">\d+ pass of \d+ scored \(\d+ inconclusive, \d+ anchors, \d+ fail\)', dom)
    assert 'class="anchor"' in dom and 'class="fail"' in dom and ('class="inconclusive"' in dom or 'class="pass"' in dom)
    console = [line for line in p.stderr.splitlines() if "CONSOLE" in line]
    assert not console, console


def test_sweep_store_report_renders_in_headless_chromium(tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("chromium not installed")
    from packetpath import sweepreport

    grid = {"traffic.size": [64, 512, 1500], "llc.ddio_ways": [2, 4]}
    for seed in (1, 2):
        sweep("l2fwd", grid, set=SHORT, seed=seed, jobs=2, store=tmp_path / "s", progress=False)
    page = sweepreport.build(tmp_path / "s", tmp_path / "report")
    text = page.read_text()
    assert not re.search(r"<(script|link)[^>]+(src|href)=\"https?:", text)  # plotly.js is beside the page: offline
    assert (page.parent / "plotly.min.js").stat().st_size > 1e6 and page.stat().st_size < 1e6  # one copy, not in the page
    assert "<td>traffic.size</td><td>B</td><td>x axis</td><td>64, 512, 1500</td>" in text
    assert "<td>llc.ddio_ways</td><td>-</td><td>colour</td><td>2, 4</td>" in text
    assert "the mean of 2 runs (their seeds)" in text and "throughput_gbps (Gbps) against traffic.size (B)" in text
    # a metric's meaning is text: its `names` are code, never raw backticks
    notes = re.findall(r'<p class="note">(.*?)</p>', text, flags=re.S)
    assert notes and not any("`" in n for n in notes) and any("<code>" in n for n in notes)
    charts = text.count('class="plotly-graph-div"')
    assert charts > 10
    p = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
         f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=10000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    # every chart drawn: Plotly's plot, legend and hover layers are three SVGs
    assert p.stdout.count('class="main-svg"') == 3 * charts, p.stdout[-2000:]
    console = [line for line in p.stderr.splitlines() if "CONSOLE" in line]
    assert not console, console


def test_sweep_report_axes_go_to_the_parameters_with_most_values():
    from packetpath import plots

    df = pd.DataFrame({"traffic.size": [64, 512, 1500] * 4, "llc.ddio_ways": [2, 2, 2, 4, 4, 4] * 2,
                       "cpu.cores": [1] * 6 + [2] * 6, "nic.count": [1] * 12, "sim.seed": range(12)})
    # nic.count never changes and the seed is no parameter of the chart
    assert plots.swept(df) == ["traffic.size", "cpu.cores", "llc.ddio_ways"]
    assert plots.label("traffic.rate") == "traffic.rate (Mbps)" and plots.label("drop_rate") == "drop_rate"


def test_runs_start_longest_first_and_rows_keep_their_order():
    from packetpath.sweep import make_task, offered_packets

    # 7 ms of 1500 B frames at 100 Gbps: 7e-3 * 1e11 / (1520 * 8)
    assert offered_packets(make_task("x", "l2fwd").config) == pytest.approx(57_565.8, rel=1e-6)
    started = []
    grid = {"sim.duration": ["20us", "80us", "40us"]}
    df = sweep("l2fwd", grid, set={"sim.warmup": "10us"}, jobs=1, progress=False,
               run=lambda v: started.append(v["sim.duration"]) or api.run(v))
    assert started == ["80us", "40us", "20us"]
    assert list(df["sim.duration"]) == [20_000_000, 80_000_000, 40_000_000]


def test_a_plot_over_seeds_has_error_bars_integer_ticks_and_starts_at_zero(tmp_path):
    from packetpath import plots

    store = tmp_path / "s"
    sweep("l2fwd", {"cpu.cores": [1, 2], "sim.seed": [1, 2]}, set=SHORT, jobs=1, store=store, progress=False)
    created = []
    real = plots._subplots
    plots._subplots = lambda *a, **k: created.append(real(*a, **k)) or created[-1]
    try:
        packetpath.Results(store).plot("latency_ns.p99", x="cpu.cores", out=tmp_path / "p")
    finally:
        plots._subplots = real
    _, ax = created[0]
    assert ax.get_ylim()[0] == 0
    assert all(float(t).is_integer() for t in ax.get_xticks())
    assert any(c.__class__.__name__ == "LineCollection" for c in ax.collections)  # the seeds' error bars


def test_sweep_report_orders_categories_as_numbers(tmp_path):
    from packetpath import sweepreport

    sweep("l2fwd", {"traffic.size": [1500, 64], "llc.ddio_ways": [2, 11]}, set=SHORT, jobs=2, store=tmp_path / "s", progress=False)
    text = sweepreport.build(tmp_path / "s", tmp_path / "report").read_text()
    # x is llc.ddio_ways (ties go alphabetically), the colour traffic.size: 64 before 1500
    assert text.index('"name":"64"') < text.index('"name":"1500"')
    assert '"tickvals":[2,11]' in text


def test_where_values_take_units_and_axes_read_in_units():
    from packetpath.plots import readable, with_base_units

    assert with_base_units('"traffic.rate" = 25Gbps') == '"traffic.rate" = 25000'
    assert with_base_units('"sim.duration" >= 1ms AND "traffic.size" = 64') == '"sim.duration" >= 1000000000 AND "traffic.size" = 64'
    # left alone: numbers without a unit, SQL words after a number, exponents, text in quotes
    for text in ('"traffic.size" = 64 AND "cpu.cores" = 4', '"traffic.rate" >= 25e3', "name = '\"traffic.rate\" = 5Gbps'"):
        assert with_base_units(text) == text
    with pytest.raises(ConfigError, match="traffic.rate"):
        with_base_units('"traffic.rate" = 25GHz')
    assert readable("traffic.rate", [25000, 50000]) == ("Gbps", 1e3)
    assert readable("traffic.size", [64, 1500]) == ("B", 1.0)  # a parameter stays whole
    assert readable("latency_ns.p99", [26_799.5]) == ("us", 1e3)
