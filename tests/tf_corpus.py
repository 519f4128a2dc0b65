"""Real Keras/TensorFlow models for the TF front's tests, built with tensorflow-cpu (a test
dependency), random weights with fixed seeds and batch-norm statistics calibrated on a random
batch (with raw random weights, different images give the same logits and a wrong conversion
would pass).

`tf1_saver` is a TF 1.x graph with variables instead: graph.pbtxt (not frozen), model.meta and
the checkpoint model.index/model.data-00000-of-00001.

Each model is written once per machine into ~/.cache/extgen/tf-<tf version>/<name>/:
frozen.pb (traced with a dynamic batch, as users freeze), frozen.pbtxt (not for NO_PBTXT),
saved_model/ (`model.export`), model.keras, input.npy, input2.npy and expected.npy /
expected2.npy (TF's own outputs). A file lock makes concurrent test workers wait for one
writer; each model folder appears by an atomic rename.

TensorFlow is never imported into the test process: its LLVM breaks PoCL's (OpenCL builds fail
or crash afterwards in the same process), so models are built, and TF oracles run, in a child
(`run_tf`).

    folder = materialize("squeeze_excite")
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np

from tests import tf_task_models
from tests.cache_folder import write_once

__all__ = ["HEAVY", "MODELS", "NO_PBTXT", "TF1", "cache_dir", "materialize", "run_tf",
           "write_pbtxt"]

# keras.applications: (class name, input side, extra kwargs)
_APPS = {
    "mobilenet_v2": ("MobileNetV2", 96, {"alpha": 0.35}),
    "resnet50": ("ResNet50", 64, {}),
    "vgg16": ("VGG16", 32, {}),
    "efficientnet_b0": ("EfficientNetB0", 64, {}),
    "densenet121": ("DenseNet121", 64, {}),
    "xception": ("Xception", 71, {}),
    "inception_v3": ("InceptionV3", 75, {}),
    "nasnet_mobile": ("NASNetMobile", 64, {}),
    "convnext_tiny": ("ConvNeXtTiny", 32, {}),
}
_SMALL = ("squeeze_excite", "transformer", "upsample", "space_depth", "lstm", "gru", "bilstm",
          "deeplab", "ssd", "speech_mel")
MODELS = tuple(_APPS) + _SMALL
TF1 = "tf1_saver"
# slow to build and convert: their tests carry @pytest.mark.slow
HEAVY = ("resnet50", "densenet121", "xception", "inception_v3", "nasnet_mobile", "convnext_tiny")
# frozen.pbtxt is 2.8 times the .pb: the five biggest (84-135 MB as .pb, up to 380 MB as text)
# get none in the cache; `write_pbtxt` writes theirs on demand
NO_PBTXT = ("vgg16", "resnet50", "convnext_tiny", "inception_v3", "xception")
# their Lambda layers hold TF code (tf.nn.space_to_depth, tf.image NMS): no .keras/.h5 form
_NO_KERAS_FILE = ("space_depth", "ssd")
# bumped when the files written for a model change (the folders are never rewritten)
_CORPUS_VERSION = 2


def _tf_version() -> str:
    for dist in ("tensorflow-cpu", "tensorflow"):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    msg = "tensorflow-cpu is not installed (a test dependency: make test installs it)"
    raise RuntimeError(msg)


def cache_dir() -> Path:
    return Path.home() / ".cache" / "extgen" / f"tf-{_tf_version()}"


def _corpus_dir() -> Path:
    return cache_dir() / f"corpus-{_CORPUS_VERSION}"


def run_tf(code: str, cwd: Path) -> None:
    """Run Python code that imports TensorFlow in a child process, in folder cwd."""
    from tests.child_env import child_env

    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=child_env(),
                          capture_output=True, text=True, check=False)
    if done.returncode:
        msg = f"TensorFlow child failed ({done.returncode}):\n{done.stderr[-3000:]}"
        raise RuntimeError(msg)


def _app(name: str):
    import keras

    cls, side, kwargs = _APPS[name]
    return getattr(keras.applications, cls)(
        weights=None, input_shape=(side, side, 3), classes=10, classifier_activation=None,
        **kwargs)  # logits: a softmax of random weights is nearly uniform whatever the input


def _squeeze_excite():
    from keras import layers

    x = inp = layers.Input((16, 16, 8))
    x = layers.Conv2D(16, 3, padding="same", activation="relu")(x)
    x = layers.BatchNormalization()(x)
    s = layers.GlobalAveragePooling2D(keepdims=True)(x)
    s = layers.Conv2D(4, 1, activation="relu")(s)
    s = layers.Conv2D(16, 1, activation="sigmoid")(s)
    x = layers.Multiply()([x, s])
    x = layers.DepthwiseConv2D(3, padding="same")(x)
    x = layers.Flatten()(x)
    return _model(inp, layers.Dense(10)(x))


def _transformer():
    from keras import layers

    x = inp = layers.Input((12, 32))
    a = layers.MultiHeadAttention(num_heads=4, key_dim=8)(x, x)
    x = layers.LayerNormalization()(layers.Add()([x, a]))
    f = layers.Dense(64, activation="gelu")(x)
    f = layers.Dense(32)(f)
    x = layers.LayerNormalization()(layers.Add()([x, f]))
    return _model(inp, layers.Dense(4)(layers.GlobalAveragePooling1D()(x)))


def _upsample():
    from keras import layers

    x = inp = layers.Input((8, 8, 4))
    x = layers.Conv2DTranspose(8, 3, strides=2, padding="same")(x)
    x = layers.UpSampling2D(2, interpolation="bilinear")(x)
    x = layers.Conv2D(4, 3, strides=2, padding="same")(x)
    x = layers.UpSampling2D(2, interpolation="nearest")(x)
    x = layers.Resizing(20, 20, interpolation="bilinear")(x)
    return _model(inp, layers.Conv2D(3, 1)(x))


def _space_depth():
    import tensorflow as tf
    from keras import layers

    x = inp = layers.Input((8, 8, 4))
    x = layers.Conv2D(8, 3, padding="same")(x)
    x = layers.Lambda(lambda t: tf.nn.space_to_depth(t, 2))(x)
    x = layers.Conv2D(16, 1)(x)
    x = layers.Lambda(lambda t: tf.nn.depth_to_space(t, 2))(x)
    x = layers.Lambda(lambda t: tf.reverse(t, axis=[2]))(x)
    return _model(inp, layers.Conv2D(2, 1)(x))


def _recurrent(kind: str):
    from keras import layers

    x = inp = layers.Input((10, 6))
    if kind == "lstm":
        x = layers.LSTM(16)(x)
    elif kind == "gru":
        x = layers.GRU(16)(x)
    else:
        x = layers.Bidirectional(layers.LSTM(8))(x)
    return _model(inp, layers.Dense(3)(x))


def _model(inp, out):
    import keras

    return keras.Model(inp, out)


_BUILDERS: dict[str, Callable] = {
    "squeeze_excite": _squeeze_excite, "transformer": _transformer, "upsample": _upsample,
    "space_depth": _space_depth, "lstm": lambda: _recurrent("lstm"),
    "gru": lambda: _recurrent("gru"), "bilstm": lambda: _recurrent("bilstm"),
    "deeplab": tf_task_models.deeplab, "ssd": tf_task_models.ssd,
    "speech_mel": tf_task_models.speech_mel,
}


def _calibrate(model, x: np.ndarray) -> None:
    """Set every BatchNormalization's moving statistics to those of one random batch."""
    import keras

    bns = [layer for layer in model._flatten_layers() if isinstance(
        layer, keras.layers.BatchNormalization)]
    for layer in bns:
        layer.momentum = 0.0
    if bns:
        model(x, training=True)
    for layer in bns:
        layer.momentum = 0.99


def _build(name: str):
    import keras
    import tensorflow as tf

    keras.utils.set_random_seed(1234)
    model = _app(name) if name in _APPS else _BUILDERS[name]()
    shape = [1, *model.input_shape[1:]]
    rng = np.random.default_rng(5)
    _calibrate(model, rng.standard_normal([8, *shape[1:]]).astype(np.float32))
    inputs = [rng.standard_normal(shape).astype(np.float32) for _ in range(2)]
    outputs = [np.asarray(model(tf.constant(x), training=False)) for x in inputs]
    return model, shape, inputs, outputs


def _write_frozen(name: str, model, shape: list[int], out: Path) -> None:
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2,
    )

    fn = tf.function(lambda x: model(x, training=False))
    concrete = fn.get_concrete_function(tf.TensorSpec([None, *shape[1:]], tf.float32, name="x"))
    graph_def = convert_variables_to_constants_v2(concrete).graph.as_graph_def()
    data = graph_def.SerializeToString()
    (out / "frozen.pb").write_bytes(data)
    if name not in NO_PBTXT:
        tf.io.write_graph(graph_def, str(out), "frozen.pbtxt", as_text=True)


def _write(name: str, out: Path) -> None:
    model, shape, inputs, outputs = _build(name)
    _write_frozen(name, model, shape, out)
    model.export(str(out / "saved_model"), verbose=False)
    if name not in _NO_KERAS_FILE:
        model.save(out / "model.keras")
    for i, (x, y) in enumerate(zip(inputs, outputs, strict=True)):
        suffix = "" if i == 0 else str(i + 1)
        np.save(out / f"input{suffix}.npy", x)
        np.save(out / f"expected{suffix}.npy", y)


def _write_tf1(out: Path) -> None:
    """conv + bias + relu + mean + dense, variables saved by a TF 1.x Saver."""
    import tensorflow as tf

    v1 = tf.compat.v1
    rng = np.random.default_rng(3)
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [1, 8, 8, 3], name="x")
        w = v1.get_variable("conv/w", initializer=rng.standard_normal((3, 3, 3, 4), np.float32))
        b = v1.get_variable("conv/b", initializer=rng.standard_normal(4).astype(np.float32))
        d = v1.get_variable("dense/w", initializer=rng.standard_normal((4, 2), np.float32))
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "SAME"), b))
        tf.matmul(tf.reduce_mean(h, axis=[1, 2]), d, name="y")
        saver = v1.train.Saver()
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            saver.save(sess, str(out / "model"))
            v1.train.write_graph(graph.as_graph_def(), str(out), "graph.pbtxt", as_text=True)
            inputs = [rng.standard_normal((1, 8, 8, 3)).astype(np.float32) for _ in range(2)]
            for i, value in enumerate(inputs):
                suffix = "" if i == 0 else str(i + 1)
                np.save(out / f"input{suffix}.npy", value)
                np.save(out / f"expected{suffix}.npy", sess.run("y:0", {x: value}))


def materialize(name: str) -> Path:
    """The cache folder of one corpus model, built on first use by a child process."""
    folder = _corpus_dir() / name
    if not folder.is_dir():
        run_tf(f"from tests.tf_corpus import _build_here; _build_here({name!r})", Path.cwd())
    return folder


def write_pbtxt(folder: Path, out: Path) -> Path:
    """out/frozen.pbtxt: the model's frozen.pb as TensorFlow writes it in text (for the models
    of NO_PBTXT), written by a child."""
    run_tf("import tensorflow as tf\n"
           "graph_def = tf.compat.v1.GraphDef()\n"
           f"graph_def.ParseFromString(open({str(folder / 'frozen.pb')!r}, 'rb').read())\n"
           f"tf.io.write_graph(graph_def, {str(out)!r}, 'frozen.pbtxt', as_text=True)\n", out)
    return out / "frozen.pbtxt"


def _build_here(name: str) -> Path:
    """Build one model in this process (which imports TensorFlow), one process at a time."""
    return write_once(_corpus_dir() / name,
                      lambda tmp: _write_tf1(tmp) if name == TF1 else _write(name, tmp))


if __name__ == "__main__":
    import time

    for model_name in sys.argv[1:] or (*MODELS, TF1):
        start = time.perf_counter()
        path = _build_here(model_name)
        print(f"{model_name:16} {time.perf_counter() - start:6.1f} s  {path}")
