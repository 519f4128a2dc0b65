"""MXNet's LayerNorm (BERT-style GluonNLP models: MVN over one axis, scaled and shifted, and with
output_mean_var its mean and standard deviation) and numpy's roll, against numpy in OpenVINO and
the shim."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from tests.front.test_mxnet import Net, _w, convert, run_both

RNG = np.random.default_rng(11)


def _reference(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, axis: int, eps: float):
    mean = x.mean(axis=axis, keepdims=True)
    std = np.sqrt(((x - mean) ** 2).mean(axis=axis, keepdims=True) + eps)
    shape = [1] * x.ndim
    shape[axis] = -1
    return (x - mean) / std * gamma.reshape(shape) + beta.reshape(shape), mean, std


@pytest.mark.parametrize("axis", [-1, 1, -3])
def test_layer_norm_matches_numpy(tmp_path: Path, capsys, axis: int) -> None:
    size = {-1: 6, 1: 4, -3: 4}[axis]
    gamma, beta = _w(size), _w(size)
    net = Net()
    y = net.op("LayerNorm", "ln", [net.sym.var("data"), net.weight("g", gamma),
                                   net.weight("b", beta)], axis=axis, eps=1e-5)
    xml = convert(net.save(tmp_path, "ln", [y]), tmp_path / "ir", "--input_shape", "[2,4,3,6]")
    capsys.readouterr()
    data = RNG.standard_normal((2, 4, 3, 6)).astype(np.float32)
    want = _reference(data, gamma, beta, axis, 1e-5)[0]
    for got in run_both(xml, {"data": data}, ["ln"]):
        np.testing.assert_allclose(got[0], want, rtol=1e-4, atol=1e-5)


def test_layer_norm_outputs_mean_and_std(tmp_path: Path, capsys) -> None:
    gamma, beta = _w(6), _w(6)
    net = Net()
    ln = net.op("LayerNorm", "ln", [net.sym.var("data"), net.weight("g", gamma),
                                    net.weight("b", beta)], output_mean_var=True)
    xml = convert(net.save(tmp_path, "lnmv", [(ln, 0), (ln, 1), (ln, 2)]), tmp_path / "ir",
                  "--input_shape", "[2,3,6]")
    capsys.readouterr()
    names = [sorted(o.get_names()) for o in ov.Core().read_model(str(xml)).outputs]
    data = RNG.standard_normal((2, 3, 6)).astype(np.float32)
    want = _reference(data, gamma, beta, -1, 9.99999975e-06)
    for got in run_both(xml, {"data": data}, [n[0] for n in names]):
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("attrs", [{"shift": (2, -1), "axis": (3, 1)}, {"shift": (5,)}])
def test_np_roll_matches_numpy(tmp_path: Path, capsys, attrs: dict) -> None:
    net = Net()
    y = net.op("_np_roll", "roll", [net.sym.var("data")], **attrs)
    xml = convert(net.save(tmp_path, "roll", [y]), tmp_path / "ir", "--input_shape", "[1,4,3,6]")
    capsys.readouterr()
    data = RNG.standard_normal((1, 4, 3, 6)).astype(np.float32)
    want = np.roll(data, attrs["shift"], attrs.get("axis"))
    for got in run_both(xml, {"data": data}, ["roll"]):
        np.testing.assert_array_equal(got[0], want)
