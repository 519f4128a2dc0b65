"""Legacy MO extension folders written from text, imported through the legacy roots."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

# (name, root of mo.* modules, root of extensions.* modules): the 2021 layout as MO shipped it,
# then every module through each single root (2022-2023 used openvino.tools.mo for both)
LAYOUTS = {
    "mo+extensions": ("mo", "extensions"),
    "mo": ("mo", "mo"),
    "extensions": ("extensions", "extensions"),
    "openvino.tools.mo": ("openvino.tools.mo", "openvino.tools.mo"),
}


def before_front_start(body: str, imports: str = "") -> str:
    """An extension module (for write_ext) with one front pass ordered before FrontStart, where
    MO's extraction left the graph; body is its find_and_replace_pattern(self, graph)."""
    return textwrap.dedent(imports) + """
from {MO}.front.common.replacement import FrontReplacementPattern
from {MO}.front.pass_separator import FrontStart


class BeforeFrontStart(FrontReplacementPattern):
    enabled = True

    def run_after(self):
        return []

    def run_before(self):
        return [FrontStart]

    def find_and_replace_pattern(self, graph):
""" + textwrap.indent(textwrap.dedent(body), " " * 8)


_BASES = {"front": "front.common.replacement.FrontReplacementPattern",
          "middle": "middle.replacement.MiddleReplacementPattern",
          "back": "back.replacement.BackReplacementPattern"}


def checked_in(**classes: str) -> str:
    """Extension source (for write_ext, after a module-level `check(graph, phase)`): one pass
    class per name -> phase ('front', 'middle' or 'back') that calls check in that phase."""
    text = ""
    for name, phase in classes.items():
        module, base = _BASES[phase].rsplit(".", 1)
        text += f"""

from {{MO}}.{module} import {base}


class {name}({base}):
    enabled = True

    def find_and_replace_pattern(self, graph):
        check(graph, '{phase}')
"""
    return text


def write_ext(root: Path, name: str, files: dict[str, str], layout: tuple[str, str]) -> Path:
    """Write files under root/name; `{MO}` and `{EXT}` stand for the two legacy roots."""
    mo, ext = layout
    for rel, text in files.items():
        path = root / name / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip().replace("{MO}", mo).replace("{EXT}", ext))
    return root / name


@pytest.fixture(params=list(LAYOUTS))
def layout(request) -> tuple[str, str]:
    return LAYOUTS[request.param]
