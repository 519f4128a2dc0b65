"""TensorFlow frozen graphs (written here with the converter's own protos) convert to IR whose
inputs and outputs keep TF's NHWC layout (as MO 2022.1+ and ovc: NCHW inside, Transposes at the
interface, no leftover pairs), or NCHW with --layout nhwc->nchw, and match numpy in OpenVINO and
the shim."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from converter.front.tf.attrs import collect_tf_attrs, tf_tensor_content
from converter.front.tf.loader import load_graph_def
from converter.front.tf.writer import GraphBuilder
from converter.options import ConvertOptions, parse_layouts
from converter.pipeline import convert
from tests.front import test_tf_reference as ref

F32 = np.float32
RNG = np.random.default_rng(7)


def _rand(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(F32)


def _layers(xml: Path) -> list[tuple[str, str]]:
    """(type, name) of every IR layer."""
    return re.findall(r'<layer id="\d+" name="([^"]*)" type="(\w+)"', xml.read_text())


def _types(xml: Path) -> list[str]:
    return [t for _, t in _layers(xml)]


def _param_shape(xml: Path) -> str:
    return re.search(r'type="Parameter".*?\n\s*<data shape="([^"]*)"', xml.read_text()).group(1)


def _check(results: list[dict], name: str, want: np.ndarray, tol: float = 1e-4) -> None:
    for got in results:
        np.testing.assert_allclose(got[name], want, rtol=tol, atol=tol)


# -- LeNet-like: conv/bias/relu/pool x2, flatten, FC, softmax (binary .pb) ------------------------
def _lenet(path: Path) -> tuple[Path, dict]:
    p = {"w1": _rand(5, 5, 1, 6, scale=0.3), "b1": _rand(6), "w2": _rand(5, 5, 6, 16, scale=0.1),
         "b2": _rand(16), "wf": _rand(4 * 4 * 16, 10, scale=0.1), "bf": _rand(10)}
    g = GraphBuilder()
    x = g.placeholder("data", [1, 28, 28, 1])
    w1 = g.node("Identity", "conv1/weights/read", [g.const("conv1/weights", p["w1"])], T=F32)
    c1 = g.node("Conv2D", "conv1/Conv2D", [x, w1], T=F32, strides=[1, 1, 1, 1], padding="VALID",
                data_format="NHWC")
    b1 = g.node("BiasAdd", "conv1/BiasAdd", [c1, g.const("conv1/biases", p["b1"])], T=F32,
                data_format="NHWC")
    r1 = g.node("Relu", "conv1/Relu", [b1], T=F32)
    p1 = g.node("MaxPool", "pool1", [r1], T=F32, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                padding="VALID")
    c2 = g.node("Conv2D", "conv2/Conv2D", [p1, g.const("conv2/weights", p["w2"])], T=F32,
                strides=[1, 1, 1, 1], padding="VALID")
    b2 = g.node("BiasAdd", "conv2/BiasAdd", [c2, g.const("conv2/biases", p["b2"])], T=F32)
    r2 = g.node("Relu", "conv2/Relu", [b2], T=F32)
    p2 = g.node("MaxPool", "pool2", [r2], T=F32, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                padding="VALID")
    flat_shape = g.const("flatten/shape", np.array([-1, 256], np.int32))
    flat = g.node("Reshape", "flatten", [p2, flat_shape], T=F32, Tshape=np.int32)
    fc = g.node("MatMul", "fc/MatMul", [flat, g.const("fc/weights", p["wf"])], T=F32)
    fb = g.node("BiasAdd", "fc/BiasAdd", [fc, g.const("fc/biases", p["bf"])], T=F32)
    g.node("Softmax", "prob", [fb], T=F32)
    g.node("NoOp", "init", ["^prob"])
    return g.save(path), p


def _lenet_ref(x: np.ndarray, p: dict) -> np.ndarray:
    h = np.maximum(ref.conv2d(x, p["w1"], 1, "VALID") + p["b1"], 0)
    h = ref.max_pool(h, 2, 2, "VALID")
    h = np.maximum(ref.conv2d(h, p["w2"], 1, "VALID") + p["b2"], 0)
    h = ref.max_pool(h, 2, 2, "VALID").reshape(1, -1)
    return ref.softmax(h @ p["wf"] + p["bf"])


def test_lenet_pb_keeps_its_nhwc_input_and_matches_numpy(tmp_path: Path) -> None:
    model, p = _lenet(tmp_path / "lenet.pb")
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir")).xml
    assert _param_shape(xml) == "1,28,28,1"
    types = _types(xml)
    # MO 2022.1+'s two transposes: to NCHW after the input, back to NHWC before the flatten
    # that feeds the FC
    assert types.count("Transpose") == 2 and types.count("Convolution") == 2
    assert "Identity" not in types and "NoOp" not in types
    x = _rand(1, 28, 28, 1)
    _check(ref.run_both(xml, {"data": x}), "prob", _lenet_ref(x, p))


# -- ResNet block: conv+BN+relu, conv+BN, projection shortcut, add, pools, FC, softmax (.pbtxt) ---
def _bn(g: GraphBuilder, name: str, x: str, c: int, p: dict) -> str:
    for key in ("gamma", "beta", "mean", "var"):
        value = RNG.uniform(0.5, 1.5, c) if key in ("gamma", "var") else _rand(c)
        p[f"{name}/{key}"] = value.astype(F32)
    consts = [g.const(f"{name}/{k}", p[f"{name}/{k}"]) for k in ("gamma", "beta", "mean", "var")]
    return g.node("FusedBatchNormV3", name, [x, *consts], T=F32, U=F32, epsilon=1e-3,
                  data_format="NHWC", is_training=False)


def _resnet(path: Path) -> tuple[Path, dict]:
    p = {"w1": _rand(3, 3, 4, 8, scale=0.3), "w2": _rand(3, 3, 8, 8, scale=0.2),
         "ws": _rand(1, 1, 4, 8, scale=0.5), "wf": _rand(8, 5), "bf": _rand(5)}
    g = GraphBuilder()
    x = g.placeholder("input", [1, 9, 9, 4])
    conv = dict(T=F32, strides=[1, 1, 1, 1], padding="SAME", data_format="NHWC")
    c1 = g.node("Conv2D", "block/conv1", [x, g.const("block/w1", p["w1"])], **conv)
    r1 = g.node("Relu", "block/relu1", [_bn(g, "block/bn1", c1, 8, p)], T=F32)
    c2 = g.node("Conv2D", "block/conv2", [r1, g.const("block/w2", p["w2"])], **conv)
    bn2 = _bn(g, "block/bn2", c2, 8, p)
    sc = g.node("Conv2D", "block/shortcut", [x, g.const("block/ws", p["ws"])], **conv)
    add = g.node("AddV2", "block/add", [bn2, sc], T=F32)
    r2 = g.node("Relu", "block/relu2", [add], T=F32)
    pool = g.node("AvgPool", "pool", [r2], T=F32, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1],
                  padding="SAME", data_format="NHWC")
    mp = g.node("MaxPool", "maxpool", [pool], T=F32, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                padding="SAME")
    gap = g.node("Mean", "gap", [mp, g.const("gap/axes", np.array([1, 2], np.int32))], T=F32,
                 keep_dims=False)
    fc = g.node("MatMul", "fc", [gap, g.const("fc/w", p["wf"])], T=F32)
    fb = g.node("BiasAdd", "fc/bias", [fc, g.const("fc/b", p["bf"])], T=F32)
    g.node("Softmax", "softmax", [fb], T=F32)
    return g.save(path), p


def _resnet_ref(x: np.ndarray, p: dict) -> np.ndarray:
    def bn(h, name):
        return ref.batch_norm(h, p[f"{name}/gamma"], p[f"{name}/beta"], p[f"{name}/mean"],
                              p[f"{name}/var"], 1e-3)

    h = np.maximum(bn(ref.conv2d(x, p["w1"]), "block/bn1"), 0)
    h = bn(ref.conv2d(h, p["w2"]), "block/bn2") + ref.conv2d(x, p["ws"])
    h = ref.avg_pool(np.maximum(h, 0), 3, 2, "SAME")
    h = ref.max_pool(h, 2, 2, "SAME").mean(axis=(1, 2))
    return ref.softmax(h @ p["wf"] + p["bf"])


@pytest.mark.parametrize(("flags", "shape", "transposes"),
                         [([], "1,9,9,4", 1), (["nhwc->nchw"], "1,4,9,9", 0)])
def test_resnet_block_pbtxt_has_one_transpose_or_none_with_nchw_layout(
        tmp_path: Path, flags: list[str], shape: str, transposes: int) -> None:
    model, p = _resnet(tmp_path / "resnet.pbtxt")
    layouts = [spec for text in flags for spec in parse_layouts("--layout", text)]
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", layouts=layouts)).xml
    assert _param_shape(xml) == shape
    types = _types(xml)
    # one Transpose after the NHWC input (shared by the two convolutions that read it); every
    # other layout transpose cancelled or absorbed (the global mean reduces NCHW axes 2, 3)
    assert types.count("Transpose") == transposes, types
    # the batch norms folded into the convolutions' filters and biases
    assert "BatchNormInference" not in types and "ReduceMean" in types
    x = _rand(1, 9, 9, 4)
    feed = ref.nchw(x) if flags else x
    _check(ref.run_both(xml, {"input": feed}), "softmax", _resnet_ref(x, p))


# -- depthwise conv, explicit Pad, channel concat, 4D output (MO 2022.1+: NHWC) ------------------
def test_depthwise_pad_concat_and_4d_output_keeps_nhwc(tmp_path: Path) -> None:
    wd, w1 = _rand(3, 3, 3, 2), _rand(1, 1, 3, 4)
    g = GraphBuilder()
    x = g.placeholder("x", [1, 6, 6, 3])
    paddings = g.const("pad/p", np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32))
    pad = g.node("Pad", "pad", [x, paddings], T=F32)
    dw = g.node("DepthwiseConv2dNative", "dw", [pad, g.const("dw/w", wd)], T=F32,
                strides=[1, 1, 1, 1], padding="VALID", data_format="NHWC")
    c1 = g.node("Conv2D", "pw", [x, g.const("pw/w", w1)], T=F32, strides=[1, 1, 1, 1],
                padding="SAME")
    cat = g.node("ConcatV2", "cat", [dw, c1, g.const("cat/axis", np.array(-1, np.int32))],
                 T=F32, N=2)
    scaled = g.node("Mul", "scale", [cat, g.const("scale/v", np.float32(0.5))], T=F32)
    g.node("Elu", "out", [scaled], T=F32)
    model = g.save(tmp_path / "dw.pb")
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir")).xml
    types = _types(xml)
    # to NCHW after the input and after the Pad (the two convolutions' inputs), back to NHWC
    # before the output
    assert types.count("Transpose") == 3 and "GroupConvolution" in types
    xv = _rand(1, 6, 6, 3)
    padded = np.pad(xv, ((0, 0), (1, 1), (1, 1), (0, 0)))
    y = np.concatenate([ref.depthwise(padded, wd, 1, "VALID"), ref.conv2d(xv, w1)], axis=-1) * 0.5
    y = np.where(y > 0, y, np.exp(y) - 1)
    _check(ref.run_both(xml, {"x": xv}), "out", y)


def test_net_without_layout_ops_keeps_its_input_layout(tmp_path: Path) -> None:
    g = GraphBuilder()
    x = g.placeholder("x", [2, 4, 4, 3])
    r = g.node("Relu", "relu", [x], T=F32)
    m = g.node("Mean", "mean", [r, g.const("axes", np.array([3], np.int32))], T=F32, keep_dims=True)
    g.node("Sub", "out", [r, m], T=F32)
    xml = convert(ConvertOptions(g.save(tmp_path / "plain.pb"), output_dir=tmp_path / "ir")).xml
    assert _param_shape(xml) == "2,4,4,3" and "Transpose" not in _types(xml)
    xv = _rand(2, 4, 4, 3)
    r = np.maximum(xv, 0)
    _check(ref.run_both(xml, {"x": xv}), "out", r - r.mean(axis=3, keepdims=True))


def test_input_shape_is_given_in_nhwc_and_ops_cover_slicing(tmp_path: Path) -> None:
    """--input_shape in TF's layout for a placeholder of unknown size; StridedSlice, Squeeze,
    ExpandDims, Pack, Transpose, Cast, Rsqrt, Square, Shape on the way."""
    g = GraphBuilder()
    x = g.placeholder("x", [-1, -1, -1, 2])
    conv = g.node("Conv2D", "conv", [x, g.const("w", np.ones((1, 1, 2, 2), F32))], T=F32,
                  strides=[1, 1, 1, 1], padding="SAME")
    sl = g.node("StridedSlice", "slice", [conv, g.const("b", np.array([0, 1, 0, 0], np.int32)),
                                           g.const("e", np.array([0, 3, 0, 1], np.int32)),
                                           g.const("s", np.array([1, 1, 1, 1], np.int32))],
                T=F32, Index=np.int32, begin_mask=0b0101, end_mask=0b0101,
                shrink_axis_mask=0b1000)
    sq = g.node("Square", "sq", [sl], T=F32)
    eps = g.node("AddV2", "eps", [sq, g.const("one", np.float32(1))], T=F32)
    rs = g.node("Rsqrt", "rs", [eps], T=F32)
    ex = g.node("ExpandDims", "ex", [rs, g.const("ax", np.array(0, np.int32))], T=F32)
    pk = g.node("Pack", "pack", [ex, ex], T=F32, N=2, axis=0)
    perm = g.const("perm", np.array([0, 1, 3, 2, 4], np.int32))
    tr = g.node("Transpose", "tr", [pk, perm], T=F32)
    sqz = g.node("Squeeze", "sqz", [tr], T=F32, squeeze_dims=[1])
    shape = g.node("Shape", "shape", [sqz], T=F32, out_type=np.int32)
    g.node("Cast", "shape_f", [shape], SrcT=np.int32, DstT=np.float32)
    g.node("Identity", "y", [sqz], T=F32)  # an output; its names join sqz's
    model = g.save(tmp_path / "slice.pbtxt")
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", input_shape=[(1, 4, 5, 2)])).xml
    assert _param_shape(xml) == "1,4,5,2"
    xv = _rand(1, 4, 5, 2)
    c = xv @ np.ones((2, 2), F32)
    s = c[:, 1:3, :, 0]
    r = 1 / np.sqrt(s * s + 1)
    y = np.stack([r[None], r[None]]).transpose(0, 1, 3, 2, 4)[:, 0]
    for got in ref.run_both(xml, {"x": xv}):
        np.testing.assert_allclose(got["sqz"], y, rtol=1e-5)
        np.testing.assert_allclose(got["shape_f"], y.shape)


# -- the attribute/tensor helpers ---------------------------------------------------------------
def test_tensor_values_broadcast_and_attrs_decode(tmp_path: Path) -> None:
    g = GraphBuilder()
    node = g.graph_def.node.add(name="c", op="Const")
    t = node.attr["value"].tensor
    t.dtype = 1
    for d in (2, 3):
        t.tensor_shape.dim.add(size=d)
    t.float_val.append(1.5)
    assert tf_tensor_content(t.dtype, [2, 3], t).tolist() == [[1.5] * 3] * 2
    t.ClearField("float_val")
    t.float_val.extend([1, 2])
    assert tf_tensor_content(t.dtype, [2, 3], t).reshape(-1).tolist() == [1, 2, 2, 2, 2, 2]
    g.node("Foo", "foo", [], alpha=0.5, n=3, flag=True, mode="fast", ks=[1, 2], T=np.float16,
           shape=("shape", [1, -1]), Tlist=[np.float32, np.int32])
    assert list(g.graph_def.node[1].attr["Tlist"].list.type) == [1, 3]  # DT_FLOAT, DT_INT32
    attrs = collect_tf_attrs(g.graph_def.node[1].attr)
    assert attrs["alpha"] == 0.5 and attrs["n"] == 3 and attrs["flag"] is True
    assert attrs["mode"] == "fast" and attrs["ks"] == [1, 2] and attrs["T"] == np.float16
    assert attrs["shape"].tolist() == [1, -1]
    g.save(tmp_path / "g.pbtxt")
    again = load_graph_def(tmp_path / "g.pbtxt")
    assert again.node[1].attr["mode"].s == b"fast"


def test_pads_are_written_as_ovc_writes_them(tmp_path: Path) -> None:
    """Pad, PadV2 and MirrorPad each give a Pad with its pad value as an input (ovc's IR)."""
    g = GraphBuilder()
    x = g.placeholder("x", [1, 4, 4, 3])
    pads = g.const("p", np.array([[0, 0], [1, 1], [1, 0], [0, 0]], np.int32))
    a = g.node("Pad", "pad", [x, pads], T=F32)
    b = g.node("PadV2", "pad2", [a, pads, g.const("v", F32(0.5))], T=F32)
    g.node("MirrorPad", "y", [b, pads], T=F32, mode=b"SYMMETRIC")
    model = g.save(tmp_path / "pads.pb")
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", compress_to_fp16=False)).xml
    ov.save_model(ov.convert_model(str(model)), str(tmp_path / "ovc.xml"), compress_to_fp16=False)
    assert sorted(_types(xml)) == sorted(_types(tmp_path / "ovc.xml"))
    assert xml.read_text().count('<port id="3"') == 3  # each Pad's value input


def test_a_channels_last_batch_norm_is_a_multiply_and_add_without_transposes(
        tmp_path: Path) -> None:
    """As ovc writes it: scale and shift broadcast on the last axis, and numpy's result."""
    g = GraphBuilder()
    x = g.placeholder("x", [1, 4, 4, 3])
    gamma, beta, mean, var = _rand(3) + 1, _rand(3), _rand(3), np.abs(_rand(3)) + 0.5
    g.node("FusedBatchNormV3", "y", [x, *(g.const(k, v) for k, v in zip(
        ("gamma", "beta", "mean", "var"), (gamma, beta, mean, var)))], T=F32, U=F32,
        epsilon=1e-3, is_training=False, data_format=b"NHWC")
    xml = convert(ConvertOptions(g.save(tmp_path / "bn.pb"), output_dir=tmp_path / "ir",
                                 compress_to_fp16=False)).xml
    assert sorted(set(_types(xml))) == ["Add", "Const", "Multiply", "Parameter", "Result"]
    data = _rand(1, 4, 4, 3)
    got = ov.Core().compile_model(str(xml), "CPU")([data])[0]
    want = (data - mean) / np.sqrt(var + 1e-3) * gamma + beta
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_reciprocal_is_a_power_as_ovc_writes_it(tmp_path: Path) -> None:
    g = GraphBuilder()
    x = g.placeholder("x", [1, 4, 3])
    g.node("Reciprocal", "y", [g.node("Exp", "e", [x], T=F32)], T=F32)
    model = g.save(tmp_path / "rec.pb")
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", compress_to_fp16=False)).xml
    ov.save_model(ov.convert_model(str(model)), str(tmp_path / "ovc.xml"), compress_to_fp16=False)
    assert sorted(_types(xml)) == sorted(_types(tmp_path / "ovc.xml"))
    assert "Power" in _types(xml)
    data = _rand(1, 4, 3)
    got = ov.Core().compile_model(str(xml), "CPU")([data])[0]
    np.testing.assert_allclose(got, np.exp(-data), rtol=1e-5)


@pytest.mark.parametrize("layout", ["NHWC", "NCHW"])
def test_a_training_mode_batch_norm_uses_the_batch_s_statistics(tmp_path: Path,
                                                                 layout: str) -> None:
    """is_training=True: TF normalizes by the batch's own mean and variance and reads neither
    statistics input (here given in NHWC, empty in NCHW), as ovc's MVN does."""
    g = GraphBuilder()
    shape = [2, 4, 4, 3] if layout == "NHWC" else [2, 3, 4, 4]
    x = g.placeholder("x", shape)
    stats = ([_rand(3), np.abs(_rand(3)) + 0.5] if layout == "NHWC"
             else [np.zeros(0, F32), np.zeros(0, F32)])
    gamma, beta = _rand(3) + 1, _rand(3)
    g.node("FusedBatchNormV3", "y", [x, *(g.const(k, v) for k, v in zip(
        ("gamma", "beta", "mean", "var"), (gamma, beta, *stats)))], T=F32, U=F32,
        epsilon=1e-3, is_training=True, data_format=layout.encode())
    model = g.save(tmp_path / "bn.pb")
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", compress_to_fp16=False)).xml
    data = _rand(*shape)
    axes, per_channel = ((0, 1, 2), (3,)) if layout == "NHWC" else ((0, 2, 3), (3, 1, 1))
    mean, var = data.mean(axis=axes, keepdims=True), data.var(axis=axes, keepdims=True)
    want = ((data - mean) / np.sqrt(var + 1e-3) * gamma.reshape(per_channel)
            + beta.reshape(per_channel))
    got = ov.Core().compile_model(str(xml), "CPU")([data])[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    if layout == "NHWC":  # and TF's own answer
        import tensorflow as tf

        tf_y = tf.raw_ops.FusedBatchNormV3(x=data, scale=gamma, offset=beta, mean=stats[0],
                                           variance=stats[1], epsilon=1e-3, is_training=True)
        np.testing.assert_allclose(got, tf_y[0].numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("conv", [False, True])
def test_resizes_run_on_the_model_s_layout(tmp_path: Path, conv: bool) -> None:
    """Two resizes alone: Interpolate on NHWC's axes, no Transposes (as ovc writes them);
    between convolutions: Interpolate inside the NCHW part, Transposes only at the interface."""
    g = GraphBuilder()
    y = g.placeholder("x", [1, 6, 6, 3])
    if conv:
        y = g.node("Conv2D", "c", [y, g.const("w", _rand(3, 3, 3, 4))], T=F32,
                   strides=[1, 1, 1, 1], padding=b"SAME", data_format=b"NHWC")
    y = g.node("ResizeBilinear", "r", [y, g.const("s", np.array([12, 12], np.int32))], T=F32,
               align_corners=False, half_pixel_centers=True)
    y = g.node("ResizeNearestNeighbor", "r2", [y, g.const("s2", np.array([8, 8], np.int32))],
               T=F32, align_corners=False, half_pixel_centers=True)
    if conv:
        g.node("Conv2D", "y", [y, g.const("w2", _rand(3, 3, 4, 2))], T=F32,
               strides=[1, 1, 1, 1], padding=b"SAME", data_format=b"NHWC")
    model = g.save(tmp_path / "resize.pb")
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", compress_to_fp16=False)).xml
    assert _types(xml).count("Transpose") == (2 if conv else 0)
    ov.save_model(ov.convert_model(str(model)), str(tmp_path / "ovc.xml"), compress_to_fp16=False)
    data = _rand(1, 6, 6, 3)
    core = ov.Core()
    np.testing.assert_allclose(core.compile_model(str(xml), "CPU")([data])[0],
                               core.compile_model(str(tmp_path / "ovc.xml"), "CPU")([data])[0],
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("suffix", [".pb", ".pbtxt"])
def test_both_encodings_give_the_same_ir(tmp_path: Path, suffix: str) -> None:
    model, _ = _lenet(tmp_path / f"m{suffix}")
    xml = convert(ConvertOptions(model, output_dir=tmp_path / suffix[1:])).xml
    assert _types(xml).count("Convolution") == 2


def _conv_transpose_ref(dy: np.ndarray, w: np.ndarray, out_hw: tuple[int, int],
                        s: int) -> np.ndarray:
    """TF Conv2DBackpropInput, SAME: the gradient of a SAME forward conv (odd padding at the
    end)."""
    kh, kw = w.shape[:2]
    h, wd = out_hw
    pad_top = max((dy.shape[1] - 1) * s + kh - h, 0) // 2
    pad_left = max((dy.shape[2] - 1) * s + kw - wd, 0) // 2
    res = np.zeros((dy.shape[0], h, wd, w.shape[2]), F32)
    for i in range(dy.shape[1]):
        for j in range(dy.shape[2]):
            for a in range(kh):
                for b in range(kw):
                    r, c = i * s + a - pad_top, j * s + b - pad_left
                    if 0 <= r < h and 0 <= c < wd:
                        res[:, r, c] += dy[:, i, j] @ w[a, b].T
    return res


@pytest.mark.parametrize(("size", "stride"), [(5, 2), (6, 2), (4, 1)])
def test_conv2d_backprop_input_same(tmp_path: Path, size: int, stride: int) -> None:
    w = _rand(3, 3, 2, 4)  # [kh, kw, result channels, out_backprop channels]
    small = -(-size // stride)
    g = GraphBuilder()
    dy = g.placeholder("dy", [1, small, small, 4])
    g.node("Conv2DBackpropInput", "deconv",
           [g.const("sizes", np.array([1, size, size, 2], np.int32)), g.const("w", w), dy],
           T=F32, strides=[1, stride, stride, 1], padding="SAME", data_format="NHWC")
    xml = convert(ConvertOptions(g.save(tmp_path / "deconv.pb"), output_dir=tmp_path / "ir")).xml
    dv = _rand(1, small, small, 4)
    want = _conv_transpose_ref(dv, w, (size, size), stride)
    _check(ref.run_both(xml, {"dy": dv}), "deconv", want)


def test_mean_scale_and_reverse_channels_on_an_nhwc_model(tmp_path: Path) -> None:
    """Preprocessing works on TF's channel axis (last), before the Transpose to NCHW."""
    w = _rand(1, 1, 3, 2)
    g = GraphBuilder()
    x = g.placeholder("img", [1, 4, 4, 3])
    g.node("Conv2D", "conv", [x, g.const("w", w)], T=F32, strides=[1, 1, 1, 1], padding="VALID")
    opts = ConvertOptions(g.save(tmp_path / "pre.pb"), output_dir=tmp_path / "ir",
                          mean_values={None: [1.0, 2.0, 3.0]}, scale_values={None: [2.0, 4.0, 8.0]},
                          reverse_input_channels=True)
    xml = convert(opts).xml
    assert _param_shape(xml) == "1,4,4,3" and _types(xml).count("Transpose") == 2
    xv = _rand(1, 4, 4, 3)
    pre = (xv[..., ::-1] - np.array([1, 2, 3], F32)) / np.array([2, 4, 8], F32)
    expected = ref.conv2d(pre, w, 1, "VALID")
    _check(ref.run_both(xml, {"img": xv}), "conv", expected)


# -- the interface ovc gives (MO 2022.1+ legacy TF gave the same shapes) ------------------------
def _interface(model) -> tuple[list[str], list[str]]:
    return ([str(p.get_partial_shape()) for p in model.inputs],
            sorted(str(p.get_partial_shape()) for p in model.outputs))


@pytest.mark.parametrize("layout", [None, "nhwc->nchw"])
def test_input_and_output_shapes_are_ovc_s(tmp_path: Path, layout: str | None) -> None:
    """A conv net with a 4-D and a flattened output: NHWC in and out by default, as ovc; with
    --layout nhwc->nchw the input is NCHW in both."""
    g = GraphBuilder()
    x = g.placeholder("data", [1, 8, 8, 3])
    c = g.node("Conv2D", "conv", [x, g.const("w", _rand(3, 3, 3, 6))], T=F32,
               strides=[1, 1, 1, 1], padding="SAME")
    r = g.node("Relu", "relu", [c], T=F32)
    g.node("MaxPool", "pool", [r], T=F32, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
           padding="VALID")
    g.node("Reshape", "flat", [r, g.const("flat/shape", np.array([1, -1], np.int32))], T=F32)
    model = g.save(tmp_path / "conv.pb")
    layouts = parse_layouts("--layout", layout) if layout else []
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", layouts=layouts)).xml
    ours = ov.Core().read_model(str(xml))
    theirs = ov.convert_model(str(model))
    if layout:
        ppp = ov.preprocess.PrePostProcessor(theirs)
        ppp.input().tensor().set_layout(ov.Layout("NCHW"))
        ppp.input().model().set_layout(ov.Layout("NHWC"))
        theirs = ppp.build()
    assert _interface(ours) == _interface(theirs)
    assert _interface(ours) == (["[1,3,8,8]" if layout else "[1,8,8,3]"], ["[1,384]", "[1,4,4,6]"])
    assert _types(xml).count("Transpose") == (2 if layout else 3)
