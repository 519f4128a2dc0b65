"""Data movement and shape ops: reshape, transpose, slicing, gather/scatter, padding, generation."""

from converter.ops.movement import (
    broadcast,
    concat,
    embedding_bag,
    extract_image_patches,
    eye,
    gather,
    gather_elements,
    gather_nd,
    gather_tree,
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
    space_batch,
    split,
    squeeze,
    strided_slice,
    tile,
    transpose,
)

__all__ = [
    "broadcast", "concat", "embedding_bag", "extract_image_patches", "eye", "gather",
    "gather_elements", "gather_nd", "gather_tree", "non_zero", "one_hot", "pad", "range",
    "reshape", "reverse_sequence", "roll", "scatter_elements_update", "scatter_nd_update",
    "scatter_update", "shuffle_channels", "slice", "space_batch", "split", "squeeze",
    "strided_slice", "tile", "transpose",
]
