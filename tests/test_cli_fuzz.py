"""A fuzzer over the command line's grammar (Hypothesis): sub-commands with
options and values drawn from the real ones, their neighbours and junk. Every
command line either works or is refused in one line `error: ...` with exit 2;
none is an internal error, a traceback or a hang. Runs are kept tiny (a few
nanoseconds of simulated time) so that a command line that works is cheap."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packetpath import schema

KEYS = [d["key"] for d in schema.definitions()]
TINY = ["--set", "sim.duration=2ns", "--set", "sim.warmup=0ns"]

junk = st.sampled_from(["", " ", "-1", "0", "1e400", "nan", "inf", "abc", "1..", "..2", "=", ",", "1,,2", "true,7", "\n", "../x",
                        "64", "1500", "100Gbps", "2ns", "0x10", "9" * 30, "é", "--", "-"])
key = st.one_of(st.sampled_from(KEYS), st.sampled_from(["traffic.sizee", "profile", "sim.kind", "", "a.b.c", "traffic"]))
value = st.one_of(junk, st.integers(-10, 10**6).map(str))
setting = st.tuples(key, value).map(lambda kv: f"{kv[0]}={kv[1]}")


@st.composite
def command_line(draw) -> list[str]:
    cmd = draw(st.sampled_from(["run", "sweep", "tune", "params", "reproduce", "results", "plot", "cluster", "profiles", "scenarios"]))
    args: list[str] = [cmd]
    if cmd in ("run", "sweep", "tune", "params"):
        args.append(draw(st.sampled_from(["l2fwd", "nat", "dpa-kv", "nope", "", "x.toml", "/dev/null"])))
    if cmd == "reproduce":
        args.append(draw(st.sampled_from(["ddio-x", "../ddio", "_claims", "", "DDIO"])))  # never a real paper: no long runs
    if cmd == "results":
        args += [draw(st.sampled_from(["show", "query", "nope"])), draw(junk)]
    if cmd == "cluster":
        args += [draw(st.sampled_from(["slurm", "pbs", "lsf"])), "--dry-run"]
        for opt in draw(st.lists(st.sampled_from(["--cores", "--memory", "--walltime", "--queue", "--jobs"]), max_size=2)):
            args += [opt, draw(value)]
    if cmd in ("run", "sweep", "tune"):
        for s in draw(st.lists(setting, max_size=3)):
            args += ["--set", s]
        args += TINY
    if cmd == "sweep":
        for g in draw(st.lists(setting, min_size=0, max_size=2)):
            args += ["--grid", g]
        args += draw(st.sampled_from([[], ["--jobs", "1"], ["--jobs", "0"], ["--seed", "-3"], ["--random", "0"]]))
    if cmd == "tune":
        for sp in draw(st.lists(setting, max_size=2)):
            args += ["--space", sp]
        args += draw(st.sampled_from([["--minimize", "cpu.cores"], ["--maximize", "nope"], [], ["--minimize", "throughput_gbps",
                                      "--constraint", draw(junk)]]))
        args += ["--trials", "1", "--jobs", "1"]
    return args


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(command_line())
def test_every_command_line_works_or_is_refused_in_one_line(cli, tmp_path_factory, args):
    where = tmp_path_factory.mktemp("cwd")
    out = cli(*args, *(["--store", str(where / "s")] if args[0] in ("sweep", "tune", "results") else []))
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr, (args, out.stderr)
    assert out.code in (0, 2), (args, out.code, out.stderr[-500:])
    if out.code == 2:
        lines = [x for x in out.stderr.splitlines() if x.strip()]
        assert lines and lines[-1].startswith("error: ") or "Usage:" in out.stderr, (args, out.stderr)
