"""Issue 19's done-when set: Swish, Mish, HardSwish, GELU (tanh), PReLU (a per-channel slope
input), ELU, SELU, SoftPlus, Clamp, a two-output op and a nearest upsample by an int attribute,
each written as expressions alone, generated for every target, the CPU extension built with
CMake, and `extgen test` run on all of them: the C ABI library, OpenVINO with the extension,
the GPU kernels (plain and padded) and the VPU kernels on the OpenCL device. The same ops are
checked against OpenVINO's opset ops in test_expression_ops.py. The set is the example config
examples/activations/activations.extgen.json."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from converter.runtime.cpu import CpuLibrary
from extgen.cli import main
from tests.generator._cpu_build import build, tools_missing

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "activations"
CONFIG = json.loads((EXAMPLE / "activations.extgen.json").read_text())
OPS = CONFIG["ops"]
TARGETS = ("cpu", "openvino", "ov-python", "gpu", "gpu-pad", "vpu")


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("EXTGEN_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "opencl-cache"))


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> SimpleNamespace:
    if tools_missing():
        pytest.fail(tools_missing())
    out = tmp_path_factory.mktemp("activation-set")
    # as the tutorial does: .extgen/base.json keeps the config the ovc rows read
    assert main(["new", "--config", str(EXAMPLE / "activations.extgen.json"),
                 "--output_dir", str(out)]) == 0
    # inside the folder, where extgen test finds both libraries
    done = build(out / "user_ie_extensions" / "cpu", out / "build")
    return SimpleNamespace(out=out, library=done.abi_library)


def _rows(table: str) -> list[list[str]]:
    return [line.split(None, 5) for line in table.splitlines()[1:-1]]


@pytest.mark.slow
def test_every_target_of_every_op_agrees(built, capsys) -> None:
    # its own ops alone, even beside other extgen libraries in this process (hidden registries)
    assert CpuLibrary(built.library).ops == {(op["name"], "extension") for op in OPS}
    assert main(["test", str(built.out)]) == 0
    table = capsys.readouterr().out
    rows = _rows(table)
    for op in OPS:
        for target in TARGETS:
            mine = [r for r in rows if r[:2] == [op["name"], target]]
            assert {r[2] for r in mine} >= {"2x3x4x5", "1x1x1x7"}, (op["name"], target)
            # GPU and MYRIAD plugins run one output per custom layer
            two_outputs = op["name"] == "SplitSign" and target.startswith(("gpu", "vpu"))
            want = "skip" if two_outputs else "ok"
            assert all(r[4] == want for r in mine), (op["name"], target, mine)
    for op in OPS:  # a model of each framework its config names, converted by ovc, C++ and Python
        for target in [f"ovc-{fw}{form}" for fw in op.get("framework_types", {})
                       for form in ("", "-py")]:
            mine = [r for r in rows if r[:2] == [op["name"], target]]
            assert {r[2] for r in mine} >= {"2x3x4x5", "1x1x1x7"}, (op["name"], target)
            assert all(r[4] == "ok" for r in mine), (op["name"], target, mine)
    ovc = {r[1] for r in rows if r[1].startswith("ovc-") and r[4] == "ok"}
    assert ovc == {f"ovc-{fw}{form}" for fw in ("onnx", "tf", "tflite", "paddle", "pytorch")
                   for form in ("", "-py")}
    assert {r[2] for r in rows if r[0] == "PRelu"} == {"2x3x4x5", "1x1x1x7", "broadcast"}
    ran = sum(r[4] == "ok" for r in rows)
    assert table.splitlines()[-1].startswith(f"all agree: {ran} row(s) ok, 7 skipped, max diff ")


@pytest.mark.slow
def test_a_vpu_kernel_edited_to_be_wrong_fails_naming_its_target(built, capsys) -> None:
    cl = built.out / "user_ie_extensions" / "vpu" / "elu_kernel.cl"
    text = cl.read_text()
    right = "(((float)ALPHA) * expm1(x0))"
    assert right in text
    try:
        cl.write_text(text.replace(right, "(((float)ALPHA) * exp(x0))"))
        assert main(["test", str(built.out)]) == 1
    finally:
        cl.write_text(text)
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].endswith("disagreement(s): Elu on vpu")
    assert [r[:2] for r in _rows("\n".join(lines)) if r[4] == "FAIL"] == [["Elu", "vpu"]] * 2
