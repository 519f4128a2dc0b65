"""--enable_ssd_gluoncv: a GluonCV SSD export (HybridBlock.export of gluoncv.model_zoo SSD) onto
one DetectionOutput, as MO's SsdPatternDetectionOutputReplacer, SsdPatternAnchorReshape and
SsdAnchorsReplacer did it.

GluonCV ends the network in a box decoder, a per-class decoder and _contrib_box_nms, which
OpenVINO has no op for. The rewrite takes the three tensors before them: the class scores
(the `softmax` over [N, P, C+1]), the box offsets (the Concat of the box heads, [N, P*4]) and
the anchors (the Concat of the slice_like'd anchor constants, centre form, reshaped to
[1, P, 4]). It appends the symbol API's SSD head to them (anchors to corner form, scores to
[N, C+1, P], _contrib_MultiBoxDetection with box_nms' topk and overlap_thresh, confidence
0.01, no clipping, and the decoder's stds as variances) and makes it the only output, as MO
did; the decoder and NMS nodes are dropped."""

from __future__ import annotations

from typing import Any

from converter.errors import ModelFormatError
from converter.front.mxnet.attrs import get_mxnet_layer_attrs
from converter.front.mxnet.symbol import Symbol

__all__ = ["rewrite_gluoncv_ssd"]

_RESHAPES = ("Reshape", "reshape")


def _fail(symbol: Symbol, what: str) -> ModelFormatError:
    return ModelFormatError(f"{symbol.path}: --enable_ssd_gluoncv: {what}; is this a GluonCV "
                            "SSD export (HybridBlock.export)?")


def _source(nodes: list[dict], i: int, port: int = 0) -> int:
    return nodes[i]["inputs"][port][0]


def _consumers(nodes: list[dict], i: int) -> list[int]:
    return [j for j, n in enumerate(nodes) if any(e[0] == i for e in n.get("inputs", []))]


def _behind_reshapes(nodes: list[dict], i: int) -> int:
    while nodes[i]["op"] in _RESHAPES:
        i = _source(nodes, i)
    return i


def _one(symbol: Symbol, found: list[int], what: str) -> int:
    if len(found) != 1:
        raise _fail(symbol, f"found {len(found)} {what}, expected one")
    return found[0]


def _tensors(symbol: Symbol) -> tuple[int, int, int]:
    """(softmax, box Concat, anchors Reshape [1, P, 4]) node indices."""
    nodes = symbol.nodes
    softmax = _one(symbol, [i for i, n in enumerate(nodes) if n["op"] == "softmax"],
                   "softmax nodes (the class scores)")
    scores_concat = _behind_reshapes(nodes, _source(nodes, softmax))
    concats = [i for i, n in enumerate(nodes) if n["op"] in ("Concat", "concat")
               and i != scores_concat and n.get("inputs")]
    anchor_concats = [i for i in concats if all(
        nodes[_behind_reshapes(nodes, e[0])]["op"] == "slice_like" for e in nodes[i]["inputs"])]
    anchors_concat = _one(symbol, anchor_concats, "Concats of slice_like'd anchors")
    heads = [i for i in concats if all(
        nodes[e[0]]["op"] in ("Flatten", "flatten") for e in nodes[i]["inputs"])]
    box = _one(symbol, heads, "Concats of box predictions")
    anchors = [j for j in _consumers(nodes, anchors_concat) if nodes[j]["op"] in _RESHAPES]
    return softmax, box, _one(symbol, anchors, "reshapes of the anchors")


def _stds(nodes: list[dict], box: int) -> list[float]:
    """The box decoder's scale per coordinate: the _mul_scalar on each output of the split of
    the reshaped box predictions (0.1, 0.1, 0.2, 0.2 when not found, as MO)."""
    stds = [0.1, 0.1, 0.2, 0.2]
    for reshape in _consumers(nodes, box):
        for split in _consumers(nodes, reshape):
            if nodes[split]["op"] not in ("SliceChannel", "split"):
                continue
            for j in _consumers(nodes, split):
                entry = next(e for e in nodes[j]["inputs"] if e[0] == split)
                if nodes[j]["op"] == "_mul_scalar" and entry[1] < 4:
                    stds[entry[1]] = get_mxnet_layer_attrs(nodes[j]).float("scalar", 1.0)
    return stds


def _keep_reachable(nodes: list[dict], head: int) -> tuple[list[dict], int]:
    """The nodes the head depends on, in order, inputs renumbered; and the head's new index."""
    needed, todo = set(), [head]
    while todo:
        i = todo.pop()
        if i not in needed:
            needed.add(i)
            todo += [e[0] for e in nodes[i].get("inputs", [])]
    order = sorted(needed)
    index = {old: new for new, old in enumerate(order)}
    kept = [{**nodes[i], "inputs": [[index[e[0]], *e[1:]] for e in nodes[i].get("inputs", [])]}
            for i in order]
    return kept, index[head]


def rewrite_gluoncv_ssd(symbol: Symbol) -> Symbol:
    nodes = list(symbol.nodes)
    nms = _one(symbol, [i for i, n in enumerate(nodes) if n["op"] == "_contrib_box_nms"],
               "_contrib_box_nms nodes")
    attrs = get_mxnet_layer_attrs(nodes[nms])
    softmax, box, anchors = _tensors(symbol)

    def add(op: str, name: str, inputs: list[int], **kw: Any) -> int:
        nodes.append({"op": op, "name": f"ssd_gluoncv/{name}",
                      "inputs": [[i, 0, 0] for i in inputs],
                      "attrs": {k: str(v) for k, v in kw.items()}})
        return len(nodes) - 1

    centre = add("slice_axis", "anchor_centre", [anchors], axis=2, begin=0, end=2)
    half = add("_mul_scalar", "anchor_half_size", [
        add("slice_axis", "anchor_size", [anchors], axis=2, begin=2, end=4)], scalar=0.5)
    corners = add("Concat", "anchor_corners", [
        add("elemwise_sub", "anchor_min", [centre, half]),
        add("elemwise_add", "anchor_max", [centre, half])], dim=2)
    scores = add("transpose", "scores", [softmax], axes=(0, 2, 1))
    stds = _stds(nodes, box)
    detection = add("_contrib_MultiBoxDetection", "DetectionOutput", [scores, box, corners],
                    nms_threshold=attrs.float("overlap_thresh", 0.45),
                    nms_topk=attrs.int("topk", 400), threshold=0.01, clip=False,
                    variances=tuple(stds))
    kept, head = _keep_reachable(nodes, detection)
    return Symbol(symbol.path, kept, [(head, 0)])
