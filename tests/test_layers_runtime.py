"""Layering of the runtime: it loads the op set, the IR reader and an extensions folder's ops,
never the conversion machinery (front/middle/back, passes, legacy imports, pipeline)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.runtime.test_cpu_device import OP_CLASS

ROOT = Path(__file__).resolve().parents[1]

CONVERSION = (
    "converter.front", "converter.middle", "converter.back", "converter.passes",
    "converter.legacy", "converter.pipeline", "converter.extensions",
    "converter.graph.graph",  # Op builds nodes only during conversion
)

_CHECK = f"""
import sys
loaded = sorted(m for m in sys.modules if m.startswith({CONVERSION!r}))
assert not loaded, "the runtime loaded conversion modules: " + ", ".join(loaded)
print("ok")
"""

IR = """<?xml version="1.0"?>
<net name="m" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="2,3" element_type="f32"/>
      <output><port id="0" precision="FP32" names="x"><dim>2</dim><dim>3</dim></port></output>
    </layer>
    <layer id="1" name="sc" type="ScaledCosh" version="extension">
      <data scale="2"/>
      <input><port id="0"><dim>2</dim><dim>3</dim></port></input>
      <output><port id="1" precision="FP32" names="y"><dim>2</dim><dim>3</dim></port></output>
    </layer>
    <layer id="2" name="y/sink" type="Result" version="opset1">
      <input><port id="0"><dim>2</dim><dim>3</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
    <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
  </edges>
</net>
"""


def _run(code: str) -> None:
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0 and result.stdout.strip().endswith("ok"), result.stderr


def test_importing_the_runtime_loads_no_conversion_module() -> None:
    _run("import converter.runtime.engines\n" + _CHECK)


def test_shim_runs_an_extension_folder_op_without_conversion_modules(tmp_path: Path) -> None:
    ext = tmp_path / "user_mo_extensions"
    (ext / "ops").mkdir(parents=True)
    (ext / "ops" / "scaled_cosh.py").write_text(OP_CLASS)
    (tmp_path / "m.xml").write_text(IR)
    run = textwrap.dedent(f"""
        import numpy as np
        from converter.runtime.engines import open_engine

        engine = open_engine("shim", {str(tmp_path / "m.xml")!r}, "CPU", [{str(ext)!r}])
        x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
        np.testing.assert_allclose(engine.run({{"x": x}})["y"], 2 * np.cosh(x), rtol=1e-6)
    """)
    _run(run + _CHECK)


def test_a_legacy_style_op_module_is_skipped_by_the_shim(tmp_path: Path, caplog) -> None:
    """An ops/ module written against MO's names (mo.ops.op) needs the conversion-only import
    hook: the shim skips it with a warning and still loads the folder's other ops."""
    from converter.ops.loader import python_op_classes

    caplog.set_level("WARNING", logger="extgen")  # whatever level an earlier test left

    ext = tmp_path / "legacy_and_new"
    (ext / "ops").mkdir(parents=True)
    legacy = "from mo.ops.op import Op\n\nclass Old(Op):\n    op = 'Old'\n"
    (ext / "ops" / "old.py").write_text(legacy)
    (ext / "ops" / "scaled_cosh.py").write_text(OP_CLASS)
    assert list(python_op_classes(ext)) == ["ScaledCosh"]
    assert "old.py: written against the legacy MO API" in caplog.text
