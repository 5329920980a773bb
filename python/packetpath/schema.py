"""The parameter table, as the engine declares it.

Every parameter (dotted key, kind, unit, default, range, doc) is declared once,
in the engine (``crates/engine/src/config/table.rs``); this module only reads that
table so Python never keeps a second list.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from packetpath import _engine


FILES = ("traffic.pcap",)
"""The parameters that name a file the engine reads (the table's only path-valued text)."""


@functools.cache
def _table() -> tuple[dict[str, Any], ...]:
    return tuple(json.loads(_engine.params_json()))


def definitions() -> list[dict[str, Any]]:
    """Every parameter as ``{key, kind, unit, default, min, max, doc}``, in
    declaration order. ``kind`` is a word (``"int"``, ``"float_list"``, ...) or
    ``{"choice": [...]}``; ``default`` is scenario text such as ``"100Gbps"``."""
    return [dict(d) for d in _table()]


def lookup(key: str) -> dict[str, Any] | None:
    """The definition of one dotted key, or None if the engine has no such key."""
    return _index().get(key)


@functools.cache
def _index() -> dict[str, dict[str, Any]]:
    return {d["key"]: d for d in _table()}


def choices(definition: dict[str, Any]) -> list[str] | None:
    """The allowed words of a choice parameter, None for other kinds."""
    kind = definition["kind"]
    return kind["choice"] if isinstance(kind, dict) else None


def allowed(d: dict[str, Any]) -> str:
    """What a parameter takes, in its base unit: ``1 .. 64 B``, ``a / b``, ``bool``."""
    kind = d["kind"]
    if isinstance(kind, dict):
        return " / ".join(kind["choice"])
    if kind in ("bool", "bool_list", "text"):
        return kind.replace("_", " ")
    fmt = lambda x: f"{x:g}" if x is not None else "∞"  # noqa: E731
    return f"{fmt(d['min'])} .. {fmt(d['max'])} {d['base_unit']}".rstrip() + (" (list)" if kind.endswith("list") else "")
