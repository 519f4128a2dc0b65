"""Neural-network ops: convolution, pooling, matmul, normalization, softmax, resize."""

from converter.ops.nn import (
    batch_norm,
    col2im,
    convolution,
    convolution_backprop,
    deformable_convolution,
    depth_to_space,
    grid_sample,
    interpolate,
    lrn,
    matmul,
    normalization,
    pooling,
    softmax,
)

__all__ = [
    "batch_norm",
    "col2im",
    "convolution",
    "convolution_backprop",
    "deformable_convolution",
    "depth_to_space",
    "grid_sample",
    "interpolate",
    "lrn",
    "matmul",
    "normalization",
    "pooling",
    "softmax",
]
