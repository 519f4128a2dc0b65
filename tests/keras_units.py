"""Tiny Keras models for the .keras reader's layer tests: recurrent layers in their variants,
nested models, attention with a separate key, MelSpectrogram variants with Conv1D. Built by
TensorFlow in a child process (tests/tf_corpus.run_tf), random weights with fixed seeds, written
once per machine into ~/.cache/extgen/tf-<version>/keras-units/<name>/ as model.keras,
input.npy, expected.npy (and input2/expected2; a second input is not saved).

    folder = keras_unit("recurrent")
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tests.tf_corpus import cache_dir, run_tf

__all__ = ["UNITS", "keras_unit"]


def _recurrent():
    from keras import layers

    x = inp = layers.Input((7, 5))
    x = layers.LSTM(6, return_sequences=True, go_backwards=True)(x)
    x = layers.SimpleRNN(4, return_sequences=True, activation="relu")(x)
    x = layers.GRU(5, return_sequences=True, reset_after=False)(x)
    x = layers.LSTM(3, use_bias=False, return_sequences=True,
                    recurrent_activation="hard_sigmoid")(x)
    return _model(inp, layers.GRU(4, go_backwards=True)(x))


def _bidirectional():
    from keras import layers

    x = inp = layers.Input((6, 4))
    x = layers.Bidirectional(layers.GRU(4, return_sequences=True), merge_mode="sum")(x)
    x = layers.Bidirectional(layers.LSTM(3, return_sequences=True), merge_mode="ave")(x)
    x = layers.Bidirectional(layers.SimpleRNN(5, return_sequences=True), merge_mode="mul")(x)
    x = layers.Bidirectional(layers.LSTM(2, return_sequences=True),
                             backward_layer=layers.GRU(2, return_sequences=True,
                                                       go_backwards=True))(x)
    return _model(inp, layers.Bidirectional(layers.GRU(2))(x))


def _nested():
    import keras
    from keras import layers

    stem = keras.Sequential([layers.Input((9, 8)), layers.Dense(8, activation="gelu"),
                             layers.LayerNormalization(center=False)])
    inner_in = layers.Input((9, 8))
    h = layers.Dense(8)(inner_in)
    key = layers.Dense(8)(inner_in)
    a = layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=5)(inner_in, h, key=key)
    block = keras.Model(inner_in, layers.LayerNormalization(axis=[-2, -1])(
        layers.Add()([inner_in, a])))
    x = inp = layers.Input((9, 8))
    x = block(stem(x))
    return _model(inp, keras.Sequential([layers.Flatten(), layers.Dense(3)])(x))


def _causal():
    from keras import layers

    x = inp = layers.Input((5, 6))
    x = layers.MultiHeadAttention(num_heads=2, key_dim=4)(x, x, use_causal_mask=True)
    return _model(inp, layers.Dense(2)(x))


def _mask():
    from keras import layers

    inp, mask = layers.Input((5, 6)), layers.Input((5, 5))
    return _model([inp, mask], layers.MultiHeadAttention(1, 2)(inp, inp, attention_mask=mask))


def _sequential():
    import keras
    from keras import layers

    return keras.Sequential([layers.Input((6, 6, 3)), layers.Conv2D(4, 3, activation="relu"),
                             layers.Flatten(), layers.Dense(2)])


def _state():
    from keras import layers

    inp = layers.Input((4, 3))
    out, _, _ = layers.LSTM(2, return_state=True)(inp)
    return _model(inp, out)


def _audio():
    from keras import layers

    x = inp = layers.Input((1000,))
    db = layers.MelSpectrogram(
        fft_length=128, sequence_stride=50, sequence_length=100, window="hamming",
        sampling_rate=4000, num_mel_bins=16, mag_exp=1.0, ref_power=2.0, top_db=40.0,
        min_freq=50.0, max_freq=1800.0)(x)
    a = layers.Permute((2, 1))(layers.Rescaling(0.02)(db))
    a = layers.Conv1D(6, 5, padding="same", dilation_rate=2, activation="tanh")(a)
    a = layers.GlobalAveragePooling1D()(layers.Conv1D(4, 3, strides=2)(a))
    power = layers.MelSpectrogram(fft_length=64, sequence_stride=64, num_mel_bins=8,
                                  power_to_db=False, sampling_rate=8000)(x)
    b = layers.GlobalAveragePooling1D()(layers.Conv1D(4, 1, use_bias=False)(
        layers.Permute((2, 1))(layers.Rescaling(0.01)(power))))
    return _model(inp, layers.Dense(3)(layers.Concatenate()([a, b])))


def _model(inp, out):
    import keras

    return keras.Model(inp, out)


UNITS: dict[str, Callable] = {"recurrent": _recurrent, "bidirectional": _bidirectional,
                              "nested": _nested, "sequential": _sequential, "state": _state,
                              "causal": _causal, "mask": _mask, "audio": _audio}


def keras_unit(name: str) -> Path:
    """The cache folder of one tiny model, built on first use by a child process."""
    folder = cache_dir() / "keras-units" / name
    if not folder.is_dir():
        run_tf(f"from tests.keras_units import _build_here; _build_here({name!r})", Path.cwd())
    return folder


def _build_here(name: str) -> None:
    """Build one model in this process (which imports TensorFlow); the folder appears by an
    atomic rename."""
    import keras

    root = cache_dir() / "keras-units"
    root.mkdir(parents=True, exist_ok=True)
    keras.utils.set_random_seed(99)
    model = UNITS[name]()
    rng = np.random.default_rng(7)
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root))
    try:
        for i in range(2):
            suffix = "" if i == 0 else str(i + 1)
            xs = [rng.standard_normal([1, *t.shape[1:]]).astype(np.float32)
                  for t in model.inputs]
            np.save(tmp / f"input{suffix}.npy", xs[0])
            np.save(tmp / f"expected{suffix}.npy", np.asarray(model(xs, training=False)))
        model.save(tmp / "model.keras")
        os.replace(tmp, root / name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for unit in sys.argv[1:] or UNITS:
        print(keras_unit(unit))
