"""STFT-15: the one-sided short-time Fourier transform of real signals [batch, length] (or
[length]): frames of frame_size every frame_step, weighted by a window (zero-padded to
frame_size, centred), complex values as a trailing [re, im] dim. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/signals/stft-15.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["STFT"]


class STFT(Op):
    op = type = "STFT"
    version = "opset15"
    in_ports_count = 4
    attr_types = {"transpose_frames": "bool"}
    defaults = {"transpose_frames": False}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        signal, size, step = shapes[0], values[2], values[3]
        if signal is None:
            return [None]
        frames, bins = DYN, DYN
        if size is not None:
            bins = int(size) // 2 + 1
            if step is not None and signal[-1] >= 0:
                frames = (signal[-1] - int(size)) // int(step) + 1
        pair = (bins, frames) if attrs["transpose_frames"] else (frames, bins)
        return [(*signal[:-1], *pair, 2)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        signal, window = np.asarray(inputs[0]), np.asarray(inputs[1])
        size, step = int(inputs[2]), int(inputs[3])
        weights = np.zeros(size, np.float64)
        start = (size - window.size) // 2
        weights[start:start + window.size] = window
        count = (signal.shape[-1] - size) // step + 1
        starts = np.arange(count) * step
        frames = signal[..., starts[:, None] + np.arange(size)] * weights  # [..., frames, size]
        spectrum = np.fft.rfft(frames, axis=-1)
        if attrs["transpose_frames"]:
            spectrum = np.swapaxes(spectrum, -1, -2)
        return [np.stack([spectrum.real, spectrum.imag], axis=-1).astype(signal.dtype)]
