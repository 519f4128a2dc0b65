"""Built-in TensorFlow translators, one module per op family; importing registers them."""

from converter.front.tf.ops import (  # noqa: F401
    argmax_pool,
    audio,
    bicubic,
    control,
    detection,
    elementwise,
    image,
    indexing,
    movement,
    nn,
    quantize,
    reshaping,
    spectral,
    tensor_list,
)
