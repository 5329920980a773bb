"""TOML files and nested tables seen as flat dotted keys.

Scenarios and profiles may write a parameter as a section (``[llc]`` then
``ways = 11``) or as a dotted key (``llc.ways = 11``); everything past this
module sees only the flat form ``{"llc.ways": 11}``.
"""

from __future__ import annotations

import math
import os
import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from packetpath.errors import ConfigError


MAX_TOML_BYTES = 1 << 20
"""A scenario or profile is a page of text; anything larger is not one."""
MAX_DEPTH = 8
"""Sections nest a level or two (``[nic]``, ``[traffic]``); deeper is a mistake."""


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; a missing, non-regular (FIFO, device), oversized,
    binary or malformed file is a ConfigError naming the file (and, for
    syntax errors, the line and column). Nothing is read before the checks."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise ConfigError(f"{path}: not a regular file (a scenario or profile is a TOML text file)")
        if st.st_size > MAX_TOML_BYTES:
            raise ConfigError(f"{path}: {st.st_size} bytes, more than a TOML scenario's limit of {MAX_TOML_BYTES}")
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a TOML file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not text (a scenario or profile is a UTF-8 TOML file)") from None
    except tomllib.TOMLDecodeError as e:
        # tomllib's message already ends with "(at line L, column C)"
        raise ConfigError(f"{path}: malformed TOML: {e}") from None
    except OSError as e:
        raise ConfigError(f"{path}: {e.strerror}") from None


def flatten(table: Mapping[str, Any], prefix: str = "", _depth: int = 0) -> dict[str, Any]:
    """``{"llc": {"ways": 11}, "nic.count": 2}`` -> ``{"llc.ways": 11, "nic.count": 2}``.
    A key given twice (``traffic.size`` and ``[traffic] size``), a non-text
    key, a non-finite number or nesting deeper than `MAX_DEPTH` (a
    self-referencing dict included) is a ConfigError naming the key."""
    if _depth > MAX_DEPTH:
        raise ConfigError(f"{prefix}: nested more than {MAX_DEPTH} levels deep (a self-referencing table?)")
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if not isinstance(key, str):
            raise ConfigError(f"{prefix + '.' if prefix else ''}{key!r}: a parameter key must be text")
        dotted = f"{prefix}.{key}" if prefix else key
        part = flatten(value, dotted, _depth + 1) if isinstance(value, Mapping) else {dotted: value}
        for k, v in part.items():
            if k in flat:
                raise ConfigError(f"{k}: given twice (as a dotted key and inside its section); give it once")
            if isinstance(v, float) and not math.isfinite(v):
                raise ConfigError(f"{k} = {v}: must be a finite number")
            flat[k] = v
    return flat


def value_text(value: Any) -> str:
    """A flat parameter value as a scenario's ``--set`` would write it
    (``true``, ``1,2,4``, ``[]`` for an empty list)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ",".join(map(value_text, value)) or "[]"
    return str(value)
