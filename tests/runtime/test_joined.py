"""Convolutions read by a Concat alone write into its output (converter/runtime/joined.py):
the other inputs are copied in, a fresh output per run, one per thread, and where the shares
are not contiguous blocks (a batch of two) the Concat runs as before; all as onnxruntime
computes it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from converter.ir.reader import read_ir
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.cpu import CpuDevice
from converter.runtime.executor import Executor
from converter.runtime.joined import _IntoShare, _JoinedConcat
from tests.conftest import make_model

RNG = np.random.default_rng(5)


def _executor(tmp_path: Path, batch: int) -> tuple[Executor, ort.InferenceSession]:
    nodes = [
        helper.make_node("Conv", ["x", "w3", "b3"], ["c3"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c3"], ["r3"]),
        helper.make_node("Conv", ["x", "w1"], ["c1"]),
        helper.make_node("Conv", ["x", "w2"], ["c2"], strides=[1, 1]),
        helper.make_node("Sigmoid", ["c2"], ["s2"]),  # c2 read twice: not written in place
        helper.make_node("Concat", ["r3", "x", "c1", "c2"], ["y"], axis=-3),
        helper.make_node("Concat", ["s2", "c2"], ["z"], axis=1),
    ]
    inits = {"w3": RNG.standard_normal((4, 3, 3, 3)).astype(np.float32),
             "b3": RNG.standard_normal(4).astype(np.float32),
             "w1": RNG.standard_normal((5, 3, 1, 1)).astype(np.float32),
             "w2": RNG.standard_normal((2, 3, 1, 1)).astype(np.float32)}
    shape = [batch, 3, 10, 12]
    model = make_model(nodes, [("x", TensorProto.FLOAT, shape)],
                       [("y", TensorProto.FLOAT, [batch, 14, 10, 12]),
                        ("z", TensorProto.FLOAT, [batch, 4, 10, 12])], inits)
    onnx.save(model, tmp_path / "m.onnx")
    xml = convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path / "ir")).xml
    session = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    return Executor(read_ir(xml), [CpuDevice([])]), session


def _check(executor: Executor, session: ort.InferenceSession, x: np.ndarray) -> dict:
    got = executor.run({"x": x})
    for name, want in zip(("y", "z"), session.run(None, {"x": x})):
        np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-5)
    return got


def test_convolutions_write_into_their_concat(tmp_path: Path, either_path) -> None:
    executor, session = _executor(tmp_path, 1)
    kernels = [type(step.kernel) for step in executor.steps]
    assert kernels.count(_JoinedConcat) == 1  # y; z's inputs are read elsewhere
    # the 1x1, and the 3x3 where the native GEMM adds its bias and ReLU (else they follow it)
    assert kernels.count(_IntoShare) == (1 if either_path == "numpy" else 2)
    x = RNG.standard_normal((1, 3, 10, 12)).astype(np.float32)
    first = _check(executor, session, x)["y"]
    kept = first.copy()
    _check(executor, session, RNG.standard_normal((1, 3, 10, 12)).astype(np.float32))
    np.testing.assert_array_equal(first, kept)  # each run's output is its own


def test_runs_on_two_threads_at_once_keep_their_outputs_apart(tmp_path: Path) -> None:
    executor, session = _executor(tmp_path, 1)
    inputs = [RNG.standard_normal((1, 3, 10, 12)).astype(np.float32) for _ in range(16)]
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda x: _check(executor, session, x), inputs))


@pytest.mark.parametrize("batch", [2])
def test_a_batch_concatenates_as_before(tmp_path: Path, batch: int) -> None:
    executor, session = _executor(tmp_path, batch)
    assert not any(isinstance(step.kernel, _JoinedConcat) for step in executor.steps)
    _check(executor, session, RNG.standard_normal((batch, 3, 10, 12)).astype(np.float32))
