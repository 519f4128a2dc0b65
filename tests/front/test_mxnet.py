"""MXNet front end: models written here (symbol JSON + .params, no MXNet) convert, and the IR
runs in OpenVINO and in the shim with the results of an independent reference (the same net in
ONNX through onnxruntime, or numpy)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnxruntime as ort
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.front.mxnet.params import write_ndarray_file
from converter.front.mxnet.symbol import SymbolBuilder
from converter.runtime.engines import open_engine
from extgen.cli import main
from tests.conftest import make_model

RNG = np.random.default_rng(7)


class Net:
    """A SymbolBuilder plus the weights it refers to (written as arg:/aux: arrays)."""

    def __init__(self) -> None:
        self.sym = SymbolBuilder()
        self.args: dict[str, np.ndarray] = {}
        self.aux: dict[str, np.ndarray] = {}

    def weight(self, name: str, value: np.ndarray, aux: bool = False) -> str:
        (self.aux if aux else self.args)[name] = np.asarray(value, dtype=np.float32)
        return self.sym.var(name)

    def op(self, op: str, name: str, inputs: list, **attrs) -> str:
        return self.sym.op(op, name, inputs, **attrs)

    def save(self, folder: Path, prefix: str, heads: list) -> Path:
        self.sym.save(folder / f"{prefix}-symbol.json", heads)
        arrays = {f"arg:{k}": v for k, v in self.args.items()}
        arrays.update({f"aux:{k}": v for k, v in self.aux.items()})
        params = folder / f"{prefix}-0000.params"
        write_ndarray_file(params, arrays)
        return params


def _w(*shape: int, scale: float = 0.3) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def convert(params: Path, out: Path, *extra: str) -> Path:
    """The IR with float32 weights: these tests check the translation against onnxruntime at
    1e-4, and the default f16 weights would blur that."""
    code = main(["convert", "--input_model", str(params), "--output_dir", str(out),
                 "--compress_to_fp16=False", *extra])
    assert code == 0
    return out / f"{params.stem}.xml"


def run_both(xml: Path, feed: dict, names: list[str], ov_ext=(),
             shim_ext=()) -> list[list[np.ndarray]]:
    """[openvino outputs, shim outputs], each in the order of names."""
    core = ov.Core()
    for ext in ov_ext:
        core.add_extension(ext)
    compiled = core.compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    result = compiled(feed)
    real = [result[compiled.output(n)] for n in names]
    shim = open_engine("shim", xml, "CPU", extensions=list(shim_ext)).run(feed)
    return [real, [shim[n] for n in names]]


def onnx_reference(nodes, inputs, outputs, inits, feed) -> list[np.ndarray]:
    f = TensorProto.FLOAT
    model = make_model(nodes, [(n, f, s) for n, s in inputs], [(n, f, None) for n in outputs],
                       inits, opset=13)
    model.ir_version = 8  # what onnxruntime reads
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(outputs, feed)


# -- LeNet -----------------------------------------------------------------------------------------
def test_lenet_matches_onnxruntime(tmp_path: Path, capsys) -> None:
    net = Net()
    x = net.sym.var("data")
    w = {"c1w": _w(6, 1, 5, 5), "c1b": _w(6), "c2w": _w(8, 3, 3, 3), "c2b": _w(8),
         "f1w": _w(16, 32), "f1b": _w(16), "f2w": _w(10, 16), "f2b": _w(10)}
    c1 = net.op("Convolution", "conv1", [x, net.weight("conv1_weight", w["c1w"]),
                                         net.weight("conv1_bias", w["c1b"])],
                kernel=(5, 5), pad=(2, 2), num_filter=6)
    a1 = net.op("Activation", "tanh1", [c1], act_type="tanh")
    p1 = net.op("Pooling", "pool1", [a1], kernel=(2, 2), stride=(2, 2), pool_type="max",
                pooling_convention="full")  # 13 -> 7 (valid would give 6)
    c2 = net.op("Convolution", "conv2", [p1, net.weight("conv2_weight", w["c2w"]),
                                         net.weight("conv2_bias", w["c2b"])],
                kernel=(3, 3), num_filter=8, num_group=2)
    a2 = net.op("Activation", "relu2", [c2], act_type="relu")
    p2 = net.op("Pooling", "pool2", [a2], kernel=(2, 2), stride=(2, 2), pool_type="avg")
    fl = net.op("Flatten", "flatten", [p2])
    f1 = net.op("FullyConnected", "fc1", [fl, net.weight("fc1_weight", w["f1w"]),
                                          net.weight("fc1_bias", w["f1b"])], num_hidden=16)
    a3 = net.op("Activation", "softrelu", [f1], act_type="softrelu")
    f2 = net.op("FullyConnected", "fc2", [a3, net.weight("fc2_weight", w["f2w"]),
                                          net.weight("fc2_bias", w["f2b"])], num_hidden=10)
    sm = net.op("SoftmaxOutput", "softmax", [f2, net.sym.var("softmax_label")])
    params = net.save(tmp_path, "lenet", [sm])

    xml = convert(params, tmp_path / "ir", "--input_shape", "[2,1,13,13]")
    capsys.readouterr()
    data = RNG.standard_normal((2, 1, 13, 13)).astype(np.float32)
    ref = onnx_reference([
        helper.make_node("Conv", ["x", "c1w", "c1b"], ["c1"], pads=[2, 2, 2, 2]),
        helper.make_node("Tanh", ["c1"], ["a1"]),
        helper.make_node("MaxPool", ["a1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2],
                         ceil_mode=1),
        helper.make_node("Conv", ["p1", "c2w", "c2b"], ["c2"], group=2),
        helper.make_node("Relu", ["c2"], ["a2"]),
        helper.make_node("AveragePool", ["a2"], ["p2"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p2"], ["fl"]),
        helper.make_node("Gemm", ["fl", "f1w", "f1b"], ["f1"], transB=1),
        helper.make_node("Softplus", ["f1"], ["a3"]),
        helper.make_node("Gemm", ["a3", "f2w", "f2b"], ["f2"], transB=1),
        helper.make_node("Softmax", ["f2"], ["y"], axis=1),
    ], [("x", [2, 1, 13, 13])], ["y"], w, {"x": data})[0]
    for got in run_both(xml, {"data": data}, ["softmax"]):
        np.testing.assert_allclose(got[0], ref, rtol=1e-4, atol=1e-6)
    text = xml.read_text()
    assert 'type="GroupConvolution"' in text and 'rounding_type="ceil"' in text
    assert "softmax_label" not in text  # the training label input is dropped


# -- a ResNet block --------------------------------------------------------------------------------
def _bn(net: Net, name: str, x: str, c: int, **attrs) -> tuple[str, dict]:
    stats = {"gamma": _w(c) + 1, "beta": _w(c), "mean": _w(c), "var": np.abs(_w(c)) + 0.5}
    node = net.op("BatchNorm", name, [
        x, net.weight(f"{name}_gamma", stats["gamma"]), net.weight(f"{name}_beta", stats["beta"]),
        net.weight(f"{name}_moving_mean", stats["mean"], aux=True),
        net.weight(f"{name}_moving_var", stats["var"], aux=True)], **attrs)
    return node, stats


def test_resnet_block_matches_onnxruntime(tmp_path: Path, capsys) -> None:
    net = Net()
    x = net.sym.var("data")
    w = {"w0": _w(8, 3, 3, 3), "w1": _w(8, 8, 3, 3), "w2": _w(8, 8, 3, 3),
         "fw": _w(10, 8), "fb": _w(10)}
    conv = {"kernel": (3, 3), "pad": (1, 1), "num_filter": 8, "no_bias": True}
    c0 = net.op("Convolution", "conv0", [x, net.weight("conv0_weight", w["w0"])], **conv)
    b0, s0 = _bn(net, "bn0", c0, 8, fix_gamma=False)
    r0 = net.op("Activation", "relu0", [b0], act_type="relu")
    c1 = net.op("Convolution", "conv1", [r0, net.weight("conv1_weight", w["w1"])], **conv)
    b1, s1 = _bn(net, "bn1", c1, 8)  # fix_gamma defaults to True: gamma is ignored
    r1 = net.op("Activation", "relu1", [b1], act_type="relu")
    c2 = net.op("Convolution", "conv2", [r1, net.weight("conv2_weight", w["w2"])], **conv)
    b2, s2 = _bn(net, "bn2", c2, 8, fix_gamma=False, eps=2e-5, use_global_stats=True)
    add = net.op("elemwise_add", "_plus0", [b2, r0])
    r2 = net.op("Activation", "relu2", [add], act_type="relu")
    gp = net.op("Pooling", "pool", [r2], kernel=(1, 1), global_pool=True, pool_type="avg")
    fl = net.op("Flatten", "flatten", [gp])
    fc = net.op("FullyConnected", "fc", [fl, net.weight("fc_weight", w["fw"]),
                                         net.weight("fc_bias", w["fb"])], num_hidden=10)
    sm = net.op("softmax", "prob", [fc], axis=-1)
    params = net.save(tmp_path, "resnet", [sm])

    xml = convert(params, tmp_path / "ir", "--input_shape", "[1,3,8,8]")
    capsys.readouterr()
    data = RNG.standard_normal((1, 3, 8, 8)).astype(np.float32)
    inits = dict(w)
    for tag, stats, fixed in (("0", s0, False), ("1", s1, True), ("2", s2, False)):
        inits.update({f"g{tag}": np.ones(8, np.float32) if fixed else stats["gamma"],
                      f"b{tag}": stats["beta"], f"m{tag}": stats["mean"], f"v{tag}": stats["var"]})
    ref = onnx_reference([
        helper.make_node("Conv", ["x", "w0"], ["c0"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c0", "g0", "b0", "m0", "v0"], ["n0"],
                         epsilon=1e-3),
        helper.make_node("Relu", ["n0"], ["r0"]),
        helper.make_node("Conv", ["r0", "w1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "g1", "b1", "m1", "v1"], ["n1"],
                         epsilon=1e-3),
        helper.make_node("Relu", ["n1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c2", "g2", "b2", "m2", "v2"], ["n2"],
                         epsilon=2e-5),
        helper.make_node("Add", ["n2", "r0"], ["s"]),
        helper.make_node("Relu", ["s"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["gp"]),
        helper.make_node("Flatten", ["gp"], ["fl"]),
        helper.make_node("Gemm", ["fl", "fw", "fb"], ["fc"], transB=1),
        helper.make_node("Softmax", ["fc"], ["y"], axis=-1),
    ], [("x", [1, 3, 8, 8])], ["y"], inits, {"x": data})[0]
    for got in run_both(xml, {"data": data}, ["prob"]):
        np.testing.assert_allclose(got[0], ref, rtol=1e-4, atol=1e-6)
    # the three batch norms folded into the convolutions before them (as ovc and MO fold them)
    assert 'type="BatchNormInference"' not in xml.read_text()
    assert 'type="SoftMax"' in xml.read_text()  # MO's spelling of its Softmax in the IR


# -- shape ops, element-wise ops, LRN --------------------------------------------------------------
def _lrn(x: np.ndarray, size: int, alpha: float, beta: float, knorm: float) -> np.ndarray:
    sq = np.pad(np.square(x), [(0, 0), (size // 2, size // 2), (0, 0), (0, 0)])
    total = sum(sq[:, i:i + x.shape[1]] for i in range(size))
    return x / (knorm + alpha / size * total) ** beta


def test_movement_and_elementwise_ops_match_numpy(tmp_path: Path, capsys) -> None:
    net = Net()
    x = net.sym.var("data")
    scale = _w(1, 6, 1, 1) + 1
    a = net.op("LeakyReLU", "leaky", [x], act_type="leaky", slope=0.1)
    b = net.op("Reshape", "split_merge", [a], shape=(0, -4, 2, -1, -3))  # (2,6,4,4) -> (2,2,3,16)
    c = net.op("transpose", "tr", [b], axes=(0, 2, 1, 3))
    d = net.op("slice_axis", "sl", [c], axis=3, begin=2, end="None")
    e = net.op("clip", "clip", [d], a_min=-0.5, a_max=0.5)
    f = net.op("_mul_scalar", "mul2", [e], scalar=2.0)
    g = net.op("_rminus_scalar", "one_minus", [f], scalar=1.0)
    h = net.op("mean", "mean", [g], axis=(2,), keepdims=True)
    i = net.op("expand_dims", "expand", [h], axis=0)
    j = net.op("Reshape", "flat_all", [i], shape=(-1,))
    k = net.op("LRN", "lrn", [x], nsize=3, alpha=1e-2, beta=0.75, knorm=2.0)
    m = net.op("broadcast_mul", "scale", [k, net.weight("gain", scale)])
    dr = net.op("Dropout", "drop", [m], p=0.5)
    cat = net.op("Concat", "cat", [dr, x], dim=1, num_args=2)
    rs = net.op("Reshape", "keep_rest", [cat], shape=(-3, -2))  # (2,12,4,4) -> (24,4,4)
    sm = net.op("sum", "total", [rs], axis=(1, 2))
    params = net.save(tmp_path, "misc", [j, sm])

    xml = convert(params, tmp_path / "ir", "--input_shape", "[2,6,4,4]")
    capsys.readouterr()
    data = RNG.standard_normal((2, 6, 4, 4)).astype(np.float32)
    ra = np.where(data > 0, data, 0.1 * data).reshape(2, 2, 3, 16).transpose(0, 2, 1, 3)[..., 2:]
    rj = (1 - 2 * np.clip(ra, -0.5, 0.5)).mean(axis=2, keepdims=True)[None].reshape(-1)
    rm = np.concatenate([_lrn(data, 3, 1e-2, 0.75, 2.0) * scale, data], axis=1)
    rs_ref = rm.reshape(24, 4, 4).sum(axis=(1, 2))
    for got in run_both(xml, {"data": data}, ["flat_all", "total"]):
        np.testing.assert_allclose(got[0], rj, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[1], rs_ref, rtol=1e-5, atol=1e-5)


def test_deconvolution_prelu_and_pad_match_onnxruntime(tmp_path: Path, capsys) -> None:
    net = Net()
    x = net.sym.var("data")
    w = {"dw": _w(4, 3, 4, 4), "db": _w(3), "slope": np.abs(_w(3))}
    dc = net.op("Deconvolution", "up",
                [x, net.weight("up_weight", w["dw"]), net.weight("up_bias", w["db"])],
                kernel=(4, 4), stride=(2, 2), pad=(1, 1), num_filter=3, no_bias=False)
    pr = net.op("LeakyReLU", "prelu", [dc, net.weight("prelu_gamma", w["slope"])], act_type="prelu")
    pd = net.op("Pad", "pad", [pr], mode="constant", pad_width=(0, 0, 0, 0, 1, 2, 2, 1),
                constant_value=0.5)
    el = net.op("LeakyReLU", "elu", [pd], act_type="elu", slope=0.7)
    params = net.save(tmp_path, "deconv", [el])

    xml = convert(params, tmp_path / "ir", "--input_shape", "[1,4,5,5]")
    capsys.readouterr()
    data = RNG.standard_normal((1, 4, 5, 5)).astype(np.float32)
    inits = {**w, "pads": np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64),
             "cv": np.array(0.5, np.float32), "slope": w["slope"].reshape(3, 1, 1)}
    f = TensorProto.FLOAT
    model = make_model([
        helper.make_node("ConvTranspose", ["x", "dw", "db"], ["d"], strides=[2, 2],
                         pads=[1, 1, 1, 1]),
        helper.make_node("PRelu", ["d", "slope"], ["p"]),
        helper.make_node("Pad", ["p", "pads", "cv"], ["q"]),
        helper.make_node("Elu", ["q"], ["y"], alpha=0.7),
    ], [("x", f, [1, 4, 5, 5])], [("y", f, None)], inits, opset=13)
    model.ir_version = 8
    ref = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        ["y"], {"x": data})[0]
    assert ref.shape == (1, 3, 13, 13)
    for got in run_both(xml, {"data": data}, ["elu"]):
        np.testing.assert_allclose(got[0], ref, rtol=1e-4, atol=1e-5)


# -- a custom layer through generated extractors ---------------------------------------------------
CUSTOM_OPS = [
    {"name": "ScaledCosh", "framework_types": {"mxnet": "scaledcosh"}, "mxnet": {"custom": True},
     "attributes": [{"name": "scale", "type": "float", "default": 1.0},
                    {"name": "axes", "type": "int_list", "default": [1]},
                    {"name": "mode", "type": "string", "default": "fast"}],
     "expression": "scale * (exp(x) + exp(-x)) / 2"},
    {"name": "MyShift", "framework_types": {"mxnet": "MyShift"},
     "attributes": [{"name": "shift", "type": "float", "default": 0.0},
                    {"name": "flag", "type": "bool", "default": False}],
     "expression": "x + shift"},
]


def _openvino_op(cls):
    """An OpenVINO Python op running a generated converter Op's numpy evaluate (no C++ build)."""

    class PyOp(ov.Op):
        class_type_info = ov.DiscreteTypeInfo(cls.type, cls.version)

        def __init__(self, inputs=None, attrs=None):
            super().__init__(self, inputs)
            self._attrs = dict(attrs or {k: v for k, v in cls.defaults.items()})
            if inputs:
                self.constructor_validate_and_infer_types()

        def validate_and_infer_types(self):
            if self.get_input_size():
                self.set_output_type(0, self.get_input_element_type(0),
                                     self.get_input_partial_shape(0))

        def clone_with_new_inputs(self, new_inputs):
            return PyOp(new_inputs, self._attrs)

        def get_type_info(self):
            return PyOp.class_type_info

        def visit_attributes(self, visitor):
            visitor.on_attributes(self._attrs)
            return True

        def has_evaluate(self):
            return True

        def evaluate(self, outputs, inputs):
            attrs = {k: v if isinstance(cls.defaults[k], (list, str)) else type(cls.defaults[k])(v)
                     for k, v in self._attrs.items() if k in cls.defaults}
            y = cls.evaluate({**cls.defaults, **attrs}, [np.array(t.data) for t in inputs])[0]
            outputs[0].shape = inputs[0].shape
            outputs[0].data[:] = y
            return True

    return ov.OpExtension(PyOp)


def test_custom_layers_with_generated_extractors(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "ops.json"
    cfg.write_text(json.dumps({"targets": ["mo-mxnet-ext", "mo-op"], "ops": CUSTOM_OPS}))
    assert main(["new", "--config", str(cfg), "--output_dir", str(tmp_path / "gen")]) == 0
    ext = tmp_path / "gen" / "user_mo_extensions"
    custom_src = (ext / "front" / "mxnet" / "scaled_cosh_ext.py").read_text()
    assert "MXNetCustomFrontExtractorOp" in custom_src and 'op = "scaledcosh"' in custom_src
    shift_src = (ext / "front" / "mxnet" / "my_shift_ext.py").read_text()
    assert "get_mxnet_layer_attrs(node.symbol_dict)" in shift_src

    net = Net()
    x = net.sym.var("data")
    c = net.op("Convolution", "conv", [x, net.weight("conv_weight", _w(2, 2, 1, 1))], kernel=(1, 1),
               num_filter=2, no_bias=True)
    cosh = net.op("Custom", "cosh", [c], op_type="scaledcosh", scale=0.5, mode="slow")
    shift = net.op("MyShift", "shift", [cosh], shift=-1.5, flag=True)
    out = net.op("elemwise_add", "out", [shift, x])
    params = net.save(tmp_path, "custom", [out])

    # without the extensions: both ops are reported, with the scaffold command
    code = main(["convert", "--input_model", str(params), "--input_shape", "[1,2,3,3]",
                 "--output_dir", str(tmp_path / "no")])
    err = capsys.readouterr().err
    assert code == 2 and "scaledcosh (node cosh)" in err and "MyShift (node shift)" in err
    assert "--mo-mxnet-ext" in err

    xml = convert(params, tmp_path / "ir", "--input_shape", "[1,2,3,3]", "--extensions", str(ext))
    capsys.readouterr()
    text = xml.read_text()
    assert 'type="ScaledCosh" version="extension"' in text
    assert 'scale="0.5"' in text and 'mode="slow"' in text
    assert 'type="MyShift"' in text and 'shift="-1.5"' in text and 'flag="true"' in text

    data = RNG.standard_normal((1, 2, 3, 3)).astype(np.float32)
    conv = np.einsum("oc,nchw->nohw", net.args["conv_weight"][:, :, 0, 0], data)
    ref = 0.5 * np.cosh(conv) - 1.5 + data

    from converter.extensions import extension_scope, load_extension_dirs
    from converter.ops.op import Op

    with extension_scope():
        load_extension_dirs([ext], "mxnet")
        ov_ext = [_openvino_op(Op.registered_ops[n]) for n in ("ScaledCosh", "MyShift")]
        for got in run_both(xml, {"data": data}, ["out"], ov_ext=ov_ext, shim_ext=[ext]):
            np.testing.assert_allclose(got[0], ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("key", ["attr", "param"])
def test_older_symbol_files_with_attr_or_param(tmp_path: Path, capsys, key: str) -> None:
    sym = SymbolBuilder(attr_key=key)
    x = sym.var("data")
    y = sym.op("Activation", "act", [x], act_type="sigmoid")
    sym.save(tmp_path / "old-symbol.json", [y])
    write_ndarray_file(tmp_path / "old-0001.params", {}, version="legacy")
    xml = convert(tmp_path / "old-0001.params", tmp_path / "ir", "--input_shape", "[3]")
    capsys.readouterr()
    data = np.array([-1.0, 0.0, 2.0], np.float32)
    for got in run_both(xml, {"data": data}, ["act"]):
        np.testing.assert_allclose(got[0], 1 / (1 + np.exp(-data)), rtol=1e-6)


def test_symbol_json_as_input_model_and_shape_from_the_symbol(tmp_path: Path, capsys) -> None:
    sym = SymbolBuilder()
    x = sym.var("data", __shape__=(1, 4))
    net_w = _w(3, 4)
    w = sym.var("fc_weight")
    y = sym.op("FullyConnected", "fc", [x, w], num_hidden=3, no_bias=True)
    sym.save(tmp_path / "m-symbol.json", [y])
    for epoch, value in ((1, np.zeros_like(net_w)), (12, net_w)):  # the latest epoch wins
        write_ndarray_file(tmp_path / f"m-{epoch:04d}.params", {"arg:fc_weight": value})
    xml = convert(tmp_path / "m-symbol.json", tmp_path / "ir")
    capsys.readouterr()
    data = RNG.standard_normal((1, 4)).astype(np.float32)
    for got in run_both(xml, {"data": data}, ["fc"]):
        np.testing.assert_allclose(got[0], data @ net_w.T, rtol=1e-5, atol=1e-6)


MO_STYLE_EXTRACTOR = '''
from mo.front.extractor import MXNetCustomFrontExtractorOp
from mo.front.mxnet.extractors.utils import get_mxnet_layer_attrs


class ScaledCoshExtractor(MXNetCustomFrontExtractorOp):
    op = "scaledcosh"
    enabled = True

    def extract(self, node):  # MO's older contract: (supported, attributes)
        attrs = get_mxnet_layer_attrs(node.symbol_dict)
        return True, {"op": "ScaledCosh", "type": "ScaledCosh", "version": "extension",
                      "scale": attrs.float("scale", 1.0), "axes": [1], "mode": "fast"}
'''


def test_mo_style_custom_extractor_is_scoped_to_its_conversion(tmp_path: Path, capsys) -> None:
    from converter.front.mxnet.custom import MXNetCustomFrontExtractorOp

    cfg = tmp_path / "ops.json"
    cfg.write_text(json.dumps({"targets": ["mo-op"], "ops": CUSTOM_OPS[:1]}))
    assert main(["new", "--config", str(cfg), "--output_dir", str(tmp_path / "gen")]) == 0
    ext = tmp_path / "gen" / "user_mo_extensions"
    (ext / "front" / "mxnet").mkdir(parents=True)
    (ext / "front" / "mxnet" / "cosh_ext.py").write_text(MO_STYLE_EXTRACTOR)
    sym = SymbolBuilder()
    y = sym.op("Custom", "cosh", [sym.var("data")], op_type="scaledcosh", scale="2.5")
    sym.save(tmp_path / "c-symbol.json", [y])
    write_ndarray_file(tmp_path / "c-0000.params", {})
    xml = convert(tmp_path / "c-0000.params", tmp_path / "ir", "--input_shape", "[4]",
                  "--extensions", str(ext))
    capsys.readouterr()
    assert 'type="ScaledCosh"' in xml.read_text() and 'scale="2.5"' in xml.read_text()
    # gone with the conversion
    assert "scaledcosh" not in MXNetCustomFrontExtractorOp.registered_ops
    data = np.linspace(-1, 1, 4, dtype=np.float32)
    shim = open_engine("shim", xml, "CPU", extensions=[ext]).run({"data": data})
    np.testing.assert_allclose(shim["cosh"], 2.5 * np.cosh(data), rtol=1e-6)


def test_more_ops_match_numpy(tmp_path: Path, capsys) -> None:
    net = Net()
    x = net.sym.var("data")  # (2, 4, 4, 6)
    parts = net.op("SliceChannel", "split", [x], num_outputs=2, axis=1)
    added = net.op("add_n", "sum3", [(parts, 0), (parts, 1), (parts, 1)], num_args=3)
    sw = net.op("SwapAxis", "swap", [added], dim1=2, dim2=3)  # (2, 2, 6, 4)
    up = net.op("UpSampling", "up", [sw], scale=2, sample_type="nearest", num_args=1)
    pl = net.op("Pooling", "psum", [up], kernel=(3, 3), stride=(2, 2), pool_type="sum",
                pooling_convention="same")  # (2, 2, 6, 4)
    sq = net.op("SliceChannel", "rows", [x], num_outputs=4, axis=2, squeeze_axis=True)
    sl = net.op("slice", "crop", [(sq, 3)], begin=(None, 1), end=(None, None), step=(1, 2))
    # 0 copies the last dim: (4, 6)
    rv = net.op("Reshape", "rev", [sl], shape=(-1, 0), reverse=True)
    sa = net.op("SoftmaxActivation", "sact", [rv])
    l2 = net.op("L2Normalization", "l2", [x], mode="channel", eps=1e-10)
    gm = net.op("Pooling", "gmax", [l2], kernel=(1, 1), global_pool=True, pool_type="max")
    ct = net.op("Cast", "cast", [gm], dtype="float16")
    back = net.op("Cast", "cast_back", [ct], dtype="float32")
    rs = net.op("rsqrt", "rs", [net.op("square", "sq2", [back])])
    params = net.save(tmp_path, "more", [pl, sa, rs])

    xml = convert(params, tmp_path / "ir", "--input_shape", "[2,4,4,6]")
    capsys.readouterr()
    data = (RNG.standard_normal((2, 4, 4, 6)) + 0.1).astype(np.float32)
    a, b = data[:, :2], data[:, 2:]
    sw_ref = (a + 2 * b).transpose(0, 1, 3, 2)
    up_ref = sw_ref.repeat(2, axis=2).repeat(2, axis=3)  # (2, 2, 12, 8)
    padded = np.pad(up_ref, [(0, 0), (0, 0), (0, 1), (0, 1)])
    pl_ref = np.stack([np.stack([padded[:, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3].sum(axis=(2, 3))
                                 for j in range(4)], -1) for i in range(6)], -2)
    rows = data[:, :, 3, :][:, 1::2, :]  # slice(begin=(None,1), step=(1,2)) on (2,4,6)
    rv_ref = rows.reshape(-1, rows.shape[-1])
    e = np.exp(rv_ref - rv_ref.max(axis=1, keepdims=True))
    sa_ref = e / e.sum(axis=1, keepdims=True)
    l2_ref = data / np.sqrt((data ** 2).sum(axis=1, keepdims=True) + 1e-10)
    gm_ref = l2_ref.max(axis=(2, 3), keepdims=True).astype(np.float16).astype(np.float32)
    for got in run_both(xml, {"data": data}, ["psum", "sact", "rs"]):
        np.testing.assert_allclose(got[0], pl_ref, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(got[1], sa_ref, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[2], 1 / np.abs(gm_ref), rtol=1e-3)


def test_indexing_and_sequence_ops_match_numpy(tmp_path: Path, capsys) -> None:
    net = Net()
    x = net.sym.var("data")  # (2, 3, 4)
    idx = net.weight("idx", np.array([[0, 5], [-1, 2]], np.float32))
    taken = net.op("take", "take", [x, idx], axis=2)  # clipped: 5 -> 3, -1 -> 0
    wrapped = net.op("take", "wrap", [x, idx], axis=1, mode="wrap")
    emb = net.op("Embedding", "emb", [idx, net.weight("emb_weight", _w(6, 3))], input_dim=6,
                 output_dim=3)
    am = net.op("argmax", "am", [x], axis=2)
    oh = net.op("one_hot", "oh", [am], depth=4, on_value=2.0, off_value=-1.0)
    amin = net.op("argmin", "amin", [x], axis=1, keepdims=True)
    sel = net.op("where", "where", [net.op("_greater_scalar", "pos", [x], scalar=0.0), x,
                                    net.op("tile", "tile", [amin], reps=(1, 3, 1))])
    st = net.op("stack", "stack", [x, sel], axis=1, num_args=2)  # (2, 2, 3, 4)
    cs = net.op("cumsum", "cs", [x], axis=1)
    bd = net.op("batch_dot", "bd", [x, cs], transpose_b=True)  # (2, 3, 3)
    ds = net.op("_contrib_div_sqrt_dim", "ds", [x])
    ar = net.op("broadcast_add", "ar", [x, net.op("_arange", "range", [], start=1, stop=3,
                                                  step=0.5, repeat=1)])
    gt = net.op("broadcast_greater", "gt", [x, ds])  # 1 or 0 as float
    like = net.op("_contrib_arange_like", "like", [x], start=1.5, step=0.5, repeat=2)
    like_axis = net.op("_contrib_arange_like", "like_axis", [x], axis=1, start=-1.0)
    eye = net.op("broadcast_add", "eye", [x, net.op("_eye", "e", [], N=3, M=4, k=1)])
    params = net.save(tmp_path, "idx", [taken, wrapped, emb, oh, st, bd, ds, ar, gt, like,
                                        like_axis, eye])
    xml = convert(params, tmp_path / "ir", "--input_shape", "[2,3,4]")
    capsys.readouterr()
    data = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    ind = np.array([[0, 5], [-1, 2]])
    weight = net.args["emb_weight"]
    amin_ref = data.argmin(axis=1)[:, None, :].astype(np.float32)
    sel_ref = np.where(data > 0, data, np.tile(amin_ref, (1, 3, 1)))
    cs_ref = data.cumsum(axis=1)
    want = [np.take(data, np.clip(ind, 0, 3), axis=2), np.take(data, ind % 3, axis=1),
            weight[ind], np.where(np.eye(4)[data.argmax(axis=2)] > 0, 2.0, -1.0),
            np.stack([data, sel_ref], axis=1), data @ cs_ref.transpose(0, 2, 1),
            data / 2.0, data + np.arange(1, 3, 0.5), (data > data / 2.0).astype(np.float32),
            (1.5 + 0.5 * (np.arange(24) // 2)).reshape(2, 3, 4), np.arange(-1.0, 2.0),
            data + np.eye(3, 4, 1)]
    names = ["take", "wrap", "emb", "oh", "stack", "bd", "ds", "ar", "gt", "like", "like_axis",
             "eye"]
    for got in run_both(xml, {"data": data}, names):
        for name, g, w in zip(names, got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=name)
        assert got[names.index("gt")].dtype == np.float32  # MXNet's comparison: 1 or 0 in x's type
