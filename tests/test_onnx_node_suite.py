"""The ONNX backend node cases pinned in tests/data/onnx_node_openvino_pass.txt must keep passing
through our converter with the IR run in real OpenVINO. Regenerate the list with
`../shared/bench/onnx_node_suite.py py:converter.onnx_backend:ExtgenBackend:engine=openvino --json F`."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

PINNED = Path(__file__).parent / "data" / "onnx_node_openvino_pass.txt"
NAMES = [n for n in PINNED.read_text().split() if n] if PINNED.exists() else []


@functools.cache
def _cases() -> dict:
    import onnx.backend.test.case.node as node_test

    return {c.name: c for c in node_test.collect_testcases(None)}


def _compare(expected, got, rtol: float, atol: float) -> None:
    assert len(got) >= len(expected)
    for e, g in zip(expected, got):
        e, g = np.asarray(e), np.asarray(g)
        assert e.shape == g.shape
        if e.dtype.kind in "fc":
            np.testing.assert_allclose(g.astype(e.dtype), e, rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, e)


def test_pinned_list_is_large() -> None:
    assert len(NAMES) >= 800


@pytest.mark.parametrize("name", NAMES)
def test_node_case(name: str) -> None:
    from converter.onnx_backend import ExtgenBackend

    case = _cases()[name]
    for inputs, outputs in case.data_sets:
        got = ExtgenBackend.prepare(case.model, engine="openvino").run(list(inputs))
        _compare(outputs, got, case.rtol, case.atol)
