"""Built-in TensorFlow translators, one module per op family; importing registers them."""

from converter.front.tf.ops import elementwise, image, movement, nn  # noqa: F401
