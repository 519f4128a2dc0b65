"""A built-in pass stays registered after an extension scope that named MO's transformations:
the scope restores the pass registry on exit, which must not drop extgen's own passes (the
layout change a later TensorFlow conversion needs)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

NAMES_A_STANDIN = """
from openvino.tools.mo.middle.InsertLayoutPropagationTransposes import \\
    InsertLayoutPropagationTranspose
from openvino.tools.mo.middle.replacement import MiddleReplacementPattern


class AfterLayout(MiddleReplacementPattern):
    enabled = True

    def run_after(self):
        return [InsertLayoutPropagationTranspose]

    def find_and_replace_pattern(self, graph):
        pass
"""

# a fresh process: which modules were imported before the scope is what matters
CHECK = """
import sys
from pathlib import Path

from converter.extensions import extension_scope, load_extension_dirs
from converter.passes import ReplacementPattern

with extension_scope():
    load_extension_dirs([Path(sys.argv[1])], "onnx")
registered = {c.__name__ for c in ReplacementPattern.registered_cls}
print("LayoutChangeNHWCtoNCHW" in registered, "AfterLayout" in registered)
"""


def test_a_scope_naming_mo_passes_keeps_the_builtin_layout_pass(tmp_path: Path) -> None:
    ext = tmp_path / "names_standin"
    (ext / "middle").mkdir(parents=True)
    (ext / "middle" / "after_layout.py").write_text(NAMES_A_STANDIN)
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(CHECK), str(ext)], cwd=root,
                         capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(root)})
    assert out.stdout.split() == ["True", "False"], out.stderr
