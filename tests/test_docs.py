"""The README stays in step with the code it describes."""

from __future__ import annotations

from pathlib import Path

from packetpath.metrics import METRICS

README = (Path(__file__).parents[1] / "README.md").read_text()


def test_readme_starts_with_the_two_commands():
    first_block = README.split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split("#")[0].strip() for line in first_block.splitlines()] == ["make run", "make test"]


def test_readme_lists_every_metric():
    for m in METRICS:
        assert f"| `{m.path}` | {m.unit} | {m.meaning} |" in README, m.path


def test_readme_parameter_table_is_current():
    from packetpath import schema

    table = README.split("<!-- params:start -->\n", 1)[1].split("<!-- params:end -->", 1)[0]
    assert table == schema.markdown(), "run `make readme` to regenerate the README's parameter table"
