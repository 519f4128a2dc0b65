"""MO names extgen does not implement import, and refuse in one line naming the MO name and
the user's file and line as soon as extension code uses them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from converter.errors import ExtensionError
from converter.legacy import legacy_imports
from converter.legacy.unimplemented import UNIMPLEMENTED

USES = {
    "call": "fuse_linear_ops(None)",
    "attribute": "SubgraphMatcher.find_and_replace_pattern",
    "subclass": "class Mine(SubgraphMatcher):\n    pass",
    "lookup": "'Concat' in tf_op_extractors",
    "condition": "assert tf_op_extractors",
}


def _run_user_file(tmp_path: Path, body: str) -> None:
    text = ("from openvino.tools.mo.middle.passes.fusing.fuse_linear_ops import fuse_linear_ops\n"
            "from mo.front.subgraph_matcher import SubgraphMatcher\n"
            "from extensions.front.tf.extractor import tf_op_extractors\n" + body + "\n")
    path = tmp_path / "user_pass.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("user_pass", path)
    with legacy_imports():
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


def test_importing_them_loads_the_module(tmp_path) -> None:
    _run_user_file(tmp_path, "x = 1")


@pytest.mark.parametrize("use", list(USES))
def test_each_use_refuses_in_one_line_naming_the_name_and_the_caller(tmp_path, use) -> None:
    with pytest.raises(ExtensionError) as err:
        _run_user_file(tmp_path, USES[use])
    text = str(err.value)
    assert "\n" not in text
    assert f"{tmp_path / 'user_pass.py'}:4: uses MO's " in text
    assert "which extgen does not implement" in text
    name = {"call": "middle.passes.fusing.fuse_linear_ops.fuse_linear_ops",
            "lookup": "front.tf.extractor.tf_op_extractors",
            "condition": "front.tf.extractor.tf_op_extractors"}.get(use, "SubgraphMatcher")
    assert name in text


def test_every_name_refuses_under_every_root() -> None:
    with legacy_imports():
        for module, (_, names) in UNIMPLEMENTED.items():
            below = module.split(".", 1)[1]
            for root in ("mo", "extensions", "openvino.tools.mo"):
                shim = importlib.import_module(f"{root}.{below}")
                for name in names:
                    with pytest.raises(ExtensionError, match=f"MO's {below}.{name},"):
                        getattr(shim, name)()


def test_a_function_runs_on_the_graph_and_each_body_at_any_depth() -> None:
    from converter.graph.graph import Graph
    from converter.middle.subgraphs import GraphBody

    outer, inner, innermost = Graph(), Graph(), Graph()
    inner.add_node("loop2", kind="op", op="Loop", bodies={"body": innermost})
    outer.add_node("loop", kind="op", op="Loop", bodies={"body": GraphBody(inner)})
    seen = []
    with legacy_imports():
        from mo.middle.pattern_match import for_graph_and_each_sub_graph_recursively

        for_graph_and_each_sub_graph_recursively(outer, seen.append)
    assert seen == [outer, inner, innermost]
