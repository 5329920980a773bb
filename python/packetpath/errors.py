"""The two errors packetpath raises on purpose.

`ConfigError` is the user's to fix: a scenario, profile, ``--set`` override or
file that is wrong, with one line saying which key, which value and what is
allowed. `EngineError` is ours to fix: the engine failed on a valid scenario;
its message names the scenario and seed so the failure can be reproduced.
"""

from packetpath._engine import EngineError

# The binding names the class "_engine.EngineError"; tell pickle where it
# really lives so it survives the trip back from a worker process.
EngineError.__module__ = "packetpath._engine"


class ConfigError(ValueError):
    """A scenario, profile, override or input file is invalid (one-line message)."""


__all__ = ["ConfigError", "EngineError"]
