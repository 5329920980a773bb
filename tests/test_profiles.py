"""Profiles: every shipped one loads, every value has a source, the engine accepts it."""

from __future__ import annotations

import pytest

from packetpath import ConfigError, profiles
from packetpath.profiles import PROFILE_DIR, Profile
from packetpath.scenario import validate


def test_names_are_the_shipped_files():
    assert profiles.names() == sorted(p.stem for p in PROFILE_DIR.glob("*.toml"))
    assert "ddio-skylake" in profiles.names()


@pytest.mark.parametrize("name", profiles.names())
def test_shipped_profile_has_a_source_for_every_value(name):
    p = profiles.load(name)  # loading enforces the rule; check it again, plainly
    assert p.description
    assert p.values, f"profile {name} sets no values"
    assert set(p.sources) == set(p.values)
    assert all(isinstance(s, str) and s.strip() for s in p.sources.values())


@pytest.mark.parametrize("name", profiles.names())
def test_shipped_profile_validates(name):
    validate(profiles.load(name).values)


@pytest.mark.parametrize("name", ["ddio-skylake", "nicmem-cascadelake", "icelake-cx6dx", "sapphirerapids-cx7"])
def test_xeon_scalable_llc_slices_have_2048_sets(name):
    # The ways of the Ice Lake-SP and Sapphire Rapids profiles are derived
    # from this set count; it must hold for the measured parts too.
    c = validate(profiles.load(name).values)
    assert c["llc.size"] // (c["llc.slices"] * c["llc.ways"] * 64) == 2048
    assert c["llc.size"] % (c["llc.slices"] * c["llc.ways"] * 64) == 0


def table(**overrides):
    t = {
        "description": "test",
        "values": {"llc": {"ways": 11}, "nic.count": 2},
        "sources": {"llc.ways": "ARK", "nic": {"count": "paper"}},
    }
    t.update(overrides)
    return t


def test_nested_and_dotted_keys_in_values_and_sources():
    p = Profile.from_table("t", table())
    assert p.values == {"llc.ways": 11, "nic.count": 2}
    assert p.sources == {"llc.ways": "ARK", "nic.count": "paper"}


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"sources": {"llc.ways": "ARK"}}, "value 'nic.count' has no source"),
        ({"sources": {"llc.ways": "ARK", "nic.count": " "}}, "value 'nic.count' has no source"),
        (
            {"sources": {"llc.ways": "ARK", "nic.count": "x", "llc.size": "y"}},
            "names 'llc.size', which \\[values\\] does not set",
        ),
        ({"description": ""}, "needs a description"),
        ({"source": {}}, "unknown top-level key 'source'"),
    ],
)
def test_malformed_profiles_are_rejected(overrides, message):
    with pytest.raises(ConfigError, match=message):
        Profile.from_table("t", table(**overrides))


def test_800gbe_needs_a_gen6_flit_link():
    # What-if on sapphirerapids-cx7: an 800 GbE port. Gen5 x16 carries 454.8
    # Gb/s of TLPs, so it drops about half; Gen6 x16 in FLIT mode carries 944
    # and forwards line rate, once the IIO write buffer is sized for its
    # credit loop as the profile sizes it for gen5 (64 KiB, not 32).
    from packetpath import run

    common = {"profile": "sapphirerapids-cx7", "traffic.rate": "800Gbps", "nic.line_rate": "800Gbps", "pcie.mps": "512B",
              "cpu.cores": 16, "sim.warmup": "0.2ms", "sim.duration": "0.4ms"}
    gen5 = run("l2fwd", set={**common, "pcie.gen": 5})
    gen6 = run("l2fwd", set={**common, "pcie.gen": 6, "pcie.write_buffer": "64KiB"})
    assert gen5["drop_rate"] > 0.4 and gen5["pcie_util"]["upstream"] > 0.9
    assert gen6["drop_rate"] < 0.01 and gen6["throughput_gbps"] > 780
    assert gen6["pcie_util"]["upstream"] < gen5["pcie_util"]["upstream"]
