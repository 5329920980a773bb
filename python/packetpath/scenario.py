"""Resolving a scenario: where it comes from, what it inherits, what overrides it.

A scenario is the name of a built-in (``scenarios/NAME.toml``), the path of a
TOML file, or a dict of the same shape: an optional ``description``, an
optional ``profile`` and parameter sections (or dotted keys)::

    description = "L2 forwarding of 1500 B frames at 100 Gbps on one core"
    profile = "ddio-skylake"

    [traffic]
    rate = "100Gbps"
    size = 1500

Values merge in this order, later wins:

    engine defaults < profile < scenario < overrides (--set) < seed (--seed)

An override ``profile=NAME`` swaps the profile beneath the scenario: the
same experiment on another machine.

Units stay text (``"100Gbps"``); the engine parses and checks them once, at
the boundary, and its one-line error becomes a `ConfigError`.

A parameter that names a file (`schema.FILES`) is made absolute here: relative to
the scenario file's folder when the scenario file set it, else to the working
directory. A job that leaves the machine (a Dask worker, a Slurm node) then
opens the same file, and a run's id can cover the file's contents.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packetpath import _engine, profiles, schema
from packetpath.errors import ConfigError
from packetpath.tables import flatten, read_toml

SCENARIO_DIR = Path(__file__).parent / "scenarios"

ScenarioLike = str | os.PathLike | Mapping[str, Any]
"""A built-in name, a TOML path, or a scenario dict."""

Overrides = Mapping[str, Any] | Sequence[str] | None
"""``{"traffic.rate": "50Gbps"}`` (nested or dotted) or ``["traffic.rate=50Gbps", ...]``."""


@dataclass(frozen=True)
class Scenario:
    """A scenario with everything merged and validated."""

    name: str
    """Built-in name, file path as given, or ``"<dict>"``."""
    description: str
    values: dict[str, Any]
    """Merged dotted key -> value as written; what the engine is given."""
    origins: dict[str, str]
    """Dotted key -> where its value came from: ``"profile NAME"``, ``"scenario"``, ``"--set"`` or ``"--seed"``."""
    config: dict[str, Any]
    """Every parameter, normalised by the engine to base units (ps, B, Mbps, MHz)."""
    profile: str | None = None
    """The hardware profile beneath it, if any."""

    @property
    def seed(self) -> int:
        return self.config["sim.seed"]


def builtin_names() -> list[str]:
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))


def builtin_descriptions() -> dict[str, str]:
    """Built-in scenario name -> its description."""
    return {n: str(read_toml(SCENARIO_DIR / f"{n}.toml").get("description", "")) for n in builtin_names()}


def resolve(scenario: ScenarioLike, set: Overrides = None, seed: int | None = None) -> Scenario:
    """Read, merge and validate a scenario; raises ConfigError with one line."""
    name, table = _read(scenario)
    description = table.pop("description", "")
    profile = table.pop("profile", None)
    overrides = parse_overrides(set)
    # `--set profile=NAME` runs the scenario on another machine
    profile = overrides.pop("profile", profile)
    layers: list[tuple[str, Mapping[str, Any]]] = []
    if profile is not None:
        if not isinstance(profile, str):
            raise ConfigError(
                f"{name}: profile = {profile!r}: must be a profile name; profiles are {', '.join(profiles.names())}"
            )
        p = profiles.load(profile)
        layers.append((f"profile {p.name}", p.values))
    layers.append(("scenario", flatten(table)))
    layers.append(("--set", overrides))
    if seed is not None:
        layers.append(("--seed", {"sim.seed": seed}))

    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for origin, layer in layers:
        for key, value in layer.items():
            values[key] = value
            origins[key] = origin
    folder = Path(name).parent if table_is_file(scenario) else Path.cwd()
    for key in schema.FILES:
        if isinstance(values.get(key), str) and values[key] and not Path(values[key]).is_absolute():
            base = folder if origins[key] == "scenario" else Path.cwd()
            values[key] = str((base / values[key]).absolute())
    return Scenario(name, str(description), values, origins, validate(values), profile)


# A part's capability: a value above the profile's asks about hardware the
# profile's machine does not have (a what-if), not how to configure it.
PART_LIMITS = ("pcie.gen", "pcie.lanes", "nic.line_rate", "cpu.max_cores", "cpu.freq", "l2.size", "llc.size", "llc.ways",
               "dram.channels", "dram.channel_bw")


def what_ifs(s: Scenario) -> list[str]:
    """Each part's capability the scenario or ``--set`` raises above what its profile says the part has:
    ``"pcie.gen = 5 (--set; profile ddio-skylake: 3)"``. Everything else the part carries stays as the profile
    sizes it (a faster link keeps the root port's write buffer, say)."""
    if s.profile is None:
        return []
    p = profiles.load(s.profile)
    part = validate(p.values)
    return [f"{key} = {s.values[key]} ({s.origins[key]}; profile {p.name}: {p.values[key]})" for key in PART_LIMITS
            if key in p.values and s.origins.get(key) != f"profile {p.name}" and s.config[key] > part[key]]


def table_is_file(scenario: ScenarioLike) -> bool:
    """Whether a scenario is a TOML file of the user's (not a built-in name, not a dict)."""
    return not isinstance(scenario, Mapping) and os.fspath(scenario) not in builtin_names()


def load_scenario(scenario: ScenarioLike, set: Overrides = None, seed: int | None = None) -> dict[str, Any]:
    """The merged, validated scenario as flat dotted keys, ready to `run`."""
    return resolve(scenario, set, seed).values


def validate(values: Mapping[str, Any]) -> dict[str, Any]:
    """Have the engine check a flat or nested scenario; returns the normalised config."""
    try:
        text = json.dumps(values, default=str, allow_nan=False)
    except ValueError:
        bad = next((k for k, v in flatten(values).items() if isinstance(v, list)
                    and any(isinstance(x, float) and not math.isfinite(x) for x in v)), "a value")
        raise ConfigError(f"{bad}: must hold finite numbers (got NaN or infinity)") from None
    try:
        return json.loads(_engine.validate_json(text))
    except ValueError as e:
        raise ConfigError(str(e)) from None


def parse_overrides(overrides: Overrides) -> dict[str, Any]:
    """``["llc.ddio_ways=4", "nic.ddio=true,false"]`` -> ``{"llc.ddio_ways": 4, "nic.ddio": [True, False]}``.

    A mapping is taken as typed values (nested or dotted keys)."""
    if overrides is None:
        return {}
    if isinstance(overrides, Mapping):
        return flatten(overrides)
    if isinstance(overrides, str):
        overrides = [overrides]
    if not isinstance(overrides, Sequence) or isinstance(overrides, bytes):
        raise ConfigError(f"set = {overrides!r}: expected a dict of values or a list of 'key=value' texts")
    flat: dict[str, Any] = {}
    for item in overrides:
        if not isinstance(item, str):
            raise ConfigError(f"set item {item!r}: expected 'key=value' text, e.g. 'traffic.rate=50Gbps'")
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--set '{item}': expected key=value, e.g. --set traffic.rate=50Gbps")
        flat[key] = parse_text(key, text)
    return flat


def parse_text(key: str, text: str) -> Any:
    """Type an override's text the way TOML would have typed the value.

    The parameter's kind decides: lists split on commas, booleans are
    ``true``/``false``, numbers become int or float, and anything else — a
    unit such as ``"50Gbps"``, a choice, a path — stays text for the engine
    to check. Keys the engine does not know are typed by their look, and the
    engine then names them with a did-you-mean."""
    definition = schema.lookup(key)
    kind = definition["kind"] if definition else None
    if isinstance(kind, str) and kind.endswith("_list"):
        items = [t.strip() for t in text.strip().strip("[]").split(",")]
        return [_scalar(kind.removesuffix("_list"), t) for t in items if t]
    return _scalar(kind, text.strip())


def _scalar(kind: Any, text: str) -> Any:
    if kind == "text" or isinstance(kind, dict):  # free text or a choice word
        return text
    if kind in ("bool", None) and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if kind in ("int", "float", None):
        for convert in (int, lambda t: int(t, 0), float):  # 12, 0x7ff, 1.5e3
            try:
                value = convert(text)
            except ValueError:
                continue
            if isinstance(value, int) or math.isfinite(value):
                return value
    return text


def _read(scenario: ScenarioLike) -> tuple[str, dict[str, Any]]:
    if isinstance(scenario, Mapping):
        return "<dict>", dict(scenario)
    if not isinstance(scenario, (str, os.PathLike)):
        raise ConfigError(f"scenario {scenario!r}: expected a built-in name, the path of a .toml file, or a dict")
    text = os.fspath(scenario)
    if not isinstance(text, str) or not text.strip():
        raise ConfigError(f"scenario {scenario!r}: empty; give a built-in name ({', '.join(builtin_names())}), a .toml path or a dict")
    if text in builtin_names():
        return text, read_toml(SCENARIO_DIR / f"{text}.toml")
    if text.endswith(".toml") or os.sep in text or Path(text).exists():
        return text, read_toml(Path(text))
    raise ConfigError(
        f"unknown scenario '{text}'; built-in scenarios are {', '.join(builtin_names())}, or give the path of a .toml file"
    )
