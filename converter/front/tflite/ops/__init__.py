"""Built-in TensorFlow Lite translators, one module per op family; importing registers them."""

from converter.front.tflite.ops import (  # noqa: F401
    elementwise,
    movement,
    nn,
    quantize,
    reduce,
)
