"""The ov-python-op target: the op as an openvino.Op in Python, with ONNX and TensorFlow
mappings, that OpenVINO's own converter and runtime load with no compiler (today's OpenVINO:
ovc / openvino.convert_model with `extension=`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from extgen.cli import main

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "cosh" / "cosh.extgen.json"
F32 = {"INFERENCE_PRECISION_HINT": "f32"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """The bundled example's models (ONNX org.example::Cosh, TF ScaledCosh) and the op's
    Python target."""
    out = tmp_path_factory.mktemp("ov_python")
    subprocess.run([sys.executable, str(ROOT / "examples" / "cosh" / "make_model.py"), str(out)],
                   check=True, capture_output=True)
    assert main(["new", "--config", str(CONFIG), "--mo-op", "--ov-python-op",
                 "--output_dir", str(out / "ext")]) == 0
    return out


@pytest.fixture
def extensions(demo, monkeypatch):
    monkeypatch.syspath_prepend(str(demo / "ext"))
    for name in [m for m in sys.modules if m.startswith("user_ov_extensions")]:
        monkeypatch.delitem(sys.modules, name)
    from user_ov_extensions import extensions

    return extensions


@pytest.mark.parametrize("model", ["cosh_net.onnx", "cosh_net.pb"])
def test_openvino_converts_and_runs_the_model_with_the_python_op(demo, extensions,
                                                                 model: str) -> None:
    converted = ov.convert_model(str(demo / model), extension=extensions())
    cosh = [op for op in converted.get_ordered_ops() if op.get_type_name() == "Cosh"]
    assert len(cosh) == 1 and cosh[0].get_type_info().version_id == "extension"
    assert cosh[0].get_attributes() == {"scale": "0.5"}  # the model's, not the default 1.0
    x = np.load(demo / "image.npy")
    if model.endswith(".pb"):
        x = x.transpose(0, 2, 3, 1)  # the TF graph is NHWC
    core = ov.Core()
    core.add_extension(extensions())
    got = core.compile_model(converted, "CPU", F32)([x])[0]
    np.testing.assert_allclose(got, np.load(demo / "reference.npy"), rtol=1e-5, atol=1e-6)


def test_the_ir_openvino_saves_reads_back_with_the_python_op(demo, extensions, tmp_path) -> None:
    converted = ov.convert_model(str(demo / "cosh_net.onnx"), extension=extensions())
    ov.save_model(converted, str(tmp_path / "m.xml"), compress_to_fp16=False)
    core = ov.Core()
    core.add_extension(extensions())
    got = core.compile_model(str(tmp_path / "m.xml"), "CPU", F32)([np.load(demo / "image.npy")])
    np.testing.assert_allclose(got[0], np.load(demo / "reference.npy"), rtol=1e-5, atol=1e-6)


def test_the_target_needs_the_op_s_definition(tmp_path, capsys) -> None:
    assert main(["new", "--config", str(CONFIG), "--ov-python-op",
                 "--output_dir", str(tmp_path / "ext")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("where Cosh has none: add --mo-op") and len(err.splitlines()) == 1


def test_extgen_test_runs_the_python_op_in_openvino(demo, capsys) -> None:
    assert main(["test", str(demo / "ext")]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    mine = [r for r in rows if r[:2] == ["Cosh", "ov-python"]]
    assert [r[2] for r in mine] == ["2x3x4x5", "1x1x1x7"] and all(r[-1] == "ok" for r in mine)


TORCH_OP = {"name": "ScaledCosh", "framework_types": {"pytorch": "extgen_test::scaled_cosh"},
            "attributes": [{"name": "scale", "type": "float", "default": 1.0}],
            "expression": "scale * (exp(x) + exp(-x)) / 2"}


@pytest.fixture(scope="module")
def torch_op(tmp_path_factory) -> Path:
    """A torch.library custom op, and the Python target generated for it."""
    import json

    torch = pytest.importorskip("torch")
    if not hasattr(torch.ops.extgen_test, "scaled_cosh"):
        @torch.library.custom_op("extgen_test::scaled_cosh", mutates_args=(),
                                 schema="(Tensor x, float scale) -> Tensor")
        def scaled_cosh(x, scale):
            return scale * torch.cosh(x)

        @scaled_cosh.register_fake
        def _(x, scale):
            return torch.empty_like(x)

    out = tmp_path_factory.mktemp("torch_op")
    (out / "op.json").write_text(json.dumps({"ops": [TORCH_OP]}))
    assert main(["new", "--config", str(out / "op.json"), "--mo-op", "--ov-python-op",
                 "--output_dir", str(out / "ext")]) == 0
    return out


@pytest.mark.parametrize("form", ["torchscript", "torch.export"])
def test_a_pytorch_custom_op_converts_with_the_python_op(torch_op, monkeypatch, form) -> None:
    """ovc's Python API on a torch.nn.Module calling a torch.library op: the generated mapping
    turns extgen_test::scaled_cosh (its float argument the `scale` attribute) into the op."""
    import torch

    class Net(torch.nn.Module):
        def forward(self, x):
            return torch.relu(torch.ops.extgen_test.scaled_cosh(x - 1, 0.25)) * 2

    monkeypatch.syspath_prepend(str(torch_op / "ext"))
    for name in [m for m in sys.modules if m.startswith("user_ov_extensions")]:
        monkeypatch.delitem(sys.modules, name)
    from user_ov_extensions import extensions

    x = torch.linspace(-2, 2, 12).reshape(3, 4)
    model = (ov.convert_model(Net(), example_input=x, extension=extensions())
             if form == "torchscript" else
             ov.convert_model(torch.export.export(Net(), (x,)), extension=extensions()))
    (op,) = [o for o in model.get_ordered_ops() if o.get_type_name() == "ScaledCosh"]
    assert op.get_attributes() == {"scale": "0.25"}
    core = ov.Core()
    core.add_extension(extensions())
    got = core.compile_model(model, "CPU", F32)([x.numpy()])[0]
    np.testing.assert_allclose(got, Net()(x).numpy(), rtol=1e-5, atol=1e-6)


def test_a_pytorch_type_is_namespace_and_op(tmp_path, capsys) -> None:
    import json

    (tmp_path / "op.json").write_text(json.dumps(
        {"ops": [{**TORCH_OP, "framework_types": {"pytorch": "scaled_cosh"}}]}))
    assert main(["new", "--config", str(tmp_path / "op.json"), "--mo-op",
                 "--output_dir", str(tmp_path / "ext")]) == 2
    assert "must be 'namespace::op', as torch.library names a custom op" in \
        capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".pt2", ".pt"])
def test_check_names_a_pytorch_custom_op_and_its_config_maps_it(torch_op, tmp_path, capsys,
                                                                monkeypatch, suffix) -> None:
    """check -> new -> convert_model -> run on a PyTorch file holding a torch.library op: check
    lists extgen_test::scaled_cosh with its float argument as the `scale` attribute (named from
    the .pt2 graph, or from the op's schema for TorchScript) and writes a config new takes."""
    import json

    import torch

    class Net(torch.nn.Module):
        def forward(self, x):
            return torch.ops.extgen_test.scaled_cosh(x, 0.25) + 1

    x = torch.linspace(-2, 2, 12).reshape(3, 4)
    model = tmp_path / f"net{suffix}"
    if suffix == ".pt2":
        torch.export.save(torch.export.export(Net(), (x,)), str(model))
    else:
        torch.jit.trace(Net(), (x,)).save(str(model))
    assert main(["check", str(model), "--output_dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "- extgen_test::scaled_cosh: 1 node(s)" in out and "scale: float = 0.25" in out
    config = json.loads((tmp_path / "scaled_cosh.extgen.json").read_text())
    (op,) = config["ops"]
    assert op["framework_types"] == {"pytorch": "extgen_test::scaled_cosh"}
    assert op["attributes"] == [{"name": "scale", "type": "float", "default": 0.25}]
    op["expression"] = "scale * (exp(x) + exp(-x)) / 2"  # the math, as a user fills it in
    (tmp_path / "filled.json").write_text(json.dumps(config))
    assert main(["new", "--config", str(tmp_path / "filled.json"), "--mo-op", "--ov-python-op",
                 "--output_dir", str(tmp_path / "ext")]) == 0
    monkeypatch.syspath_prepend(str(tmp_path / "ext"))
    for name in [m for m in sys.modules if m.startswith("user_ov_extensions")]:
        monkeypatch.delitem(sys.modules, name)
    from user_ov_extensions import extensions

    source = torch.export.load(str(model)) if suffix == ".pt2" else torch.jit.load(str(model))
    converted = ov.convert_model(source, example_input=None if suffix == ".pt2" else x,
                                 extension=extensions())
    core = ov.Core()
    core.add_extension(extensions())
    got = core.compile_model(converted, "CPU", F32)([x.numpy()])[0]
    np.testing.assert_allclose(got, Net()(x).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("content", "why"), [
    (b"not a zip", "not a PyTorch archive"),
    (None, "its torch.export graph cannot be read"),
])
def test_a_pytorch_file_that_cannot_be_read_is_one_line(tmp_path, capsys, content, why) -> None:
    import zipfile

    model = tmp_path / "bad.pt2"
    if content is None:
        with zipfile.ZipFile(model, "w") as z:
            z.writestr("bad/models/model.json", "{\"graph_module\": 3}")
    else:
        model.write_bytes(content)
    assert main(["check", str(model), "--output_dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(model) in err and why in err


def test_a_pytorch_extractor_needs_the_op_s_torch_name(tmp_path, capsys) -> None:
    """Without framework_types.pytorch the extractor would look for an op named 'Cosh', which
    no torch.library op can be: new refuses in one line saying what to set."""
    assert main(["new", "--config", str(CONFIG), "--mo-op", "--mo-pytorch-ext",
                 "--output_dir", str(tmp_path / "ext")]) == 2
    err = capsys.readouterr().err.strip()
    assert "set framework_types.pytorch for Cosh" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "ext").exists()
