"""The two errors packetpath raises on purpose.

`ConfigError` is the user's to fix: a scenario, profile, ``--set`` override or
file that is wrong, with one line saying which key, which value and what is
allowed. `EngineError` is ours to fix: the engine failed on a valid scenario;
its message names the scenario and seed so the failure can be reproduced.
"""

# The binding declares it as packetpath._engine.EngineError, so it pickles
# back from worker processes.
from packetpath._engine import EngineError


class ConfigError(ValueError):
    """A scenario, profile, override or input file is invalid (one-line message)."""


__all__ = ["ConfigError", "EngineError"]
