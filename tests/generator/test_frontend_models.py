"""TensorFlow Lite and PaddlePaddle models holding a custom op, made with the frameworks' own
tools, converted by OpenVINO (ovc, openvino.convert_model) with the generated extension, C++
and Python, and run: the results match the framework's or the op's reference within 1e-5.
(The TensorFlow graph of an op type TF cannot run is in test_cpu_target.py and
test_ov_python.py, PyTorch's torch.library ops there too.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from extgen.cli import main
from tests.generator._cpu_build import build, tools_missing

ov = pytest.importorskip("openvino")
F32 = {"INFERENCE_PRECISION_HINT": "f32"}
# cosh has no TFLite builtin: with allow_custom_ops the converter writes a CUSTOM op "Cosh"
OP = {"name": "ScaledCosh", "framework_types": {
          "tflite": "Cosh", "paddle": "extgen_scaled_cosh", "onnx": "com.example::ScaledCosh",
          "tf": "ScaledCosh", "pytorch": "extgen_frontends::scaled_cosh"},
      "inputs": [{"name": "X"}], "outputs": [{"name": "Out"}],  # the Paddle op's port names
      "attributes": [{"name": "scale", "type": "float", "default": 1.0}],
      "expression": "scale * (exp(X) + exp(-X)) / 2"}


@pytest.fixture(scope="module")
def ext(tmp_path_factory) -> SimpleNamespace:
    """The op's Python target, and its C++ library built with cmake."""
    if tools_missing():
        pytest.fail(tools_missing())
    out = tmp_path_factory.mktemp("frontends")
    (out / "op.json").write_text(json.dumps({"ops": [OP]}))
    assert main(["new", "--config", str(out / "op.json"), "--mo-op", "--ov-python-op",
                 "--ie-cpu-ext", "--output_dir", str(out / "ext")]) == 0
    built = build(out / "ext" / "user_ie_extensions" / "cpu", out / "build")
    assert "frontends: onnx, tensorflow, tensorflow_lite, paddle, pytorch" in built.log
    return SimpleNamespace(out=out, library=str(built.openvino_library))


def _python_extensions(ext, monkeypatch, **options) -> list:
    monkeypatch.syspath_prepend(str(ext.out / "ext"))
    for name in [m for m in sys.modules if m.startswith("user_ov_extensions")]:
        monkeypatch.delitem(sys.modules, name)
    from user_ov_extensions import extensions

    return extensions(**options)


def _run(model, extension, x: np.ndarray) -> np.ndarray:
    core = ov.Core()
    core.add_extension(extension)
    return core.compile_model(model, "CPU", F32)([x])[0]


def _only_op(model) -> dict:
    (op,) = [o for o in model.get_ordered_ops() if o.get_type_name() == "ScaledCosh"]
    assert op.get_type_info().version_id == "extension"
    return op.get_attributes()


@pytest.fixture(scope="module")
def tflite_model(ext) -> Path:
    """tf.lite.TFLiteConverter on cosh(x) + 1, custom ops allowed: the file holds the CUSTOM
    opcode Cosh (read back with TFLite's own schema)."""
    import tensorflow as tf
    from tensorflow.lite.python import schema_py_generated as schema

    fn = tf.function(lambda x: tf.math.cosh(x) + 1,
                     input_signature=[tf.TensorSpec([2, 3, 4], tf.float32)])
    converter = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()], fn)
    converter.allow_custom_ops = True
    data = converter.convert()
    codes = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(data, 0)).operatorCodes
    assert [(c.builtinCode, c.customCode) for c in codes
            if c.builtinCode == schema.BuiltinOperator.CUSTOM] == [(32, b"Cosh")]
    path = ext.out / "cosh.tflite"
    path.write_bytes(data)
    return path


X = np.linspace(-2, 2, 24, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("form", ["c++", "python"])
def test_a_tflite_custom_op_converts_with_the_extension(ext, tflite_model, monkeypatch,
                                                        form) -> None:
    extension = (ext.library if form == "c++"
                 else _python_extensions(ext, monkeypatch, tflite=True))
    model = ov.convert_model(str(tflite_model), extension=extension)
    assert float(_only_op(model)["scale"]) == 1.0  # no scale in the options: the default
    np.testing.assert_allclose(_run(model, extension, X), np.cosh(X) + 1, rtol=1e-5)


@pytest.mark.parametrize("form", ["c++", "python"])
def test_a_tflite_custom_op_s_options_are_its_attributes(ext, monkeypatch, tmp_path,
                                                         form) -> None:
    """TFLite's converter writes a TF op's attributes as the custom options (a flexbuffer
    map): a `scale` there reaches the op, as float and as the int a converter may store."""
    from extgen.framework_models import BUILDERS, ModelOp

    extension = (ext.library if form == "c++"
                 else _python_extensions(ext, monkeypatch, tflite=True))
    for value in (0.25, 3):
        op = ModelOp("Cosh", [X], [X], [("scale", "float", value)], ["X"], ["Out"])
        model = ov.convert_model(str(BUILDERS["tflite"](op, tmp_path)), extension=extension)
        assert float(_only_op(model)["scale"]) == value
        np.testing.assert_allclose(_run(model, extension, X), value * np.cosh(X), rtol=1e-5)


def test_ovc_command_converts_the_tflite_model_with_the_library(ext, tflite_model,
                                                                tmp_path) -> None:
    ovc = Path(sys.executable).with_name("ovc")
    done = subprocess.run([str(ovc), str(tflite_model), "--extension", ext.library,
                           "--output_model", str(tmp_path / "m.xml"), "--compress_to_fp16=False"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    core = ov.Core()
    core.add_extension(ext.library)
    got = core.compile_model(str(tmp_path / "m.xml"), "CPU", F32)([X])[0]
    np.testing.assert_allclose(got, np.cosh(X) + 1, rtol=1e-5)


def test_the_python_op_leaves_tflite_out_unless_asked(ext, monkeypatch) -> None:
    """The generic ConversionExtension (the wheel's only way into TFLite) would take any op
    named Cosh in any frontend: extensions() holds it only with tflite=True."""
    kinds = [type(e).__name__ for e in _python_extensions(ext, monkeypatch)]
    assert "ConversionExtension" not in kinds  # the frontend-specific ones are named apart
    more = _python_extensions(ext, monkeypatch, tflite=True)
    assert [type(e).__name__ for e in more].count("ConversionExtension") == 1


@pytest.fixture(scope="module")
def paddle_model(ext) -> Path:
    """A static program calling a compiled Paddle custom op (PD_BUILD_OP), run and saved by
    Paddle in a Python of its own."""
    if sys.version_info >= (3, 14):
        pytest.skip("paddlepaddle has no wheels for Python 3.14")
    folder = ext.out / "paddle"
    script = Path(__file__).with_name("_paddle_custom_op.py")
    done = subprocess.run([sys.executable, str(script), str(folder)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return folder


@pytest.mark.parametrize("form", ["c++", "python"])
def test_a_paddle_custom_op_converts_with_the_extension(ext, paddle_model, monkeypatch,
                                                        form) -> None:
    extension = ext.library if form == "c++" else _python_extensions(ext, monkeypatch)
    model = ov.convert_model(str(paddle_model / "net.pdmodel"), extension=extension)
    assert float(_only_op(model)["scale"]) == 0.25  # the program's attribute
    x, paddle_y = np.load(paddle_model / "x.npy"), np.load(paddle_model / "y.npy")
    got = _run(model, extension, x)
    np.testing.assert_allclose(got, paddle_y, rtol=1e-5, atol=1e-6)  # Paddle's own kernel
    np.testing.assert_allclose(got, np.maximum(0.25 * np.cosh(x - 1), 0) * 2, rtol=1e-5)


def test_extgen_test_converts_a_model_of_each_framework_with_both_forms(ext, capsys) -> None:
    """extgen test's ovc rows: a model of each framework the config names, built with its
    tools, converted by openvino.convert_model with the library and with the Python op."""
    assert main(["test", str(ext.out / "ext"), "--openvino_library", ext.library]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:-1]]
    ovc = {(r[1], r[2]) for r in rows if r[1].startswith("ovc-") and r[4] == "ok"}
    assert ovc == {(f"ovc-{fw}{form}", case) for fw in OP["framework_types"]
                   for form in ("", "-py") for case in ("2x3x4x5", "1x1x1x7")}
