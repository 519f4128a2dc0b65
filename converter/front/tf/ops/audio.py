"""TensorFlow's speech front end: AudioSpectrogram (Hann-windowed frames, RDFT-9, magnitude) and
Mfcc (a triangular mel filterbank on the magnitudes, log, DCT-II), built from opset ops. The
filterbank depends on the number of spectrum bins and the sample rate, so it is computed in the
graph, and constant folding turns it into one matrix once those are known."""

from __future__ import annotations

import numpy as np

from converter.front.tf.translator import TfNode, tf_op
from converter.graph.port import Port

_F32 = np.dtype(np.float32)
_I64 = np.dtype(np.int64)


def _dim(n: TfNode, x: Port, axis: int, dtype: np.dtype = _I64) -> Port:
    """x's size along axis, a scalar of dtype."""
    size = n.op("Gather", [n.op("ShapeOf", [x], output_type=_I64), n.const(axis, np.int64),
                           n.const(0, np.int64)], batch_dims=0)
    return size if dtype == _I64 else n.op("Convert", [size], destination_type=dtype)


def _frames(n: TfNode, samples: Port, window: int, stride: int) -> Port:
    """samples [time, channels] cut into [channels, frames, window]: one frame every stride."""
    last = n.op("Subtract", [_dim(n, samples, 0), n.const(window, np.int64)])
    count = n.op("Add", [n.op("Divide", [last, n.const(stride, np.int64)], m_pythondiv=True),
                         n.const(1, np.int64)])
    starts = n.op("Multiply", [n.op("Range", [n.const(0, np.int64), count, n.const(1, np.int64)],
                                    output_type=_I64), n.const(stride, np.int64)])
    index = n.op("Add", [n.op("Unsqueeze", [starts, n.const([1], np.int64)]),
                         n.const(np.arange(window, dtype=np.int64)[None])])
    channels_first = n.op("Transpose", [samples, n.const([1, 0], np.int64)])
    return n.op("Gather", [channels_first, index, n.const(1, np.int64)], batch_dims=0)


@tf_op("AudioSpectrogram")
def audio_spectrogram(n: TfNode):
    window, stride = int(n.attr("window_size")), int(n.attr("stride"))
    length = 1 << max(window - 1, 0).bit_length()  # the next power of two
    hann = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(window) / window)  # periodic Hann
    frames = n.op("Multiply", [_frames(n, n.input(0), window, stride), n.const(hann, _F32)])
    # zeros up to the transform's length by a Pad: OpenVINO's CPU RDFT takes no longer signal_size
    frames = n.op("Pad", [frames, n.const([0, 0, 0], np.int64),
                          n.const([0, 0, length - window], np.int64)], pad_mode="constant")
    spectrum = n.op("RDFT", [frames, n.const([-1], np.int64)])
    power = n.op("ReduceSum", [n.op("Multiply", [spectrum, spectrum]), n.const([-1], np.int64)],
                 keep_dims=False)
    return [power if n.attr("magnitude_squared", False) else n.op("Sqrt", [power])]


def _mel(hz: np.ndarray | float) -> np.ndarray:
    return 1127.0 * np.log1p(np.asarray(hz) / 700.0)


def _filterbank(n: TfNode, bins: Port, rate: Port, channels: int) -> Port:
    """The [bins, channels] matrix of TF's mel filterbank (HTK-style, DC excluded): each bin in
    [start, end] gives weight w to the channel whose centre is just below it and 1 - w to the
    next one, w falling linearly between the two centres in mel."""
    low, high = float(n.attr("lower_frequency_limit", 20.0)), \
        float(n.attr("upper_frequency_limit", 4000.0))
    edges = np.linspace(_mel(low), _mel(high), channels + 2)  # mel_low, then each centre
    hz_per_bin = n.op("Divide", [n.op("Multiply", [rate, n.const(0.5, _F32)]),
                                 n.op("Subtract", [bins, n.const(1.0, _F32)])])
    index = n.op("Range", [n.const(0.0, _F32), bins, n.const(1.0, _F32)], output_type=_F32)
    mel = n.op("Multiply", [n.op("Log", [n.op("Add", [n.const(1.0, _F32), n.op("Divide", [
        n.op("Multiply", [index, hz_per_bin]), n.const(700.0, _F32)])])]),
        n.const(1127.0, _F32)])
    start = n.op("Floor", [n.op("Add", [n.const(1.5, _F32),
                                        n.op("Divide", [n.const(low, _F32), hz_per_bin])])])
    end = n.op("Floor", [n.op("Divide", [n.const(high, _F32), hz_per_bin])])
    used = n.op("LogicalAnd", [n.op("GreaterEqual", [index, start]),
                               n.op("LessEqual", [index, end])])
    # band + 1: the edge at or above which the bin lies (0 is mel_low)
    above = n.op("Bucketize", [mel, n.const(edges[1:-1], _F32)], output_type=_I64,
                 with_right_bound=True)
    upper = n.op("Gather", [n.const(edges, _F32), n.op("Add", [above, n.const(1, np.int64)]),
                            n.const(0, np.int64)], batch_dims=0)
    lower = n.op("Gather", [n.const(edges, _F32), above, n.const(0, np.int64)], batch_dims=0)
    weight = n.op("Divide", [n.op("Subtract", [upper, mel]), n.op("Subtract", [upper, lower])])
    weight = n.op("Select", [used, weight, n.const(0.0, _F32)], auto_broadcast="numpy")
    rest = n.op("Select", [used, n.op("Subtract", [n.const(1.0, _F32), weight]),
                           n.const(0.0, _F32)], auto_broadcast="numpy")
    return n.op("Add", [_band(n, above, -1, weight, channels), _band(n, above, 0, rest, channels)])


def _band(n: TfNode, above: Port, shift: int, weight: Port, channels: int) -> Port:
    """[bins, channels]: weight at channel above + shift where that channel exists, else 0."""
    channel = n.op("Add", [above, n.const(shift, np.int64)])
    exists = n.op("LogicalAnd", [n.op("GreaterEqual", [channel, n.const(0, np.int64)]),
                                 n.op("Less", [channel, n.const(channels, np.int64)])])
    weight = n.op("Select", [exists, weight, n.const(0.0, _F32)], auto_broadcast="numpy")
    safe = n.op("Maximum", [n.op("Minimum", [channel, n.const(channels - 1, np.int64)]),
                            n.const(0, np.int64)])
    hot = n.op("OneHot", [safe, n.const(channels, np.int64), n.const(1.0, _F32),
                          n.const(0.0, _F32)], axis=-1)
    return n.op("Multiply", [hot, n.op("Unsqueeze", [weight, n.const([1], np.int64)])])


@tf_op("Mfcc")
def mfcc(n: TfNode):
    channels = int(n.attr("filterbank_channel_count", 40))
    count = int(n.attr("dct_coefficient_count", 13))
    spectrum = n.input(0)  # squared magnitudes [channels, frames, bins]
    rate = n.op("Convert", [n.input(1)], destination_type=_F32)
    bank = _filterbank(n, _dim(n, spectrum, -1, _F32), rate, channels)
    energy = n.op("MatMul", [n.op("Sqrt", [spectrum]), bank], transpose_a=False,
                  transpose_b=False)
    logs = n.op("Log", [n.op("Maximum", [energy, n.const(1e-12, _F32)])])
    j, i = np.meshgrid(np.arange(channels), np.arange(count), indexing="ij")
    dct = np.sqrt(2.0 / channels) * np.cos(np.pi / channels * i * (j + 0.5))
    return [n.op("MatMul", [logs, n.const(dct, _F32)], transpose_a=False, transpose_b=False)]
