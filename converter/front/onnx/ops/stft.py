"""ONNX STFT (opset 17) of real signals as STFT-15, which is one-sided: the signal's trailing
[1] dim dropped, a missing window all ones of frame_length."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.dtype(np.int64)


@onnx_op("STFT")
def stft(n: OnnxNode) -> list[Port]:
    if not n.attr("onesided", 1):
        n.reject("asks for both-sided spectra; OpenVINO's STFT is one-sided", "set onesided=1")
    signal, step, window, length = (n.input(i) for i in range(4))
    shape = signal.node.soft_get("shape", None) if signal.node.soft_get("op") == "Parameter" \
        else np.shape(signal.node.value) if signal.node.soft_get("op") == "Const" else None
    if shape is not None and shape[-1] == 2:
        n.reject("transforms a complex signal; OpenVINO's STFT takes real ones",
                 "pass a real signal [batch, length, 1]")
    real = n.op("Squeeze", [signal, np.array([-1], I64)])
    if length is None:
        length = n.op("Gather", [n.op("ShapeOf", [window], output_type=I64), np.int64(0),
                                 np.int64(0)])
    length = n.op("Reshape", [n.op("Convert", [length], destination_type=I64),
                              np.zeros(0, I64)], special_zero=False)
    if window is None:
        window = n.op("Broadcast", [n.op("ConvertLike", [np.float32(1), real]),
                                    n.op("Unsqueeze", [length, np.int64(0)])])
    step = n.op("Reshape", [n.op("Convert", [step], destination_type=I64), np.zeros(0, I64)],
                special_zero=False)
    return [n.op("STFT", [real, window, length, step], transpose_frames=False)]
