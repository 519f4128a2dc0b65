"""The legacy name table resolves, the shim keeps MO's shape conventions, and names extgen
lacks fail as ImportErrors with one line."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from converter.errors import ExtensionError
from converter.graph.shape import as_shape
from converter.legacy import LegacyImportError, legacy_imports
from converter.legacy.names import ROOTS, legacy_modules


def _resolve_all() -> tuple[int, list[str]]:
    resolved, missing = 0, []
    with legacy_imports():
        for module, names in legacy_modules().items():
            shim = importlib.import_module(module)
            for name in names:
                try:
                    getattr(shim, name)
                    resolved += 1
                except LegacyImportError as err:
                    assert "frontend does not provide it yet" in str(err), err
                    missing.append(f"{module}.{name}")
    return resolved, missing


def test_every_name_resolves_or_waits_for_its_frontend() -> None:
    resolved, missing = _resolve_all()
    assert resolved > 300
    # only framework helpers may be missing, and then under every root
    assert all(".front.caffe." in m or ".front.tf." in m or ".front.mxnet." in m for m in missing)
    assert len(missing) % len(ROOTS) == 0


def test_core_names_are_the_converter_classes() -> None:
    from converter.front.extractor import FrontExtractorOp
    from converter.graph.graph import Node
    from converter.middle.replacement import MiddleStart
    from converter.ops.elementwise.arithmetic import Multiply

    with legacy_imports():
        from extensions.middle.pass_separator import MiddleStart as legacy_start
        from mo.front.extractor import FrontExtractorOp as legacy_ext
        from mo.graph.graph import Node as legacy_node
        from openvino.tools.mo.ops.elementwise import Mul
        from openvino.tools.mo.ops.op import Op

        assert (legacy_ext, legacy_node, legacy_start) == (FrontExtractorOp, Node, MiddleStart)
        assert issubclass(Mul, Multiply)  # its nodes are op 'Mul' until inference, as MO's
        assert Op.get_op_class_by_name("Mul") is Multiply


def test_import_error_fallbacks_still_work() -> None:
    with legacy_imports():
        try:
            from openvino.tools.mo.front.tf.partial_infer.tf import tf_subgraph_infer  # noqa: F401
        except ImportError as err:
            assert isinstance(err, LegacyImportError) and "tf_subgraph_infer" in str(err)
        else:
            pytest.fail("an unsupported name imported")


def test_mo_shapes_become_converter_shapes() -> None:
    from converter.legacy.shapes import (
        dynamic_dimension,
        dynamic_dimension_value,
        is_fully_defined,
        shape_array,
        strict_compare_tensors,
        undefined_shape_of_rank,
    )

    dyn = shape_array([1, -1, 3])
    assert np.ma.is_masked(dyn) and dyn[1] is dynamic_dimension and not is_fully_defined(dyn)
    assert as_shape(dyn) == (1, -1, 3) and as_shape(np.array([2, 3])) == (2, 3)
    assert as_shape(np.array([1, dynamic_dimension_value])) == (1, -1)
    assert as_shape(undefined_shape_of_rank(2)) == (-1, -1)
    assert is_fully_defined(np.array([1, 2])) and not is_fully_defined((1, -1))
    assert strict_compare_tensors(dyn, shape_array([1, None, 3]))
    assert not strict_compare_tensors(dyn, shape_array([1, 2, 3]))


def test_port_data_accepts_masked_shapes() -> None:
    from converter.graph.graph import Graph, Node

    graph = Graph()
    graph.stage = "middle"
    graph.add_node("op", kind="op", name="op")
    data = Node(graph, "op").out_port(0).data
    data.set_shape(np.ma.masked_array([4, 0, 5], mask=[False, True, False]))
    assert data.get_shape() == (4, -1, 5)


def test_no_exported_transformation_is_a_silent_no_op() -> None:
    """Every transformation class the legacy layer exports either does work of its own or
    refuses when run by hand; only MO's phase separators do nothing, as they did in MO."""
    from converter.graph.graph import Graph
    from converter.legacy.mo_ops.strided_slice_masks import MASKS_NORMALIZED
    from converter.legacy.tf_space_batch import NORMALIZED as SPACE_BATCH_NORMALIZED
    from converter.passes import Anchor, ReplacementPattern

    separators = {"FrontStart", "FrontFinish", "PreMiddleStart", "MiddleStart", "MiddleFinish",
                  "PostMiddleStart", "BackStart", "BackFinish"}
    checked = 0
    with legacy_imports():
        for module, names in legacy_modules().items():
            shim = importlib.import_module(module)
            for name in names:
                try:
                    value = getattr(shim, name)
                except LegacyImportError:
                    continue
                if (not isinstance(value, type) or not issubclass(value, Anchor)
                        or value.__name__ in separators):
                    continue
                assert issubclass(value, ReplacementPattern)
                with pytest.raises(ExtensionError, match=f"calls MO's .* {value.__name__}, which "
                                   "extgen does not implement"):
                    value().find_and_replace_pattern(Graph())
                checked += 1
    assert checked >= 145 * len(ROOTS)
    with legacy_imports():  # those that do what MO's did to the graph the passes see
        for path, name, key in (("back.StridedSliceMasksNormalizer",
                                 "StridedSliceMasksNormalizer", MASKS_NORMALIZED),
                                ("front.tf.space_to_batch", "BatchToSpaceNormalizer",
                                 SPACE_BATCH_NORMALIZED)):
            graph = Graph()
            getattr(importlib.import_module(f"{ROOTS[0]}.{path}"), name)(
                ).find_and_replace_pattern(graph)
            assert graph.graph[key]


@pytest.mark.parametrize("layout", ["NHWC", "NCHW"])
def test_layout_permutations_refuse_where_mo_would_have_applied_them(layout: str) -> None:
    """PermuteAttrs.set_permutation / PermuteInputs.set_input_permutation: on a channels-last
    model MO permuted by them, which extgen's layout change does not: one line, never a silent
    no-op; on a channels-first model MO changed nothing either."""
    from converter.graph.graph import Graph, Node
    from converter.legacy.ops import PermuteAttrs, PermuteInputs

    graph = Graph()
    graph.graph["layout"] = layout
    graph.add_node("a", kind="op")
    graph.add_node("b", kind="op")
    a, b = Node(graph, "a"), Node(graph, "b")
    calls = [lambda: PermuteAttrs.set_permutation(a, b, None),
             lambda: PermuteInputs().set_input_permutation(a, b, "input:0", "transpose")]
    for call in calls:
        if layout == "NHWC":
            with pytest.raises(ExtensionError, match="test_legacy_names.py:\\d+: calls MO's "
                               "Permute.* on a channels-last model"):
                call()
        else:
            assert call() is None
