"""The built-in MXNet translators; importing this package registers them."""

from converter.front.mxnet.ops import detection, elementwise, indexing, movement, nn  # noqa: F401
