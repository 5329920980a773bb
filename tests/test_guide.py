"""The README, the tutorial and the design-space questions (docs/tutorial/):
every command they show runs, in order and at a reduced size (shorter
simulated time, fewer tune trials), and gives what its answer rests on."""

from __future__ import annotations

import json
import math
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIAL = Path(__file__).resolve().parent.parent / "docs" / "tutorial"
SHORT = ["--set", "sim.warmup=0.1ms", "--set", "sim.duration=0.2ms"]
SIMULATES = ("run", "sweep", "tune")


def commands(page: str | Path) -> list[list[str]]:
    """The ``packetpath ...`` commands of a page's sh blocks, continuations joined."""
    blocks = re.findall(r"```sh\n(.*?)```", (TUTORIAL / page).read_text(), flags=re.S)
    text = "\n".join(blocks).replace("\\\n", " ")
    return [shlex.split(line, comments=True)[1:] for line in text.splitlines() if line.startswith("packetpath ")]


README = TUTORIAL.parents[1] / "README.md"


@pytest.fixture(scope="module")
def readme_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("readme")


@pytest.mark.parametrize("args", commands(README), ids=[f"{c[0]}-{i}" for i, c in enumerate(commands(README))])
def test_each_readme_command_runs_as_written(args, readme_dir):
    """In the README's order, in one folder (its relative paths land there), at a reduced size."""
    exe = Path(sys.executable).with_name("packetpath")
    out = subprocess.run([str(exe), *args, *(SHORT if args[0] in SIMULATES else [])], cwd=readme_dir,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr


def _ids(page: str) -> list[str]:
    return [f"{c[0]}-{i}" for i, c in enumerate(commands(page))]


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """The directory the pages' `guide/...` and `tutorial/...` paths point into, shared by their commands."""
    return tmp_path_factory.mktemp("guide")


def _local(args: list[str], root: Path) -> list[str]:
    return [str(root / a) if a.startswith(("guide/", "tutorial/")) else a for a in args]


def test_the_tutorial_walks_from_a_run_to_a_cluster():
    kinds = [c[0] for c in commands("index.md")]
    for kind in ("scenarios", "run", "params", "sweep", "results", "plot", "report", "tune", "reproduce", "cluster"):
        assert kind in kinds, kind
    assert any("--scheduler" in c for c in commands("index.md"))


@pytest.mark.parametrize("args", commands("index.md"), ids=_ids("index.md"))
def test_each_tutorial_command_runs(args, shell, root, request):
    args = _local(args, root)
    if "--scheduler" in args:  # a separate dask scheduler and worker on loopback stand in for the cluster's
        args[args.index("--scheduler") + 1] = request.getfixturevalue("scheduler")
    out = shell(*args, *(SHORT if args[0] in SIMULATES else []))
    assert out.code == 0, out.stderr
    if args[0] == "plot":
        assert Path(args[args.index("--out") + 1] + ".png").stat().st_size > 0
    if args[0] == "report":
        assert (Path(args[args.index("--out") + 1]) / "index.html").is_file()
    if args[0] == "reproduce":
        assert json.loads((Path(args[args.index("--out") + 1]) / "claims.json").read_text())


def test_the_guide_shows_its_commands():
    page = TUTORIAL / "questions.md"
    kinds = [c[0] for c in commands("questions.md")]
    assert (kinds.count("tune"), kinds.count("sweep"), kinds.count("plot")) == (1, 6, 2)
    # the three questions run on today's hardware at 400 Gbps
    assert all("profile=sapphirerapids-cx7" in c and "traffic.rate=400Gbps" in c for c in commands("questions.md") if c[0] != "plot")
    # and every picture it shows is in the repository
    pngs = re.findall(r"\]\((guide-q\d\.png)\)", page.read_text())
    assert len(pngs) == 3 and all((page.parent / png).stat().st_size > 0 for png in pngs)


# (in the guide's order: a plot reads the store its sweeps filled)
@pytest.mark.parametrize("args", commands("questions.md"), ids=_ids("questions.md"))
def test_each_guide_command_runs_at_a_reduced_size(args, cli, root):
    args = _local(args, root)
    if args[0] == "plot":
        out = cli(*args)
        assert out.code == 0, out.stderr
        assert Path(args[args.index("--out") + 1] + ".png").stat().st_size > 0
        return
    if args[0] == "tune":
        args += ["--trials", "3", "--batch", "3"]
    out = cli(*args, *SHORT, "--json")
    assert out.code == 0, out.stderr
    result = json.loads(out.stdout)
    if args[0] == "tune":
        assert len({t["run_id"] for t in result["trials"]}) == 3
        assert Path(args[args.index("--plot") + 1] + ".png").is_file()
        assert [o["key"] for o in result["objectives"]] == ["cpu.cores", "llc.ddio_ways"]
    else:
        points = math.prod(len(v.split("=", 1)[1].split(",")) for flag, v in zip(args, args[1:]) if flag == "--grid")
        assert len(result) == points
        assert all("drop_rate" in row and "throughput_gbps" in row for row in result)
