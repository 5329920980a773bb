"""TOML files and nested tables seen as flat dotted keys.

Scenarios and profiles may write a parameter as a section (``[llc]`` then
``ways = 11``) or as a dotted key (``llc.ways = 11``); everything past this
module sees only the flat form ``{"llc.ways": 11}``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from packetpath.errors import ConfigError


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; a missing file or a syntax error is a ConfigError
    naming the file (and, for syntax errors, the line and column)."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except tomllib.TOMLDecodeError as e:
        # tomllib's message already ends with "(at line L, column C)"
        raise ConfigError(f"{path}: malformed TOML: {e}") from None
    except OSError as e:
        raise ConfigError(f"{path}: {e.strerror}") from None


def flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"llc": {"ways": 11}, "nic.count": 2}`` -> ``{"llc.ways": 11, "nic.count": 2}``."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        dotted = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            flat.update(flatten(value, dotted))
        else:
            flat[dotted] = value
    return flat


def value_text(value: Any) -> str:
    """A flat parameter value as a scenario's ``--set`` would write it
    (``true``, ``1,2,4``, ``[]`` for an empty list)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ",".join(map(value_text, value)) or "[]"
    return str(value)
