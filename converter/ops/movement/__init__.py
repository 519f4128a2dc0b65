"""Data movement and shape ops: reshape, transpose, slicing, gather/scatter, padding, generation."""

from converter.ops.movement import (
    broadcast,
    concat,
    eye,
    gather,
    gather_elements,
    gather_nd,
    non_zero,
    one_hot,
    pad,
    range,
    reshape,
    reverse_sequence,
    roll,
    scatter_elements_update,
    scatter_nd_update,
    scatter_update,
    shuffle_channels,
    slice,
    split,
    squeeze,
    strided_slice,
    tile,
    transpose,
)

__all__ = [
    "broadcast", "concat", "eye", "gather", "gather_elements", "gather_nd", "non_zero",
    "one_hot", "pad", "range", "reshape", "reverse_sequence", "roll", "scatter_elements_update",
    "scatter_nd_update", "scatter_update", "shuffle_channels", "slice", "split", "squeeze",
    "strided_slice", "tile", "transpose",
]
