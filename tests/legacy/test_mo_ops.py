"""MO's op classes build extgen's opset ops from MO's attributes: a front replacement written
with them converts, and the IR matches onnxruntime running the same computation in ONNX ops."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model

X = np.random.default_rng(0).standard_normal((1, 3, 8, 8)).astype(np.float32)
W = np.random.default_rng(1).standard_normal((4, 3, 3, 3)).astype(np.float32)
DW = np.random.default_rng(2).standard_normal((3, 1, 3, 3)).astype(np.float32)
FC = np.random.default_rng(3).standard_normal((5, 8)).astype(np.float32)
B3 = np.array([0.5, -1.0, 2.0], np.float32)
B5 = np.arange(5, dtype=np.float32)

CELL = np.random.default_rng(9)  # MO cells: WR [gates * 3, 8 + 3], B, H, C, hidden size 3
WR4, B4 = CELL.standard_normal((12, 11)).astype(np.float32), CELL.standard_normal(12)
H0, C0 = CELL.standard_normal((24, 3)), CELL.standard_normal((24, 3))
WR3, B3G = WR4[:9], B4[:9]


def _onnx_cell(op: str, order: list[int], wr: np.ndarray, b: np.ndarray, states: list[str]):
    """ONNX's LSTM/GRU over one step of x [24, 8] -> y [24, 3], gates reordered from OV's."""
    rows = np.concatenate([np.arange(g * 3, g * 3 + 3) for g in order])
    inits = {"w": wr[rows, :8][None], "r": wr[rows, 8:][None],
             "b": np.concatenate([b[rows], np.zeros(len(rows))]).astype(np.float32)[None],
             "h0": H0.astype(np.float32)[None], "c0": C0.astype(np.float32)[None],
             "ax": np.array([0])}
    nodes = [helper.make_node("Unsqueeze", ["x", "ax"], ["x3"]),
             helper.make_node(op, ["x3", "w", "r", "b", "", *states], ["", "yh"], hidden_size=3),
             helper.make_node("Squeeze", ["yh", "ax"], ["y"])]
    return nodes, inits


CELL_BODY = """
        rng = np.random.default_rng(9)
        wr, b = rng.standard_normal((12, 11)).astype(np.float32), rng.standard_normal(12)
        h0, c0 = rng.standard_normal((24, 3)), rng.standard_normal((24, 3))
        op = {cls}(graph, {{'hidden_size': 3, 'activations': None}}).create_node()
        x.connect(op.in_port(0))
        inputs = [h0, c0, wr, b] if '{cls}' == 'LSTMCell' else [h0, wr[:9], b[:9]]
        for port, value in enumerate(inputs, start=1):
            const(graph, np.float32(value)).out_port(0).connect(op.in_port(port))
        return [op.out_port(0)]
"""

HEADER = """
import numpy as np
from openvino.tools.mo.front.common.replacement import FrontReplacementOp
from openvino.tools.mo.ops.Cast import Cast
from openvino.tools.mo.ops.const import Const
from openvino.tools.mo.ops.elementwise import Add
from openvino.tools.mo.ops.{module} import {cls}


def const(graph, value):
    return Const(graph, {{'value': np.array(value)}}).create_node()


class Build(FrontReplacementOp):
    op = 'Build'
    enabled = True

    def replace_op(self, graph, node):
        x = node.in_port(0).get_source()
{body}
"""

# case: (MO module, MO class, replace_op body, reference ONNX nodes over "x" -> "y", initializers)
CASES = {
    "conv_pads_strides": ("convolution", "Convolution", """
        op = Convolution(graph, {'pad': np.array([[0, 0], [0, 0], [1, 0], [2, 1]]),
                                 'stride': np.array([1, 1, 2, 1]),
                                 'dilation': np.array([1, 1, 1, 2]), 'group': 1}).create_node()
        x.connect(op.in_port(0))
        const(graph, W).out_port(0).connect(op.in_port(1))
        return [op.out_port(0)]
    """, [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 2, 0, 1], strides=[2, 1],
                           dilations=[1, 2])], {"w": W}),
    "conv_grouped": ("convolution", "Convolution", """
        op = Convolution(graph, {'pad': np.array([[0, 0], [0, 0], [1, 1], [1, 1]]),
                                 'stride': np.array([1, 1, 1, 1]), 'group': 3,
                                 'output': 3}).create_node()
        x.connect(op.in_port(0))
        const(graph, DW).out_port(0).connect(op.in_port(1))
        return [op.out_port(0)]
    """, [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1], group=3)], {"w": DW}),
    "conv_bias": ("convolution", "Convolution", """
        op = Convolution(graph, {'pad': np.array([[0, 0], [0, 0], [1, 1], [1, 1]]),
                                 'stride': np.array([1, 1, 1, 1])}).create_node()
        x.connect(op.in_port(0))
        const(graph, W).out_port(0).connect(op.in_port(1))
        const(graph, np.float32([1, -2, 3, 0.5])).out_port(0).connect(op.in_port(2))
        return [op.out_port(0)]
    """, [helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1])],
        {"w": W, "b": np.float32([1, -2, 3, 0.5])}),
    "max_pool_ceil": ("pooling", "Pooling", """
        op = Pooling(graph, {'window': np.array([1, 1, 3, 3]), 'stride': np.array([1, 1, 2, 2]),
                             'pad': np.array([[0, 0], [0, 0], [1, 1], [1, 1]]),
                             'pool_method': 'max', 'rounding_type': 'ceil'}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                           pads=[1, 1, 1, 1], ceil_mode=1)], {}),
    "avg_pool_exclude_pad": ("pooling", "Pooling", """
        op = Pooling(graph, {'window': np.array([1, 1, 2, 2]), 'stride': np.array([1, 1, 2, 2]),
                             'pad': np.array([[0, 0], [0, 0], [1, 1], [1, 1]]),
                             'pool_method': 'avg', 'exclude_pad': True}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
                           pads=[1, 1, 1, 1], count_include_pad=0)], {}),
    "global_pool": ("pooling", "Pooling", """
        op = Pooling(graph, {'pool_method': 'avg', 'global_pool': True,
                             'window': np.array([1, 1, 0, 0])}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("GlobalAveragePool", ["x"], ["y"])], {}),
    "interpolate_opset4_scales": ("interpolate", "Interpolate", """
        op = Interpolate(graph, {'version': 'opset4', 'mode': 'nearest',
                                 'shape_calculation_mode': 'scales',
                                 'coordinate_transformation_mode': 'asymmetric',
                                 'nearest_mode': 'floor'}).create_node()
        x.connect(op.in_port(0))
        for port, value in ((1, [16, 16]), (2, np.float32([2, 2])), (3, [2, 3])):
            const(graph, value).out_port(0).connect(op.in_port(port))
        return [op.out_port(0)]
    """, [helper.make_node("Resize", ["x", "", "s"], ["y"], mode="nearest",
                           coordinate_transformation_mode="asymmetric", nearest_mode="floor")],
        {"s": np.array([1, 1, 2, 2], np.float32)}),
    "interpolate_opset1_linear": ("interpolate", "Interpolate", """
        op = Interpolate(graph, {'axes': [2, 3], 'mode': 'linear',
                                 'align_corners': 0}).create_node()
        x.connect(op.in_port(0))
        const(graph, np.array([4, 12])).out_port(0).connect(op.in_port(1))
        return [op.out_port(0)]
    """, [helper.make_node("Resize", ["x", "", "", "sz"], ["y"], mode="linear",
                           coordinate_transformation_mode="half_pixel")],
        {"sz": np.array([1, 3, 4, 12], np.int64)}),
    "crop_begin_end": ("crop", "Crop", """
        op = Crop(graph, {'axis': np.array([2, 3]), 'crop_begin': np.array([1, 2]),
                          'crop_end': np.array([3, 0])}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("Slice", ["x", "b", "e", "a"], ["y"])],
        {"b": np.array([1, 2]), "e": np.array([5, 8]), "a": np.array([2, 3])}),
    "scale_shift": ("scale_shift", "ScaleShiftOp", """
        op = ScaleShiftOp(graph, {}).create_node()
        x.connect(op.in_port(0))
        const(graph, np.array([1.0, 2.0, 3.0], np.float32)).out_port(0).connect(op.in_port(1))
        const(graph, np.array([0.5, -1.0, 2.0], np.float32)).out_port(0).connect(op.in_port(2))
        return [op.out_port(0)]
    """, [helper.make_node("Mul", ["x", "s"], ["m"]), helper.make_node("Add", ["m", "b"], ["y"])],
        {"s": np.array([1, 2, 3], np.float32).reshape(1, 3, 1, 1), "b": B3.reshape(1, 3, 1, 1)}),
    "fully_connected": ("MatMul", "FullyConnected", """
        op = FullyConnected(graph, {'out-size': 5}).create_node()
        x.connect(op.in_port(0))
        const(graph, FC).out_port(0).connect(op.in_port(1))
        const(graph, B5).out_port(0).connect(op.in_port(2))
        return [op.out_port(0)]
    """, [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)], {"w": FC, "b": B5}),
    "attributed_split": ("split", "AttributedSplit", """
        op = AttributedSplit(graph, {'axis': 1, 'num_splits': 3,
                                     'out_ports_count': 3}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(1)]
    """, [helper.make_node("Split", ["x", "n"], ["a", "y", "c"], axis=1)],
        {"n": np.array([1, 1, 1])}),
    "slice_onnx_order": ("slice", "Slice", """
        op = Slice(graph, {}).create_node()
        x.connect(op.in_port(0))
        for port, value in ((1, [1, 6]), (2, [8, 1]), (3, [2, 3]), (4, [2, -2])):
            const(graph, np.array(value)).out_port(0).connect(op.in_port(port))
        return [op.out_port(0)]
    """, [helper.make_node("Slice", ["x", "b", "e", "a", "s"], ["y"])],
        {"b": np.array([1, 6]), "e": np.array([8, 1]), "a": np.array([2, 3]),
         "s": np.array([2, -2])}),
    "identity": ("identity", "Identity", """
        op = Identity(graph, {}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("Identity", ["x"], ["y"])], {}),
    "deconv_grouped": ("deconvolution", "Deconvolution", """
        op = Deconvolution(graph, {'pad': np.array([[0, 0], [0, 0], [1, 1], [0, 0]]),
                                   'stride': np.array([1, 1, 2, 2]), 'group': 3,
                                   'output_padding': np.array([0, 0, 1, 0])}).create_node()
        x.connect(op.in_port(0))
        const(graph, DW).out_port(0).connect(op.in_port(1))
        return [op.out_port(0)]
    """, [helper.make_node("ConvTranspose", ["x", "w"], ["y"], pads=[1, 0, 1, 0], strides=[2, 2],
                           group=3, output_padding=[1, 0])], {"w": DW}),
    "eltwise_max": ("eltwise", "Eltwise", """
        op = Eltwise(graph, {'operation': 'max'}).create_node()
        x.connect(op.in_port(0))
        const(graph, np.float32(0.25)).out_port(0).connect(op.in_port(1))
        return [op.out_port(0)]
    """, [helper.make_node("Max", ["x", "c"], ["y"])], {"c": np.array(0.25, np.float32)}),
    "flatten": ("flatten", "Flatten", """
        op = Flatten(graph, {'axis': 1, 'end_axis': 2}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("Reshape", ["x", "s"], ["y"])], {"s": np.array([1, 24, 8])}),
    "flatten_onnx": ("flatten", "FlattenONNX", """
        op = FlattenONNX(graph, {'axis': 2}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("Flatten", ["x"], ["y"], axis=2)], {}),
    "attributed_power": ("power", "AttributedPower", """
        op = AttributedPower(graph, {'scale': 0.5, 'shift': 3.0, 'power': 2.0}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("Mul", ["x", "a"], ["m"]), helper.make_node("Add", ["m", "b"], ["s"]),
          helper.make_node("Pow", ["s", "p"], ["y"])],
        {"a": np.float32(0.5), "b": np.float32(3), "p": np.float32(2)}),
    "leaky_relu": ("activation_ops", "LeakyReLU", """
        op = LeakyReLU(graph, {'negative_slope': 0.1}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("LeakyRelu", ["x"], ["y"], alpha=0.1)], {}),
    "relu6": ("activation_ops", "ReLU6", """
        op = ReLU6(graph, {}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("Clip", ["x", "lo", "hi"], ["y"])],
        {"lo": np.float32(0), "hi": np.float32(6)}),
    "expand_dims": ("expand_dims", "ExpandDims", """
        op = ExpandDims(graph, {'expand_axis': np.array([2])}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("Unsqueeze", ["x", "a"], ["y"])], {"a": np.array([2])}),
    "permute": ("permute", "Permute", """
        op = Permute(graph, {'order': np.array([0, 2, 3, 1])}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 3, 1])], {}),
    "mvn_caffe": ("mvn", "MVNCaffe", """
        op = MVNCaffe(graph, {'across_channels': 1, 'eps': 1e-6}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("MeanVarianceNormalization", ["x"], ["y"], axes=[1, 2, 3])], {}),
    "mvn_onnx": ("mvn", "MVNOnnx", """
        op = MVNOnnx(graph, {'axes': np.array([2, 3]), 'eps': 1e-9, 'eps_mode': 'outside_sqrt',
                             'normalize_variance': 1}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("MeanVarianceNormalization", ["x"], ["y"], axes=[2, 3])], {}),
    "stop_gradient": ("stop_gradient", "StopGradientOp", """
        op = StopGradientOp(graph, {}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("Identity", ["x"], ["y"])], {}),
    "strided_slice": ("strided_slice", "StridedSlice", """
        op = StridedSlice(graph, {'begin_mask': np.array([0, 0, 0, 1]),  # MO's: 1 takes
                                  'end_mask': np.array([0, 0, 0, 1]),  # the value given
                                  'new_axis_mask': np.array([0]), 'shrink_axis_mask': np.array([0]),
                                  'ellipsis_mask': np.array([0])}).create_node()
        x.connect(op.in_port(0))
        for port, value in ((1, [0, 0, 0, 1]), (2, [1, 0, 0, 7]), (3, [1, 1, 1, 2])):
            const(graph, np.array(value)).out_port(0).connect(op.in_port(port))
        return [op.out_port(0)]
    """, [helper.make_node("Slice", ["x", "b", "e", "a", "s"], ["y"])],
        {"b": np.array([1]), "e": np.array([7]), "a": np.array([3]), "s": np.array([2])}),
    "rank": ("rank", "Rank", """
        op = Rank(graph, {}).create_node()
        x.connect(op.in_port(0))
        cast = Cast(graph, {'dst_type': np.float32}).create_node()
        op.out_port(0).connect(cast.in_port(0))
        add = Add(graph, {}).create_node()
        x.connect(add.in_port(0))
        cast.out_port(0).connect(add.in_port(1))
        return [add.out_port(0)]
    """, [helper.make_node("Add", ["x", "r"], ["y"])], {"r": np.float32(4)}),
    "size": ("size", "Size", """
        op = Size(graph, {}).create_node()
        x.connect(op.in_port(0))
        cast = Cast(graph, {'dst_type': np.float32}).create_node()
        op.out_port(0).connect(cast.in_port(0))
        add = Add(graph, {}).create_node()
        x.connect(add.in_port(0))
        cast.out_port(0).connect(add.in_port(1))
        return [add.out_port(0)]
    """, [helper.make_node("Add", ["x", "r"], ["y"])], {"r": np.float32(192)}),
    "instance_norm": ("instance_normalization", "InstanceNormalization", """
        op = InstanceNormalization(graph, {'epsilon': 1e-5}).create_node()
        x.connect(op.in_port(0))
        const(graph, np.float32([1, 2, 3])).out_port(0).connect(op.in_port(1))
        const(graph, np.float32([0.5, -1, 2])).out_port(0).connect(op.in_port(2))
        return [op.out_port(0)]
    """, [helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"], epsilon=1e-5)],
        {"s": np.float32([1, 2, 3]), "b": B3}),
    "caffe_normalize": ("normalize", "NormalizeOp", """
        op = NormalizeOp(graph, {'across_spatial': 0, 'channel_shared': 0,
                                 'eps': 1e-10}).create_node()
        x.connect(op.in_port(0))
        const(graph, np.float32([1, 2, 3])).out_port(0).connect(op.in_port(1))
        return [op.out_port(0)]
    """, [helper.make_node("LpNormalization", ["x"], ["n"], axis=1, p=2),
          helper.make_node("Mul", ["n", "s"], ["y"])],
        {"s": np.float32([1, 2, 3]).reshape(1, 3, 1, 1)}),
    "eltwise_n_max": ("eltwise_n", "EltwiseNMax", """
        op = EltwiseNMax(graph, {}).create_node()
        x.connect(op.in_port(0))
        const(graph, np.float32(0.1)).out_port(0).connect(op.in_port(1))
        neg = Add(graph, {}).create_node()
        x.connect(neg.in_port(0))
        const(graph, np.float32(-0.5)).out_port(0).connect(neg.in_port(1))
        neg.out_port(0).connect(op.in_port(2))
        return [op.out_port(0)]
    """, [helper.make_node("Add", ["x", "h"], ["n"]),
          helper.make_node("Max", ["x", "c", "n"], ["y"])],
        {"c": np.float32(0.1), "h": np.float32(-0.5)}),
    "lrn_across": ("lrn", "AttributedLRN", """
        op = AttributedLRN(graph, {'alpha': 0.5, 'beta': 0.75, 'local_size': 3,
                                   'bias': 2.0}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("LRN", ["x"], ["y"], alpha=0.5, beta=0.75, size=3, bias=2.0)], {}),
    "lrn_same": ("lrn", "AttributedLRN", """
        op = AttributedLRN(graph, {'alpha': 0.5, 'beta': 0.75, 'local_size': 3, 'bias': 2.0,
                                   'region': 'same'}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("Mul", ["x", "x"], ["sq"]),  # window mean of squares, alpha / size^2
          helper.make_node("AveragePool", ["sq"], ["ap"], kernel_shape=[3, 3], pads=[1] * 4,
                           count_include_pad=1),
          helper.make_node("Mul", ["ap", "alpha"], ["m"]),
          helper.make_node("Add", ["m", "bias"], ["a"]),
          helper.make_node("Pow", ["a", "beta"], ["p"]),
          helper.make_node("Div", ["x", "p"], ["y"])],
        {"alpha": np.float32(0.5), "bias": np.float32(2.0), "beta": np.float32(0.75)}),
    "fake_quantize": ("fakequantize", "FakeQuantize", """
        op = FakeQuantize(graph, {'levels': 5}).create_node()
        x.connect(op.in_port(0))
        for port, value in enumerate([-1.0, 1.0, -1.0, 1.0], start=1):
            const(graph, np.float32(value)).out_port(0).connect(op.in_port(port))
        return [op.out_port(0)]
    """, [helper.make_node("Clip", ["x", "lo", "hi"], ["c"]),
          helper.make_node("Sub", ["c", "lo"], ["s"]), helper.make_node("Mul", ["s", "k"], ["m"]),
          helper.make_node("Round", ["m"], ["r"]), helper.make_node("Div", ["r", "k"], ["d"]),
          helper.make_node("Add", ["d", "lo"], ["y"])],
        {"lo": np.float32(-1), "hi": np.float32(1), "k": np.float32(2)}),
    "roi_pooling": ("roipooling", "ROIPooling", """
        op = ROIPooling(graph, {'pooled_h': 2, 'pooled_w': 2, 'spatial_scale': 1.0,
                                'method': 'max'}).create_node()
        x.connect(op.in_port(0))
        rois = np.float32([[0, 0, 0, 7, 7], [0, 2, 2, 5, 5]])
        const(graph, rois).out_port(0).connect(op.in_port(1))
        return [op.out_port(0)]
    """, [helper.make_node("MaxRoiPool", ["x", "rois"], ["y"], pooled_shape=[2, 2])],
        {"rois": np.float32([[0, 0, 0, 7, 7], [0, 2, 2, 5, 5]])}),
    "roi_align": ("roialign", "ROIAlign", """
        op = ROIAlign(graph, {'pooled_h': 2, 'pooled_w': 3, 'sampling_ratio': 2,
                              'spatial_scale': 0.5, 'mode': 'avg'}).create_node()
        x.connect(op.in_port(0))
        const(graph, np.float32([[0, 0, 14, 14], [2, 1, 9, 12.5]])).out_port(0).connect(
            op.in_port(1))
        const(graph, np.int32([0, 0])).out_port(0).connect(op.in_port(2))
        return [op.out_port(0)]
    """, [helper.make_node("RoiAlign", ["x", "rois", "idx"], ["y"], output_height=2,
                           output_width=3, sampling_ratio=2, spatial_scale=0.5, mode="avg",
                           coordinate_transformation_mode="output_half_pixel")],
        {"rois": np.float32([[0, 0, 14, 14], [2, 1, 9, 12.5]]), "idx": np.int64([0, 0])}),
    "grn": ("grn", "GRNOp", """
        op = GRNOp(graph, {'bias': 0.25}).create_node()
        x.connect(op.in_port(0))
        return [op.out_port(0)]
    """, [helper.make_node("ReduceSumSquare", ["x"], ["s"], axes=[1], keepdims=1),
          helper.make_node("Add", ["s", "b"], ["a"]), helper.make_node("Sqrt", ["a"], ["r"]),
          helper.make_node("Div", ["x", "r"], ["y"])], {"b": np.float32(0.25)}),
    "lstm_cell": ("lstm_cell", "LSTMCell", CELL_BODY.format(cls="LSTMCell"),
                  *_onnx_cell("LSTM", [1, 3, 0, 2], WR4, B4, ["h0", "c0"])),
    "gru_cell": ("GRUCell", "GRUCell", CELL_BODY.format(cls="GRUCell"),
                 *_onnx_cell("GRU", [0, 1, 2], WR3, B3G, ["h0"])),
    "deformable_conv_zero_offsets": ("deformable_convolution", "DeformableConvolution", """
        op = DeformableConvolution(graph, {'pad': np.array([[0, 0], [0, 0], [1, 1], [1, 1]]),
                                           'stride': np.array([1, 1, 2, 2]),
                                           'dilation': np.array([1, 1, 1, 1]),
                                           'group': np.array(1)}).create_node()
        x.connect(op.in_port(0))
        const(graph, np.zeros((1, 18, 4, 4), np.float32)).out_port(0).connect(op.in_port(1))
        const(graph, W).out_port(0).connect(op.in_port(2))
        return [op.out_port(0)]
    """, [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1], strides=[2, 2])],
        {"w": W}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_mo_op_class_builds_the_opset_op(tmp_path: Path, case: str) -> None:
    module, cls, body, ref_nodes, inits = CASES[case]
    x = X.reshape(24, 8) if cls in ("FullyConnected", "LSTMCell", "GRUCell") else X
    body = textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
    ext = tmp_path / "ext" / "front"
    ext.mkdir(parents=True)
    consts = {"W": W, "DW": DW, "FC": FC, "B5": B5}
    text = HEADER.format(module=module, cls=cls, body=body)
    for name, value in consts.items():
        text = text.replace(f", {name})", f", np.array({value.tolist()}, np.float32))")
    (ext / "build.py").write_text(text)
    model = tmp_path / "m.onnx"
    onnx.save(make_model([helper.make_node("Build", ["x"], ["y"], domain="my.domain")],
                         [("x", TensorProto.FLOAT, list(x.shape))],
                         [("y", TensorProto.FLOAT, None)], domains=("my.domain",)), model)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir",
                                 extensions=[tmp_path / "ext"])).xml
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    got = compiled([x])[compiled.output("y")]
    ref = make_model(ref_nodes, [("x", TensorProto.FLOAT, list(x.shape))],
                     [("y", TensorProto.FLOAT, None)], inits)
    want = ort.InferenceSession(ref.SerializeToString()).run(None, {"x": x})[0]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    if cls in ("Identity", "StopGradientOp"):
        assert 'type="Identity"' not in xml.read_text()


MIDDLE_POOL = """
import numpy as np
from openvino.tools.mo.middle.replacement import MiddleReplacementPattern
from openvino.tools.mo.ops.pooling import Pooling


class PoolAfterRelu(MiddleReplacementPattern):
    enabled = True

    def find_and_replace_pattern(self, graph):
        for relu in graph.get_op_nodes(type='ReLU'):
            data = relu.out_node(0)
            consumers = list(graph.out_edges(data.id, data=True))
            pool = Pooling(graph, {'window': np.array([1, 1, 2, 2]), 'pool_method': 'max',
                                   'stride': np.array([1, 1, 2, 2]),
                                   'pad': np.zeros((4, 2), np.int64)})
            pooled = pool.create_node_with_data([data])
            for _, dst, attrs in consumers:
                graph.remove_edge(data.id, dst)
                graph.add_edge(pooled.id, dst, **attrs)
            pool = pooled.in_node(0)
            assert list(pool.output_spatial_shape) == [2, 2], pool.output_spatial_shape
            assert list(pooled.shape) == [1, 3, 2, 2]
"""


def test_middle_pass_sees_mo_inference_attributes(tmp_path: Path, relu_add_model: Path) -> None:
    (tmp_path / "ext" / "middle").mkdir(parents=True)
    (tmp_path / "ext" / "middle" / "pool.py").write_text(MIDDLE_POOL)
    xml = convert(ConvertOptions(relu_add_model, output_dir=tmp_path / "ir",
                                 extensions=[tmp_path / "ext"])).xml
    x = np.random.default_rng(0).standard_normal((1, 3, 4, 4)).astype(np.float32)
    compiled = ov.Core().compile_model(str(xml), "CPU")
    pooled = np.maximum(x, 0).reshape(1, 3, 2, 2, 2, 2).max(axis=(3, 5))
    bias = np.arange(3, dtype=np.float32).reshape(1, 3, 1, 1)
    np.testing.assert_allclose(compiled([x])[compiled.output(0)], pooled + bias)


@pytest.mark.parametrize(("name", "mo_attrs", "want"), [
    ("PriorBoxClusteredOp", {"width": [4.0, 8.0], "height": [6.0, 3.0], "step_w": 8.0,
                             "variance": [0.1, 0.1, 0.2, 0.2]},
     {"type": "PriorBoxClustered", "version": "opset1", "clip": True, "offset": 0.5}),
    ("CTCGreedyDecoderSeqLenOp", {"merge_repeated": False, "classes_index_type": np.int64},
     {"type": "CTCGreedyDecoderSeqLen", "version": "opset6", "merge_repeated": False}),
    ("CTCGreedyDecoderOp", {"ctc_merge_repeated": False},
     {"type": "CTCGreedyDecoder", "version": "opset1", "ctc_merge_repeated": False}),
    ("RegionYoloOp", {"coords": 4, "classes": 80, "num": 9, "do_softmax": 0,
                      "mask": np.array([0, 1, 2])},
     {"type": "RegionYolo", "version": "opset1", "axis": 1, "end_axis": -1}),
    ("ReorgYoloOp", {"stride": 2}, {"type": "ReorgYolo", "version": "opset2"}),
    ("ProposalOp", {"feat_stride": 16, "base_size": 16, "min_size": 16, "ratio": [0.5, 1.0],
                    "scale": [8.0, 16.0], "pre_nms_topn": 6000, "nms_thresh": 0.7},
     {"type": "Proposal", "version": "opset4", "post_nms_topn": 300, "clip_before_nms": True}),
    ("PSROIPoolingOp", {"output_dim": 2, "group_size": 3, "spatial_scale": 0.0625},
     {"type": "PSROIPooling", "version": "opset1", "mode": "average"}),
    ("CTCLoss", {"ctc_merge_repeated": False},
     {"type": "CTCLoss", "version": "opset4", "unique": False}),
    ("ExtractImagePatches", {"sizes": [3, 3], "strides": [1, 1], "rates": [1, 1],
                             "auto_pad": "same_upper"},
     {"type": "ExtractImagePatches", "version": "opset3"}),
])
def test_mo_op_class_without_onnx_twin_builds_the_opset_op(name: str, mo_attrs: dict,
                                                           want: dict) -> None:
    """MO classes whose op ONNX lacks: the node is the built-in (its numbers are checked against
    OpenVINO in tests/ops), with MO's attributes and the built-in's defaults."""
    import converter.legacy.mo_ops as mo_ops
    from converter.graph.graph import Graph
    from converter.legacy.mo_ops._base import as_builtin
    from converter.legacy.ops import builtin_op

    cls = getattr(mo_ops, name)
    assert issubclass(cls, builtin_op(want["type"]))
    node = cls(Graph(), {"name": "n", **mo_attrs}).create_node()
    as_builtin(cls, node)  # MO's version until then
    assert {k: node[k] for k in want} == want
    assert all(np.array_equal(node[k], v) for k, v in mo_attrs.items())


@pytest.mark.parametrize(("name", "says"), [
    ("ArgMaxOp", "MO's pass middle/ArgOpsToTopK.py replaces"),
    ("MemoryOffset", "middle/ReplaceMemoryOffsetWithSplice.py"),
    ("TFPad", "front/tf/pad_tf_to_pad.py"),
    ("Loop", "MO's body graph"),
    ("SparseSegmentSqrtN", "MO could not convert either"),
])
def test_mo_class_without_an_ir_form_names_what_replaced_it(name: str, says: str) -> None:
    """MO classes that stood for a node until one of MO's passes replaced it build MO's node;
    inferring it unreplaced says which pass to copy."""
    import converter.legacy.mo_ops as mo_ops
    from converter.errors import ShapeInferenceError
    from converter.graph.graph import Graph
    from converter.legacy.mo_ops.mo_nodes import MO_NODES

    cls = getattr(mo_ops, name)
    node = cls(Graph(), {"name": "n"}).create_node()
    assert node.soft_get("type") == MO_NODES.get(name, {}).get("type") and node.op == cls.op
    with pytest.raises(ShapeInferenceError, match=f"node 'n' is MO's {name}.*{says}"):
        node.infer(node)
