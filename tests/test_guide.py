"""docs/guide.md: every command it shows runs, at a reduced size (shorter
simulated time, fewer tune trials), and gives what its answer rests on."""

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


def test_the_guide_shows_its_commands():
    kinds = [c[0] for c in commands()]
    assert kinds.count("tune") == 1 and kinds.count("sweep") == 6
    # the three questions run on today's hardware at 400 Gbps
    assert all("profile=sapphirerapids-cx7" in c and "traffic.rate=400Gbps" in c for c in commands())


@pytest.mark.parametrize("args", commands(), ids=[f"{c[0]}-{i}" for i, c in enumerate(commands())])
def test_each_command_runs_at_a_reduced_size(args, cli, tmp_path):
    args = [str(tmp_path / "q1") if a == "guide/q1" else str(tmp_path / "store") if a == "guide" else a for a in args]
    if args[0] == "tune":
        args += ["--trials", "3", "--batch", "3"]
    out = cli(*args, *SHORT, "--json")
    assert out.code == 0, out.stderr
    result = json.loads(out.stdout)
    if args[0] == "tune":
        assert len({t["run_id"] for t in result["trials"]}) == 3 and (tmp_path / "q1.png").is_file()
        assert [o["key"] for o in result["objectives"]] == ["cpu.cores", "llc.ddio_ways"]
    else:
        points = math.prod(len(v.split("=", 1)[1].split(",")) for flag, v in zip(args, args[1:]) if flag == "--grid")
        assert len(result) == points
        assert all("drop_rate" in row and "throughput_gbps" in row for row in result)
