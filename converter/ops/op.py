"""Op: one definition per operation, used by the converter and the runtime alike.

A built-in op declares its IR identity (`type`, `version`), its attribute schema (`attr_types`,
`defaults`) and three pure functions over plain values:

- `infer_shapes(attrs, shapes, values) -> shapes` (values are None when not constant)
- `infer_types(attrs, types) -> types`
- `evaluate(attrs, inputs) -> outputs` (numpy)

This module is that contract only, light enough for the runtime: it never loads the graph model
(converter.graph.graph) or networkx. MO's node-building API (`infer(node)`, `update_node_stat`,
`create_node`, ...) comes from the `NodeBuilder` mixin (converter.ops.node_builder), which only
conversion calls; extensions written for MO subclass `Op` and use it as they always did.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from converter.errors import ExtensionError
from converter.ops.node_builder import NodeBuilder

if TYPE_CHECKING:
    from converter.graph.shape import Shape

__all__ = ["Op", "ir_op_class"]

_IR_REGISTRY: dict[tuple[str, str], type[Op]] = {}
# an op's IR type in another spelling than its class's (OpenVINO's serializer writes
# Softmax-1/8 as SoftMax, ...); IR from ovc, MO or OpenVINO uses either spelling
_IR_SPELLINGS = {"Softmax": "SoftMax", "Constant": "Const", "Relu": "ReLU", "PRelu": "PReLU"}


def ir_op_class(type_: str, version: str) -> type[Op] | None:
    """The op class for an IR layer's type/version (any version of the type as a fallback)."""
    type_ = _IR_SPELLINGS.get(type_, type_)
    cls = _IR_REGISTRY.get((type_, version))
    if cls is not None:
        return cls
    same_type = [c for (t, _), c in _IR_REGISTRY.items() if t == type_]
    return same_type[-1] if same_type and version.startswith("opset") else None


class Op(NodeBuilder):
    """Base of every operation class (built-in and user extension)."""

    op: ClassVar[str | None] = None
    type: ClassVar[str | None] = None
    version: ClassVar[str | None] = None
    older_versions: ClassVar[tuple[str, ...]] = ()  # written when the attributes fit them
    enabled: ClassVar[bool] = False
    in_ports_count: ClassVar[int | None] = None
    out_ports_count: ClassVar[int] = 1
    attr_types: ClassVar[dict[str, str]] = {}
    defaults: ClassVar[dict[str, Any]] = {}

    registered_ops: ClassVar[dict[str, type[Op]]] = {}
    builtin_ops: ClassVar[dict[str, type[Op]]] = {}  # converter.ops only: what translators build
    registered_cls: ClassVar[list[type[Op]]] = []
    excluded_classes: ClassVar[list[type[Op]]] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        Op.registered_cls.append(cls)
        if cls.__dict__.get("op"):
            Op.registered_ops[cls.op] = cls
            if cls.__module__.startswith("converter.ops."):
                Op.builtin_ops[cls.op] = cls
        if cls.__dict__.get("type") and cls.version:
            for version in (*cls.older_versions, cls.version):
                _IR_REGISTRY[(cls.type, version)] = cls

    # -- pure definition (override in built-in ops) -----------------------------------------
    @classmethod
    def infer_shapes(
        cls, attrs: dict[str, Any], shapes: list[Shape | None], values: list[np.ndarray | None]
    ) -> list[Shape | None]:
        return [shapes[0]]

    @classmethod
    def infer_types(cls, attrs: dict[str, Any], types: list[np.dtype]) -> list[np.dtype]:
        return [types[0]]

    same_type_inputs: ClassVar[int] = 0  # how many leading inputs must share one element type

    @classmethod
    def check_inputs(
        cls, attrs: dict[str, Any], shapes: list[Shape | None], types: list[np.dtype | None],
        values: list[np.ndarray | None],
    ) -> str | None:
        """What is wrong with the inputs that OpenVINO's own inference would refuse (ranks,
        channels, element types, constant indices), or None. Conversion calls it before
        infer; overrides call super() to keep the element-type check."""
        known = [np.dtype(t) for t in types[: cls.same_type_inputs] if t is not None]
        if len(set(known)) > 1:
            names = " vs ".join(str(t) for t in known)
            return f"input element types differ ({names}); {cls.type or cls.op} needs them equal"
        return None

    @classmethod
    def evaluate(cls, attrs: dict[str, Any], inputs: list[np.ndarray]) -> list[np.ndarray]:
        raise NotImplementedError

    @classmethod
    def has_evaluate(cls) -> bool:
        return cls.evaluate.__func__ is not Op.evaluate.__func__

    @classmethod
    def compute(cls, attrs: dict[str, Any], inputs: list[np.ndarray]) -> list[np.ndarray]:
        """evaluate(), with each output cast to the type inference says it has."""
        outs = cls.evaluate(attrs, inputs)
        types = cls.infer_types(attrs, [np.asarray(x).dtype for x in inputs])
        return [
            np.asarray(o) if i >= len(types) or types[i] is None
            else np.asarray(o).astype(types[i], copy=False)
            for i, o in enumerate(outs)
        ]

    @classmethod
    def plan(cls, attrs: dict[str, Any], values: list[np.ndarray | None],
             used: list[bool]) -> Callable[[list[np.ndarray]], list[np.ndarray]]:
        """The kernel the shim runs for one layer: compute(), unless the op has a faster path of
        its own for what a plan knows (the constant inputs' `values`, which outputs are `used`;
        an unused output may come back as None). The op's tests cover both paths."""
        return partial(cls.compute, attrs)

    @classmethod
    def inplace(cls, attrs: dict[str, Any],
                values: list[np.ndarray | None]) -> Callable[[np.ndarray], None] | None:
        """For a layer fused into the one before it: a function writing the op's output over
        its first input (same shape and type), the other inputs being the constants `values`
        [1:]; None when the op has no such path for them."""
        return None

    @classmethod
    def ir_identity(cls) -> tuple[str | None, str]:
        """(type, version) as the IR names the op: a class without a version is "extension",
        as OpenVINO's OPENVINO_OP names it by default."""
        return cls.type, cls.version or "extension"

    @classmethod
    def version_for(cls, attrs: dict[str, Any]) -> str | None:
        """The version a node of these attributes is written as: the oldest that has them, as
        ovc writes (override with older_versions)."""
        return cls.version

    @staticmethod
    def of_node(node: Any) -> type[Op] | None:
        """The class of a graph node's op: the one registered under its `op` name when its
        type and version fit the node's, else the built-in op of that name when it fits. An op
        is its (type, version): a user's Cosh ("extension") is not the standard Cosh-1's class."""
        name, type_, version = (node.soft_get(k, None) for k in ("op", "type", "version"))
        for cls in (Op.registered_ops.get(name), Op.builtin_ops.get(name)):
            if (cls is not None and cls.type == type_
                    and (cls.version is None or version is None
                         or version in (cls.version, *cls.older_versions))):
                return cls
        return None

    @staticmethod
    def get_op_class_by_name(name: str) -> type[Op]:
        try:
            return Op.registered_ops[name]
        except KeyError:
            msg = (f"no Op class is registered for op '{name}'; "
                   "is its ops/ module in an --extensions folder?")
            raise ExtensionError(msg) from None
