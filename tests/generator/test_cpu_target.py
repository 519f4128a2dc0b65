"""The ie-cpu-ext target: generated C++ builds with cmake, and the same kernels run in OpenVINO
(IR and ONNX frontend) and in the shim through the extgen C ABI. One build per module."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.cpu import CpuLibrary
from converter.runtime.engines import open_engine
from extgen.errors import ExtgenError
from tests.conftest import make_model
from tests.generator._cpu_build import OPS, Built, build, generate_ops, tools_missing

ov = pytest.importorskip("openvino")
if tools_missing():
    pytest.skip(tools_missing(), allow_module_level=True)

SHAPE = [2, 3, 4]
SHARED = ["CMakeLists.txt", "extgen_abi.cpp", "extgen_abi.h", "extgen_kernel.hpp", "extgen_ov.hpp",
          "ov_extension.cpp"]
UNFINISHED = "implement execute\\(\\) in user_ie_extensions/cpu/unfinished_kernel.hpp"
TAG_ATTRS = {"axes": [2, 3], "mode": "slow", "flag": False, "gains": [1.5]}


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cpu_target")


@pytest.fixture(scope="module")
def built(work: Path) -> Built:
    generate_ops(OPS, work)
    return build(work / "user_ie_extensions" / "cpu", work / "build")


def _save(work: Path, name: str, nodes, inputs, outputs, domains=()) -> Path:
    path = work / f"{name}.onnx"
    onnx.save(make_model(nodes, inputs, outputs, domains=domains), path)
    return path


def _convert(work: Path, model: Path) -> Path:
    """The IR, converted with the generated MO extensions."""
    options = ConvertOptions(model, output_dir=work / f"ir_{model.stem}",
                             extensions=[work / "user_mo_extensions"])
    return convert(options).xml


@pytest.fixture(scope="module")
def chain(work: Path, built: Built) -> SimpleNamespace:
    """x -> ScaledCosh -> WeightedSum(., x2) -> TagScale -> com.example::SoftSignX -> y; its IR."""
    f = TensorProto.FLOAT
    onnx_path = _save(work, "chain", [
        helper.make_node("ScaledCosh", ["x"], ["a"], name="cosh", scale=3.0),
        helper.make_node("WeightedSum", ["a", "x2"], ["b"], name="wsum", alpha=0.25),
        helper.make_node("TagScale", ["b"], ["c"], name="tag", **{**TAG_ATTRS, "flag": 0}),
        helper.make_node("SoftSignX", ["c"], ["y"], name="soft", domain="com.example", n_steps=4),
    ], [("x", f, SHAPE), ("x2", f, SHAPE)], [("y", f, SHAPE)], domains=["com.example"])
    rng = np.random.default_rng(0)
    x, x2 = (rng.uniform(-2, 2, SHAPE).astype(np.float32) for _ in range(2))
    c = (0.25 * 3 * np.cosh(x) + 0.75 * x2) * 2
    return SimpleNamespace(onnx=onnx_path, xml=_convert(work, onnx_path), feed={"x": x, "x2": x2},
                           ref=c / (1 + np.abs(c)) * 4)


def _openvino_run(built: Built, model, feed: dict) -> list[np.ndarray]:
    core = ov.Core()
    core.add_extension(str(built.openvino_library))
    if isinstance(model, Path):
        model = core.read_model(str(model))
    result = core.compile_model(model, "CPU")(feed)
    return [result[out] for out in result.keys()]


def _layer(op_type: str, n_out: int = 1, **attrs: str) -> SimpleNamespace:
    return SimpleNamespace(type=op_type, name="t", attrs=attrs, outputs=[None] * n_out)


def test_shared_files_do_not_depend_on_the_ops(tmp_path: Path) -> None:
    generate_ops(OPS[:1], tmp_path / "one")
    generate_ops(OPS, tmp_path / "all")
    for name in SHARED:
        one = (tmp_path / "one/user_ie_extensions/cpu" / name).read_text()
        assert one == (tmp_path / "all/user_ie_extensions/cpu" / name).read_text(), name
    # a second op into the same folder: only new files, nothing to overwrite
    reports = generate_ops(OPS[1:2], tmp_path / "one")
    cpu = [r for r in reports if "user_ie_extensions" in r.path.parts]
    assert {r.status for r in cpu if r.path.name in SHARED} == {"identical"}
    created = {r.path.name for r in cpu if r.status == "create"}
    parts = ("kernel.hpp", "kernel.cpp", "op.hpp", "op.cpp")
    assert created == {f"weighted_sum_{part}" for part in parts}


def test_generated_sources_say_what_to_edit(tmp_path: Path) -> None:
    generate_ops(OPS, tmp_path, ["ie-cpu-ext"])
    cpu = tmp_path / "user_ie_extensions/cpu"
    unfinished = (cpu / "unfinished_kernel.hpp").read_text()
    assert "TODO(extgen)" in unfinished
    assert "user_ie_extensions/cpu/unfinished_kernel.hpp" in unfinished
    custom = (cpu / "custom_shaped_kernel.hpp").read_text()
    assert "implement infer() in user_ie_extensions/cpu/custom_shaped_kernel.hpp" in custom
    cosh = (cpu / "scaled_cosh_kernel.hpp").read_text()
    assert "TODO" not in cosh and "std::exp" in cosh and "m_scale" in cosh
    assert "cmake -S user_ie_extensions/cpu -B build -DOpenVINO_DIR=" in cosh
    assert 'OPENVINO_OP("SoftSignX", "extension")' in (cpu / "soft_sign_x_op.hpp").read_text()


def test_both_libraries_build(built: Built) -> None:
    assert built.abi_library.is_file() and built.openvino_library.is_file()
    assert "warning" not in built.log.lower()
    assert CpuLibrary(built.abi_library).ops == {(op["name"], "extension") for op in OPS}
    assert CpuLibrary(built.openvino_library).ops == {(op["name"], "extension") for op in OPS}


def test_abi_library_builds_without_openvino(work: Path, built: Built) -> None:
    plain = build(built.source, work / "build_plain", openvino=False)
    assert plain.abi_library.is_file() and not plain.openvino_library.exists()
    assert "OpenVINO not found" in plain.log


def test_ir_runs_in_openvino(built: Built, chain: SimpleNamespace) -> None:
    (y,) = _openvino_run(built, chain.xml, chain.feed)
    np.testing.assert_allclose(y, chain.ref, rtol=1e-5, atol=1e-6)


def test_ir_runs_in_the_shim_through_the_abi(built: Built, chain: SimpleNamespace) -> None:
    engine = open_engine("shim", chain.xml, "CPU", extensions=[built.abi_library])
    np.testing.assert_allclose(engine.run(chain.feed)["y"], chain.ref, rtol=1e-5, atol=1e-6)


def test_ir_attributes_go_through_visit_attributes(built: Built, chain: SimpleNamespace) -> None:
    core = ov.Core()
    core.add_extension(str(built.openvino_library))
    ops = {op.get_friendly_name(): op for op in core.read_model(str(chain.xml)).get_ordered_ops()}
    assert ops["tag"].get_attributes() == TAG_ATTRS
    assert ops["soft"].get_type_info().version_id == "extension"
    assert ops["soft"].get_attributes() == {"steps": 4}


def test_onnx_frontend_converts_with_the_extension(built: Built, chain: SimpleNamespace) -> None:
    core = ov.Core()
    core.add_extension(str(built.openvino_library))
    model = core.read_model(str(chain.onnx))
    ops = {op.get_type_name(): op for op in model.get_ordered_ops()}
    assert ops["TagScale"].get_attributes() == TAG_ATTRS
    assert ops["SoftSignX"].get_attributes() == {"steps": 4}  # ONNX n_steps, custom domain
    (y,) = _openvino_run(built, model, chain.feed)
    np.testing.assert_allclose(y, chain.ref, rtol=1e-5, atol=1e-6)
    # what `ovc chain.onnx --extension lib` does
    converted = ov.convert_model(str(chain.onnx), extension=str(built.openvino_library))
    assert "SoftSignX" in {op.get_type_name() for op in converted.get_ordered_ops()}


def test_abi_kernels_take_any_type_broadcast_and_report_bad_attributes(built: Built) -> None:
    lib = CpuLibrary(built.abi_library)
    x = np.linspace(-2, 2, 7)
    for dtype, rtol in ((np.float64, 1e-12), (np.float16, 2e-3)):
        xt = x.astype(dtype)
        (y,) = lib.kernel(_layer("ScaledCosh", scale="2"))([xt])
        assert y.dtype == dtype
        expected = 2 * np.cosh(xt.astype(np.float64))
        np.testing.assert_allclose(y.astype(np.float64), expected, rtol=rtol)
    with pytest.raises(ExtgenError, match="TagScale: attribute axes='1,x' cannot be read"):
        lib.kernel(_layer("TagScale", axes="1,x"))([x.astype(np.float32)])
    (y,) = lib.kernel(_layer("ScaledCosh"))([x.astype(np.int32)])  # math in double, truncated
    assert y.dtype == np.int32 and list(y) == list(np.cosh(x.astype(np.int32)).astype(np.int32))
    a, b = np.ones((2, 3), np.float32), np.ones((1, 3), np.float32)
    (y,) = lib.kernel(_layer("WeightedSum", alpha="0.25"))([a, b])  # numpy broadcasting
    assert y.shape == (2, 3) and np.allclose(y, 1)
    with pytest.raises(ExtgenError, match="WeightedSum: the input shapes do not broadcast"):
        lib.kernel(_layer("WeightedSum"))([a, np.ones(4, np.float32)])


def test_extgen_test_runs_the_c_abi_and_openvino_targets(work: Path, built: Built,
                                                          capsys) -> None:
    from extgen.cli import main

    assert main(["test", str(work)]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    for op in ("ScaledCosh", "WeightedSum", "TagScale", "SoftSignX"):
        for target in ("cpu", "openvino"):
            assert [op, target, "2x3x4x5"] in [r[:3] for r in rows], (op, target)
    assert ["WeightedSum", "openvino", "broadcast"] in [r[:3] for r in rows]
    assert all(r[4] != "FAIL" for r in rows[1:])


def test_unfinished_kernel_fails_naming_the_file(work: Path, built: Built) -> None:
    f = TensorProto.FLOAT
    path = _save(work, "unfinished", [helper.make_node("Unfinished", ["x"], ["y", "z"], name="u")],
                 [("x", f, [3])], [("y", f, [3]), ("z", f, [3])])
    xml = _convert(work, path)
    feed = {"x": np.ones(3, np.float32)}
    with pytest.raises(RuntimeError, match=UNFINISHED):
        _openvino_run(built, xml, feed)
    with pytest.raises(ExtgenError, match=UNFINISHED):
        open_engine("shim", xml, "CPU", extensions=[built.abi_library]).run(feed)


def test_custom_shape_rule_fails_naming_the_file(work: Path, built: Built) -> None:
    message = "implement infer\\(\\) in user_ie_extensions/cpu/custom_shaped_kernel.hpp"
    with pytest.raises(ExtgenError, match=message):
        CpuLibrary(built.abi_library).kernel(_layer("CustomShaped"))([np.ones(2, np.float32)] * 2)
    f = TensorProto.FLOAT
    path = _save(work, "custom", [helper.make_node("CustomShaped", ["x", "k"], ["y"])],
                 [("x", f, [2]), ("k", f, [2])], [("y", TensorProto.INT64, None)])
    core = ov.Core()
    core.add_extension(str(built.openvino_library))
    with pytest.raises(RuntimeError, match=message):
        core.read_model(str(path))


def test_convert_takes_the_library_as_ovc_does(work: Path, built: Built, capsys) -> None:
    """`extgen convert --extension LIB.so`: the library's ops convert with the model's
    attributes and its own shape inference, to the IR ovc writes with the same library."""
    from extgen.cli import main

    f = TensorProto.FLOAT
    onnx_path = _save(work, "library_chain", [
        helper.make_node("ScaledCosh", ["x"], ["a"], name="cosh", scale=3.0),
        helper.make_node("WeightedSum", ["a", "x2"], ["b"], name="wsum", alpha=0.25),
        helper.make_node("TagScale", ["b"], ["y"], name="tag", **{**TAG_ATTRS, "flag": 0}),
    ], [("x", f, SHAPE), ("x2", f, SHAPE)], [("y", f, SHAPE)])
    rng = np.random.default_rng(1)
    feed = {name: rng.uniform(-2, 2, SHAPE).astype(np.float32) for name in ("x", "x2")}
    ref = (0.25 * 3 * np.cosh(feed["x"]) + 0.75 * feed["x2"]) * 2
    core = ov.Core()
    core.add_extension(str(built.openvino_library))
    theirs = ov.convert_model(str(onnx_path), extension=str(built.openvino_library))
    for lib in (built.openvino_library, built.abi_library):
        out = work / f"ir_library_{lib.stem}"
        assert main(["convert", str(onnx_path), "-o", str(out), "--extension", str(lib)]) == 0
        xml = out / "library_chain.xml"
        ours = core.read_model(str(xml))
        for a, b in zip(ours.get_ordered_ops(), theirs.get_ordered_ops()):
            assert (a.get_type_info().version_id, a.get_type_name(), a.get_attributes()) == (
                b.get_type_info().version_id, b.get_type_name(), b.get_attributes())
        (y,) = _openvino_run(built, xml, feed)
        np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)
        engine = open_engine("shim", xml, "CPU", extensions=[built.abi_library])
        np.testing.assert_allclose(engine.run(feed)["y"], ref, rtol=1e-5, atol=1e-6)
    assert main(["check", str(onnx_path), "--extension", str(built.abi_library)]) == 0
    # without it, the three ops need extensions (their configs go to --output_dir)
    assert main(["check", str(onnx_path), "--output_dir", str(work / "configs")]) == 1
    (work / "model.pb").write_bytes(b"")
    code = main(["convert", str(work / "model.pb"), "--extension", str(built.abi_library)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "ops map to ONNX nodes only" in err[0]


@pytest.fixture(scope="module")
def two_coshes(work: Path, built: Built) -> SimpleNamespace:
    """x -> standard Cosh-1 -> org.example::Cosh (scale=1, its default 0.5) -> y; its IR."""
    f = TensorProto.FLOAT
    onnx_path = _save(work, "two_coshes", [
        helper.make_node("Cosh", ["x"], ["a"], name="standard"),
        helper.make_node("Cosh", ["a"], ["y"], name="custom", domain="org.example", scale=1.0),
    ], [("x", f, [1, 4])], [("y", f, [1, 4])], domains=["org.example"])
    x = np.array([[0.5, 0.75, 1.0, 1.5]], np.float32)
    return SimpleNamespace(xml=_convert(work, onnx_path), x=x, ref=np.cosh(np.cosh(x)))


@pytest.mark.parametrize("extension", ["abi_library", "python_ops"])
def test_a_custom_op_named_like_a_standard_one_leaves_the_standard_op_alone(
        work: Path, built: Built, two_coshes: SimpleNamespace, extension: str) -> None:
    """An op is its (type, version): the library's or the folder's Cosh (version "extension")
    runs only the custom layer; the standard Cosh-1 keeps OpenVINO's definition."""
    layers = ET.parse(two_coshes.xml).getroot().iter("layer")
    assert {(la.get("type"), la.get("version")) for la in layers} >= {
        ("Cosh", "opset1"), ("Cosh", "extension")}
    lib = built.abi_library if extension == "abi_library" else work / "user_mo_extensions"
    engine = open_engine("shim", two_coshes.xml, "CPU", extensions=[lib])
    got = engine.run({"x": two_coshes.x})["y"]
    np.testing.assert_allclose(got, two_coshes.ref, rtol=1e-5)
    (theirs,) = _openvino_run(built, two_coshes.xml, {"x": two_coshes.x})  # real OpenVINO agrees
    np.testing.assert_allclose(theirs, two_coshes.ref, rtol=1e-5)


def _tf_graph(path: Path) -> Path:
    """x -> ScaledCosh(scale 3) -> TagScale (every attribute kind) -> SoftSignX (n_steps 4) -> y,
    op types TensorFlow itself does not have, as a frozen GraphDef."""
    from tensorflow.core.framework import attr_value_pb2, graph_pb2, types_pb2

    def node(name, op, inputs, **attrs):
        n = graph.node.add(name=name, op=op, input=inputs)
        for key, value in attrs.items():
            n.attr[key].CopyFrom(value)

    A = attr_value_pb2.AttrValue
    graph = graph_pb2.GraphDef()
    node("x", "Placeholder", [], dtype=A(type=types_pb2.DT_FLOAT),
         shape=A(shape={"dim": [{"size": d} for d in SHAPE]}))
    node("cosh", "ScaledCosh", ["x"], scale=A(f=3.0))
    node("tag", "TagScale", ["cosh"], axes=A(list=A.ListValue(i=[2, 3])), mode=A(s=b"slow"),
         flag=A(b=False), gains=A(list=A.ListValue(f=[1.5])))
    node("soft", "SoftSignX", ["tag"], n_steps=A(i=4))
    node("y", "Identity", ["soft"])
    path.write_bytes(graph.SerializeToString())
    return path


def test_ovc_converts_a_tensorflow_graph_with_the_extension(work: Path, built: Built) -> None:
    """What `ovc model.pb --extension lib` does: the library maps each op's TensorFlow type
    with its attributes (the config's framework names), and OpenVINO runs the result."""
    pb = _tf_graph(work / "chain.pb")
    model = ov.convert_model(str(pb), extension=str(built.openvino_library))
    ops = {op.get_type_name(): op for op in model.get_ordered_ops()}
    assert ops["TagScale"].get_attributes() == TAG_ATTRS
    assert ops["SoftSignX"].get_attributes() == {"steps": 4}
    x = np.random.default_rng(1).uniform(-2, 2, SHAPE).astype(np.float32)
    (y,) = _openvino_run(built, model, [x])
    c = 3 * np.cosh(x) * 2
    np.testing.assert_allclose(y, c / (1 + np.abs(c)) * 4, rtol=1e-5, atol=1e-6)
    assert ("maps the ops for these OpenVINO frontends: onnx, tensorflow, tensorflow_lite, "
            "paddle, pytorch") in built.log


def _saved_model(graph: Path, folder: Path) -> Path:
    """The frozen graph as a TF1-style SavedModel (tag serve, signature serving_default x -> y):
    TensorFlow cannot build a graph of ops it lacks, so the protos are filled in directly."""
    from tensorflow.core.framework import graph_pb2, tensor_shape_pb2, types_pb2
    from tensorflow.core.protobuf import meta_graph_pb2, saved_model_pb2

    saved = saved_model_pb2.SavedModel(saved_model_schema_version=1)
    meta = saved.meta_graphs.add()
    meta.meta_info_def.tags.append("serve")
    meta.graph_def.CopyFrom(graph_pb2.GraphDef.FromString(graph.read_bytes()))
    signature = meta.signature_def["serving_default"]
    signature.method_name = "tensorflow/serving/predict"
    shape = tensor_shape_pb2.TensorShapeProto(dim=[{"size": d} for d in SHAPE])
    signature.inputs["x"].CopyFrom(meta_graph_pb2.TensorInfo(
        name="x:0", dtype=types_pb2.DT_FLOAT, tensor_shape=shape))
    signature.outputs["y"].CopyFrom(meta_graph_pb2.TensorInfo(name="y:0",
                                                              dtype=types_pb2.DT_FLOAT))
    folder.mkdir()
    (folder / "saved_model.pb").write_bytes(saved.SerializeToString())
    return folder


def test_ovc_converts_a_tensorflow_saved_model_with_the_extension(work: Path,
                                                                 built: Built) -> None:
    """The same mapping serves a SavedModel: the TensorFlow frontend reads both forms."""
    folder = _saved_model(_tf_graph(work / "saved.pb"), work / "saved_model")
    model = ov.convert_model(str(folder), extension=str(built.openvino_library))
    assert {"ScaledCosh", "TagScale", "SoftSignX"} <= {
        op.get_type_name() for op in model.get_ordered_ops()}
    x = np.random.default_rng(2).uniform(-2, 2, SHAPE).astype(np.float32)
    (y,) = _openvino_run(built, model, [x])
    c = 3 * np.cosh(x) * 2
    np.testing.assert_allclose(y, c / (1 + np.abs(c)) * 4, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("form", ["torchscript", "torch.export"])
def test_ovc_converts_a_pytorch_custom_op_with_the_extension(built: Built, form: str) -> None:
    """A torch.nn.Module calling a torch.library op (extgen_cpp::scaled_cosh, its float
    argument the `scale` attribute): the library maps it in TorchScript and torch.export."""
    torch = pytest.importorskip("torch")
    if not hasattr(torch.ops.extgen_cpp, "scaled_cosh"):
        @torch.library.custom_op("extgen_cpp::scaled_cosh", mutates_args=(),
                                 schema="(Tensor x, float scale) -> Tensor")
        def scaled_cosh(x, scale):
            return scale * torch.cosh(x)

        scaled_cosh.register_fake(lambda x, scale: torch.empty_like(x))

    class Net(torch.nn.Module):
        def forward(self, x):
            return torch.ops.extgen_cpp.scaled_cosh(x * 2, 0.75) - 1

    x = torch.linspace(-2, 2, 24).reshape(*SHAPE)
    lib = str(built.openvino_library)
    model = (ov.convert_model(Net(), example_input=x, extension=lib) if form == "torchscript"
             else ov.convert_model(torch.export.export(Net(), (x,)), extension=lib))
    (op,) = [o for o in model.get_ordered_ops() if o.get_type_name() == "ScaledCosh"]
    assert op.get_attributes() == {"scale": 0.75}
    (y,) = _openvino_run(built, model, [x.numpy()])
    np.testing.assert_allclose(y, Net()(x).numpy(), rtol=1e-5, atol=1e-6)
