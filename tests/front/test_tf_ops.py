"""TF ops of the detection, NLP and audio model families, shape and math ops, and TF's own
arithmetic conventions (FloorMod signs, half-to-even Round, flooring integer FloorDiv, the
resize flags): small graphs written by TensorFlow (tests/tf_op_graphs.py) convert and match TF's
outputs in the shim and in OpenVINO, output by output (indices exactly)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.errors import ConversionError
from converter.front.tf.loader import load_graph_def
from converter.front.tf.writer import GraphBuilder
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.engines import open_engine
from tests.tf_op_graphs import FAMILIES, op_graph

CASES = [pytest.param(name, id=f"{family}-{name}")
         for family, names in FAMILIES.items() for name in names]
# the opset op each graph must hold (its translation is not folded away)
KEY_OPS = {"nms": "NonMaxSuppression", "crop": "GatherND", "top_k": "TopK", "where": "NonZero",
           "gather_nd": "GatherND", "scatter_nd": "ScatterNDUpdate", "one_hot": "OneHot",
           "cumsum": "CumSum", "bucketize": "Bucketize", "range": "Range", "rfft": "RDFT",
           "fft": "DFT", "irfft": "IRDFT", "resize": "Interpolate", "spectrogram": "RDFT",
           "mfcc": "MatMul", "tensor_scatter": "ScatterNDUpdate", "arg_max": "TopK",
           "roll_reverse": "ReverseSequence", "space_batch": "BatchToSpace",
           "bitwise": "BitwiseXor", "segments": "Unique", "patches": "ExtractImagePatches",
           "bicubic": "Gather",
           "pool_argmax": "MaxPool", "sparse_dense": "ScatterElementsUpdate"}


def _convert(folder: Path, outputs: list[str], out: Path, file: str = "frozen.pb") -> Path:
    return convert(ConvertOptions(folder / file, output_dir=out, outputs=outputs)).xml


def _sources(folder: Path) -> dict[str, str]:
    """Each Identity `out<i>`'s input tensor: the name its value has among the IR's outputs."""
    nodes = load_graph_def(folder / "frozen.pb").node
    return {node.name: node.input[0].removesuffix(":0") for node in nodes
            if node.name.startswith("out")}


def _run(xml: Path, engine: str, feed: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    runner = open_engine(engine, xml, "CPU")
    return runner.run({i.name: next(feed[k.split(":")[0]] for k in sorted(i.names | {i.name})
                                    if k.split(":")[0] in feed) for i in runner.inputs()})


@pytest.mark.parametrize("name", CASES)
def test_op_matches_tf(name: str, tmp_path: Path) -> None:
    folder = op_graph(name)
    feed = dict(np.load(folder / "inputs.npz"))
    wants = dict(np.load(folder / "expected.npz"))
    xml = _convert(folder, list(wants), tmp_path)
    for prefix, op in KEY_OPS.items():
        if name.startswith(prefix):
            assert f'type="{op}"' in xml.read_text()
    sources = _sources(folder)
    for engine in ("shim", "openvino"):
        gots = _run(xml, engine, feed)
        assert len(gots) == len(wants), engine
        for out, want in wants.items():
            got = gots.get(sources[out], gots.get(out))  # the tensor's name, or the Identity's
            assert got.shape == want.shape, (engine, out)
            if want.dtype.kind in "iub":
                np.testing.assert_array_equal(got, want, err_msg=f"{engine} {out}")
            else:
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5,
                                           err_msg=f"{engine} {out}")


def test_crop_size_must_be_constant(tmp_path: Path) -> None:
    g = GraphBuilder()
    inputs = [g.placeholder("image", [1, 8, 8, 3]), g.placeholder("boxes", [2, 4]),
              g.const("box_ind", np.zeros(2, np.int32)),
              g.placeholder("crop_size", [2], np.int32)]
    g.node("CropAndResize", "crop", inputs, T=np.float32, method="bilinear")
    with pytest.raises(ConversionError, match=r"crop_size \(input 3\) must be a constant"):
        _convert(g.save(tmp_path / "m.pb").parent, ["crop"], tmp_path, "m.pb")


def test_unsupported_complex_arithmetic_is_refused(tmp_path: Path) -> None:
    g = GraphBuilder()
    x = g.placeholder("x", [2, 3])
    c = g.node("Complex", "c", [x, x], T=np.float32, Tout=np.complex64)
    g.node("RealDiv", "ratio", [c, c], T=np.complex64)
    with pytest.raises(ConversionError, match="RealDiv on complex numbers is not supported"):
        _convert(g.save(tmp_path / "m.pb").parent, ["ratio"], tmp_path, "m.pb")
