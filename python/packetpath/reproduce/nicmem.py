"""Reproduce "NIC Memory for the Masses" style results of nicmem (Pismenny et
al., ASPLOS'22) -- so far only what the engine's mechanisms cover: the cost
of CPU access to NIC memory (§6.5, Fig 14). nmNFV, nmKVS and the NFV
macrobenchmarks come with the on-NIC memory datapath (issue 3).

Fig 14 copies a buffer 100 times within host memory, into NIC memory and out
of it; the paper reports the slowdown of each relative to the host copy, at
source sizes from L1-resident (32 KiB) to uncached.
"""

from __future__ import annotations

from pathlib import Path

from packetpath.reproduce import Claim, monotone, ratio

PAPER = "nicmem"
PROFILE = "nicmem-cascadelake"
SIZES = ["32KiB", "256KiB", "2MiB", "16MiB", "64MiB"]
MODES = ["host_to_host", "host_to_nicmem", "nicmem_to_host"]


def _iterations(size: str) -> int:
    # 100 copies as in the paper for small buffers; fewer for large ones,
    # whose steady state needs no more (each copy streams from DRAM).
    return 100 if size.endswith("KiB") else 3


def scenarios() -> dict[str, dict]:
    return {
        f"fig14/{mode}/{size}": {"profile": PROFILE, "copy_bench": {"mode": mode, "size": size, "iterations": _iterations(size)}}
        for mode in MODES
        for size in SIZES
    }


def _slowdown(r: dict[str, dict], mode: str, size: str) -> float:
    host = r[f"fig14/host_to_host/{size}"]["copy_bench"]["gbytes_s"]
    return host / r[f"fig14/{mode}/{size}"]["copy_bench"]["gbytes_s"]


def claims(r: dict[str, dict]) -> list[Claim]:
    P, m = PAPER, "copy_bench.gbytes_s (host copy / this copy)"
    small, large = SIZES[0], SIZES[-1]
    return [
        ratio(P, "Fig 14", "copying into nicmem is 4.0x slower than within hostmem for an L1-resident source", m,
              4.0, _slowdown(r, "host_to_nicmem", small)),
        ratio(P, "Fig 14", "copying into nicmem is as fast as within hostmem (1.0x) for uncached data", m,
              1.0, _slowdown(r, "host_to_nicmem", large)),
        ratio(P, "Fig 14", "copying out of nicmem is 528x slower for an L1-resident source", m,
              528.0, _slowdown(r, "nicmem_to_host", small)),
        ratio(P, "Fig 14", "copying out of nicmem is 50x slower for uncached data", m,
              50.0, _slowdown(r, "nicmem_to_host", large)),
        monotone(P, "Fig 14", "the slowdown of copying into nicmem shrinks as the source grows", m, "non-increasing",
                 [_slowdown(r, "host_to_nicmem", s) for s in SIZES], slack=0.05),
    ]


def plots(r: dict[str, dict], out_dir: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    for mode in MODES[1:]:
        ax.plot(SIZES, [_slowdown(r, mode, s) for s in SIZES], "o-", label=mode.replace("_", " "))
    ax.set(yscale="log", xlabel="source buffer", ylabel="slowdown vs host copy", title="nicmem Fig 14")
    ax.legend()
    fig.tight_layout()
    fig.savefig(Path(out_dir) / "fig14.png", dpi=110)
    plt.close(fig)
