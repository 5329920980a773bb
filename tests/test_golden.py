"""Every built-in scenario, and the variants in `tests/golden.py`, gives the
report whose digest is stored; a change meant to move results regenerates
them with `make golden`."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import golden  # noqa: E402


def test_every_golden_run_is_stored():
    assert set(golden.stored()) == set(golden.runs()), "run `make golden` after adding a scenario or variant"


def test_reports_match_their_stored_digests():
    want = golden.stored()
    moved = sorted(name for name, d in golden.digests().items() if want.get(name) != d)
    assert not moved, f"reports moved: {', '.join(moved)} (if the change means to move them: make golden)"
