"""Results for notebooks: a store seen as a DataFrame, SQL and plots, with an HTML repr.

    res = packetpath.Results("results")
    res                     # in Jupyter: a summary and the latest runs
    res.df                  # every row, a pandas DataFrame
    res.query('SELECT "traffic.size", avg(throughput_gbps) FROM runs GROUP BY 1')
    res.plot("throughput_gbps", x="traffic.size", by="cpu.cores")
"""

from __future__ import annotations

import html
import os
from typing import Any

from packetpath.store import Store, frame

SHOWN = ("run_id", "scenario", "name", "seed", "throughput_gbps", "latency_ns.p99", "pcie_write_hit_rate", "wall_s")


class Results:
    def __init__(self, store: str | os.PathLike | Store):
        self.store = store if isinstance(store, Store) else Store.existing(store)

    @property
    def df(self):
        return frame(self.store.rows())

    def query(self, sql: str):
        return self.store.query(sql)

    def plot(self, metric: str, x: str, **options: Any):
        from packetpath.plots import plot_store

        return plot_store(self.store, metric, x, **options)

    def __len__(self) -> int:
        return int(self.query("SELECT count(*) AS n FROM runs")["n"][0])

    def __repr__(self) -> str:
        return f"Results({str(self.store.path)!r}: {len(self)} runs)"

    def _repr_html_(self) -> str:
        n = len(self)
        versions = ", ".join(self.store.engine_versions()) or "none"
        head = self.query(
            "SELECT " + ", ".join(f'"{c}"' for c in SHOWN) + " FROM runs ORDER BY finished_at DESC LIMIT 10"
        )
        return (
            f"<div><b>packetpath results</b> <code>{html.escape(str(self.store.path))}</code>: "
            f"{n} runs in {len(self.store.files())} Parquet files · engine {html.escape(versions)}"
            f"{head.to_html(index=False, float_format=lambda v: f'{v:.4g}')}</div>"
        )
