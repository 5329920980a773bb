"""Running scenarios and describing parameters: the Python API.

`run` is one whole simulation: resolve the scenario, hand the engine its
values once, get the report back. Nothing else crosses into the engine.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from packetpath import _engine, schema
from packetpath.errors import ConfigError, EngineError
from packetpath.scenario import Overrides, ScenarioLike, resolve, what_ifs


def run(scenario: ScenarioLike, set: Overrides = None, seed: int | None = None,
        progress: Callable[[float], object] | None = None) -> dict[str, Any]:
    """Simulate a scenario and return its report.

    ``scenario`` is a built-in name, a TOML path or a dict (which may name a
    ``profile``); ``set`` overrides values (``{"traffic.rate": "50Gbps"}`` or
    ``["traffic.rate=50Gbps"]``); ``seed`` overrides ``sim.seed``.
    ``progress`` is called now and then during a long packet run with the
    share of its simulated time done (an exception it raises stops the run;
    so does Ctrl-C, as KeyboardInterrupt).
    A report of a scenario that raises a part's capability above its profile's
    (`packetpath.scenario.what_ifs`) lists them under ``what_ifs``.
    Raises ConfigError for an invalid scenario, EngineError if the engine fails.
    """
    if progress is not None and not callable(progress):
        raise ConfigError(f"progress = {progress!r}: expected a function of the share of simulated time done, or None")
    s = resolve(scenario, set, seed)
    try:
        report = _engine.run_json(json.dumps(s.values, default=str), progress)
    except EngineError as e:
        overrides = "".join(f" --set {k}={v}" for k, v in s.values.items() if s.origins[k] == "--set")
        raise EngineError(f"{e} (scenario {s.name}{overrides}, seed {s.seed})") from None
    except ValueError as e:  # a check only the engine's build step can make (e.g. an unreadable pcap)
        raise ConfigError(str(e)) from None
    report = json.loads(report)
    if beyond := what_ifs(s):  # hardware the profile's machine does not have
        report["what_ifs"] = beyond
    return report


def params(scenario: ScenarioLike | None = None, set: Overrides = None, seed: int | None = None,
           prefix: str = "") -> list[dict[str, Any]]:
    """Every parameter: ``{key, kind, unit, default, min, max, doc, value, origin}``.

    ``value`` is the default, or the scenario's value when a scenario is
    given (with ``set`` and ``seed`` as `run` takes them); ``origin`` says
    where it came from (``"default"``, ``"profile NAME"``, ``"scenario"``,
    ``"--set"`` or ``"--seed"``). ``prefix``: only keys starting with it
    (``"llc"``, ``"dram.write"``)."""
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    if scenario is not None:
        s = resolve(scenario, set, seed)
        values, origins = s.values, s.origins
    elif set or seed is not None:
        raise ConfigError("params: set and seed need a scenario")
    return [
        {**d, "value": values.get(d["key"], d["default"]), "origin": origins.get(d["key"], "default")}
        for d in schema.definitions()
        if d["key"].startswith(prefix)
    ]
