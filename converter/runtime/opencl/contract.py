"""The values the GPU (SimpleGPU) and VPU (MVCL) kernel XML may hold, in one place: the XML loader
checks each file against them and the generator (`extgen new`) checks its input before writing."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, get_args

__all__ = ["GPU_FORMATS", "SCALAR_TYPES", "VPU_FORMATS", "GpuFormat", "ScalarType", "VpuScalar",
           "output_limit", "rank_limit"]

GpuFormat = Literal["BFYX", "BYXF", "YXFB", "FYXB", "ANY"]
ScalarType = Literal["int", "float"]
GPU_FORMATS: tuple[str, ...] = get_args(GpuFormat)
# MYRIAD custom_kernel.cpp formatFromString (any case); the 2021 documentation's BFXY is none
VPU_FORMATS = ("BFYX", "BYXF", "FYX", "YXF", "BF", "ANY")
SCALAR_TYPES: tuple[str, ...] = get_args(ScalarType)
_DIM_SOURCE = re.compile(r"([IO])(\d+|n)?\.([BFYX])", re.IGNORECASE)
_ATTR_SOURCE = re.compile(r"[A-Za-z_][\w-]*")


# One output per custom layer: intel_gpu plugin/ops/custom.cpp registers OUTPUT0 alone (master
# since 2026 takes more for dynamic models only); MYRIAD stages/custom.cpp parseCustom asserts it.
_ONE_OUTPUT = {
    "gpu": "OpenVINO's GPU plugin compiles a custom layer with one output only (OUTPUT0, "
           "plugin/ops/custom.cpp)",
    "vpu": "OpenVINO's MYRIAD plugin runs a custom layer with one output only (parseCustom "
           "asserts it, stages/custom.cpp)",
}


def output_limit(device: str, n_outputs: int) -> str | None:
    """Why `device` (gpu, gpu-pad, vpu) cannot run an op with n_outputs, or None."""
    if n_outputs <= 1:
        return None
    return f"{_ONE_OUTPUT[device.split('-')[0].lower()]}; the op has {n_outputs}"


def rank_limit(device: str, in_rank: int, out_rank: int) -> str | None:
    """Why the generated kernel of `device` (gpu, vpu), which binds every tensor as BFYX, cannot
    run with these input and output ranks, or None."""
    if device == "vpu" and (in_rank, out_rank) != (4, 4):
        # stages/custom.cpp: BFYX orders a tensor NCHW (model/data_desc.cpp DataDesc::reorder
        # asserts the ranks agree) and dim Scalars count from the right (dims.at)
        return (f"the MYRIAD plugin orders a BFYX tensor as NCHW and reads the dim Scalars "
                f"(O.B, ...) from the right, which needs rank 4 (input rank {in_rank}, output "
                f"rank {out_rank}): its VPU kernel cannot run there")
    if device == "gpu" and max(in_rank, out_rank) > 4:
        # plugin/ops/custom.cpp: the output layout from dims 0..3, inputs reordered to BFYX
        return (f"OpenVINO's GPU plugin lays a custom layer's tensors out in 4D formats (its "
                f"output from dims 0 to 3, plugin/ops/custom.cpp); input rank {in_rank}, output "
                f"rank {out_rank}: its GPU kernel cannot run there")
    return None


@dataclass(frozen=True, kw_only=True)
class VpuScalar:
    """An extra kernel argument the MVCL XML fills: a dimension or an IR attribute."""

    name: str = field(metadata={"description": "the kernel argument's name"})
    type: ScalarType = field(default="int", metadata={"description": "its OpenCL type"})
    source: str = field(metadata={
        "description": "I.X, O.F, ... (a dimension of input / output port_index) or an IR "
                       "attribute name"})
    port_index: int = field(default=0, metadata={
        "description": "the tensor a dimension source refers to"})

    def __post_init__(self) -> None:
        if not self.name:
            msg = "a Scalar needs a name (arg-name)"
            raise ValueError(msg)
        if self.type not in SCALAR_TYPES:
            msg = f"Scalar type '{self.type}' is not one of {', '.join(SCALAR_TYPES)}"
            raise ValueError(msg)
        if not (_DIM_SOURCE.fullmatch(self.source) or _ATTR_SOURCE.fullmatch(self.source)):
            msg = (f"source '{self.source}' is neither a dimension like I.X / O.F "
                   "nor an attribute name")
            raise ValueError(msg)
        if self.port_index < 0:
            msg = f"port_index {self.port_index} is negative"
            raise ValueError(msg)

    def dimension(self) -> tuple[str, int, str] | None:
        """('input' | 'output', port, 'B' | 'F' | 'Y' | 'X') for a dimension source, else None,
        as the MYRIAD plugin reads it: an input's only for exactly `I.`, else the output's
        (`I1.Y` too), of port port_index."""
        m = _DIM_SOURCE.fullmatch(self.source)
        if m is None:
            return None
        kind = "input" if m[1] == "I" and not m[2] else "output"
        return kind, self.port_index, m[3].upper()
