"""TF's SpaceToBatchND and BatchToSpaceND as MO's front passes saw them: TF's form (the block
sizes and the [M, 2] paddings or crops as inputs 1 and 2) until MO's BatchToSpaceNormalizer,
the opset's after it; a pass that leaves the node alone gets the opset's form back, and a copy
of MO's normalizer rewrites it as MO's did."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from converter.front.tf.writer import GraphBuilder
from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.legacy.conftest import LAYOUTS, write_ext
from tests.legacy.mo_corpus import PREFIX, corpus

MO = LAYOUTS["openvino.tools.mo"]
F32 = np.float32

CHECKS = """
    from {MO}.front.common.replacement import FrontReplacementPattern
    from {MO}.front.tf.space_to_batch import BatchToSpaceNormalizer


    def inputs(graph):
        (node,) = graph.get_op_nodes(op='SpaceToBatch')
        return [node.in_port(i).get_source().node.soft_get('value', None)
                for i in node.in_ports() if not node.in_port(i).disconnected()]


    class Before(FrontReplacementPattern):
        enabled = True

        def run_before(self):
            return [BatchToSpaceNormalizer]

        def find_and_replace_pattern(self, graph):
            got = inputs(graph)
            if len(got) != 3 or got[1].tolist() != [2, 2] or got[2].tolist() != [[0, 0], [1, 1]]:
                raise ValueError(f"before MO's normalizer: {got}")


    class After(FrontReplacementPattern):
        enabled = True

        def run_after(self):
            return [BatchToSpaceNormalizer]

        def find_and_replace_pattern(self, graph):
            if len(inputs(graph)) != 4:
                raise ValueError(f"after MO's normalizer: {len(inputs(graph))} inputs")
"""


def _model(tmp_path: Path) -> Path:
    g = GraphBuilder()
    x = g.placeholder("x", [1, 4, 2, 3])
    g.node("SpaceToBatchND", "y", [x, g.const("block", np.array([2, 2], np.int32)),
                                   g.const("pads", np.array([[0, 0], [1, 1]], np.int32))],
           T=F32, Tblock_shape=np.int32, Tpaddings=np.int32)
    return g.save(tmp_path / "s2b.pb")


def _run(xml: Path, x: np.ndarray) -> np.ndarray:
    return np.asarray(ov.Core().compile_model(str(xml), "CPU")([x])[0])


X = np.arange(24, dtype=F32).reshape(1, 4, 2, 3)


def _want() -> np.ndarray:
    """TF's SpaceToBatchND: width padded by 1 on each side, then 2x2 blocks into the batch."""
    padded = np.pad(X, [(0, 0), (0, 0), (1, 1), (0, 0)])
    blocks = padded.reshape(1, 2, 2, 2, 2, 3).transpose(2, 4, 0, 1, 3, 5)
    return blocks.reshape(4, 2, 2, 3)


def test_front_passes_see_tf_s_form_until_mo_s_normalizer(tmp_path: Path) -> None:
    ext = write_ext(tmp_path, "ext", {"front/check.py": CHECKS}, MO)
    xml = convert(ConvertOptions(_model(tmp_path), output_dir=tmp_path / "ir",
                                 extensions=[ext])).xml
    np.testing.assert_array_equal(_run(xml, X), _want())


def test_a_copy_of_mo_s_normalizer_rewrites_tf_s_form_as_mo_s_did(tmp_path: Path) -> None:
    """MO's own module, unmodified: its subgraph (Transpose, Split, Pad of the block shape ...)
    computes the opset's inputs again, and inferring it twice lowers MO's Rank only once."""
    source = (corpus() / PREFIX / "front/tf/space_to_batch.py").read_text()
    ext = tmp_path / "ext" / "front" / "tf"
    ext.mkdir(parents=True)
    (ext / "space_to_batch.py").write_text(source)
    xml = convert(ConvertOptions(_model(tmp_path), output_dir=tmp_path / "ir",
                                 extensions=[tmp_path / "ext"])).xml
    np.testing.assert_array_equal(_run(xml, X), _want())


CLEANS = """
    from {MO}.front.common.replacement import FrontReplacementPattern


    class CleanUp(FrontReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            graph.clean_up()
"""


def test_a_clean_up_while_tf_s_form_shows_keeps_the_opset_s_inputs(tmp_path: Path) -> None:
    """The opset's inputs, set aside while the node shows TF's form, survive a pass's
    clean-up and are the node's again after it."""
    ext = write_ext(tmp_path, "ext", {"front/clean.py": CLEANS}, MO)
    xml = convert(ConvertOptions(_model(tmp_path), output_dir=tmp_path / "ir",
                                 extensions=[ext])).xml
    np.testing.assert_array_equal(_run(xml, X), _want())


def _round_trip(tmp_path: Path) -> Path:
    """SpaceToBatchND then BatchToSpaceND cropping what it padded: x again."""
    g = GraphBuilder()
    x = g.placeholder("x", [1, 4, 2, 3])
    pads = np.array([[0, 0], [1, 1]], np.int32)
    s = g.node("SpaceToBatchND", "s2b", [x, g.const("block", np.array([2, 2], np.int32)),
                                         g.const("pads", pads)],
               T=F32, Tblock_shape=np.int32, Tpaddings=np.int32)
    g.node("BatchToSpaceND", "y", [s, g.const("block2", np.array([2, 2], np.int32)),
                                   g.const("crops", pads)],
           T=F32, Tblock_shape=np.int32, Tcrops=np.int32)
    return g.save(tmp_path / "round_trip.pb")


@pytest.mark.parametrize("rel", ["front/create_tensor_nodes.py", "front/pass_separator.py"])
def test_copies_of_mo_s_front_end_passes_keep_both_nodes_as_they_were(tmp_path: Path,
                                                                      rel: str) -> None:
    """MO's CreateTensorNodes ends the front phase inside a pass (the opset's form comes back
    first); MO's pass separators leave both nodes' inputs as they were."""
    ext = tmp_path / "ext" / Path(rel).parent
    ext.mkdir(parents=True)
    (ext / Path(rel).name).write_text((corpus() / PREFIX / rel).read_text())
    xml = convert(ConvertOptions(_round_trip(tmp_path), output_dir=tmp_path / "ir",
                                 extensions=[tmp_path / "ext"])).xml
    np.testing.assert_array_equal(_run(xml, X), X)
