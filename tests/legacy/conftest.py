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
