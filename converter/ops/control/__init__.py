"""Ops that run sub-graphs (bodies): If, Loop, TensorIterator."""

from converter.ops.control import if_op, loop, tensor_iterator

__all__ = ["if_op", "loop", "tensor_iterator"]
