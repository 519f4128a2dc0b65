"""Kaldi's time offsets in a net that runs one frame per inference, as MO made it.

Every node gets a delay d >= 0: at call t it holds Kaldi's value for frame t - d. A node that
reads frame offset o of a source must wait until that frame has arrived, so
d(node) >= d(source) + o, and it reads the source's value from d(node) - o - d(source) calls
ago (a delay line of variables, zero before the first frames: MO's padding). Recurrent
connections (negative offsets back to an earlier node) read their own past the same way.
"""

from __future__ import annotations

from collections.abc import Iterator

from converter.errors import ModelFormatError, UnsupportedOpError
from converter.front.kaldi.component import Component

__all__ = ["component_offsets", "delays", "leaves", "output_dim"]


def leaves(tree, offset: int = 0) -> Iterator[tuple[str, int]]:
    """(node name, total time offset) of every node a descriptor reads."""
    if isinstance(tree, str):
        yield tree, offset
        return
    if not isinstance(tree, tuple):
        return
    fn, args = tree[0], tree[1:]
    if fn == "Offset":
        if len(args) > 2 and args[2] != 0:
            msg = f"nnet3 descriptor Offset{args}: an x offset is not supported"
            raise UnsupportedOpError(msg)
        yield from leaves(args[0], offset + int(args[1]))
    elif fn in ("Scale", "Const"):
        yield from (() if fn == "Const" else leaves(args[1], offset))
    elif fn in ("IfDefined", "ReplaceIndex"):
        yield from leaves(args[0], offset)
    else:
        for arg in args:
            yield from leaves(arg, offset)


def component_offsets(comp: Component | None) -> list[int]:
    """The frames a component splices itself (TdnnComponent's <TimeOffsets>), else [0]."""
    if comp is None or comp.type != "TdnnComponent" or not comp.has("<TimeOffsets>"):
        return [0]
    return [int(t) for t in comp.array("<TimeOffsets>")]


def delays(reads: dict[str, list[tuple[str, int]]]) -> dict[str, int]:
    """Each node's delay: the least d >= 0 with d >= d(source) + offset for all it reads."""
    d = dict.fromkeys(reads, 0)
    for _ in range(len(d) + 1):
        changed = False
        for node, sources in reads.items():
            want = max([0] + [d.get(src, 0) + off for src, off in sources])
            if want > d[node]:
                d[node], changed = want, True
        if not changed:
            return d
    msg = "nnet3 config: a node depends on its own future frames (a cycle with no negative offset)"
    raise ModelFormatError(msg)


def output_dim(comp: Component, input_dim) -> int:
    """A component's output dim; input_dim() is called only for dim-preserving components."""
    if comp.dims is not None:
        return comp.dims[0]
    if comp.type == "LstmNonlinearityComponent":
        return 2 * comp.array("<Params>").shape[1]
    for tag in ("<LinearParams>", "<Params>"):
        if comp.has(tag) and comp.array(tag).ndim == 2:
            return comp.array(tag).shape[0]
    if comp.has("<OutputDim>"):
        return comp.int("<OutputDim>")
    return input_dim()
