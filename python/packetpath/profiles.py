"""Hardware profiles: one machine's parameter values, each with its source.

A profile is ``profiles/NAME.toml``::

    description = "Xeon Gold 6140 + ConnectX-5 100G (DDIO paper testbed)"

    [values]
    llc.ways = 11

    [sources]
    "llc.ways" = "Intel ARK, Xeon Gold 6140"

``[values]`` may use sections or dotted keys; ``[sources]`` must name every
key that ``[values]`` sets, and nothing else. A profile is a base that a
scenario overrides; it never depends on the experiment.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packetpath.errors import ConfigError
from packetpath.tables import flatten, read_toml

PROFILE_DIR = Path(__file__).parent / "profiles"

_TOP_LEVEL = ("description", "values", "sources")


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    values: dict[str, Any]
    """Flat dotted key -> value as written (``"100Gbps"``, ``11``, ``true``)."""
    sources: dict[str, str]
    """Flat dotted key -> where the value comes from."""

    @classmethod
    def from_table(cls, name: str, table: dict[str, Any]) -> Profile:
        """Build a profile from a parsed TOML table, checking its shape and
        that every value has a source."""
        where = f"profile '{name}'"
        unknown = sorted(set(table) - set(_TOP_LEVEL))
        if unknown:
            raise ConfigError(f"{where}: unknown top-level key '{unknown[0]}'; expected {', '.join(_TOP_LEVEL)}")
        description = table.get("description")
        if not isinstance(description, str) or not description.strip():
            raise ConfigError(f'{where}: needs a description = "..."')
        values = flatten(table.get("values", {}))
        sources = flatten(table.get("sources", {}))
        for key in values:
            if not isinstance(sources.get(key), str) or not sources[key].strip():
                raise ConfigError(f"{where}: value '{key}' has no source in [sources]")
        stale = sorted(set(sources) - set(values))
        if stale:
            raise ConfigError(f"{where}: [sources] names '{stale[0]}', which [values] does not set")
        return cls(name, description.strip(), values, sources)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "values": self.values, "sources": self.sources}


def names() -> list[str]:
    """Names of the shipped profiles, sorted."""
    return sorted(p.stem for p in PROFILE_DIR.glob("*.toml"))


def load(name: str) -> Profile:
    """Load a shipped profile by name; an unknown name is a ConfigError listing the known ones."""
    if name not in names():
        raise ConfigError(f"unknown profile '{name}'; profiles are {', '.join(names()) or '(none)'}")
    return Profile.from_table(name, read_toml(PROFILE_DIR / f"{name}.toml"))


def load_all() -> list[Profile]:
    return [load(n) for n in names()]
