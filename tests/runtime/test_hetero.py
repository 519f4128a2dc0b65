"""`extgen run` end to end with a custom op: HETERO:GPU,CPU runs it on the GPU kernel and the rest
on the CPU; without a kernel on any listed device it is one clear error."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.options import ConvertOptions
from converter.pipeline import convert
from extgen.cli import main
from tests.conftest import make_model

GPU_XML = Path(__file__).parent / "kernels" / "gpu" / "leaky_relu.xml"
EXTENSION = {
    "ops/leaky.py": """
        from converter.ops.op import Op

        class LeakyRelu(Op):
            op = type = "LeakyRelu"
            version = "extension"
            in_ports_count = 1
            attr_types = {"negative_slope": "float"}
    """,
    "front/onnx/leaky_ext.py": """
        from converter.front.extractor import FrontExtractorOp
        from converter.front.onnx.attrs import onnx_attr
        from converter.ops.op import Op

        class LeakyExtractor(FrontExtractorOp):
            op = "my.domain::LeakyRelu"

            @classmethod
            def extract(cls, node):
                Op.get_op_class_by_name("LeakyRelu").update_node_stat(
                    node, {"negative_slope": onnx_attr(node, "alpha", "f", 0.0)})
                return True
    """,
}


@pytest.fixture
def custom_ir(tmp_path: Path) -> Path:
    ext = tmp_path / "hetero_ext"
    for rel, text in EXTENSION.items():
        (ext / rel).parent.mkdir(parents=True, exist_ok=True)
        (ext / rel).write_text(textwrap.dedent(text))
    model = make_model(
        [helper.make_node("LeakyRelu", ["x"], ["t"], domain="my.domain", alpha=0.5),
         helper.make_node("Add", ["t", "b"], ["y"])],
        [("x", TensorProto.FLOAT, [1, 2, 3, 4])], [("y", TensorProto.FLOAT, [1, 2, 3, 4])],
        {"b": np.ones((1, 2, 3, 4), np.float32)}, domains=["my.domain"],
    )
    onnx.save(model, tmp_path / "m.onnx")
    options = ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path / "ir", extensions=[ext])
    return convert(options).xml


@pytest.mark.parametrize("device", ["HETERO:GPU,CPU", "GPU"])
def test_custom_op_runs_on_the_gpu_kernel(custom_ir: Path, tmp_path: Path, capsys, caplog,
                                          device) -> None:
    x = np.random.default_rng(0).standard_normal((1, 2, 3, 4)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    code = main(["run", "--model", str(custom_ir), "--device", device, "--config", str(GPU_XML),
                 "--input", f"x={tmp_path / 'x.npy'}", "--output", str(tmp_path / "y.npz")])
    err = capsys.readouterr().err
    assert code == 0, err
    # the shim goes further than OpenVINO's GPU plugin under HETERO: one line says so
    said = "HETERO: the shim runs the GPU kernels"
    warned = [r for r in caplog.records if said in r.getMessage()]
    assert len(warned) == (device != "GPU"), caplog.text
    expected = np.where(x < 0, 0.5 * x, x) + 1
    np.testing.assert_allclose(np.load(tmp_path / "y.npz")["y"], expected, rtol=1e-6)


def test_no_kernel_on_any_listed_device(custom_ir: Path, capsys) -> None:
    code = main(["run", "--model", str(custom_ir), "--device", "HETERO:VPU,CPU",
                 "--config", str(GPU_XML), "--input", "random"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "LeakyRelu" in err[0] and "no kernel on VPU, CPU" in err[0]
