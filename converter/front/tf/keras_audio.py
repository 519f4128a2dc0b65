"""Keras audio layers as the TensorFlow ops Keras runs for them: MelSpectrogram is a reflect-padded
STFT (frames gathered from the waveform, a periodic Hann or Hamming window centred in
fft_length, RFFT), magnitudes to the power mag_exp, Keras' HTK mel filterbank, and decibels
clipped at top_db under the whole tensor's peak; [batch, mels, frames] out."""

from __future__ import annotations

import numpy as np

from converter.front.tf.keras_layers import F32, Builder, layer

__all__ = ["mel_matrix"]

_I32 = np.int32


def _hertz_to_mel(hertz: np.ndarray) -> np.ndarray:
    return 1127.0 * np.log1p(hertz / 700.0)


def mel_matrix(mels: int, bins: int, rate: float, low: float, high: float) -> np.ndarray:
    """[bins, mels]: Keras' (and tf.signal's) triangular HTK filters, DC bin zero."""
    frequencies = _hertz_to_mel(np.linspace(0.0, rate / 2.0, bins)[1:])[:, None]
    edges = np.linspace(_hertz_to_mel(low), _hertz_to_mel(high), mels + 2)
    lower, centre, upper = edges[:-2], edges[1:-1], edges[2:]
    slopes = np.minimum((frequencies - lower) / (centre - lower),
                        (upper - frequencies) / (upper - centre))
    return np.pad(np.maximum(0.0, slopes), [[1, 0], [0, 0]]).astype(np.float32)


def _window(kind: str, length: int, fft: int) -> np.ndarray:
    """The periodic window of `length`, zero-padded to fft around its centre."""
    alpha = {"hann": 0.5, "hamming": 0.54}.get(kind)
    if alpha is None:
        msg = f"MelSpectrogram window {kind!r}"
        raise KeyError(msg)
    window = alpha - (1 - alpha) * np.cos(2 * np.pi * np.arange(length) / length)
    left = (fft - length) // 2
    return np.pad(window, [left, fft - length - left]).astype(np.float32)


def _frames(b: Builder, name: str, cfg: dict, x: str) -> str:
    """[B, frames, fft] windowed frames of the reflect-padded waveform [B, T]."""
    length = (cfg["__build__"].get("input_shape") or [None, None])[-1]
    if length is None:
        msg = "MelSpectrogram on a waveform of unknown length"
        raise KeyError(msg)
    fft, stride = cfg["fft_length"], cfg["sequence_stride"]
    padded = b.node("MirrorPad", name, [x, b.const(name, np.array(
        [[0, 0], [fft // 2, fft // 2]], _I32))], T=F32, Tpaddings=_I32, mode="REFLECT")
    count = 1 + (length + 2 * (fft // 2) - fft) // stride
    index = (np.arange(count)[:, None] * stride + np.arange(fft)).astype(_I32)
    frames = b.node("GatherV2", name, [padded, b.const(name, index), b.const(name, _I32(1))],
                    Tparams=F32, Tindices=_I32, Taxis=_I32, batch_dims=0)
    window = _window(cfg["window"], cfg["sequence_length"] or fft, fft)
    return b.node("Mul", name, [frames, b.const(name, window)], T=F32)


@layer("MelSpectrogram")
def _mel_spectrogram(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    fft = cfg["fft_length"]
    spectrum = b.node("RFFT", name, [_frames(b, name, cfg, xs[0]),
                                     b.const(name, np.array([fft], _I32))],
                      Treal=F32, Tcomplex=np.complex64)
    parts = [b.node("Square", name, [b.node(op, name, [spectrum], T=np.complex64, Tout=F32)],
                    T=F32) for op in ("Real", "Imag")]
    power = b.node("Pow", name, [b.node("Sqrt", name, [b.node("AddV2", name, parts, T=F32)],
                                        T=F32),
                                 b.const(name, np.float32(cfg["mag_exp"]))], T=F32)
    matrix = mel_matrix(cfg["num_mel_bins"], fft // 2 + 1, cfg["sampling_rate"],
                        cfg["min_freq"], cfg["max_freq"] or cfg["sampling_rate"] // 2)
    mel = b.node("BatchMatMulV2", name, [power, b.const(name, matrix)], T=F32, adj_x=False,
                 adj_y=False)
    if cfg.get("power_to_db", True):
        mel = _decibels(b, name, cfg, mel)
    return b.node("Transpose", name, [mel, b.const(name, np.array([0, 2, 1], _I32))], T=F32,
                  Tperm=_I32)


def _decibels(b: Builder, name: str, cfg: dict, x: str) -> str:
    floor = np.float32(cfg["min_power"])
    log = b.node("Log", name, [b.node("Maximum", name, [x, b.const(name, floor)], T=F32)], T=F32)
    scale = np.float32(10.0) / np.log(np.float32(10.0))
    shift = np.float32(10.0) * np.log10(max(abs(float(cfg["ref_power"])), float(floor)))
    db = b.node("Sub", name, [b.node("Mul", name, [log, b.const(name, scale)], T=F32),
                              b.const(name, np.float32(shift))], T=F32)
    peak = b.node("Max", name, [db, b.const(name, np.array([0, 1, 2], _I32))], T=F32,
                  Tidx=_I32, keep_dims=False)
    top = b.node("Sub", name, [peak, b.const(name, np.float32(cfg["top_db"]))], T=F32)
    return b.node("Maximum", name, [db, top], T=F32)
