"""Regenerate the README's derived tables (`make readme`): the metrics, from
`packetpath.metrics`, and the parameters, from the engine's declarations.
Each sits between `<!-- NAME:start -->` and `<!-- NAME:end -->` markers.

With ``--claims DIR`` it also writes each paper's score line and claim
verdicts (`<!-- claims-PAPER:start -->`) from the ``DIR/PAPER/claims.json``
that ``packetpath reproduce PAPER --out DIR/PAPER`` wrote; those come from a
reproduction run, so they are only as current as that run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from packetpath import metrics, schema


def tables() -> dict[str, str]:
    rows = "".join(f"| `{m.path}` | {m.unit} | {m.meaning} |\n" for m in metrics.METRICS)
    return {"metrics": "| metric | unit | meaning |\n|---|---|---|\n" + rows, "params": schema.markdown()}


def claim_tables(folder: Path) -> dict[str, str]:
    """``claims-PAPER`` -> its score line and one row per claim, for every reproduction in ``folder``."""
    from packetpath.reproduce import Claim, score
    from packetpath.reproduce._report import fmt, simulated_text

    out = {}
    for path in sorted(folder.glob("*/claims.json")):
        claims = [Claim(**{k: v for k, v in c.items() if k != "pass"}) for c in json.loads(path.read_text())]
        rows = "".join(
            "| " + " | ".join(x.replace("|", "\\|") for x in (c.figure, c.claim, fmt(c.paper_value), simulated_text(c),
                                                                c.verdict + (f": {c.why}" if c.why else ""))) + " |\n"
            for c in claims)
        out[f"claims-{path.parent.name}"] = (f"**{score(claims)}**\n\n| figure | claim | paper | simulated | verdict |\n"
                                             f"|---|---|---|---|---|\n{rows}")
    return out


def section(text: str, name: str) -> tuple[int, int]:
    """Start and end offsets of a marked section's body."""
    start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->"
    return text.index(start) + len(start), text.index(end)


def update(path: Path, claims: Path | None = None) -> None:
    text = path.read_text()
    for name, body in (tables() | (claim_tables(claims) if claims else {})).items():
        i, j = section(text, name)
        text = text[:i] + body + text[j:]
    path.write_text(text)


if __name__ == "__main__":
    args = sys.argv[1:]
    folder = Path(args[args.index("--claims") + 1]) if "--claims" in args else None
    update(Path(args[0] if args and args[0] != "--claims" else "README.md"), folder)
