"""ATen data movement ops: views, permutations, concatenation, splits, slices, indexing."""

from __future__ import annotations

import numpy as np

from converter.front.pytorch.ops._common import (
    I64,
    axis,
    dims_slice,
    fill_to_rank,
    rank_of,
    shape_of,
)
from converter.front.pytorch.translator import TorchNode, aten_op
from converter.graph.port import Port

_END = np.iinfo(np.int64).max


@aten_op("aten::view", "aten::reshape", "aten::_unsafe_view", "aten::view_copy")
def view(n: TorchNode):
    return [n.op("Reshape", [n.tensor(0), n.ints(1)], special_zero=False)]


@aten_op("aten::permute", "aten::permute_copy")
def permute(n: TorchNode):
    return [n.op("Transpose", [n.tensor(0), n.ints("dims")])]


@aten_op("aten::t", "aten::numpy_T")
def t(n: TorchNode):
    x = n.tensor(0)
    return [n.op("Transpose", [x, n.op("Range", [n.op("Subtract", [rank_of(n, x), n.const(
        1, np.int64)]), n.const(-1, np.int64), n.const(-1, np.int64)], output_type=I64)])]


@aten_op("aten::transpose", "aten::mT", "aten::swapaxes")
def transpose(n: TorchNode):
    """Two axes swapped (mT: the last two), the permutation built from x's rank."""
    x = n.tensor(0)
    dims = (-2, -1) if n.op_type == "aten::mT" else (int(n.arg(1)), int(n.arg(2)))
    order = n.op("Range", [n.const(0, np.int64), rank_of(n, x), n.const(1, np.int64)],
                 output_type=I64)
    a, b = (n.op("Unsqueeze", [axis(n, x, d), n.const(0, np.int64)]) for d in dims)
    perm = n.op("ScatterUpdate", [order, n.op("Concat", [a, b], axis=0),
                                  n.op("Concat", [b, a], axis=0), n.const(0, np.int64)])
    return [n.op("Transpose", [x, perm])]


@aten_op("aten::unsqueeze")
def unsqueeze(n: TorchNode):
    return [n.op("Unsqueeze", [n.tensor(0), n.const(int(n.value("dim")), np.int64)])]


@aten_op("aten::squeeze")
def squeeze(n: TorchNode):
    dim = n.arg("dim")
    if dim is None:
        return [n.op("Squeeze", [n.tensor(0)])]
    return [n.op("Squeeze", [n.tensor(0), n.ints("dim")])]


@aten_op("aten::flatten")
def flatten(n: TorchNode):
    x = n.tensor(0)
    start, end = int(n.value("start_dim", 0)), int(n.value("end_dim", -1))
    if end == -1:
        return [n.op("Reshape", [x, n.const([0] * start + [-1], np.int64)], special_zero=True)]
    stop = None if end == -1 else end + 1
    shape = n.op("Concat", [dims_slice(n, x, 0, start), n.const([-1], np.int64),
                            dims_slice(n, x, stop, None)], axis=0)
    return [n.op("Reshape", [x, shape])]


@aten_op("aten::unflatten")
def unflatten(n: TorchNode):
    x, dim = n.tensor(0), int(n.value("dim"))
    parts = [dims_slice(n, x, 0, dim), n.ints("sizes")]
    if dim != -1:
        parts.append(dims_slice(n, x, dim + 1, None))
    return [n.op("Reshape", [x, n.op("Concat", parts, axis=0)], special_zero=False)]


@aten_op("aten::expand", "aten::expand_copy", "aten::broadcast_to")
def expand(n: TorchNode):
    """-1 keeps a dim: 1 in a bidirectional broadcast."""
    size = [1 if isinstance(s, int) and s == -1 else s for s in n.arg(1)]
    return [n.op("Broadcast", [n.tensor(0), n.joined(size)], mode="bidirectional")]


@aten_op("aten::expand_as")
def expand_as(n: TorchNode):
    return [n.op("Broadcast", [n.tensor(0), shape_of(n, n.tensor(1))], mode="bidirectional")]


@aten_op("aten::cat", "aten::concat", "aten::concatenate")
def cat(n: TorchNode):
    """torch skips empty 1-D tensors (an empty cache's torch.tensor([])) of any rank's cat."""
    tensors = [t for t in n.arg("tensors") if not _empty_vector(t)]
    return [n.op("Concat", tensors, axis=int(n.value("dim", 0)))]


def _empty_vector(port) -> bool:
    return port.node.soft_get("op") == "Const" and np.shape(port.node.value) == (0,)


@aten_op("aten::stack")
def stack(n: TorchNode):
    dim = n.const(int(n.value("dim", 0)), np.int64)
    return [n.op("Concat", [n.op("Unsqueeze", [t, dim]) for t in n.arg("tensors")],
                 axis=int(n.value("dim", 0)))]


@aten_op("aten::split_with_sizes", "aten::split", "aten::split_copy")
def split(n: TorchNode):
    sizes = n.value(1)
    x, dim = n.tensor(0), n.const(int(n.value("dim", 0)), np.int64)
    count = n.node.soft_get("out_ports_count", 1)
    if not isinstance(sizes, list):  # a chunk size: equal parts, the last one shorter
        sizes = [int(sizes)] * (count - 1) + [-1]
    node = n.op_node("VariadicSplit", [x, dim, n.const(np.array(sizes, np.int64))])
    return [node.out_port(k) for k in range(len(sizes))]


@aten_op("aten::chunk")
def chunk(n: TorchNode):
    parts = int(n.value("chunks"))
    node = n.op_node("Split", [n.tensor(0), n.const(int(n.value("dim", 0)), np.int64)],
                     num_splits=parts)
    return [node.out_port(k) for k in range(parts)]


@aten_op("aten::slice", "aten::slice_copy")
def slice_(n: TorchNode):
    start, end = n.arg("start", 0), n.arg("end", _END)
    bounds = [n.ints(k) if n.arg(k) is not None else n.const([default], np.int64)
              for k, default in (("start", start), ("end", end))]
    return [n.op("Slice", [n.tensor(0), *bounds, n.const([int(n.value("step", 1))], np.int64),
                           n.const([int(n.value("dim", 0))], np.int64)])]


@aten_op("aten::index_select")
def index_select(n: TorchNode):
    return [n.op("Gather", [n.tensor(0), n.tensor("index"), n.const(int(n.value("dim")),
                                                                      np.int64)])]


@aten_op("aten::select")
def select(n: TorchNode):
    return [n.op("Gather", [n.tensor(0), n.tensor("index"), n.const(int(n.value("dim")),
                                                                      np.int64)])]


@aten_op("aten::index")
def index(n: TorchNode):
    """One index tensor: a Gather on its axis. Several adjacent ones (after k full slices):
    the indexed axes moved first, a GatherND of their broadcast positions, and the k leading
    axes moved back in front of the result."""
    indices = n.arg("indices")
    used = [k for k, v in enumerate(indices) if v is not None]
    x, first = n.tensor(0), used[0]
    if len(used) == 1:
        return [n.op("Gather", [x, indices[first], n.const(first, np.int64)])]
    if used != list(range(first, first + len(used))):
        n.reject("index tensors apart from each other are not supported", "change the model")
    wide = [n.op("Convert", [indices[k]], destination_type=I64) for k in used]
    total = wide[0]
    for item in wide[1:]:
        total = n.op("Add", [total, item])
    last = n.const([-1], np.int64)
    stacked = n.op("Concat", [n.op("Unsqueeze", [n.op("Broadcast", [w, shape_of(n, total)]),
                                                 last]) for w in wide], axis=-1)
    if first == 0:
        return [n.op("GatherND", [x, stacked], batch_dims=0)]
    front = n.op("Transpose", [x, _moved(n, rank_of(n, x), first, len(used), first)])
    y = n.op("GatherND", [front, stacked], batch_dims=0)
    return [n.op("Transpose", [y, _moved(n, rank_of(n, y), 0, rank_of(n, total), first)])]


def _moved(n: TorchNode, rank: Port, start: int, count: Port | int, place: int) -> Port:
    """The permutation that puts the axes [start, start + count) of a tensor of `rank` first,
    when place == start; or, when start == 0, the `place` axes after them first."""
    def span(a, b) -> Port:
        return n.op("Range", [n.const(a, np.int64) if isinstance(a, int) else a,
                              n.const(b, np.int64) if isinstance(b, int) else b,
                              n.const(1, np.int64)], output_type=I64)

    count = n.const(count, np.int64) if isinstance(count, int) else count
    if start:  # x: [pre (start) | indexed (count) | rest] -> [indexed, pre, rest]
        end = n.op("Add", [count, n.const(start, np.int64)])
        parts = [span(n.const(start, np.int64), end), span(0, start), span(end, rank)]
    else:  # y: [broadcast (count) | pre (place) | rest] -> [pre, broadcast, rest]
        end = n.op("Add", [count, n.const(place, np.int64)])
        parts = [span(count, end), span(0, count), span(end, rank)]
    return n.op("Concat", parts, axis=0)


@aten_op("aten::gather")
def gather(n: TorchNode):
    return [n.op("GatherElements", [n.tensor(0), n.tensor("index")],
                 axis=int(n.value("dim")))]


@aten_op("aten::flip")
def flip(n: TorchNode):
    dims = [int(d) for d in n.value("dims")]
    count = len(dims)
    return [n.op("Slice", [n.tensor(0), n.const([-1] * count, np.int64),
                           n.const([np.iinfo(np.int64).min] * count, np.int64),
                           n.const([-1] * count, np.int64), n.const(dims, np.int64)])]


@aten_op("aten::as_strided", "aten::as_strided_copy")
def as_strided(n: TorchNode):
    """The strided view of a contiguous tensor: its flat values gathered at the view's
    offsets."""
    size, stride = [int(s) for s in n.value("size")], [int(s) for s in n.value("stride")]
    offsets = np.full(size, int(n.value("storage_offset", 0) or 0), np.int64)
    for k, (extent, step) in enumerate(zip(size, stride, strict=True)):
        shape = [1] * len(size)
        shape[k] = extent
        offsets = offsets + (np.arange(extent, dtype=np.int64) * step).reshape(shape)
    flat = n.op("Reshape", [n.tensor(0), n.const([-1], np.int64)])
    return [n.op("Gather", [flat, n.const(offsets), n.const(0, np.int64)])]


@aten_op("aten::constant_pad_nd", "aten::pad")
def pad(n: TorchNode):
    """torch's pads: (begin, end) pairs from the last axis backwards; the axes before them
    unpadded."""
    pads = [int(p) for p in n.value("pad")]
    if n.value("mode", "constant") != "constant":
        n.reject_arg("mode", "only constant padding is supported")
    x, count = n.tensor(0), len(pads) // 2
    begin, end = (n.op("Concat", [fill_to_rank(n, x, 0, count),
                                  n.const(pads[first::2][::-1], np.int64)], axis=0)
                  for first in (0, 1))
    value = n.op("ConvertLike", [n.const(float(n.value("value", 0.0) or 0.0)), x])
    return [n.op("Pad", [x, begin, end, value], pad_mode="constant")]


@aten_op("aten::roll")
def roll(n: TorchNode):
    return [n.op("Roll", [n.tensor(0), n.ints("shifts"), n.ints("dims")])]
