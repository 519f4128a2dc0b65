"""Placeholders for the torch.library ops a model calls that this process has not registered
(the usual case in `extgen convert`: the op's module is the user's): torch loads a model only
when every op it calls exists. Each placeholder has the schema the archive's call implies (its
arguments' names and types) and, for a .pt2, a fake kernel giving the recorded output shapes,
which run_decompositions traces with. It never computes: the converter maps the op to the
extension that does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from converter.front.pytorch.archive import CustomCall, custom_calls

__all__ = ["register_missing_ops"]

_LIBRARIES: list = []  # torch drops a Library's definitions when it is garbage collected
# torch.export's serialized dtype names whose torch attribute is spelled otherwise
_DTYPE_NAMES = {"CHAR": "int8", "BYTE": "uint8", "UNKNOWN": "float32"}


def register_missing_ops(torch: Any, model: Path) -> None:
    """A placeholder for each custom op of model that torch does not know here."""
    seen: set[str] = set()
    for call in custom_calls(model):
        ns, name = call.op_type.split("::", 1)
        if call.op_type in seen or hasattr(getattr(torch.ops, ns), name):
            continue
        seen.add(call.op_type)
        library = torch.library.Library(ns, "FRAGMENT")
        library.define(name + _schema(call))
        if any(out is not None for out in call.outputs):
            torch.library.register_fake(call.op_type, _fake(torch, call), lib=library)
        _LIBRARIES.append(library)


def _schema(call: CustomCall) -> str:
    arguments = ", ".join(f"{kind} {name}" for name, kind, _ in call.arguments)
    returns = ", ".join("Tensor" for _ in call.outputs)
    return f"({arguments}) -> " + (returns if len(call.outputs) == 1 else f"({returns})")


def _fake(torch: Any, call: CustomCall):
    """A fake kernel: empty tensors of the outputs' recorded sizes and dtypes."""
    from torch._export.serde.schema import ScalarType

    outputs = []
    for sizes, code in (out or ([], 0) for out in call.outputs):
        name = ScalarType(code).name
        outputs.append((sizes, getattr(torch, _DTYPE_NAMES.get(name, name.lower()))))

    def fake(*args: Any, **kwargs: Any) -> Any:
        made = [torch.empty(sizes, dtype=dtype) for sizes, dtype in outputs]
        return made[0] if len(made) == 1 else tuple(made)

    return fake
