"""Property: `extgen new --config` on any config, valid-looking or hostile, exits 0 with output
that compiles (Python, C++ against OpenVINO's headers, XML, OpenCL kernels that build and run on
the shim), or exits 2 with one stderr line and nothing written; never an internal error."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from converter.errors import KernelConfigError
from converter.framework_names import FRAMEWORKS
from converter.runtime.opencl import GpuDevice, VpuDevice
from converter.runtime.opencl.config import read_elements
from extgen.cli import main
from extgen.expression import FUNCTIONS
from extgen.generator.context import op_context
from extgen.generator.generate import load_config
from extgen.generator.targets import TARGETS
from tests.generator.test_opencl_targets import _inputs, _layer

pytestmark = pytest.mark.slow

MAX_EXAMPLES = 120  # about 40 generate; under 2 minutes on 2 cores
RESERVED = ["linux", "unix", "NULL", "errno", "NAN", "M_PI", "INFINITY", "std", "np", "Op", "i",
            "INPUT0_TYPE", "OUTPUT0_DIMS", "in0", "out0", "get_global_id", "class", "kernel",
            "extgen", "Extgen", "type", "count", "x0", "_", "__init__", "m_x", "input0_type"]
HOSTILE_TEXT = ["a\"b", "\\", "\U0001f600", "\ud800", "\x00", "a\nb", "\u2028", "\ufffe", "",
                "*/", "\"\"\"", "my.domain::Cosh", "C\u00f6sh", "d::\U0001f600"]
ELEMENT_TYPES = ["f32", "f16", "f64", "i8", "i32", "i64", "u8", "boolean", "bf16"]
ATTR_TYPES = ["int", "float", "bool", "string", "int_list", "float_list"]

_plain = st.from_regex(r"[a-z][a-z0-9]{0,6}|[A-Z][a-z]{1,5}([A-Z][a-z]{0,4})?", fullmatch=True)
_safe_chars = st.characters(codec="utf-8", exclude_categories=("Cc", "Cs"),
                            exclude_characters="\ufffe\uffff")
SAFE = {
    "name": _plain,
    "text": st.text(_safe_chars, max_size=8),
    "fw_type": st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs"),
                                     exclude_characters="\ufffe\uffff\"'/\\."),
                       min_size=1, max_size=8),
    "int": st.integers(-(2**63 - 1), 2**63 - 1),
    "float": st.floats(width=32, allow_nan=False, allow_infinity=False),
    "number": st.one_of(st.integers(0, 10**6).map(str), st.floats(0, 1e6).map(repr)),
    "index": st.just(0),
    "module": st.sampled_from([None, "pkg.Layer"]),
    "work": st.sampled_from(["B*F*Y*X", "X,Y,B*F"]),
    "format": st.sampled_from(["BFYX", "BYXF"]),
    "scalars": st.sampled_from([[], [{"name": "w", "source": "I.X"}],
                                [{"name": "w", "type": "float", "source": "O.Y"}]]),
    "type": st.sampled_from(ELEMENT_TYPES[:-1]),
}
HOSTILE = {
    "name": st.one_of(st.sampled_from(RESERVED), st.text(min_size=1, max_size=6),
                      _plain.map(lambda s: s + "\n"),
                      st.text(alphabet="aB_", min_size=95, max_size=260)),
    "text": st.one_of(st.text(max_size=8), st.sampled_from(HOSTILE_TEXT)),
    "int": st.sampled_from([2**63, -2**63, 2**64, -(2**70)]),
    "float": st.floats(),
    "number": st.sampled_from(["1e400", "1e-300", "0x10", "1_0"]),
    "index": st.integers(-1, 3),
    "module": st.sampled_from(['m"x', "1x.y", "a\nb", "a..b"]),
    "work": st.sampled_from(["B*F*(", "", "1,1,1,1", "__import__('os')"]),
    "format": st.just("XYZ"),
    "scalars": st.sampled_from([[{"name": "i", "source": "I.X"}], [{"name": "x0", "source": "I.X"}],
                                [{"name": "w", "source": "I.Q"}]]),
    "type": st.just("bf16"),
}
HOSTILE["fw_type"] = HOSTILE["text"]


def _field(draw, hostile: bool, kind: str):
    """A value of kind: safe, or in a hostile config hostile one time in eight."""
    bad = hostile and draw(st.integers(0, 7)) == 0
    return draw((HOSTILE if bad else SAFE)[kind])


def _default(draw, hostile: bool, kind: str):
    if kind in ("int", "float"):
        return _field(draw, hostile, kind)
    if kind.endswith("_list"):
        return [_field(draw, hostile, kind[:-5]) for _ in range(draw(st.integers(0, 3)))]
    return draw(st.booleans()) if kind == "bool" else _field(draw, hostile, "text")


def _attribute(draw, hostile: bool, name: str) -> dict:
    kind = draw(st.sampled_from(ATTR_TYPES))
    attr = {"name": name, "type": kind}
    if draw(st.booleans()):
        wrong = hostile and draw(st.integers(0, 5)) == 0
        kind_drawn = draw(st.sampled_from(ATTR_TYPES)) if wrong else kind
        attr["default"] = _default(draw, hostile, kind_drawn)
    if draw(st.booleans()):
        attr["in_ir"] = draw(st.booleans())
    if draw(st.integers(0, 4)) == 0:
        attr["framework_name"] = _field(draw, hostile, "text")
    return attr


def _expression(draw, hostile: bool, leaves: list[str]) -> str:
    """An expression of extgen's math language over leaves, or (hostile) one that is not."""
    if hostile and draw(st.integers(0, 5)) == 0:
        return draw(st.sampled_from(["import os", "x +", "exp(", "x ** 2", "__import__('os')"]))
    numbers = st.one_of(SAFE["number"], HOSTILE["number"]) if hostile else SAFE["number"]
    base = st.one_of(st.sampled_from(leaves), numbers) if leaves else numbers

    def extend(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from("+-*/"), inner).map(lambda t: f"({' '.join(t)})"),
            st.tuples(st.sampled_from([f for f, spec in FUNCTIONS.items() if spec[1] == "num"]),
                      inner, inner, inner).map(
                lambda t: f"{t[0]}({', '.join(t[1:1 + FUNCTIONS[t[0]][0]])})"),
            st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} > {t[2]} else 0)"),
            inner.map(lambda e: f"-{e}"),
        )

    return draw(st.recursive(base, extend, max_leaves=6))


@st.composite
def ops(draw, hostile: bool) -> dict:
    expression = draw(st.booleans())
    sizes = [1, draw(st.integers(1, 3)), 1 if expression else draw(st.integers(1, 2)),
             draw(st.integers(0, 4))]
    # the op's names, different (in a valid-looking config) in more than case
    names = iter(draw(st.lists(SAFE["name"], min_size=sum(sizes), max_size=sum(sizes),
                               unique_by=str.lower)))
    names = [_field(draw, hostile, "name") if hostile else next(names) for _ in range(sum(sizes))]
    op = {"name": names[0], "inputs": [{"name": n} for n in names[1:1 + sizes[1]]],
          "outputs": [{"name": n} for n in names[1 + sizes[1]:1 + sizes[1] + sizes[2]]],
          "attributes": [_attribute(draw, hostile, n) for n in names[sum(sizes[:3]):]]}
    numeric = [a["name"] for a in op["attributes"] if a["type"] in ("int", "float", "bool")]
    if expression:
        op["expression"] = _expression(draw, hostile, [p["name"] for p in op["inputs"]] + numeric)
    if draw(st.booleans()):
        op["framework_types"] = {fw: _field(draw, hostile, "fw_type")
                                 for fw in draw(st.sets(st.sampled_from(list(FRAMEWORKS))))}
    shape_kind = st.sampled_from(["same_as_input"] if expression else ["same_as_input", "custom"])
    op["shape"] = {"kind": draw(shape_kind),
                   "input": _field(draw, hostile, "index")}
    op["dtype"] = {"kind": draw(st.sampled_from(["same_as_input", "fixed"])),
                   "input": _field(draw, hostile, "index"), "type": _field(draw, hostile, "type")}
    op["caffe"] = {"pythonic": draw(st.booleans()), "module": _field(draw, hostile, "module"),
                   "param_name": draw(st.one_of(st.none(), SAFE["text"]))}
    op["gpu"] = {"global_work_size": _field(draw, hostile, "work"),
                 "format": _field(draw, hostile, "format")}
    op["vpu"] = {"scalars": _field(draw, hostile, "scalars")}
    return op


configs = st.booleans().flatmap(lambda hostile: st.fixed_dictionaries({
    "targets": st.lists(st.sampled_from(list(TARGETS)), min_size=1, unique=True),
    "ops": st.lists(ops(hostile), min_size=1, max_size=3),
}))


_OV_HEADERS = ["openvino/core/extension.hpp", "openvino/core/op_extension.hpp",
               "openvino/op/op.hpp", "openvino/runtime/tensor.hpp",
               "openvino/frontend/node_context.hpp",
               "openvino/frontend/onnx/extension/conversion.hpp"]
_CXX = ["g++", "-std=gnu++17", "-DEXTGEN_WITH_ONNX_FRONTEND"]  # gnu++17: CMake's default


@pytest.fixture(scope="module")
def ov_pch(tmp_path_factory) -> list[str]:
    """g++ flags: OpenVINO's include folder, and its headers precompiled (-include)."""
    from openvino.utils import get_cmake_path

    include = Path(get_cmake_path()).parent / "include"
    header = tmp_path_factory.mktemp("pch") / "ov_pch.hpp"
    header.write_text("".join(f"#include <{h}>\n" for h in _OV_HEADERS))
    flags = [f"-I{include}"]
    subprocess.run([*_CXX, *flags, "-x", "c++-header", str(header), "-o", f"{header}.gch"],
                   check=True)
    return [*flags, "-include", str(header)]


def _compile_cpp(cpu: Path, flags: list[str]) -> None:
    sources = sorted(str(p) for p in cpu.glob("*.cpp"))
    done = subprocess.run([*_CXX, "-fsyntax-only", *flags, f"-I{cpu}", *sources],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]


def _finish_stub(cl: Path, expected: bool) -> None:
    """A kernel written without an expression carries one unfilled marker; delete it, as its
    user does once the computation is written (the stub then outputs NaN)."""
    lines = cl.read_text().splitlines(keepends=True)
    marked = [ln for ln in lines if "extgen:unfilled" in ln]
    assert len(marked) == (1 if expected else 0), cl
    cl.write_text("".join(ln for ln in lines if ln not in marked))


def _run_kernels(out: Path, config_path: Path) -> None:
    """Each op's GPU and VPU kernel, loaded from its XML, builds and runs on a random input."""
    for op in load_config(config_path).ops:
        ctx = op_context(op)
        attrs = {a.name: a.ir_default for a in ctx["ir_attrs"]}
        shape = {"name": op.name, "inputs": ctx["inputs"], "outputs": ctx["outputs"]}
        for device, folder in ((GpuDevice, "gpu"), (VpuDevice, "vpu")):
            xml = out / "user_ie_extensions" / folder / f"{op.snake}_kernel.xml"
            if xml.is_file():
                _finish_stub(xml.with_suffix(".cl"), expected=op.expression is None)
                if folder == "vpu" and len(ctx["outputs"]) > 1:  # MYRIAD: one output only
                    with pytest.raises(KernelConfigError, match="with one output only"):
                        device([xml]).kernel(_layer(shape, attrs))(_inputs(shape))
                    continue
                kernel = device([xml]).kernel(_layer(shape, attrs))
                assert kernel is not None, xml
                kernel(_inputs(shape))


def _check_outputs(out: Path, config_path: Path, cxx_flags: list[str]) -> None:
    for path in out.rglob("*.py"):
        compile(path.read_text(), str(path), "exec")
    for path in out.rglob("*.xml"):  # custom_layers.xml: several CustomLayer roots, as
        read_elements(path)             # the plugins (pugixml) read them
    cpu = out / "user_ie_extensions" / "cpu"
    if cpu.is_dir():
        _compile_cpp(cpu, cxx_flags)
    _run_kernels(out, config_path)


def _new(config: dict, work: Path) -> tuple[int, str]:
    path = work / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["new", "--config", str(path), "--output_dir", str(work / "out")])
    return code, err.getvalue()


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_any_config_is_refused_in_one_line_or_compiles(monkeypatch, tmp_path: Path,
                                                       ov_pch: list[str]) -> None:
    monkeypatch.setenv("EXTGEN_CACHE_DIR", str(tmp_path / "opencl-cache"))
    outcomes: Counter[str] = Counter()

    @settings(max_examples=MAX_EXAMPLES, derandomize=True, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(configs)
    def check(config: dict) -> None:
        with tempfile.TemporaryDirectory(dir=tmp_path) as tmp:
            work = Path(tmp)
            code, err = _new(config, work)
            assert code in (0, 2), err
            if code == 2:
                assert len(err.strip().splitlines()) == 1, err
                assert not (work / "out").exists(), err
                outcomes["refused"] += 1
            else:
                _check_outputs(work / "out", work / "config.json", ov_pch)
                outcomes["generated"] += 1

    check()
    print(f"fuzz: {dict(outcomes)}")
    assert outcomes["generated"] > 0 and outcomes["refused"] > 0
