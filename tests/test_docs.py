"""The README stays in step with the code it describes."""

from __future__ import annotations

from pathlib import Path

from packetpath.metrics import METRICS

README = (Path(__file__).parents[1] / "README.md").read_text()


def test_readme_starts_with_the_two_commands():
    first_block = README.split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split("#")[0].strip() for line in first_block.splitlines()] == ["make run", "make test"]


def test_readme_tables_are_current():
    from packetpath import _readme

    for name, body in _readme.tables().items():
        i, j = _readme.section(README, name)
        assert README[i:j] == body, f"run `make readme` to regenerate the README's {name} table"
