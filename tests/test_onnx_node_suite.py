"""The ONNX backend node cases pinned in tests/data/onnx_node_pass_<engine>.txt must keep passing
through our converter, with the IR run in real OpenVINO and in the shim. Regenerate a list by
running the node suite through the backend `py:converter.onnx_backend:ExtgenBackend:engine=ENGINE`
and keeping the names that pass."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data"
ENGINES = ("openvino", "shim")


def _pinned(engine: str) -> list[str]:
    return (DATA / f"onnx_node_pass_{engine}.txt").read_text().split()


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


def test_pinned_lists_meet_the_targets() -> None:
    openvino, shim = _pinned("openvino"), _pinned("shim")
    assert len(openvino) >= 800
    assert len(shim) >= 0.95 * len(openvino)


@pytest.mark.parametrize(("engine", "name"), [(e, n) for e in ENGINES for n in _pinned(e)])
def test_node_case(engine: str, name: str) -> None:
    from converter.onnx_backend import ExtgenBackend

    case = _cases()[name]
    for inputs, outputs in case.data_sets:
        got = ExtgenBackend.prepare(case.model, engine=engine).run(list(inputs))
        _compare(outputs, got, case.rtol, case.atol)
