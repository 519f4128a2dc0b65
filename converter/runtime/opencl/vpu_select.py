"""Which MVCL binding of a layer's type the MYRIAD plugin takes, and how it lays tensors out
(2022.3: graph_transformer/src/frontend/frontend.cpp getSuitableCustomLayer, frontend/
custom_layer.cpp meetsWhereRestrictions and formatFromLayout, stages/custom.cpp, model/
data_desc.cpp DataDesc::reorder).

Of the CustomLayers named like the layer's type, in file order, the suitable ones meet their
<Where> and have work sizes that parse against the layer's attributes; the first of those whose
input formats match the layer's layouts wins, else the first suitable one. A tensor's layout
follows its rank: NC (BF), CHW (FYX) or NCHW (BFYX); other ranks have no custom-layer format."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from converter.errors import KernelConfigError
from converter.runtime.opencl.expressions import plugin_number
from converter.runtime.opencl.vpu_config import VpuStage

__all__ = ["LAYOUTS", "check_ranks", "choose", "desc_dims", "myriad_4d", "suitable",
           "where_matches"]

LAYOUTS = {2: "BF", 3: "FYX", 4: "BFYX"}  # formatFromLayout of TensorDesc's default layouts
_ORDERED = {"BFYX": 4, "BYXF": 4, "FYX": 3, "YXF": 3}  # stages/custom.cpp formatsMap
_STOF = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")  # std::stof's prefix


def _f32(text: str) -> float:
    return float(np.float32(text))


def _restriction(want: str, where: str) -> float:
    m = _STOF.match(want)
    if m is None:
        msg = (f"{where}{': ' if where else ''}<Where> value '{want}' is no number, but the "
               "layer's attribute is one (the plugin's std::stof throws)")
        raise KernelConfigError(msg)
    return _f32(m.group())


def where_matches(where: dict[str, str], attrs: dict[str, str], label: str = "") -> bool:
    """CustomLayer::meetsWhereRestrictions: every key is an attribute; a numeric attribute is
    compared in float32 (`>=2`, `<=2`, `>2`, `<2`, `!=0`, else equality), any other as text,
    ignoring case."""
    for key, want in where.items():
        have = attrs.get(key)
        if have is None:
            return False
        number = plugin_number(have)
        if number is None:
            if have.lower() != want.lower():
                return False
            continue
        op = next((o for o in (">=", "<=", ">", "<", "!=") if want.startswith(o)), "")
        limit, value = _restriction(want[len(op):], label), _f32(str(number))
        if not {">=": value >= limit, "<=": value <= limit, ">": value > limit,
                "<": value < limit, "!=": value != limit, "": value == limit}[op]:
            return False
    return True


def suitable(bindings: list[list[VpuStage]], attrs: dict[str, str]) -> list[list[VpuStage]]:
    """The bindings whose <Where> the attributes meet and whose work sizes all parse with them
    (CustomLayer::isLegalSizeRule), in order."""
    return [stages for stages in bindings
            if where_matches(stages[0].where, attrs, f"{stages[0].config}:{stages[0].line}")
            and all(e.legal(attrs) is None for st in stages
                    for e in (*st.work.global_, *st.work.local))]


def _input_formats(stages: list[VpuStage]) -> dict[int, str]:
    """CustomLayer's addPorts: per input port, the first format, ANY giving way to another."""
    ports: dict[int, str] = {}
    for st in stages:
        for t in st.tensors:
            if t.kind == "input" and (ports.get(t.port, "ANY") == "ANY"):
                ports[t.port] = t.format
    return ports


def choose(candidates: list[list[VpuStage]], ranks: Sequence[int]) -> int:
    """The index of the first candidate whose input formats match the inputs' layouts, else 0."""
    layouts = [LAYOUTS[r] for r in ranks]
    for k, stages in enumerate(candidates):
        formats = _input_formats(stages)
        for port in formats:
            if port >= len(layouts):
                msg = (f"{stages[0].config}:{stages[0].line}: Can't bind custom layer edge with "
                       f"port '{port}' to CNNNetwork layer (it has {len(layouts)} inputs)")
                raise KernelConfigError(msg)
        if all(f in ("ANY", layouts[p]) for p, f in formats.items()):
            return k
    return 0


def check_ranks(kind: str, shapes: Sequence[tuple[int, ...]], label: str) -> None:
    """formatFromLayout: the plugin has a custom-layer format for ranks 2, 3 and 4 only."""
    for port, shape in enumerate(shapes):
        if len(shape) not in LAYOUTS:
            msg = (f"{label}: {kind} {port} has rank {len(shape)}; the MYRIAD plugin binds custom "
                   "layers to NC, CHW and NCHW tensors only (formatFromLayout: Tensor node has "
                   "an invalid format)")
            raise KernelConfigError(msg)


def check_format(spelled: str, shape: tuple[int, ...], what: str) -> None:
    """A BFYX/BYXF tensor gets a 4D order, FYX/YXF a 3D one, which DataDesc::reorder asserts
    the tensor's rank has; BF and ANY keep the tensor's own order."""
    rank = _ORDERED.get(spelled)
    if rank is not None and rank != len(shape):
        others = "BFYX or BYXF" if len(shape) == 4 else "FYX or YXF" if len(shape) == 3 else "BF"
        msg = (f"{what}: format {spelled} orders a rank-{rank} tensor but this one has rank "
               f"{len(shape)} (the plugin's DataDesc::reorder asserts); use {others} or ANY")
        raise KernelConfigError(msg)


def desc_dims(shape: tuple[int, ...]) -> dict[str, int]:
    """B, F, Y, X of a tensor as the plugin's DataDesc names them (NC, CHW, NCHW; a missing one
    is 1)."""
    d = [int(v) for v in shape]
    named = {2: {"B": 0, "F": 1}, 3: {"F": 0, "Y": 1, "X": 2}, 4: {"B": 0, "F": 1, "Y": 2, "X": 3}}
    if len(d) not in named:
        msg = f"a rank-{len(d)} tensor {list(d)} has no MYRIAD custom-layer layout (rank 2 to 4)"
        raise KernelConfigError(msg)
    return {k: d[named[len(d)][k]] if k in named[len(d)] else 1 for k in "BFYX"}


def myriad_4d(shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """The tensor as B, F, Y, X, for its layout: [N,C] -> N,C,1,1 and [C,H,W] -> 1,C,H,W."""
    d = desc_dims(shape)
    return d["B"], d["F"], d["Y"], d["X"]
