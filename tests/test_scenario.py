"""Resolving scenarios: sources, merge order, --set parsing, errors."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packetpath import ConfigError, load_scenario, schema
from packetpath.scenario import builtin_names, parse_overrides, parse_text, resolve
from packetpath.tables import flatten


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# --- merge order -----------------------------------------------------------


def test_merge_order_defaults_profile_scenario_set_seed(tmp_path):
    # ddio-skylake sets llc.ddio_ways = 2 and cpu.freq; the scenario overrides
    # ddio_ways, --set overrides the scenario, --seed overrides --set.
    path = write(
        tmp_path,
        'profile = "ddio-skylake"\n[llc]\nddio_ways = 3\n[traffic]\nsize = 512\n[sim]\nseed = 4\n',
    )
    s = resolve(path, set=["traffic.size=1024", "sim.seed=5"], seed=9)
    assert s.values["cpu.freq"] == "2.3GHz" and s.origins["cpu.freq"] == "profile ddio-skylake"
    assert s.values["llc.ddio_ways"] == 3 and s.origins["llc.ddio_ways"] == "scenario"
    assert s.values["traffic.size"] == 1024 and s.origins["traffic.size"] == "--set"
    assert s.seed == 9 and s.origins["sim.seed"] == "--seed"
    # untouched keys keep the engine default, normalised to base units
    assert "nic.rx_ring_size" not in s.values
    assert s.config["nic.rx_ring_size"] == 1024
    assert s.config["cpu.freq"] == 2300  # MHz


def test_set_mapping_overrides_like_text():
    a = resolve({}, set={"llc": {"ddio_ways": 4}}).config
    b = resolve({}, set=["llc.ddio_ways=4"]).config
    assert a == b and a["llc.ddio_ways"] == 4


def test_nested_and_dotted_keys_are_the_same(tmp_path):
    nested = resolve(write(tmp_path, "[traffic]\nsize = 512\n", "a.toml"))
    dotted = resolve(write(tmp_path, "traffic.size = 512\n", "b.toml"))
    as_dict = resolve({"traffic": {"size": 512}})
    assert nested.values == dotted.values == as_dict.values == {"traffic.size": 512}


def test_flatten():
    assert flatten({"a": {"b": 1, "c": {"d": 2}}, "e.f": 3}) == {"a.b": 1, "a.c.d": 2, "e.f": 3}


def test_load_scenario_is_flat_and_idempotent():
    values = load_scenario("l2fwd", set=["traffic.size=64"])
    assert "profile" not in values and "description" not in values
    assert all("." in key for key in values)
    assert values["traffic.size"] == 64
    assert load_scenario(values) == values


# --- where a scenario comes from --------------------------------------------


def test_every_builtin_scenario_resolves():
    assert "l2fwd" in builtin_names()
    for name in builtin_names():
        s = resolve(name)
        assert s.name == name and s.description


def test_unknown_scenario_lists_builtins():
    with pytest.raises(ConfigError, match=r"unknown scenario 'nope'; built-in scenarios are .*l2fwd"):
        resolve("nope")


def test_missing_file():
    with pytest.raises(ConfigError, match=r"missing\.toml: no such file"):
        resolve("missing.toml")


def test_malformed_toml_names_the_line(bad_toml):
    with pytest.raises(ConfigError, match=r"broken\.toml: malformed TOML: .*line 3"):
        resolve(bad_toml)


def test_set_profile_swaps_the_machine_beneath_the_scenario():
    s = resolve("nat", set=["profile=sapphirerapids-cx7", "traffic.rate=400Gbps"])
    assert s.values["cpu.freq"] == "2.0GHz" and s.origins["cpu.freq"] == "profile sapphirerapids-cx7"
    assert s.values["app.nf"] == "nat" and s.origins["cpu.cores"] == "scenario"
    assert "profile" not in s.values
    with pytest.raises(ConfigError, match=r"unknown profile 'skylake'"):
        resolve("nat", set=["profile=skylake"])


def test_a_sweep_axis_over_profiles_runs_one_scenario_on_each_machine():
    from packetpath.sweep import tasks_for

    tasks = tasks_for("l2fwd", ["profile=icelake-cx6dx,sapphirerapids-cx7"], set=["traffic.rate=100Gbps"])
    assert [t.name for t in tasks] == ["profile=icelake-cx6dx", "profile=sapphirerapids-cx7"]
    assert [t.config["llc.slices"] for t in tasks] == [40, 56] and tasks[0].run_id != tasks[1].run_id


def test_unknown_profile_lists_profiles():
    with pytest.raises(ConfigError, match=r"unknown profile 'skylake'; profiles are .*ddio-skylake"):
        resolve({"profile": "skylake"})


def test_profile_must_be_a_name():
    with pytest.raises(ConfigError, match="must be a profile name"):
        resolve({"profile": 3})


def test_engine_errors_become_config_errors():
    with pytest.raises(ConfigError, match=r"^unknown parameter 'llc.way'; did you mean 'llc.ways'\?$"):
        resolve({"llc": {"way": 4}})
    with pytest.raises(ConfigError, match=r"^llc.ddio_ways = 12: must be <= llc.ways"):
        resolve({}, set=["llc.ddio_ways=12"])


def test_non_finite_numbers_are_rejected():
    with pytest.raises(ConfigError, match="finite"):
        resolve({"traffic": {"zipf_s": float("nan")}})


# --- --set parsing ----------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "text", "expected"),
    [
        ("llc.ddio_ways", "4", 4),
        ("traffic.zipf_s", "0.5", 0.5),
        ("traffic.zipf_s", "1", 1),
        ("llc.inclusive", "false", False),
        ("llc.inclusive", "TRUE", True),
        ("traffic.rate", "50Gbps", "50Gbps"),  # units stay text for the engine
        ("llc.size", "24.75MiB", "24.75MiB"),
        ("corunner.cat_mask", "0x7ff", 0x7FF),
        ("nic.ddio", "true,false", [True, False]),
        ("llc.cat_masks", "[0x0ff, 3]", [0xFF, 3]),
        ("traffic.sizes", "64, 1500", [64, 1500]),
        ("traffic.weights", "", []),
        ("llc.replacement", "lru", "lru"),  # a choice is text
        ("traffic.pcap", "123", "123"),  # free text is never a number
        ("no.such_key", "7", 7),  # unknown keys are typed by their look
        ("no.such_key", "nan", "nan"),  # NaN is not a value
    ],
)
def test_parse_text(key, text, expected):
    value = parse_text(key, text)
    assert value == expected and type(value) is type(expected)


def test_parse_overrides_splits_at_the_first_equals_sign():
    assert parse_overrides(["traffic.pcap=a=b.pcap", " llc.ways = 11 "]) == {"traffic.pcap": "a=b.pcap", "llc.ways": 11}


@pytest.mark.parametrize("item", ["llc.ways", "=4", ""])
def test_parse_overrides_needs_key_equals_value(item):
    with pytest.raises(ConfigError, match="expected key=value"):
        parse_overrides([item])


# --- property: any value given as text or in a scenario reaches the config --

INT_KEYS = ["app.nf_cycles", "traffic.flows", "cpu.poll_cycles", "traffic.burst_len", "app.wp_reads", "nic.rx_buffer"]
FLOAT_KEYS = ["traffic.zipf_s", "traffic.bimodal_small_share", "nic.pipeline_mpps"]
# (llc.slice_hash = false is valid only with a power-of-two set count, so not alone)
BOOL_KEYS = ["nic.rx_cqe_comp", "corunner.enabled"]



def _bounds(key):
    d = schema.lookup(key)
    return d["min"], d["max"]


@st.composite
def exact_values(draw):
    """(key, int or bool) pairs, any of which is valid on its own."""
    if draw(st.booleans()):
        return draw(st.sampled_from(BOOL_KEYS)), draw(st.booleans())
    key = draw(st.sampled_from(INT_KEYS))
    lo, hi = _bounds(key)
    return key, draw(st.integers(int(lo), int(hi)))


@st.composite
def float_values(draw):
    """(key, float or list of floats) pairs, any of which is valid on its own."""
    if draw(st.booleans()):
        return "traffic.weights", draw(st.lists(st.floats(0, 1e9, allow_nan=False), max_size=4))
    key = draw(st.sampled_from(FLOAT_KEYS))
    lo, hi = _bounds(key)
    return key, draw(st.floats(lo, hi, allow_nan=False))


def _text(value):
    """The value as a user would type it after --set key=."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ",".join(map(repr, value))
    return repr(value)


def check_round_trip(key, value):
    """Via --set text, a nested dict and a TOML file, the value reaches the validated config."""
    section, name = key.split(".")
    assert resolve({}, set=[f"{key}={_text(value)}"]).config[key] == value
    assert resolve({section: {name: value}}).config[key] == value
    literal = f"[{_text(value)}]" if isinstance(value, list) else _text(value)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.toml"
        path.write_text(f"[{section}]\n{name} = {literal}\n")
        assert resolve(path).config[key] == value


@settings(deadline=None)
@given(exact_values())
def test_ints_and_bools_round_trip(assignment):
    check_round_trip(*assignment)


@settings(deadline=None)
@given(float_values())
def test_floats_round_trip(assignment):
    check_round_trip(*assignment)


def test_a_part_raised_above_its_profile_is_a_what_if(shell):
    from packetpath.scenario import resolve, what_ifs

    assert what_ifs(resolve("l2fwd")) == []
    assert what_ifs(resolve("l2fwd", set=["pcie.gen=2", "llc.ddio_ways=4"])) == []  # below the part, or a setting
    assert what_ifs(resolve("l2fwd", set=["pcie.gen=5", "nic.line_rate=200Gbps"])) == [
        "pcie.gen = 5 (--set; profile ddio-skylake: 3)", "nic.line_rate = 200Gbps (--set; profile ddio-skylake: 100Gbps)"]
    out = shell("run", "l2fwd", "--set", "pcie.gen=5", "--set", "sim.warmup=20us", "--set", "sim.duration=40us")
    assert out.code == 0 and "what-if: pcie.gen = 5 (--set; profile ddio-skylake: 3)" in out.stdout
    assert max(map(len, out.stdout.splitlines())) <= 80
    out = shell("run", "l2fwd", "--set", "pcie.gen=5", "--set", "sim.warmup=20us", "--set", "sim.duration=40us", "--json")
    assert json.loads(out.stdout)["what_ifs"] == ["pcie.gen = 5 (--set; profile ddio-skylake: 3)"]
