"""TensorFlow Lite models for the TFLite front's tests, made by TF's own converter
(tf.lite.TFLiteConverter) from Keras models and tf.functions with random weights and fixed
seeds: float ones, full-integer int8 ones (per-channel and per-tensor weights, a float, int8
or uint8 interface, calibrated on a representative dataset), one holding a custom op (its
oracle TensorFlow itself: the interpreter lacks the op) and two extgen refuses.

Each is written once per machine into ~/.cache/extgen/tf-<tf version>/tflite-<n>/<name>/:
model.tflite, input.npy, input2.npy, expected.npy, expected2.npy (tf.lite.Interpreter's outputs)
and meta.json ({"step": the output's quantization step, 0 for a float output}). TensorFlow runs
in a child process (see tests/tf_corpus.py on why).

    folder = materialize("cnn_int8")
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.cache_folder import write_once
from tests.tf_corpus import cache_dir, run_tf

__all__ = ["CUSTOM", "CUSTOM_WITH_OPTIONS", "FLOAT", "INT8", "INT8_LUT", "REFUSED",
           "materialize"]

FLOAT = ("mlp", "cnn", "mobilenet_v2", "mobilenet_v3", "image_ops", "more_ops", "attention",
         "upsample", "fp16_weights")
INT8 = ("cnn_int8", "cnn_int8_per_tensor", "mlp_int8_io", "cnn_uint8_io", "mobilenet_v2_int8")
# int8 models with ops whose integer kernels approximate the real function (HARD_SWISH,
# TANH, GELU, SQUARED_DIFFERENCE, RSQRT): computed in float32 they land a few steps off
INT8_LUT = ("mobilenet_v3_int8", "attention_int8", "upsample_int8")
CUSTOM = "custom_cosh"
CUSTOM_WITH_OPTIONS = "custom_cumprod"  # TF's Cumprod, its attributes in the custom options
# models extgen refuses: a builtin it lacks (CUMSUM), control flow into a subgraph (WHILE)
REFUSED = ("cumsum", "while_loop")
_VERSION = 1  # bumped when the files written for a model change


def materialize(name: str) -> Path:
    """The cache folder of one model, built on first use by a TensorFlow child process."""
    folder = cache_dir() / f"tflite-{_VERSION}" / name

    def write(tmp: Path) -> None:
        run_tf(f"from pathlib import Path\nfrom tests.tflite_models import _write\n"
               f"_write({name!r}, Path({str(tmp)!r}))\n", tmp)

    return write_once(folder, write)


# -- run in the TensorFlow child ----------------------------------------------------------------
def _mlp():
    from keras import layers

    x = inp = layers.Input((20,))
    x = layers.Dense(32, activation="relu")(x)
    x = layers.Dense(16, activation="tanh")(x)
    x = layers.Dense(8, activation="sigmoid")(x)
    return _model(inp, layers.Dense(4, activation="softmax")(x))


def _cnn():
    from keras import layers

    x = inp = layers.Input((16, 16, 3))
    x = layers.Conv2D(8, 3, padding="same", activation="relu")(x)
    x = layers.BatchNormalization()(x)
    x = layers.DepthwiseConv2D(3, strides=2, padding="same", activation="relu6")(x)
    x = layers.Conv2D(12, 3, dilation_rate=2, padding="valid")(x)
    x = layers.MaxPooling2D(2)(x)
    x = layers.AveragePooling2D(2, padding="same")(x)
    x = layers.Flatten()(x)
    return _model(inp, layers.Dense(10)(x))


def _app(cls: str, **kwargs):
    import keras

    return getattr(keras.applications, cls)(
        weights=None, input_shape=(32, 32, 3), classes=10, classifier_activation=None, **kwargs)


def _image_ops():
    import tensorflow as tf

    @tf.function(input_signature=[tf.TensorSpec([1, 8, 8, 4], tf.float32)])
    def f(x):
        up = tf.image.resize(x, (12, 12), method="bilinear")
        near = tf.image.resize(x, (16, 16), method="nearest")
        down = tf.nn.avg_pool2d(near, 2, 2, "VALID")
        y = tf.concat([tf.image.resize(up, (8, 8)), down, tf.sigmoid(x), tf.tanh(x)], axis=3)
        y = tf.pad(y, [[0, 0], [1, 2], [2, 1], [0, 0]])
        y = tf.transpose(y, [0, 3, 1, 2])[:, 2:14, 1:9:2, :]
        y = tf.gather(y, [3, 0, 5], axis=1) - tf.reduce_mean(y, axis=[1], keepdims=True)
        return tf.maximum(y / (tf.abs(y) + 1.5), -0.25)

    return f


def _more_ops():
    """Builtins Keras models rarely hold, each flattened into one output."""
    import tensorflow as tf

    @tf.function(input_signature=[tf.TensorSpec([2, 4, 6, 3], tf.float32)])
    def f(x):
        a, b = tf.split(x, 2, axis=2)
        parts = [
            tf.stack([a, b], axis=1), tf.unstack(x, axis=3)[1],
            tf.split(x, [1, 2, 3], axis=2)[2], tf.slice(x, [0, 1, 2, 0], [-1, 2, 3, 2]),
            tf.gather_nd(x, [[0, 1], [1, 3]]), tf.cast(tf.argmax(x, axis=2), tf.float32),
            tf.cast(tf.argmin(x, axis=-1), tf.float32), tf.tile(a, [1, 2, 1, 1]),
            tf.pad(x, [[0, 0], [1, 1], [2, 0], [0, 0]], mode="REFLECT"),
            tf.nn.leaky_relu(x, 0.3), tf.nn.space_to_depth(x, 2), tf.nn.depth_to_space(
                tf.concat([x, x, x, x], axis=3), 2), tf.math.l2_normalize(x, axis=-1),
            tf.nn.log_softmax(x), tf.reduce_max(x, axis=[1]), tf.reduce_sum(x, axis=2),
            tf.reduce_min(x, axis=[1, 2], keepdims=True), tf.reduce_prod(x, axis=3),
            tf.math.floordiv(x, 0.7), tf.where(x > 0.2, x, -x * 2.0),
            tf.squeeze(tf.expand_dims(x, 2), axis=2), tf.exp(-tf.abs(x)),
            tf.sqrt(tf.abs(x) + 1.0), tf.math.rsqrt(tf.abs(x) + 1.0), tf.square(x),
            tf.math.minimum(tf.nn.elu(x), 0.5), tf.nn.relu6(x * 4.0), tf.sin(x), tf.cos(x),
            tf.linalg.matmul(tf.reshape(x, [2, 12, 6]), tf.reshape(x, [2, 12, 6]),
                             transpose_a=True), tf.floor(x * 3.0), tf.math.ceil(x * 3.0),
            tf.round(x * 3.0), tf.nn.softmax(x * 1.7), tf.broadcast_to(a[:, :1], [2, 4, 3, 3]),
        ]
        return tf.concat([tf.reshape(p, [-1]) for p in parts], axis=0)

    return f


def _attention():
    from keras import layers

    x = inp = layers.Input((6, 16))
    a = layers.MultiHeadAttention(num_heads=2, key_dim=8)(x, x)
    x = layers.LayerNormalization()(layers.Add()([x, a]))
    f = layers.Dense(32, activation="gelu")(x)
    x = layers.LayerNormalization()(layers.Add()([x, layers.Dense(16)(f)]))
    return _model(inp, layers.Dense(4)(layers.GlobalAveragePooling1D()(x)))


def _upsample():
    from keras import layers

    x = inp = layers.Input((8, 8, 4))
    x = layers.Conv2DTranspose(8, 3, strides=2, padding="same")(x)
    y = layers.UpSampling2D(2, interpolation="bilinear")(layers.Conv2D(4, 3, strides=2)(x))
    x = layers.Concatenate()([layers.Cropping2D(((2, 0), (0, 2)))(x), y])
    x = layers.UpSampling2D(2, interpolation="nearest")(x)
    return _model(inp, layers.Conv2D(3, 1, activation="tanh")(x))


def _custom_cosh():
    import tensorflow as tf

    @tf.function(input_signature=[tf.TensorSpec([1, 12], tf.float32)])
    def f(x):
        return tf.nn.relu(tf.math.cosh(x * 0.5) - 1.25) * 2.0

    return f


def _cumsum():
    import tensorflow as tf

    @tf.function(input_signature=[tf.TensorSpec([2, 5], tf.float32)])
    def f(x):
        return tf.math.cumsum(x, axis=1) * 2.0

    return f


def _while_loop():
    import tensorflow as tf

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
    def f(x):
        return tf.while_loop(lambda i, v: tf.reduce_sum(v) < 100.0,
                             lambda i, v: (i + 1, v * 2.0 + 1.0), (0, x))[1]

    return f


def _custom_cumprod():
    import tensorflow as tf

    @tf.function(input_signature=[tf.TensorSpec([2, 5], tf.float32)])
    def f(x):
        return tf.math.cumprod(x, axis=1, exclusive=True, reverse=True) + 1.0

    return f


def _model(inp, out):
    import keras

    return keras.Model(inp, out)


_KERAS = {"mlp": _mlp, "cnn": _cnn, "attention": _attention, "upsample": _upsample,
          "mobilenet_v2": lambda: _app("MobileNetV2", alpha=0.35),
          "mobilenet_v3": lambda: _app("MobileNetV3Small", alpha=0.75,
                                       include_preprocessing=False)}
_FUNCTIONS = {"image_ops": _image_ops, "more_ops": _more_ops, "custom_cosh": _custom_cosh,
              "custom_cumprod": _custom_cumprod, "cumsum": _cumsum, "while_loop": _while_loop}
# name -> (the float model it quantizes, how)
_QUANTIZED = {"cnn_int8": ("cnn", "int8"), "cnn_int8_per_tensor": ("cnn", "per_tensor"),
              "mlp_int8_io": ("mlp", "int8_io"), "cnn_uint8_io": ("cnn", "uint8_io"),
              "mobilenet_v2_int8": ("mobilenet_v2", "int8"),
              "fp16_weights": ("cnn", "fp16"), "mobilenet_v3_int8": ("mobilenet_v3", "int8"),
              "attention_int8": ("attention", "int8"),
              "upsample_int8": ("upsample", "int8")}


def _converter(name: str, rng: np.random.Generator):
    """A TFLiteConverter for model `name`, its input shape and the TF function it converts."""
    import keras
    import tensorflow as tf

    from tests.tf_corpus import _calibrate

    keras.utils.set_random_seed(1234)
    if name in _FUNCTIONS:
        fn = _FUNCTIONS[name]()
        concrete = fn.get_concrete_function()
        shape = [int(d) for d in concrete.inputs[0].shape]
        return tf.lite.TFLiteConverter.from_concrete_functions([concrete], fn), shape, fn
    model = _KERAS[name]()
    shape = [1, *model.input_shape[1:]]
    _calibrate(model, rng.standard_normal([8, *shape[1:]]).astype(np.float32))
    return tf.lite.TFLiteConverter.from_keras_model(model), shape, model


def _quantize(converter, how: str, shape: list[int], rng: np.random.Generator) -> None:
    import tensorflow as tf

    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    if how == "fp16":
        converter.target_spec.supported_types = [tf.float16]
        return
    samples = [rng.standard_normal(shape).astype(np.float32) for _ in range(32)]
    converter.representative_dataset = lambda: ([s] for s in samples)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    if how == "per_tensor":
        converter._experimental_disable_per_channel = True
    if how in ("int8_io", "uint8_io"):
        io_type = tf.int8 if how == "int8_io" else tf.uint8
        converter.inference_input_type = converter.inference_output_type = io_type


def _write(name: str, out: Path) -> None:
    import tensorflow as tf

    rng = np.random.default_rng(5)
    base, how = _QUANTIZED.get(name, (name, None))
    converter, shape, fn = _converter(base, rng)
    if how is not None:
        _quantize(converter, how, shape, rng)
    (out / "model.tflite").write_bytes(_convert(converter, name))
    if name in (CUSTOM, CUSTOM_WITH_OPTIONS):  # the interpreter lacks the op: TF is the oracle
        for suffix in ("", "2"):
            x = rng.standard_normal(shape).astype(np.float32) * 1.5
            np.save(out / f"input{suffix}.npy", x)
            np.save(out / f"expected{suffix}.npy", np.asarray(fn(tf.constant(x))))
        (out / "meta.json").write_text(json.dumps({"step": 0.0}))
        return
    interpreter = tf.lite.Interpreter(str(out / "model.tflite"))
    interpreter.allocate_tensors()
    inp, res = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    step = _step(interpreter, res)
    for suffix in ("", "2"):
        x = rng.standard_normal(shape).astype(np.float32) * 1.5
        if inp["dtype"] != np.float32:
            scale, zero = inp["quantization"]
            info = np.iinfo(inp["dtype"])
            x = np.clip(np.round(x / scale) + zero, info.min, info.max).astype(inp["dtype"])
        interpreter.set_tensor(inp["index"], x)
        interpreter.invoke()
        np.save(out / f"input{suffix}.npy", x)
        np.save(out / f"expected{suffix}.npy", interpreter.get_tensor(res["index"]))
    (out / "meta.json").write_text(json.dumps({"step": step}))


def _convert(converter, name: str) -> bytes:
    if name in (CUSTOM, CUSTOM_WITH_OPTIONS):
        converter.allow_custom_ops = True
    return converter.convert()


def _step(interpreter, res: dict) -> float:
    """The output's quantization step: its own (an int8 output: 1 in its integers), or that of
    the quantized tensor a DEQUANTIZE turns into it; 0 for a float model."""
    if res["dtype"] != np.float32:
        return 1.0
    for op in interpreter._get_ops_details():
        if op["op_name"] == "DEQUANTIZE" and res["index"] in op["outputs"]:
            details = interpreter._get_tensor_details(op["inputs"][0], 0)
            return float(details["quantization"][0])
    return 0.0
