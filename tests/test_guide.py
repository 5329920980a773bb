"""docs/guide.md: every command it shows runs, in order and at a reduced size
(shorter simulated time, fewer tune trials), and gives what its answer rests
on."""

from __future__ import annotations

import json
import math
import re
import shlex
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "guide.md"
SHORT = ["--set", "sim.warmup=0.1ms", "--set", "sim.duration=0.2ms"]


def commands() -> list[list[str]]:
    """The ``packetpath ...`` commands of the guide's sh blocks, continuations joined."""
    blocks = re.findall(r"```sh\n(.*?)```", GUIDE.read_text(), flags=re.S)
    text = "\n".join(blocks).replace("\\\n", " ")
    return [shlex.split(line)[1:] for line in text.splitlines() if line.startswith("packetpath ")]


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """The directory the guide's `guide/...` paths point into, shared by its commands."""
    return tmp_path_factory.mktemp("guide")


def test_the_guide_shows_its_commands():
    kinds = [c[0] for c in commands()]
    assert (kinds.count("tune"), kinds.count("sweep"), kinds.count("plot")) == (1, 6, 2)
    # the three questions run on today's hardware at 400 Gbps
    assert all("profile=sapphirerapids-cx7" in c and "traffic.rate=400Gbps" in c for c in commands() if c[0] != "plot")
    # and every picture it shows is in the repository
    for png in re.findall(r"\]\((guide-q\d\.png)\)", GUIDE.read_text()):
        assert (GUIDE.parent / png).stat().st_size > 0


# (in the guide's order: a plot reads the store its sweeps filled)
@pytest.mark.parametrize("args", commands(), ids=[f"{c[0]}-{i}" for i, c in enumerate(commands())])
def test_each_command_runs_at_a_reduced_size(args, cli, root):
    args = [str(root / a) if a.startswith("guide/") else a for a in args]
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
