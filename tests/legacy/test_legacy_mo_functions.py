"""MO functions extension code calls, behaving as MO's: parse_transform and the MXNet
Deconvolution extractor's get_pad (whose extract refuses in one line)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from converter.errors import ExtensionError
from converter.legacy import legacy_imports


@pytest.mark.parametrize(("text", "want"), [
    ("", []),
    ("LowLatency2", [("LowLatency2", {})]),
    ("LowLatency2[use_const_initializer=False],MakeStateful[param_res_names={'a':'b'}]",
     [("LowLatency2", {"use_const_initializer": 0}),
      ("MakeStateful", {"param_res_names": {"a": "b"}})]),
    ("Pruning[a=1;b=2.5;c=on;d=1,2,x]", [("Pruning", {"a": 1, "b": 2.5, "c": 1,
                                                       "d": [1, 2, "x"]})]),
])
def test_parse_transform_types_values_as_mo(text: str, want: list) -> None:
    with legacy_imports():
        from openvino.tools.mo.utils.cli_parser import parse_transform

        assert parse_transform(text) == want


@pytest.mark.parametrize("text", ["LowLatency2[", "A[x]", "A;B", "A[1=2]"])
def test_parse_transform_refuses_what_mo_refused(text: str) -> None:
    with legacy_imports():
        from mo.utils.cli_parser import parse_transform
        from mo.utils.error import Error

        with pytest.raises(Error, match="transform key"):
            parse_transform(text)


def test_deconv_get_pad_gives_the_target_shape() -> None:
    """stride 2, kernel 4 over 5 -> 12 wide; a target of 10 takes 2 off: pad 1 a side (and a
    target of 9 takes 3: MO rounds half of it up)."""
    from converter.graph.graph import Graph, Node

    graph = Graph()
    graph.add_node("d", kind="op", spatial_dims=np.array([2, 3]), stride=np.array([1, 1, 2, 2]),
                   dilation=np.array([1, 1, 1, 1]), output_spatial_shape=np.array([10, 9]))
    with legacy_imports():
        from extensions.front.mxnet.conv_ext import DeconvFrontExtractor

        pads = DeconvFrontExtractor.get_pad(Node(graph, "d"), np.array([1, 3, 5, 5]),
                                            np.array([3, 3, 4, 4]))
    assert pads.tolist() == [[0, 0], [0, 0], [1, 1], [2, 2]]


@pytest.mark.parametrize(("body", "says"), [
    ("DeconvFrontExtractor.extract(None)", "calls its extract"),
    ("class Mine(DeconvFrontExtractor):\n    pass", "subclasses it as Mine"),
])
def test_deconv_extract_refuses_naming_the_caller(tmp_path: Path, body: str, says: str) -> None:
    path = tmp_path / "ext.py"
    path.write_text("from openvino.tools.mo.front.mxnet.conv_ext import DeconvFrontExtractor\n"
                    f"{body}\n")
    spec = importlib.util.spec_from_file_location("ext", path)
    with legacy_imports(), pytest.raises(ExtensionError) as err:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert str(err.value).startswith(f"{path}:2: {says}: MO's front.mxnet.conv_ext.")
    assert "not implemented by extgen" in str(err.value) and "\n" not in str(err.value)
