"""What an extension folder imported leaves in sys.modules once its conversion is over: its own
modules go, the third-party packages it imported stay (a framework like tensorflow aborts when
imported a second time in one process)."""

from __future__ import annotations

import builtins
import sys
from pathlib import Path

import pytest

from converter.extensions import extension_scope, load_extension_dirs

# a framework that, like tensorflow, cannot run its import twice in one process
FAKE_FRAMEWORK = """
import builtins
if builtins._fakefw_imported:
    raise RuntimeError("fakefw imported twice in one process")
builtins._fakefw_imported = True
"""
USES_FRAMEWORK = """
import fakefw
from mo.front.common.replacement import FrontReplacementOp


class UsesFramework(FrontReplacementOp):
    op = 'UsesFramework'
    enabled = True
"""


@pytest.fixture
def framework(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    (site / "fakefw").mkdir(parents=True)
    (site / "fakefw" / "__init__.py").write_text(FAKE_FRAMEWORK)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(builtins, "_fakefw_imported", False, raising=False)
    monkeypatch.delitem(sys.modules, "fakefw", raising=False)


def test_an_extension_importing_a_framework_loads_twice_in_one_process(
        tmp_path: Path, framework: None) -> None:
    ext = tmp_path / "fw_ext"
    (ext / "front").mkdir(parents=True)
    (ext / "front" / "uses_framework.py").write_text(USES_FRAMEWORK)
    loaded = []
    for _ in range(2):
        with extension_scope():
            load_extension_dirs([ext], "onnx")
            loaded.append(sys.modules["fakefw"])
        assert not [m for m in sys.modules if m == "fw_ext" or m.startswith("fw_ext.")]
        assert str(tmp_path) not in sys.path
    assert loaded[0] is loaded[1] is sys.modules["fakefw"]
