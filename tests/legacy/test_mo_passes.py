"""MO's own transformation classes resolve to ordering stand-ins at MO's position."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from converter.errors import ExtensionError
from converter.graph.graph import Graph
from converter.legacy import legacy_imports
from converter.legacy.mo_ops.strided_slice_masks import MASKS_NORMALIZED
from converter.legacy.mo_pass_order import MO_PASSES
from converter.legacy.mo_passes import BEHAVES, STANDINS
from converter.legacy.names import ROOTS
from converter.legacy.tf_space_batch import NORMALIZED as SPACE_BATCH_NORMALIZED
from converter.middle.layout.transposes import LayoutChangeNHWCtoNCHW
from converter.options import ConvertOptions
from converter.passes import Anchor, ReplacementPattern, order_passes
from converter.pipeline import convert
from tests.legacy.conftest import write_ext


@pytest.fixture(autouse=True)
def _restore_passes():
    """Start without stand-ins (tests outside a conversion may have named some), end as found."""
    saved = list(ReplacementPattern.registered_cls)
    ReplacementPattern.registered_cls[:] = [c for c in saved if c not in STANDINS.values()]
    yield
    ReplacementPattern.registered_cls[:] = saved


def _phase_order(phase: str) -> list[str]:
    excluded = set(ReplacementPattern.excluded_replacers)
    classes = [c for c in ReplacementPattern.registered_cls
               if c.phase == phase and c not in excluded]
    return [c.__name__ for c in order_passes(classes)]


def test_every_mo_transformation_resolves_under_every_root() -> None:
    count = 0
    with legacy_imports():
        for module, table in MO_PASSES.items():
            for root in ROOTS:
                mod = importlib.import_module(f"{root}.{module}")
                for name in table:
                    cls = getattr(mod, name)
                    phase = {"load": "front"}.get(*[module.split(".")[0]] * 2)  # MO's loading
                    assert cls.phase == phase  # (MO's loading ended in front)
                    assert issubclass(cls, Anchor) != (name in BEHAVES)
                    count += 1
    assert count == 147 * len(ROOTS)


def test_stand_ins_keep_mo_order_around_extgen_phase_points() -> None:
    assert "ApplyPermutation" not in _phase_order("middle")  # until extension code names one
    with legacy_imports():
        from openvino.tools.mo.middle.ApplyPermutations import ApplyPermutation  # noqa: F401
    middle, front, back = _phase_order("middle"), _phase_order("front"), _phase_order("back")
    pos = {name: i for i, name in enumerate(middle)}
    layout = LayoutChangeNHWCtoNCHW.__name__
    assert pos["PartialInfer"] < pos["PreMiddleStart"] < pos["MiddleStart"]
    # MO 2023.3: its layout passes follow PostMiddleStart (middle/MarkSubgraphsWithCorrectLayout)
    assert pos["MiddleFinish"] < pos["Fusing"] < pos["PostMiddleStart"]
    assert pos["PostMiddleStart"] < pos["MarkSubGraphsWithCorrectLayout"]
    assert pos["MarkSubGraphsWithCorrectLayout"] < pos["InsertLayoutPropagationTranspose"]
    assert pos["InsertLayoutPropagationTranspose"] < pos[layout] < pos["ApplyPermutation"]
    assert front.index("InputCut") < front.index("FrontStart") < front.index("Div")
    assert back.index("BackStart") < back.index("CropToStridedSlice") < back.index("BackFinish")


USER_PASS = {
    "middle/after_layout.py": """
        import numpy as np
        from {MO}.graph.graph import Graph
        from {MO}.middle.replacement import MiddleReplacementPattern
        from {EXT}.middle.ApplyPermutations import ApplyPermutation
        from {EXT}.middle.InsertLayoutPropagationTransposes import (
            InsertLayoutPropagationTranspose)
        from {EXT}.middle.BinarizeWeightsM1P1 import BinarizeWeightsM1P1


        class DoubleAddBias(MiddleReplacementPattern):
            enabled = True

            def run_after(self):
                return [InsertLayoutPropagationTranspose, BinarizeWeightsM1P1]

            def run_before(self):
                return [ApplyPermutation]

            def find_and_replace_pattern(self, graph: Graph):
                for node in graph.get_op_nodes(type='Add'):
                    src = node.in_port(1).get_source().node
                    src.value = src.value * 2
                    node.in_port(1).data.set_value(src.value)
    """,
}


def test_user_pass_ordered_by_mo_names_converts(tmp_path: Path, relu_add_model: Path,
                                                layout) -> None:
    ext = write_ext(tmp_path, "ext", USER_PASS, layout)
    xml = convert(ConvertOptions(relu_add_model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    x = np.random.default_rng(0).standard_normal((1, 3, 4, 4)).astype(np.float32)
    compiled = ov.Core().compile_model(str(xml), "CPU")
    bias = np.arange(3, dtype=np.float32).reshape(1, 3, 1, 1)
    np.testing.assert_allclose(compiled([x])[compiled.output(0)], np.maximum(x, 0) + 2 * bias)


CALLS_MO_PASS = {
    "back/fuse_then_go.py": """
        from {EXT}.back.FuseTransposesSequence import FuseTransposesSequence
        from {MO}.back.replacement import BackReplacementPattern


        class FuseThenGo(BackReplacementPattern):
            enabled = True

            def find_and_replace_pattern(self, graph):
                FuseTransposesSequence().find_and_replace_pattern(graph)
    """,
}


def test_a_pass_calling_an_mo_transformation_is_stopped_naming_it(
        tmp_path: Path, relu_add_model: Path, layout) -> None:
    """MO's transformations are ordering stand-ins: extension code calling one directly would
    silently get nothing, so the conversion stops with the name and the calling file and line."""
    ext = write_ext(tmp_path, "ext", CALLS_MO_PASS, layout)
    with pytest.raises(ExtensionError) as err:
        convert(ConvertOptions(relu_add_model, output_dir=tmp_path / "ir", extensions=[ext]))
    assert str(err.value).startswith(f"{ext / 'back' / 'fuse_then_go.py'}:9: calls MO's back "
                                     "transformation FuseTransposesSequence, which extgen does "
                                     "not implement")
    assert not (tmp_path / "ir").exists() or not list((tmp_path / "ir").glob("*.xml"))


def test_every_stand_in_refuses_when_called() -> None:
    """No MO transformation name is a silent no-op: each one raises when run by hand, or does
    what MO's did to what extension code sees (StridedSliceMasksNormalizer: the masks are the
    opset's from then on; BatchToSpaceNormalizer: so are TF's SpaceToBatch inputs)."""
    flags = {"StridedSliceMasksNormalizer": MASKS_NORMALIZED,
             "BatchToSpaceNormalizer": SPACE_BATCH_NORMALIZED}
    assert set(BEHAVES) == set(flags)
    for name, cls in STANDINS.items():
        if name in BEHAVES:
            graph = Graph()
            cls().find_and_replace_pattern(graph)
            assert graph.graph[flags[name]]
            continue
        with pytest.raises(ExtensionError, match=f"test_mo_passes.py:\\d+: calls MO's .* {name},"):
            cls().find_and_replace_pattern(None)
