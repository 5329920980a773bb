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

A value set from a paper's figure is an *anchor*; its source says so in one
form, ``calibrated against PAPER FIGURE[, FIGURE...]`` (``calibrated against
dpa Fig 14c: ...``), and every reproduced claim on that figure is shown as
``anchor``, never scored (CLAIMS.md). A source that says "calibrated against"
a paper in any other words is refused, so no anchor goes unnoticed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packetpath.errors import ConfigError
from packetpath.tables import flatten, read_toml

PROFILE_DIR = Path(__file__).parent / "profiles"

_TOP_LEVEL = ("description", "values", "sources")
_FIGURE = r"(?:Fig|Table|Sec\.) ?\d[\w.]*"
_ANCHOR = re.compile(rf"calibrated against (?P<paper>[a-z][a-z0-9-]*) (?P<figures>{_FIGURE}(?:, {_FIGURE})*)")


@dataclass(frozen=True)
class Anchor:
    """A profile value set from a paper's figure: the claims on that figure are not scored."""

    profile: str
    key: str
    paper: str
    """A paper module's name, or its prefix (``nicmem`` is nicmem-nfv and nicmem-kvs)."""
    figures: tuple[str, ...]
    source: str

    def touches(self, paper: str, figure: str) -> bool:
        """Whether a claim of ``paper`` on ``figure`` ("Fig 5 / Sec. 6", "Fig 16c/d") rests on this value."""
        if paper != self.paper and not paper.startswith(self.paper + "-"):
            return False
        return any(same_figure(mine, theirs) for mine in self.figures for theirs in _figure_refs(figure))

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "paper": self.paper, "figures": list(self.figures), "source": self.source,
                "claims": [f"every {self.paper} claim on {f}" for f in self.figures]}


def _figure_refs(figure: str) -> list[str]:
    """"Fig 5 / Sec. 6" -> ["Fig 5", "Sec. 6"]; "Fig 16c/d" -> ["Fig 16c", "Fig 16d"]."""
    refs = []
    for part in figure.split(" / "):
        head, *tails = part.strip().split("/")
        refs.append(head)
        refs += [head.rstrip("abcdefgh") + t for t in tails]
    return refs


def same_figure(anchor: str, claim: str) -> bool:
    """"Fig 14" covers "Fig 14" and its panels "Fig 14a"; never "Fig 1" covering "Fig 14"."""
    anchor, claim = anchor.rstrip("."), claim.rstrip(".")
    return claim == anchor or (claim.startswith(anchor) and claim[len(anchor)].isalpha())


def _anchor(profile: str, key: str, source: str) -> Anchor | None:
    """The anchor a source declares; a garbled declaration is a ConfigError."""
    if "calibrated against" not in source:
        return None
    m = _ANCHOR.search(source)
    if m is None:
        if "paper" in source or "Fig" in source:
            raise ConfigError(f"profile '{profile}': source of '{key}' is calibrated against a paper but not in the form "
                              f"'calibrated against PAPER FIGURE' (e.g. 'calibrated against ddio Fig 6'): {source!r}")
        return None  # calibrated against a component-level measurement, not a paper
    figures = tuple(f.strip().rstrip(".") for f in m["figures"].split(", "))
    return Anchor(profile, key, m["paper"], figures, source)


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    values: dict[str, Any]
    """Flat dotted key -> value as written (``"100Gbps"``, ``11``, ``true``)."""
    sources: dict[str, str]
    """Flat dotted key -> where the value comes from."""
    anchors: tuple[Anchor, ...] = ()
    """The values set from a paper's figure."""

    @classmethod
    def from_table(cls, name: str, table: dict[str, Any]) -> Profile:
        """Build a profile from a parsed TOML table, checking its shape and
        that every value has a source."""
        where = f"profile '{name}'"
        if not isinstance(table, Mapping):
            raise ConfigError(f"{where}: expected a table with {', '.join(_TOP_LEVEL)}, got {type(table).__name__}")
        for section in ("values", "sources"):
            if not isinstance(table.get(section, {}), Mapping):
                raise ConfigError(f"{where}: [{section}] must be a table of dotted keys, got {type(table[section]).__name__}")
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
        anchors = tuple(a for key in values if (a := _anchor(name, key, sources[key])) is not None)
        return cls(name, description.strip(), values, sources, anchors)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "values": self.values, "sources": self.sources,
                "anchors": [a.to_json() for a in self.anchors]}


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


def anchors() -> list[Anchor]:
    """Every shipped profile's anchors."""
    return [a for p in load_all() for a in p.anchors]
