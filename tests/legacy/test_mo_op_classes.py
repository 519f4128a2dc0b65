"""MO's op classes create the node MO 2023.3 created: `Mul(graph, {}).create_node()` has op
'Mul' (type Multiply) as in MO, so extension code that looks for MO's op names finds the nodes
other extension code built, and MO's constructor defaults (`Reshape`'s special_zero=True, ...)
hold. MO's answers are recorded (tests/mo_oracle.py `op_classes`)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from converter.graph.graph import Graph
from converter.legacy import legacy_imports
from converter.legacy.importer import LegacyImportError
from tests.mo_oracle import op_classes

FIELDS = ("op", "type", "version", "in", "out")  # and `attrs`: MO's constructor defaults

# MO class -> the fields that still differ from MO right after construction, and why
STILL_DIFFERENT: dict[str, tuple[str, ...]] = {
    # the same padding: MO's opset1 default is the scalar 0, Interpolate-11's pads are lists
    "interpolate.Interpolate": ("attrs.pads_begin", "attrs.pads_end"),
}


def _plain(value: object) -> object:
    """A node attribute as the recording has it (tuples and arrays as lists)."""
    if isinstance(value, (tuple, list, np.ndarray)):
        return np.asarray(value).tolist()
    return value.item() if isinstance(value, np.generic) else value


def _built(key: str, mo: dict) -> dict | None:
    """What our layer's class `module.Class` of MO's ops package puts on a new node, for the
    fields and attributes MO's facts name (None: the layer refuses the name, in one
    LegacyImportError)."""
    module, name = key.rsplit(".", 1)
    try:
        cls = getattr(importlib.import_module(f"openvino.tools.mo.ops.{module}"), name)
    except LegacyImportError:
        return None
    graph = Graph()
    graph.stage = "front"
    node = cls(graph, {}).create_node()
    return {"op": node.soft_get("op", None), "type": node.soft_get("type", None),
            "version": node.soft_get("version", None), "in": len(node.in_ports()),
            "out": len(node.out_ports()),
            "attrs": {attr: _plain(node.soft_get(attr, None)) for attr in mo["attrs"]}}


def _differing(mo: dict, ours: dict) -> tuple[str, ...]:
    fields = [f for f in FIELDS if mo[f] != ours[f]]
    return (*fields, *(f"attrs.{a}" for a, v in mo["attrs"].items() if ours["attrs"][a] != v))


@pytest.fixture(scope="module")
def compared() -> dict[str, tuple[dict, dict]]:
    """`module.Class` -> (MO's facts, ours) for each class both build."""
    recorded = op_classes()
    with legacy_imports():
        ours = {key: _built(key, mo) for key, mo in recorded.items()}
    return {key: (recorded[key], got) for key, got in ours.items() if got is not None}


def test_most_of_mos_op_classes_are_compared(compared):
    assert len(compared) >= 230


def test_each_op_class_creates_the_node_mo_created(compared):
    differing = {key: _differing(mo, ours) for key, (mo, ours) in compared.items()}
    differing = {key: fields for key, fields in differing.items() if fields}
    shown = {key: fields for key, fields in differing.items()
             if STILL_DIFFERENT.get(key) != fields}
    assert not shown, f"fields differing from MO: {shown}"
    assert set(differing) == set(STILL_DIFFERENT)
