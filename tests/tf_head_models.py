"""Two small TF models around the detection and audio ops, written by TensorFlow (in a child,
`run_tf`) once per machine into ~/.cache/extgen/tf-<ver>/heads/<name>/ as frozen.pb and
saved_model/, with input.npy, input2.npy and TF's outputs expected.npz, expected2.npz:

- detector: a conv trunk predicting one box and score per cell, an anchor box decoder, soft
  NonMaxSuppressionV5, CropAndResize of the kept boxes from the features, a classifier per box,
- speech: AudioSpectrogram + Mfcc on a waveform, then dense layers over the coefficients.

    folder = head_model("detector")
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.cache_folder import write_once
from tests.tf_corpus import cache_dir, run_tf

__all__ = ["MODELS", "head_model"]

MODELS = {"detector": (1, 32, 32, 3), "speech": (4000, 1)}  # name: input shape


def _detector(rng: np.random.Generator):
    import tensorflow as tf

    w = {k: tf.Variable(rng.standard_normal(s).astype(np.float32) * scale) for k, s, scale in (
        ("trunk", (3, 3, 3, 8), 0.4), ("head", (3, 3, 8, 5), 0.3), ("cls", (8, 3), 0.5))}
    centres = (np.arange(16, dtype=np.float32) + 0.5) / 16
    ay, ax = np.meshgrid(centres, centres, indexing="ij")
    anchors = np.stack([ay.ravel(), ax.ravel()], axis=1)

    def call(x):
        f = tf.nn.relu(tf.nn.conv2d(x, w["trunk"], 2, "SAME"))
        out = tf.reshape(tf.nn.conv2d(f, w["head"], 1, "SAME"), [-1, 5])
        centre = anchors + out[:, :2] * 0.1
        half = 0.08 * tf.exp(tf.clip_by_value(out[:, 2:4], -1.0, 1.0))
        boxes = tf.concat([centre - half, centre + half], axis=1)
        scores = tf.sigmoid(out[:, 4] * 0.3)
        keep, kept = tf.image.non_max_suppression_with_scores(
            boxes, scores, max_output_size=8, iou_threshold=0.5, score_threshold=0.3,
            soft_nms_sigma=0.4)
        picked = tf.gather(boxes, keep)
        crops = tf.image.crop_and_resize(f, picked, tf.zeros_like(keep), [5, 5])
        classes = tf.matmul(tf.reduce_mean(crops, axis=[1, 2]), w["cls"])
        return kept, picked, classes

    return call, w


def _speech(rng: np.random.Generator):
    import tensorflow as tf

    w = {"dense": tf.Variable(rng.standard_normal((13, 6)).astype(np.float32) * 0.3),
         "out": tf.Variable(rng.standard_normal((6, 4)).astype(np.float32) * 0.5)}

    def call(x):
        power = tf.raw_ops.AudioSpectrogram(input=x, window_size=200, stride=100,
                                            magnitude_squared=True)
        coefficients = tf.raw_ops.Mfcc(spectrogram=power, sample_rate=8000)
        hidden = tf.tanh(tf.matmul(coefficients[0], w["dense"]) * 0.1)
        return tf.reduce_mean(tf.matmul(hidden, w["out"]), axis=0)

    return call, w


def _write(name: str, out: Path) -> None:
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2,
    )

    rng = np.random.default_rng(23)
    module = tf.Module()
    call, module.weights = (_detector if name == "detector" else _speech)(rng)
    module.f = tf.function(call, input_signature=[
        tf.TensorSpec(MODELS[name], tf.float32, name="x")])
    concrete = module.f.get_concrete_function()
    frozen = convert_variables_to_constants_v2(concrete).graph.as_graph_def()
    (out / "frozen.pb").write_bytes(frozen.SerializeToString())
    tf.saved_model.save(module, str(out / "saved_model"), signatures=concrete)
    for suffix in ("", "2"):
        x = rng.standard_normal(MODELS[name]).astype(np.float32)
        np.save(out / f"input{suffix}.npy", x)
        got = module.f(tf.constant(x))
        got = got if isinstance(got, tuple) else (got,)
        np.savez(out / f"expected{suffix}.npz", *[np.asarray(y) for y in got])


def _write_here(name: str) -> None:
    """Write one model's folder (in the child that imports TensorFlow)."""
    write_once(cache_dir() / "heads" / name, lambda tmp: _write(name, tmp))


def head_model(name: str) -> Path:
    """The cache folder of one model, written on first use."""
    folder = cache_dir() / "heads" / name
    if not folder.is_dir():
        run_tf(f"from tests.tf_head_models import _write_here; _write_here({name!r})",
               Path.cwd())
    return folder
