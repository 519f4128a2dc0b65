"""Run extension ops defined in Python (an extensions folder's ops/ with a numpy `evaluate`)
inside the real OpenVINO runtime, as OpenVINO Python ops: no C++ build needed to try a model.
`extgen run --engine openvino --extension user_mo_extensions` uses this."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.ir.attrs import typed_attrs
from converter.ir.types import format_attr
from converter.ops.op import Op

__all__ = ["openvino_extension", "openvino_op_class"]


def openvino_extension(cls: type[Op]) -> Any:
    """An ov.OpExtension whose op evaluates with cls (shapes and types from its inference)."""
    import openvino as ov

    return ov.OpExtension(openvino_op_class(cls))


def openvino_op_class(cls: type[Op]) -> type:
    """An openvino.Op subclass of cls's IR type and version: shapes and types from its
    inference, its attributes (as IR strings) visited, evaluate() by its numpy evaluate. Build
    one with `(inputs, {attribute: value})`; values in Python types are written as the IR
    writes them."""
    import openvino as ov

    def typed(attrs: dict[str, Any]) -> dict[str, Any]:
        return typed_attrs(cls, attrs, f"{cls.type} op")

    class PythonOp(ov.Op):
        class_type_info = ov.DiscreteTypeInfo(*cls.ir_identity())

        def __init__(self, inputs: Any = None, attrs: dict | None = None) -> None:
            # kept as the IR's strings (the attribute visitor cannot type an empty list)
            given = {**cls.defaults, **attrs} if attrs is not None else cls.defaults
            self._attrs = {k: v if isinstance(v, str) else format_attr(v, kind)
                           for k, kind in cls.attr_types.items() if (v := given.get(k)) is not None}
            super().__init__(self, inputs)  # validates when given inputs: _attrs first

        def get_type_info(self) -> Any:
            return PythonOp.class_type_info

        def validate_and_infer_types(self) -> None:
            n = self.get_input_size()
            if not n:
                return
            shapes = [tuple(d.get_length() if d.is_static else -1
                            for d in self.get_input_partial_shape(i))
                      for i in range(n)]
            types = [np.dtype(self.get_input_element_type(i).to_dtype()) for i in range(n)]
            out_shapes = cls.infer_shapes(typed(self._attrs), shapes, [None] * n)
            out_types = cls.infer_types(typed(self._attrs), types)
            for i, shape in enumerate(out_shapes):
                pshape = (ov.PartialShape([d if d >= 0 else -1 for d in shape])
                          if shape is not None else ov.PartialShape.dynamic())
                out_type = out_types[i] if i < len(out_types) else types[0]
                self.set_output_type(i, ov.Type(out_type), pshape)

        def clone_with_new_inputs(self, new_inputs: Any) -> PythonOp:
            return PythonOp(new_inputs, self._attrs)

        def visit_attributes(self, visitor: Any) -> bool:
            visitor.on_attributes(self._attrs)
            return True

        def has_evaluate(self) -> bool:
            return True

        def evaluate(self, outputs: Any, inputs: Any) -> bool:
            results = cls.compute(typed(self._attrs), [np.array(t.data) for t in inputs])
            for tensor, value in zip(outputs, results):
                tensor.shape = list(value.shape)
                tensor.data[...] = value
            return True

    PythonOp.__name__ = PythonOp.__qualname__ = cls.__name__
    return PythonOp
