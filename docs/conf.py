"""Sphinx configuration of packetpath's documentation site (`make docs`).

Pages are Markdown (MyST). The reference and the reproduction pages are
generated from the code and the latest committed reproduction runs
(`packetpath._docs`) before Sphinx reads anything. The site works offline:
the Furo theme ships its CSS and JavaScript, and nothing is fetched.
"""

from packetpath import __version__, _docs

_docs.generate()

project = "packetpath"
release = __version__
extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "reproductions/data", "reference/_*.md"]  # (_*.md: parts other pages include)
myst_heading_anchors = 3  # `[text](page.md#a-heading)` links resolve, and a wrong one warns
myst_enable_extensions = ["colon_fence"]
html_theme = "furo"
html_title = f"packetpath {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
html_copy_source = False
