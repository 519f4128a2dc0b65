"""Numpy reference math for the TensorFlow tests (NHWC, TF's padding rules) and a runner for an
IR in OpenVINO and in the shim; the other test_tf* files import it."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def _same_pads(size: int, k: int, s: int, d: int = 1) -> tuple[int, int, int]:
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return out, total // 2, total - total // 2


def _windows(x: np.ndarray, kh: int, kw: int, s: int, padding: str, d: int = 1, fill=0.0):
    """[N, OH, OW, kh, kw, C] windows of an NHWC tensor, plus a validity mask [OH, OW, kh, kw]."""
    n, h, w, c = x.shape
    if padding == "SAME":
        oh, pt, pb = _same_pads(h, kh, s, d)
        ow, pl, pr = _same_pads(w, kw, s, d)
    else:
        oh, ow = (h - (kh - 1) * d - 1) // s + 1, (w - (kw - 1) * d - 1) // s + 1
        pt = pb = pl = pr = 0
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=fill)
    valid = np.pad(np.ones((h, w), bool), ((pt, pb), (pl, pr)))
    win = np.empty((n, oh, ow, kh, kw, c), x.dtype)
    mask = np.empty((oh, ow, kh, kw), bool)
    for i in range(oh):
        for j in range(ow):
            rows = slice(i * s, i * s + (kh - 1) * d + 1, d)
            cols = slice(j * s, j * s + (kw - 1) * d + 1, d)
            win[:, i, j] = xp[:, rows, cols]
            mask[i, j] = valid[rows, cols]
    return win, mask


def conv2d(x, w, s=1, padding="SAME"):
    win, _ = _windows(x, w.shape[0], w.shape[1], s, padding)
    return np.einsum("nijhwc,hwco->nijo", win, w)


def depthwise(x, w, s=1, padding="SAME"):
    win, _ = _windows(x, w.shape[0], w.shape[1], s, padding)
    y = np.einsum("nijhwc,hwcm->nijcm", win, w)
    return y.reshape(*y.shape[:3], -1)


def max_pool(x, k, s, padding):
    win, _ = _windows(x, k, k, s, padding, fill=-np.inf)
    return win.max(axis=(3, 4))


def avg_pool(x, k, s, padding):
    win, mask = _windows(x, k, k, s, padding)
    total = (win * mask[None, ..., None]).sum(axis=(3, 4))
    return total / mask.sum(axis=(2, 3))[None, ..., None]


def batch_norm(x, gamma, beta, mean, var, eps):
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def nchw(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def run_both(xml: Path, feed: dict[str, np.ndarray], extensions=(), openvino: bool = True):
    """Outputs by name from the shim and (unless told not to) from real OpenVINO."""
    from converter.runtime.engines import open_engine

    engines = ["shim", "openvino"] if openvino else ["shim"]
    return [open_engine(e, xml, "CPU", extensions=list(extensions)).run(feed) for e in engines]


# -- the reference itself, on cases with known answers ------------------------------------------
def test_reference_same_padding_is_tf_asymmetric() -> None:
    assert _same_pads(5, 3, 2) == (3, 1, 1) and _same_pads(4, 3, 2) == (2, 0, 1)
    ones = np.ones((1, 5, 5, 2), np.float32)
    np.testing.assert_allclose(avg_pool(ones, 3, 2, "SAME"), np.ones((1, 3, 3, 2)))
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    assert max_pool(x, 2, 2, "VALID").reshape(-1).tolist() == [5, 7, 13, 15]
    k = np.zeros((3, 3, 1, 1), np.float32)
    k[1, 1] = 1
    np.testing.assert_allclose(conv2d(x, k), x)
