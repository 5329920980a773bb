"""packetpath: a fast, mechanistic simulator of the server network I/O path —
wire, NIC, PCIe, LLC with DDIO, DRAM and cores.

    >>> import packetpath
    >>> report = packetpath.run("l2fwd", set={"traffic.size": 64}, seed=7)
    >>> report["throughput_gbps"], report["pcie_write_hit_rate"]

The engine is Rust (``packetpath._engine``); this package resolves scenarios
and profiles, and owns the CLI, the paper reproductions and the benchmarks.
"""

from importlib.metadata import PackageNotFoundError, version

from packetpath.api import params, run
from packetpath.errors import ConfigError, EngineError
from packetpath.results import Results
from packetpath.scenario import load_scenario
from packetpath.sweep import sweep
from packetpath.tune import tune

try:
    __version__ = version("packetpath")
except PackageNotFoundError:  # running from a source tree that was never installed
    from packetpath._engine import __version__

__all__ = ["ConfigError", "EngineError", "Results", "__version__", "load_scenario", "params", "run", "sweep", "tune"]
