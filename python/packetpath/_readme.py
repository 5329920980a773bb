"""Regenerate the README's derived tables (`make readme`): the metrics, from
`packetpath.metrics`, and the parameters, from the engine's declarations.
Each sits between `<!-- NAME:start -->` and `<!-- NAME:end -->` markers."""

from __future__ import annotations

import sys
from pathlib import Path

from packetpath import metrics, schema


def tables() -> dict[str, str]:
    rows = "".join(f"| `{m.path}` | {m.unit} | {m.meaning} |\n" for m in metrics.METRICS)
    return {"metrics": "| metric | unit | meaning |\n|---|---|---|\n" + rows, "params": schema.markdown()}


def section(text: str, name: str) -> tuple[int, int]:
    """Start and end offsets of a marked section's body."""
    start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->"
    return text.index(start) + len(start), text.index(end)


def update(path: Path) -> None:
    text = path.read_text()
    for name, body in tables().items():
        i, j = section(text, name)
        text = text[:i] + body + text[j:]
    path.write_text(text)


if __name__ == "__main__":
    update(Path(sys.argv[1] if len(sys.argv) > 1 else "README.md"))
