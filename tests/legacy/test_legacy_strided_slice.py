"""A StridedSlice as MO's passes saw it: MO's begin and end masks (1: take the value) and, in
the middle phase, MO's `slices`; what a pass writes in MO's form is the opset's again after it,
and a copy of MO's StridedSliceMasksNormalizer flips them as MO's did."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov

from converter.front.tf.writer import GraphBuilder
from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.legacy.conftest import LAYOUTS, write_ext

MO = LAYOUTS["openvino.tools.mo"]
F32 = np.float32

CHECKS = """
    import numpy as np

    from {MO}.front.common.replacement import FrontReplacementPattern
    from {MO}.middle.replacement import MiddleReplacementPattern
    from {MO}.ops.strided_slice import StridedSlice


    def expect(node, mask, want):
        got = [int(v) for v in node[mask]]
        if got != want:
            raise ValueError(f"{{mask}} {{got}}, MO's was {{want}}")


    class FrontMasks(FrontReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            (node,) = graph.get_op_nodes(type='StridedSlice')
            expect(node, 'begin_mask', [0, 1])  # TF's begin_mask 0b01: dim 0 from its start
            expect(node, 'end_mask', [0, 1])


    class MiddleMasks(MiddleReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            (node,) = graph.get_op_nodes(type='StridedSlice')
            if list(node.slices) != [slice(None, None, 1), slice(1, 3, 1)]:
                raise ValueError(f"slices {{node.slices}}")
            if StridedSlice.get_slices(node, node.in_port(0).data.get_shape()) != node.slices:
                raise ValueError("StridedSlice.get_slices differs from slices")
            StridedSlice.align_mask_with_slice_rank(node, 2)
            node.begin_mask = np.array([0, 0])  # MO's form: dim 1 from its start too
"""

NORMALIZER = """
    from {MO}.back.replacement import BackReplacementPattern
    from {MO}.front.common.partial_infer.utils import int64_array


    class StridedSliceMasksNormalizer(BackReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            for node in graph.get_op_nodes(type='StridedSlice'):
                node.begin_mask = int64_array([1 - i for i in node.begin_mask])
                node.end_mask = int64_array([1 - i for i in node.end_mask])
"""


def _model(tmp_path: Path) -> Path:
    g = GraphBuilder()
    x = g.placeholder("x", [2, 5])
    g.node("StridedSlice", "y", [x, g.const("b", np.array([0, 1], np.int32)),
                                 g.const("e", np.array([0, 3], np.int32)),
                                 g.const("s", np.array([1, 1], np.int32))],
           T=F32, Index=np.int32, begin_mask=0b01, end_mask=0b01)
    return g.save(tmp_path / "slice.pbtxt")


def _run(xml: Path, x: np.ndarray) -> np.ndarray:
    return np.asarray(ov.Core().compile_model(str(xml), "CPU")([x])[0])


X = np.arange(10, dtype=F32).reshape(2, 5)


def test_passes_see_mo_s_masks_and_slices_and_write_mo_s_form(tmp_path: Path) -> None:
    ext = write_ext(tmp_path, "ext", {"front/masks.py": CHECKS.split("class MiddleMasks")[0],
                                      "middle/masks.py": CHECKS}, MO)
    xml = convert(ConvertOptions(_model(tmp_path), output_dir=tmp_path / "ir",
                                 extensions=[ext])).xml
    np.testing.assert_array_equal(_run(xml, X), X[:, :3])  # the middle pass's begin_mask


def test_a_copy_of_mo_s_masks_normalizer_flips_them_as_mo_s_did(tmp_path: Path) -> None:
    """The copy flips MO's masks to the opset's (flipped back after it, they would take the
    empty range [0, 0) of dimension 0)."""
    ext = write_ext(tmp_path, "ext", {"back/StridedSliceMasksNormalizer.py": NORMALIZER}, MO)
    xml = convert(ConvertOptions(_model(tmp_path), output_dir=tmp_path / "ir",
                                 extensions=[ext])).xml
    np.testing.assert_array_equal(_run(xml, X), X[:, 1:3])


ORDERED = """
    from {MO}.back.replacement import BackReplacementPattern
    from {MO}.back.StridedSliceMasksNormalizer import StridedSliceMasksNormalizer


    def masks(graph):
        (node,) = graph.get_op_nodes(type='StridedSlice')
        return [int(v) for v in node.begin_mask]


    class Before(BackReplacementPattern):
        enabled = True

        def run_before(self):
            return [StridedSliceMasksNormalizer]

        def find_and_replace_pattern(self, graph):
            if masks(graph) != [0, 1]:
                raise ValueError(f"before MO's normalizer: begin_mask {{masks(graph)}}")


    class After(BackReplacementPattern):
        enabled = True

        def run_after(self):
            return [StridedSliceMasksNormalizer]

        def find_and_replace_pattern(self, graph):
            if masks(graph) != [1, 0]:
                raise ValueError(f"after MO's normalizer: begin_mask {{masks(graph)}}")
            (node,) = graph.get_op_nodes(type='StridedSlice')
            node.end_mask = [1, 1]  # the opset's form: dimension 1 to its end
"""


def test_passes_after_mo_s_masks_normalizer_see_the_opset_s_masks(tmp_path: Path) -> None:
    """Ordered by MO's name alone (no copy of the pass), a pass after MO's normalizer sees the
    opset's masks and one before it MO's, as in MO; what the later one writes is the opset's."""
    ext = write_ext(tmp_path, "ext", {"back/ordered.py": ORDERED}, MO)
    xml = convert(ConvertOptions(_model(tmp_path), output_dir=tmp_path / "ir",
                                 extensions=[ext])).xml
    np.testing.assert_array_equal(_run(xml, X), X[:, 1:])
