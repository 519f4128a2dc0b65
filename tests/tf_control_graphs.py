"""Small TensorFlow graphs with control flow for the TF front's loop tests, written by TensorFlow
(in a child process, `run_tf`) once per machine into ~/.cache/extgen/tf-<ver>/control/<name>/:

- frozen.pb: the graph frozen as users freeze it (TF lowers While to TF1 frames then, and If
  to Switch/Merge),
- saved_model/: `tf.saved_model.save` (While and If stay functional, bodies in the library),
- input.npy, input2.npy and expected.npy, expected2.npy: TF's own outputs.

    folder = control_graph("while_stack")
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.cache_folder import write_once
from tests.tf_corpus import cache_dir, run_tf

__all__ = ["GRAPHS", "control_graph"]

# name: input shape
GRAPHS = {
    "while_stack": (2, 5, 3),  # a while loop writing a TensorArray at its index
    "nested": (2, 3),  # a while loop inside a while loop
    "cond": (2, 3),  # tf.cond on the input's sum
    "lstm_seq": (2, 7, 4),  # Keras LSTM, return_sequences, go_backwards
    "gru_seq": (2, 7, 4),  # Keras GRU (reset_after), return_sequences, go_backwards
    "gru_v1": (2, 6, 3),  # Keras GRU with reset_after=False: no GRUSequence, a Loop
    "while_call": (2, 3),  # a while loop whose body calls a tf.function
}


def _function(name: str):
    import tensorflow as tf

    def while_stack(x):
        steps = tf.shape(x)[1]
        items = tf.TensorArray(tf.float32, size=steps)
        w = tf.constant(np.linspace(-1, 1, 9, dtype=np.float32).reshape(3, 3))

        def body(i, h, items):
            h = tf.tanh(x[:, i] + tf.matmul(h, w))
            return i + 1, h, items.write(i, h)

        _, h, items = tf.while_loop(lambda i, h, items: i < steps, body,
                                    (0, tf.zeros_like(x[:, 0]), items))
        return tf.transpose(items.stack(), [1, 0, 2]) + h[:, None]

    def nested(x):
        def outer(i, acc):
            _, inner = tf.while_loop(lambda j, a: j < i, lambda j, a: (j + 1, a * 0.5 + x),
                                     (0, acc))
            return i + 1, inner + 1.0
        return tf.while_loop(lambda i, acc: i < 4, outer, (0, x))[1]

    def cond(x):
        return tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0 + 1.0, lambda: tf.exp(x) - 3.0)

    @tf.function
    def step(a):
        return tf.sin(a) * 1.5 + 0.25

    def while_call(x):
        return tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, step(a) + x), (0, x))[1]

    return {"while_stack": while_stack, "nested": nested, "cond": cond,
            "while_call": while_call}[name]


def _keras_recurrent(name: str, shape: tuple[int, ...]):
    import keras
    from keras import layers

    keras.utils.set_random_seed(99)
    inp = layers.Input(shape[1:])
    if name == "lstm_seq":
        x = layers.LSTM(5, return_sequences=True, go_backwards=True)(inp)
    elif name == "gru_seq":
        x = layers.GRU(5, return_sequences=True, go_backwards=True)(inp)
    else:
        x = layers.GRU(4, return_sequences=True, reset_after=False)(inp)
    return keras.Model(inp, layers.Dense(2)(x))


def _write(name: str, out: Path) -> None:
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2,
    )

    shape = GRAPHS[name]
    module = tf.Module()
    if name in ("lstm_seq", "gru_seq", "gru_v1"):
        module.model = _keras_recurrent(name, shape)  # tracked, so its variables are saved
        call = lambda x: module.model(x, training=False)  # noqa: E731 - one line
    else:
        call = _function(name)
    module.f = tf.function(call, input_signature=[
        tf.TensorSpec([None, *shape[1:]], tf.float32, name="x")])
    concrete = module.f.get_concrete_function()
    frozen = convert_variables_to_constants_v2(concrete).graph.as_graph_def()
    (out / "frozen.pb").write_bytes(frozen.SerializeToString())
    tf.saved_model.save(module, str(out / "saved_model"), signatures=concrete)
    rng = np.random.default_rng(17)
    for i, sign in enumerate((1.0, -1.0)):
        x = (rng.standard_normal(shape) + sign).astype(np.float32)
        suffix = "" if i == 0 else "2"
        np.save(out / f"input{suffix}.npy", x)
        np.save(out / f"expected{suffix}.npy", np.asarray(module.f(tf.constant(x))))


def _write_here(name: str) -> None:
    """Write one graph's folder (in the child that imports TensorFlow)."""
    write_once(cache_dir() / "control" / name, lambda tmp: _write(name, tmp))


def control_graph(name: str) -> Path:
    """The cache folder of one graph, written on first use."""
    folder = cache_dir() / "control" / name
    if not folder.is_dir():
        run_tf(f"from tests.tf_control_graphs import _write_here; _write_here({name!r})",
               Path.cwd())
    return folder
