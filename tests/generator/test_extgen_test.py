"""`extgen test DIR`: every target of the generated ops agrees with the Python op, and a kernel
edited to be wrong fails, naming the op and the target."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from extgen.cli import main
from extgen.generator.generate import generate, validate_config
from extgen.target_check import difference

OPS = [
    {"name": "Swish", "expression": "x * sigmoid(x)"},
    {"name": "PRelu", "inputs": [{"name": "x"}, {"name": "slope"}],
     "expression": "x if x >= 0 else slope * x"},
    {"name": "Stub"},
    {"name": "Halves", "outputs": [{"name": "y"}, {"name": "z"}],
     "expression": ["x * 0.5", "x - x * 0.5"]},
    {"name": "Gate", "inputs": [{"name": "x"}, {"name": "k", "type": "i32"},
                                {"name": "on", "type": "boolean"}],
     "expression": "x * k if on else -x"},
    {"name": "Halve", "inputs": [{"name": "n", "type": "i8"}], "expression": "n / 2"},
    # a shape formula with an attribute: WorkSizes count over the output, inputs read nearest
    {"name": "Upsample", "inputs": [{"name": "x"}, {"name": "bias"}],
     "attributes": [{"name": "scale", "type": "int", "default": 2}],
     "shape": {"kind": "formula", "names": ["N", "C", "H", "W"],
               "dims": ["N", "C", "H * scale", "W * scale"]}, "expression": "x + bias"},
]


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("EXTGEN_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "opencl-cache"))


def _generate(out: Path) -> Path:
    config = validate_config({"targets": ["mo-op", "ie-gpu-ext", "ie-vpu-ext", "op-test"],
                              "ops": OPS})
    generate(config, out)
    return out


def test_all_targets_agree_then_an_edited_kernel_fails(tmp_path: Path, capsys) -> None:
    out = _generate(tmp_path)
    assert main(["test", str(out)]) == 0
    table = capsys.readouterr().out
    for op, target, case in (("Swish", "gpu", "2x3x4x5"), ("Swish", "vpu", "1x1x1x7"),
                             ("Swish", "gpu-pad", "2x3x4x5"), ("PRelu", "gpu-pad", "broadcast"),
                             ("PRelu", "gpu", "broadcast"), ("PRelu", "vpu", "broadcast"),
                             *(("Upsample", t, c) for t in ("gpu", "vpu")
                               for c in ("2x3x4x5", "1x1x1x7", "broadcast"))):
        assert any(line.split()[:3] == [op, target, case] and line.split()[4] == "ok"
                   for line in table.splitlines()), (op, target, case)
    assert "no reference: Stub: implement evaluate" in table and "FAIL" not in table
    halves = [line.split(None, 5) for line in table.splitlines() if line.startswith("Halves ")]
    assert {r[1] for r in halves} == {"gpu", "gpu-pad", "vpu"}  # both plugins: one output
    assert all(r[3:5] == ["-", "skip"] and "not applicable: OpenVINO's GPU plugin compiles a "
               "custom layer with one output only (OUTPUT0, plugin/ops/custom.cpp); the op has 2"
               in r[5] for r in halves if r[1] != "vpu")
    assert all(r[3:5] == ["-", "skip"] and "not applicable: OpenVINO's MYRIAD plugin runs a "
               "custom layer with one output only" in r[5] for r in halves if r[1] == "vpu")
    ran = [line for line in table.splitlines() if line.split()[4:5] == ["ok"]]
    assert table.splitlines()[-1].startswith(f"all agree: {len(ran)} row(s) ok, ")
    for op in ("Gate", "Halve"):  # integer and boolean inputs: GPU compared, VPU (half) not
        rows = [line.split(None, 5) for line in table.splitlines() if line.startswith(op + " ")]
        assert {r[2] for r in rows} >= {"2x3x4x5", "1x1x1x7"}
        assert all(r[4] == "ok" for r in rows if r[1] == "gpu")
        assert all(r[4:] == ["skip", "(integer/boolean input)"] for r in rows if r[1] == "vpu")
    cl = out / "user_ie_extensions" / "gpu" / "swish_kernel.cl"
    text = cl.read_text()
    assert "(OUTPUT0_TYPE)((x0 * eg_sigmoid(x0)))" in text
    cl.write_text(text.replace("(OUTPUT0_TYPE)((x0 * eg_sigmoid(x0)))",
                               "(OUTPUT0_TYPE)((x0 * eg_sigmoid(x0 * 1.01f)))"))
    assert main(["test", str(out)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "4 disagreement(s): Swish on gpu, Swish on gpu-pad"
    assert all("FAIL" not in line for line in lines if not line.startswith("Swish  "))


def test_new_warns_naming_the_plugin_rule_a_two_output_op_breaks(tmp_path: Path, capsys) -> None:
    config = tmp_path / "ops.json"
    config.write_text(json.dumps({"ops": [op for op in OPS if op["name"] in ("Swish", "Halves")]}))
    args = ["new", "--config", str(config), "--ie-gpu-ext", "--ie-vpu-ext",
            "--output_dir", str(tmp_path / "x")]
    assert main(args) == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("warning:")]
    assert notes == [
        "warning: Halves: OpenVINO's GPU plugin compiles a custom layer with one output only "
        "(OUTPUT0, plugin/ops/custom.cpp); the op has 2: its GPU kernel cannot run there",
        "warning: Halves: OpenVINO's MYRIAD plugin runs a custom layer with one output only "
        "(parseCustom asserts it, stages/custom.cpp); the op has 2: its VPU kernel cannot run "
        "there"]


def test_the_generated_test_file_runs_the_same_checks_under_pytest(tmp_path: Path) -> None:
    out = _generate(tmp_path)
    test_file = out / "test_swish.py"
    run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    assert subprocess.run(run, capture_output=True, text=True, env=env).returncode == 0
    cl = out / "user_ie_extensions" / "vpu" / "swish_kernel.cl"
    cl.write_text(cl.read_text().replace("(half)((x0 * eg_sigmoid(x0)))", "(half)(x0)"))
    failed = subprocess.run(run, capture_output=True, text=True, env=env)
    assert failed.returncode == 1
    assert "Swish                vpu           2x3x4x5" in failed.stdout and "FAIL" in failed.stdout


def test_a_folder_without_ops_is_one_line(tmp_path: Path, capsys) -> None:
    assert main(["test", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no ops with an evaluate in user_mo_extensions/ops" in err and err.count("\n") == 1


def test_difference_needs_nan_and_infinities_in_the_same_places() -> None:
    want = np.array([1.0, np.nan, np.inf, 100.0])
    assert difference(want, want) == 0
    assert difference(np.array([1.0, np.nan, np.inf, 101.0]), want) == pytest.approx(0.01)
    assert difference(np.array([1.0, 0.0, np.inf, 100.0]), want) == float("inf")
    assert difference(np.array([1.0, np.nan, -np.inf, 100.0]), want) == float("inf")
    assert difference(want[:2], want) == float("inf")


def test_an_upsample_written_as_x_alone_runs_over_the_output_on_gpu_and_vpu(tmp_path) -> None:
    """[N, C, H * scale, W * scale] uses an attribute, which WorkSizes cannot: both XMLs count
    over the output's dims, and every target reads x at the nearest position (x.repeat)."""
    from converter.ops.loader import python_op_classes
    from converter.runtime.ir_reader import IRLayer, OutPort
    from converter.runtime.opencl import GpuDevice, VpuDevice

    out = _generate(tmp_path)
    ie = out / "user_ie_extensions"
    gpu_xml = (ie / "gpu/upsample_kernel.xml").read_text()
    assert '<WorkSizes dim="output" global="B*F*Y*X"/>' in gpu_xml
    assert 'dim="output,0" global="B*F*Y*X,1,1"' in (ie / "vpu/upsample_kernel.xml").read_text()
    x = np.arange(2 * 3 * 2 * 3, dtype=np.float32).reshape(2, 3, 2, 3)
    bias = np.array([0.0, 100.0, 200.0], np.float32).reshape(1, 3, 1, 1)
    want = x.repeat(3, axis=2).repeat(3, axis=3) + bias
    cls = python_op_classes(out / "user_mo_extensions")["Upsample"]
    (y,) = cls.evaluate({"scale": 3}, [x, bias])
    np.testing.assert_array_equal(y, want)
    for device, prec in ((GpuDevice, "FP32"), (VpuDevice, "FP16")):
        layer = IRLayer(1, "up", "Upsample", "extension", {"scale": "3"}, [0, 1],
                        [OutPort(2, prec, ["y"], want.shape)])
        xml = ie / device.name.lower() / "upsample_kernel.xml"
        (got,) = device([xml]).kernel(layer)([x, bias])
        np.testing.assert_array_equal(got.astype(np.float32), want)


@pytest.mark.parametrize(("old", "new"), [
    ("(T##_OFFSET + ", "("),  # every tensor without its offset
    ("out0[AT(OUTPUT0)] = ", "out0[i] = "),  # the output as if unpadded BFYX
])
def test_gpu_pad_fails_a_kernel_that_ignores_offset_or_pitches(tmp_path, capsys, old, new) -> None:
    """Unpadded, such a kernel agrees; with padded tensors (gpu-pad) it fails, and only there."""
    out = _generate(tmp_path)
    cl = out / "user_ie_extensions" / "gpu" / "swish_kernel.cl"
    text = cl.read_text()
    assert text.count(old) == 1
    cl.write_text(text.replace(old, new))
    assert main(["test", str(out)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].endswith("disagreement(s): Swish on gpu-pad")
    swish = [line.split(None, 5) for line in lines if line.startswith("Swish ")]
    assert {r[2] for r in swish if r[1] == "gpu-pad" and r[4] == "FAIL"} == {"2x3x4x5", "1x1x1x7"}
    assert all(r[4] == "ok" for r in swish if r[1] == "gpu")


def test_the_vpu_kernel_of_a_two_output_op_is_refused_as_the_myriad_plugin_does(tmp_path) -> None:
    """MYRIAD's FrontEnd::parseCustom asserts one output (stages/custom.cpp, 2022.3)."""
    from converter.runtime.ir_reader import IRLayer, OutPort
    from converter.runtime.opencl import VpuDevice
    from extgen.errors import KernelConfigError

    out = _generate(tmp_path)
    outs = [OutPort(k, "FP16", [f"y{k}"], (1, 1, 1, 2)) for k in (1, 2)]
    layer = IRLayer(1, "h", "Halves", "extension", {}, [0], outs)
    device = VpuDevice([out / "user_ie_extensions" / "vpu" / "halves_kernel.xml"])
    with pytest.raises(KernelConfigError, match="has 2 outputs; the MYRIAD plugin runs a custom "
                       "layer with one output only$"):
        device.kernel(layer)


def _not_run(table: str) -> dict[str, str]:
    """target -> note of the rows for targets that do not run at all (op *)."""
    rows = [line.split(None, 5) for line in table.splitlines()[1:-1]]
    return {r[1]: r[5] for r in rows if r[0] == "*" and r[2:5] == ["-", "-", "skip"]}


def test_every_target_not_run_says_why_and_what_adds_it(tmp_path: Path, capsys) -> None:
    generate(validate_config({"targets": ["mo-op", "ie-gpu-ext"], "ops": OPS[:1]}), tmp_path)
    assert main(["test", str(tmp_path)]) == 0
    table = capsys.readouterr().out
    not_run = _not_run(table)
    assert set(not_run) == {"cpu", "openvino", "ov-python", "vpu", "ovc-*", "ovc-*-py"}, table
    assert "`extgen new --ie-cpu-ext` adds user_ie_extensions/cpu" in not_run["cpu"]
    assert "--openvino_library PATH" in not_run["openvino"]
    assert "`extgen new --ie-vpu-ext` adds it" in not_run["vpu"]
    assert "needs the built libuser_cpu_extension.so" in not_run["ovc-*"]
    assert "`extgen new --ov-python-op` adds user_ov_extensions" in not_run["ovc-*-py"]
    ran = sum(line.split()[4:5] == ["ok"] for line in table.splitlines())
    assert table.splitlines()[-1].startswith(f"all agree: {ran} row(s) ok, 6 skipped")
    # generated but not built: the cpu row names where it looked and the flag
    generate(validate_config({"targets": ["ie-cpu-ext"], "ops": OPS[:1]}), tmp_path)
    assert main(["test", str(tmp_path)]) == 0
    cpu = _not_run(capsys.readouterr().out)["cpu"]
    assert cpu.startswith(f"(not built: no libuser_cpu_extension_abi.so under {tmp_path} or in "
                          f"{tmp_path.parent / 'build'}") and "--cpu_library PATH" in cpu


@pytest.mark.slow
def test_the_tutorial_build_beside_the_folder_is_found(tmp_path: Path, capsys, monkeypatch) -> None:
    """docs/tutorial.md: `extgen new ... --output_dir ext`, cmake into build/ beside it (OpenVINO
    found through the active Python), then `extgen test ext` runs every target."""
    from tests.generator._cpu_build import tools_missing

    if tools_missing():
        pytest.fail(tools_missing())
    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(tmp_path)
    assert main(["new", "--config", str(root / "examples/cosh/cosh.extgen.json"),
                 "--output_dir", "ext"]) == 0
    env = {k: v for k, v in os.environ.items() if k != "OpenVINO_DIR"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    for cmd in (["cmake", "-S", "ext/user_ie_extensions/cpu", "-B", "build"],
                ["cmake", "--build", "build", "-j2"]):
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
    capsys.readouterr()
    assert main(["test", "ext"]) == 0
    table = capsys.readouterr().out
    rows = [line.split() for line in table.splitlines()[1:-1]]
    ran = {r[1] for r in rows if r[4] == "ok"}
    # the ovc rows: the config's ONNX and TensorFlow types, in models ovc converts
    assert ran == {"cpu", "openvino", "ov-python", "gpu", "gpu-pad", "vpu", "ovc-onnx",
                   "ovc-onnx-py", "ovc-tf", "ovc-tf-py"}
    assert table.splitlines()[-1].startswith("all agree: 20 row(s) ok, 0 skipped"), table
    # without the OpenVINO library: its row says why and which flag adds it
    (tmp_path / "build" / "libuser_cpu_extension.so").unlink()
    assert main(["test", "ext"]) == 0
    table = capsys.readouterr().out
    note = _not_run(table)["openvino"]
    assert "no libuser_cpu_extension.so beside build/libuser_cpu_extension_abi.so" in note
    assert "--openvino_library PATH" in note
    assert table.splitlines()[-1].startswith("all agree: 14 row(s) ok, 2 skipped"), table
