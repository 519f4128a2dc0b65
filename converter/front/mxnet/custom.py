"""MXNet Custom operators (`op: "Custom"`, `op_type: "<name>"`) and MO's extractor base for them.

    class MyCoshExtractor(MXNetCustomFrontExtractorOp):
        op = "mycosh"            # the op_type
        enabled = True

        def extract(self, node):
            attrs = get_mxnet_layer_attrs(node.symbol_dict)
            scale = attrs.float("scale", 1.0)
            Op.get_op_class_by_name("MyCosh").update_node_stat(node, {"scale": scale})
            return self.enabled

The loader gives a Custom node its op_type as `op`, so an extractor is looked up by op_type. Each
subclass registers a FrontExtractorOp adapter under its op_type: what an --extensions folder
registers this way lasts for one conversion, like every other extractor. `extract` may also
return MO's older (supported, attrs) pair; the attrs then go to the node (through
the Op class named by attrs["op"] when there is one).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

from converter.front.extractor import FrontExtractorOp
from converter.graph.graph import Node
from converter.ops.op import Op

__all__ = ["MXNetCustomFrontExtractorOp", "run_custom_extractor"]


def run_custom_extractor(cls: type, node: Node) -> bool:
    """Call a custom extractor (instance method, MO style) and apply what it returns."""
    result: Any = cls().extract(node)
    if isinstance(result, tuple):
        supported, attrs = (result + (None,))[:2]
        if supported and isinstance(attrs, dict):
            op_cls = Op.registered_ops.get(attrs.get("op"))
            if op_cls is not None:  # the op's class sets type, version and infer
                op_cls.update_node_stat(node, attrs)
            else:
                node.graph.nodes[node.id].update(attrs)
        return bool(supported)
    return bool(result)


class _CustomAdapter(FrontExtractorOp):
    """The FrontExtractorOp standing for one MXNetCustomFrontExtractorOp subclass."""

    custom_cls: ClassVar[type]

    @classmethod
    def extract(cls, node: Node) -> bool:
        return run_custom_extractor(cls.custom_cls, node)


class _Registered(Mapping):
    """op_type -> custom extractor class, read live from the (per-conversion) extractor registry."""

    def _items(self) -> dict[str, type]:
        return {k: v.custom_cls for k, v in FrontExtractorOp.registered_ops.items()
                if isinstance(v, type) and issubclass(v, _CustomAdapter)}

    def __getitem__(self, key: str) -> type:
        return self._items()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())


class MXNetCustomFrontExtractorOp:
    """Base of user extractors for MXNet Custom ops; `op` is the op_type."""

    op: ClassVar[str | None] = None
    enabled: ClassVar[bool] = True
    registered_ops: ClassVar[Mapping[str, type]] = _Registered()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("op"):
            type(f"{cls.__name__}Adapter", (_CustomAdapter,), {
                "op": cls.op, "enabled": cls.enabled, "custom_cls": cls,
                "__module__": cls.__module__,
            })

    def extract(self, node: Node) -> bool | tuple[bool, dict]:
        raise NotImplementedError
