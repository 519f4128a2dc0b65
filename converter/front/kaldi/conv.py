"""nnet1's 1-D convolution and max-pooling along the feature axis.

ConvolutionalComponent: the input is `num_splice` blocks of <PatchStride> values; patch p
takes <PatchDim> values at p * <PatchStep> of every block; each filter (a row of <Filters>,
splice-major) gives one value per patch; the output is patch-major (p * filters + f).
MaxPoolingComponent: over a patch-major input of <PoolStride> values per patch, the max of
<PoolSize> patches every <PoolStep>, again patch-major.
"""

from __future__ import annotations

import numpy as np

from converter.front.kaldi.translator import KaldiNode, kaldi_op
from converter.graph.port import Port


def _patch_major(n: KaldiNode, y: Port) -> Port:
    """[1, C, 1, P] -> [1, P * C]."""
    y = n.op("Transpose", [y, np.array([0, 2, 3, 1], np.int64)])
    return n.op("Reshape", [y, np.array([1, -1], np.int64)], special_zero=False)


def _ints(n: KaldiNode, *tags: str) -> list[int]:
    values = [n.comp.int(tag) for tag in tags]
    if any(v <= 0 for v in values):
        n.reject(f"{', '.join(tags)} must be positive, found {values}", "the model is corrupt")
    return values


@kaldi_op("ConvolutionalComponent", "Convolutional")
def convolutional(n: KaldiNode) -> list[Port]:
    patch_dim, step, stride = _ints(n, "<PatchDim>", "<PatchStep>", "<PatchStride>")
    filters, bias = n.comp.data(0), n.comp.data(1)
    in_dim = n.comp.dims[1] if n.comp.dims else filters.shape[1] // patch_dim * stride
    if filters.ndim != 2 or filters.shape[1] % patch_dim or in_dim % stride or (
            stride - patch_dim) % step or bias.shape != (filters.shape[0],):
        n.reject(f"filters {list(filters.shape)}, bias {list(bias.shape)} and patches "
                 f"{patch_dim}/{step}/{stride} do not fit an input of {in_dim}",
                 "the model is corrupt")
    splices = filters.shape[1] // patch_dim
    x = n.op("Reshape", [n.input(0), np.array([1, splices, 1, stride], np.int64)],
             special_zero=False)
    w = n.const(filters.reshape(filters.shape[0], splices, 1, patch_dim), np.float32)
    y = n.op("Convolution", [x, w], strides=[1, step], dilations=[1, 1], pads_begin=[0, 0],
             pads_end=[0, 0], auto_pad="explicit")
    y = n.op("Add", [y, n.const(bias.reshape(1, -1, 1, 1), np.float32)])
    return [_patch_major(n, y)]


@kaldi_op("MaxPoolingComponent", "MaxPooling")
def max_pooling(n: KaldiNode) -> list[Port]:
    size, stride = _ints(n, "<PoolSize>", "<PoolStride>")
    step = n.comp.int("<PoolStep>", 1)  # MO took 1 when the step is not stored
    x = n.op("Reshape", [n.input(0), np.array([1, -1, stride], np.int64)], special_zero=False)
    x = n.op("Transpose", [x, np.array([0, 2, 1], np.int64)])
    x = n.op("Unsqueeze", [x, np.array([2], np.int64)])
    pool = n.op_node("MaxPool", [x], kernel=[1, size], strides=[1, step], dilations=[1, 1],
                     pads_begin=[0, 0], pads_end=[0, 0], rounding_type="floor",
                     auto_pad="explicit", out_ports_count=2)
    return [_patch_major(n, pool.out_port(0))]
