"""Shared fixtures: tiny ONNX models built in the test itself; `numpy_only` and `either_path`
for the shim's native kernels (EXTGEN_NATIVE=0 switches them off, so the numpy plan paths stay
covered where a compiler is present)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from converter.ops.native import kernels
from tests import ort_oracle


def pytest_configure(config: pytest.Config) -> None:
    ort_oracle.install()  # Python 3.10's onnxruntime reads the test models too


@pytest.fixture(autouse=True)
def _extgen_logging_reset() -> Iterator[None]:
    """Each test starts with logging as a fresh process has it for extgen's loggers: level
    unset, enabled, propagating to the root (at WARNING or lower), no global logging.disable.
    Something an earlier test in the xdist worker ran left extgen's warnings unseen by the
    caplog tests after it (which tests, depended on the schedule)."""
    logging.disable(logging.NOTSET)
    root = logging.getLogger()
    if root.level > logging.WARNING:
        root.setLevel(logging.WARNING)
    names = ["extgen", *(n for n in logging.root.manager.loggerDict if n.startswith("extgen."))]
    for name in names:
        log = logging.getLogger(name)
        log.setLevel(logging.NOTSET)
        log.disabled, log.propagate = False, True
    yield


# words in a test module's source that mean it may build OpenCL kernels in its process
_OPENCL_WORDS = ("opencl", "gpu", "vpu", "myriad", "run_example", "examples/")


def _may_build_kernels(path: Path, seen: dict[Path, bool] = {}) -> bool:  # noqa: B006 (cache)
    if path not in seen:
        text = path.read_text().lower() if path.suffix == ".py" else ""
        seen[path] = any(word in text for word in _OPENCL_WORDS)
    return seen[path]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Modules that may build OpenCL kernels run first. PoCL's LLVM and TensorFlow's clash in
    one process: a kernel built after `import tensorflow` crashes or hangs the process (seen
    with Debian's PoCL 3.1 and the PoCL in pyopencl's wheel). Each xdist worker runs its items
    in collection order, so none builds a kernel after a test imported TensorFlow."""
    items.sort(key=lambda item: not _may_build_kernels(item.path))


def make_model(nodes, inputs, outputs, initializers=(), opset=17, domains=()) -> onnx.ModelProto:
    """inputs/outputs: (name, elem_type, shape) triples."""
    graph = helper.make_graph(
        nodes, "test",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        [numpy_helper.from_array(v, k) for k, v in dict(initializers).items()],
    )
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains]
    return helper.make_model(graph, opset_imports=opsets)


@pytest.fixture
def relu_add_model(tmp_path: Path) -> Path:
    bias = np.arange(3, dtype=np.float32).reshape(1, 3, 1, 1)
    model = make_model(
        [helper.make_node("Relu", ["x"], ["r"], name="relu"),
         helper.make_node("Add", ["r", "b"], ["y"], name="add")],
        [("x", TensorProto.FLOAT, [1, 3, 4, 4])], [("y", TensorProto.FLOAT, [1, 3, 4, 4])],
        {"b": bias},
    )
    path = tmp_path / "relu_add.onnx"
    onnx.save(model, path)
    return path


@pytest.fixture
def numpy_only(monkeypatch):
    monkeypatch.setenv("EXTGEN_NATIVE", "0")
    kernels.cache_clear()
    yield
    monkeypatch.undo()
    kernels.cache_clear()


@pytest.fixture(params=["native", "numpy"])
def either_path(request):
    """Run once with the native kernels (where built) and once with numpy's paths."""
    if request.param == "numpy":
        request.getfixturevalue("numpy_only")
    return request.param
