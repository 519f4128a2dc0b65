"""--extension LIB.so in conversion, as ovc takes it: the ops a CPU extension library built from
`extgen new --ie-cpu-ext` implements (its extgen C ABI, converter.runtime.cpu_abi) become ops
the converter knows. A model node of that type keeps its attributes as they are and gets its
output shapes and types from the library's own inference; the IR names the op as the library
registers it with OpenVINO (its type and version, "extension" unless the config names another)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from converter.errors import ShapeInferenceError, UsageError
from converter.front.extractor import FrontExtractorOp
from converter.graph.graph import Node
from converter.ir.types import format_attr
from converter.ops.op import Op
from converter.runtime.cpu import CpuLibrary

__all__ = ["LIBRARY_SUFFIXES", "load_extension_libraries"]

LIBRARY_SUFFIXES = (".so", ".dll", ".dylib")


class LibraryOp(Op):
    """An op of an extension library; `library` is set on the class made per op type."""

    library: CpuLibrary

    def backend_attrs(self) -> list:
        """The model's attributes, as they are (the library parses them)."""
        return [(key, lambda n, key=key: n.library_attrs[key])
                for key in self.attrs.get("library_attrs", {})]

    @classmethod
    def infer(cls, node: Node) -> None:
        name = node.soft_get("name", node.id)
        ports = [p for p in node.in_ports().values() if not p.disconnected()]
        inputs = []
        for port in ports:
            shape, value = port.data.get_shape(), port.data.get_value()
            if value is None and (shape is None or any(d < 0 for d in shape)):
                msg = (f"node '{name}' ({cls.type} from {cls.library.path.name}): the library "
                       "infers shapes from static inputs only; give the model's inputs static "
                       "shapes with --input_shape")
                raise ShapeInferenceError(msg)
            dtype = port.data.get_data_type() or np.float32
            inputs.append(np.zeros(shape, dtype) if value is None else np.asarray(value, dtype))
        attrs = {k: format_attr(v) for k, v in node.library_attrs.items()}
        outs = len(node.out_ports())
        for i, (shape, dtype) in enumerate(cls.library.infer((cls.type, name, attrs), inputs,
                                                             outs)):
            node.out_port(i).data.set_shape(shape)
            node.out_port(i).data.set_data_type(dtype)


def _extractor(op_cls: type[LibraryOp], node_attrs) -> type[FrontExtractorOp]:
    """An extractor giving a node of the op's type the op, with the model's attributes."""

    def extract(cls, node: Node) -> bool:
        op_cls.update_node_stat(node, {"library_attrs": node_attrs(node)})
        return True

    return type(f"{op_cls.type}LibraryExtractor", (FrontExtractorOp,),
                {"op": op_cls.type, "extract": classmethod(extract)})


def load_extension_libraries(paths: list[Path], framework) -> None:
    """Make each library's op types known (call inside extension_scope: they go with it)."""
    for path in paths:
        if framework.node_attrs is None or framework.name != "onnx":
            msg = (f"--extension {path}: a library's ops map to ONNX nodes only; for a "
                   f"{framework.name} model pass the user_mo_extensions folder of "
                   "`extgen new` instead")
            raise UsageError(msg)
        library = CpuLibrary(Path(path))
        for kind, version in sorted(library.ops):
            op_cls = type(f"{kind}LibraryOp", (LibraryOp,),
                          {"op": kind, "type": kind, "version": version, "library": library})
            _extractor(op_cls, framework.node_attrs)
