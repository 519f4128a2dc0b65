"""The torch.library custom ops a PyTorch model file calls, for `extgen check`, read as the
converter reads them without torch (converter.front.pytorch.archive): a torch.export program
(.pt2) or a TorchScript archive (.pt, .pth), argument names from the op's schema when torch
knows the op here.

Every call's tensors are the op's inputs and its other arguments (constants) its attributes, in
the call's order, as the generated mappings read them (framework_types.pytorch).
"""

from __future__ import annotations

from pathlib import Path

from converter.framework_names import SUFFIXES
from converter.front.pytorch.archive import custom_calls
from extgen.model_ops import UnknownOp

__all__ = ["TORCH_SUFFIXES", "find_torch_custom_ops"]

TORCH_SUFFIXES = SUFFIXES["pytorch"]  # the files the converter reads as PyTorch


def find_torch_custom_ops(model: Path) -> list[UnknownOp]:
    """The custom ops (not aten/prim) the model's graph calls, one entry per op."""
    found: dict[str, UnknownOp] = {}
    for call in custom_calls(model):
        entry = found.setdefault(call.op_type, UnknownOp("pytorch", call.op_type))
        entry.nodes.append(call.node)
        entry.inputs = max(entry.inputs, call.tensors)
        entry.outputs = max(entry.outputs, len(call.outputs) or 1)
        names = _argument_names(call.op_type)
        for k, (name, _, value) in enumerate(call.arguments):
            if value is not None:
                key = names[k] if name.startswith("arg") and k < len(names) else name
                entry.attributes.setdefault(key, value)
    return sorted(found.values(), key=lambda op: op.op_type)


def _argument_names(op_type: str) -> list[str]:
    """The op's argument names from its schema when torch is installed and knows the op here;
    else none (then the archive's: arg<k> in TorchScript)."""
    try:
        import torch

        schemas = torch._C._jit_get_schemas_for_operator(op_type)
    except Exception:  # noqa: BLE001  (no torch, or an op this process has not registered)
        return []
    return [a.name for a in schemas[0].arguments] if schemas else []
