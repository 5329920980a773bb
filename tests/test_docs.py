"""The README and the documentation site stay short, true and whole: the
site builds with warnings as errors, its links resolve, its generated parts
come from the code, and every claim that does not pass says why."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from packetpath import _docs, metrics
from packetpath.reproduce._runner import papers

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text()


def test_readme_starts_with_the_two_commands():
    first_block = README.split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split("#")[0].strip() for line in first_block.splitlines()] == ["make run", "make test"]


def test_readme_is_short():
    assert len(README.splitlines()) <= 250


def test_readme_generated_parts_are_current():
    for name, body in _docs.readme_sections().items():
        i, j = _docs.section(README, name)
        assert README[i:j] == body, f"run `make readme` to regenerate the README's {name}"


def test_no_text_calls_its_own_figures_stale():
    texts = [ROOT / "README.md", ROOT / "CHANGELOG.md", *ROOT.glob("docs/**/*.md"), *ROOT.glob("python/**/*.py")]
    for path in texts:
        text = path.read_text()
        for phrase in ("may have moved", "round-1 runs", "figures are stale"):
            assert phrase not in text, f"{path.relative_to(ROOT)}: {phrase!r}"


def test_every_paper_has_a_latest_run_and_every_claim_that_does_not_pass_says_why():
    assert _docs.papers() == papers()
    for paper in papers():
        for c in _docs.latest_claims(paper):
            assert c.verdict == "pass" or c.why.strip(), f"{paper} {c.figure} {c.claim!r} is {c.verdict} with no reason"


def test_every_reason_a_paper_module_gives_is_for_one_of_its_claims():
    """A reason keyed by claim text is lost when the claim is renamed: each key must name a claim."""
    from packetpath.reproduce._runner import load_paper

    for paper in papers():
        texts = {c.claim for c in _docs.latest_claims(paper)}
        for text in getattr(load_paper(paper), "WHY", {}):
            assert text in texts, f"{paper}: WHY names no claim: {text!r}"


def test_every_counterpart_names_a_metric():
    assert set(metrics.COUNTERPARTS) <= {m.path for m in metrics.METRICS}


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        # what the page loads must come with it: the site works offline
        for key in ("src",) if tag in ("script", "img") else ("href",) if tag == "link" else ():
            if (a.get(key) or "").startswith(("http:", "https:", "//")):
                self.external.append(a[key])


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-W", "--keep-going", "-b", "html", str(ROOT / "docs"), str(out)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    return out


def test_the_site_builds_and_every_internal_link_resolves(site):
    pages = {p: _Links() for p in site.rglob("*.html")}
    for path, parser in pages.items():
        parser.feed(path.read_text())
    broken = []
    for path, parser in pages.items():
        assert not parser.external, f"{path.relative_to(site)} loads {parser.external[0]}"
        for href in parser.links:
            url = urlsplit(href)
            if url.scheme or href.startswith("//"):
                continue
            target = (path.parent / unquote(url.path)).resolve() if url.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{path.relative_to(site)} -> {href}")
            elif url.fragment and target in pages and url.fragment not in pages[target].ids:
                broken.append(f"{path.relative_to(site)} -> {href} (no such anchor)")
    assert not broken, "\n".join(broken)


def test_the_site_has_its_pages(site):
    for page in ["index", "tutorial/index", "tutorial/questions", "concepts/model", "concepts/scenarios", "concepts/results",
                 "concepts/verdicts", "reference/cli", "reference/parameters", "reference/metrics", "reference/profiles",
                 "reproductions/index", "contributing", *(f"reproductions/{p}" for p in papers())]:
        assert (site / f"{page}.html").is_file(), page
    # generated from the code: every command, parameter, metric and profile
    text = lambda page: html.unescape(re.sub(r"<[^>]+>", "", (site / f"{page}.html").read_text()))  # noqa: E731
    assert all(f"packetpath {c}" in text("reference/cli") for c in ("run", "sweep", "tune", "results query", "cluster"))
    assert all(m.path in text("reference/metrics") for m in metrics.METRICS)
    from packetpath import profiles, schema

    assert all(d["key"] in text("reference/parameters") for d in schema.definitions())
    assert all(p in text("reference/profiles") for p in profiles.names())
    assert re.search(r"\d+ pass of \d+ scored", text("reproductions/hostnet"))
