#!/usr/bin/env python3
"""The light model zoo at full size: the onnx wheel ships each model's graph with its weights
as ConstantOfShape placeholders; this fills them with seeded random values shaped by how each
weight is used, adds a random input and records onnxruntime's output as the reference.

Models are made once per machine into a cache folder (EXTGEN_ZOO_CACHE, else
~/.cache/extgen/zoo/onnx-<version>): python benchmarks/light_zoo.py [NAME ...]"""

from __future__ import annotations

import os
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

__all__ = ["ZOO", "cache_dir", "materialize"]

ZOO = ("resnet50", "vgg19", "densenet121", "inception_v1", "inception_v2", "shufflenet",
       "squeezenet", "bvlc_alexnet", "zfnet512")
LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
_PASS_THROUGH = {"Unsqueeze", "Reshape", "Squeeze", "Identity"}


def cache_dir() -> Path:
    if os.environ.get("EXTGEN_ZOO_CACHE"):
        return Path(os.environ["EXTGEN_ZOO_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "extgen" / "zoo" / f"onnx-{onnx.__version__}"


def _uses(graph: onnx.GraphProto, name: str) -> tuple[str, int]:
    """(op type, input index) of the op that finally consumes `name`, looking through
    shape-only ops such as the Unsqueeze between a per-channel scale and its Mul."""
    for _ in range(8):
        node, index = next(((n, list(n.input).index(name)) for n in graph.node if name in n.input),
                           (None, -1))
        if node is None:
            return "", -1
        if node.op_type not in _PASS_THROUGH:
            return node.op_type, index
        name = node.output[0]
    return "", -1


def _weight(shape: tuple[int, ...], use: tuple[str, int], rng: np.random.Generator) -> np.ndarray:
    op, index = use
    if op in ("Conv", "Gemm", "MatMul") and index == 1:
        fan_in = int(np.prod(shape[1:])) if op == "Conv" else shape[0 if op == "MatMul" else -1]
        return rng.normal(0.0, np.sqrt(2.0 / max(fan_in, 1)), shape)
    if op == "BatchNormalization":  # scale, bias, mean, var: statistics that change the data
        return {1: 1.0 + 0.2 * rng.standard_normal(shape), 2: 0.1 * rng.standard_normal(shape),
                3: 0.1 * rng.standard_normal(shape), 4: rng.uniform(0.5, 1.5, shape)}[index]
    if op == "Mul":
        return 1.0 + 0.2 * rng.standard_normal(shape)
    return 0.05 * rng.standard_normal(shape)


def _build(name: str) -> tuple[onnx.ModelProto, np.ndarray]:
    model = onnx.load(LIGHT / f"light_{name}.onnx")
    graph = model.graph
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    consts = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    weights, nodes = {}, []
    for node in graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in consts:
            shape = tuple(int(d) for d in consts[node.input[0]])
            use = _uses(graph, node.output[0])
            weights[node.output[0]] = _weight(shape, use, rng).astype(np.float32)
        else:
            nodes.append(node)
    used = {i for n in nodes for i in n.input}
    inits = [numpy_helper.from_array(v, k) for k, v in weights.items()]
    inits += [i for i in graph.initializer if i.name in used]
    data = [i for i in graph.input if i.name not in weights and i.name not in consts]
    new = helper.make_graph(nodes, graph.name, data, list(graph.output), initializer=inits)
    out = helper.make_model(new, opset_imports=model.opset_import,
                            ir_version=max(model.ir_version, 7))
    onnx.checker.check_model(out)
    dims = [d.dim_value for d in data[0].type.tensor_type.shape.dim]
    return out, rng.standard_normal(dims).astype(np.float32)


def store(out: Path, name: str, model: bytes, x: np.ndarray) -> None:
    """<out>/<name>.onnx, .input.npy and onnxruntime's .expected.npy, the reference last, so a
    name whose reference exists is complete."""
    import onnxruntime as ort

    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    y = session.run(None, {session.get_inputs()[0].name: x})[0]
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        (Path(tmp) / f"{name}.onnx").write_bytes(model)
        np.save(Path(tmp) / f"{name}.input.npy", x)
        np.save(Path(tmp) / f"{name}.expected.npy", y)
        for suffix in (".onnx", ".input.npy", ".expected.npy"):
            os.replace(Path(tmp) / f"{name}{suffix}", out / f"{name}{suffix}")


def materialize(names: list[str] | tuple[str, ...] = ZOO, out: Path | None = None) -> Path:
    """Make <out>/<name>.onnx, .input.npy and .expected.npy for each name not made yet."""
    out = out or cache_dir()
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        if not (out / f"{name}.expected.npy").exists():
            model, x = _build(name)
            store(out, name, model.SerializeToString(), x)
    return out


if __name__ == "__main__":
    wanted = sys.argv[1:] or list(ZOO)
    unknown = sorted(set(wanted) - set(ZOO))
    if unknown:
        sys.exit(f"light_zoo.py: unknown model(s) {', '.join(unknown)}; known: {', '.join(ZOO)}")
    folder = materialize(wanted)
    for n in wanted:
        size = (folder / f"{n}.onnx").stat().st_size / 2**20
        print(f"{n:14} {size:7.1f} MiB  {folder / n}.onnx")
