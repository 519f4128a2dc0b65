"""CustomLayersMapping.xml (-k): Caffe layer types whose parameters are copied into the IR as they
are, ahead of any extension or built-in translator (MO's legacy custom-layer path).

    <CustomKernelsMapping>
      <CustomLayer NativeType="Cosh" hasParam="true" protoParamName="cosh_param"/>
    </CustomKernelsMapping>
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from converter.errors import ExtensionError, InputFileError, ModelFormatError
from converter.front.caffe.attrs import collect_attributes
from converter.graph.graph import Node
from converter.ops.op import Op

__all__ = ["CustomLayer", "apply_mapping", "read_mapping"]

# attribute names MO renamed because the converter uses them for itself
SPECIAL_KEYS = ("id", "name", "precision", "type", "layer", "value", "shape", "op", "kind", "infer")


@dataclass(frozen=True)
class CustomLayer:
    native_type: str
    has_param: bool
    proto_param_name: str | None
    every_optional: bool = False  # --disable_omitting_optional
    flatten_nested: bool = False  # --enable_flattening_nested_params


def read_mapping(path: Path, every_optional: bool = False,
                 flatten_nested: bool = False) -> dict[str, CustomLayer]:
    """NativeType -> CustomLayer; a malformed file is one error naming it."""
    try:
        root = ET.parse(path).getroot()
    except FileNotFoundError:
        msg = f"-k {path}: no such CustomLayersMapping.xml"
        raise InputFileError(msg) from None
    except OSError as err:
        msg = f"-k {path}: cannot read it ({err.strerror})"
        raise InputFileError(msg) from None
    except ET.ParseError as err:
        msg = f"{path}:{err.position[0]}: not valid XML ({err.msg if hasattr(err, 'msg') else err})"
        raise ModelFormatError(msg) from None
    if root.tag != "CustomKernelsMapping":
        msg = f"{path}: the root element must be <CustomKernelsMapping>"
        raise ModelFormatError(msg)
    mapping: dict[str, CustomLayer] = {}
    for number, item in enumerate(root, 1):
        if item.tag != "CustomLayer":
            continue  # MO logged and skipped other tags
        native = item.get("NativeType")
        has_param = (item.get("hasParam") or "").strip().lower()
        if not native or has_param not in ("true", "false"):
            msg = (f"{path}: every <CustomLayer> needs NativeType and hasParam=\"true|false\" "
                   f"(element {number} of the root does not)")
            raise ModelFormatError(msg)
        param = item.get("protoParamName")
        if has_param == "true" and not param:
            msg = (f"{path}: <CustomLayer NativeType=\"{native}\"> has hasParam=\"true\" "
                   "but no protoParamName")
            raise ModelFormatError(msg)
        mapping.setdefault(native, CustomLayer(native, has_param == "true", param,
                                               every_optional, flatten_nested))
    return mapping


def _ir_attrs(node: Node, layer: CustomLayer) -> dict[str, Any]:
    if not layer.has_param:
        return {}
    pb = node.pb
    if layer.proto_param_name not in pb.DESCRIPTOR.fields_by_name:
        msg = (f"CustomLayersMapping: layer '{node.soft_get('name')}' ({layer.native_type}) has no "
               f"field '{layer.proto_param_name}' in the caffe.proto in use; pass your caffe.proto "
               "with --caffe_parser_path")
        raise ModelFormatError(msg)
    attrs = collect_attributes(getattr(pb, layer.proto_param_name), "",
                               layer.every_optional, layer.flatten_nested)
    out: dict[str, Any] = {}
    for key, value in attrs.items():
        new, count = key, 0
        while new in SPECIAL_KEYS or new in out:
            count += 1
            new = f"{key}{count}"
        out[new] = value.replace("mo_caffe", "caffe") if isinstance(value, str) else value
    return out


def apply_mapping(node: Node, layer: CustomLayer) -> None:
    """Give a mapped layer its op (the Op registered under NativeType) with every collected
    parameter as an IR attribute; blobs become Const inputs. Marks it extracted."""
    from converter.front.caffe.attrs import embed_blobs

    op_cls = Op.registered_ops.get(layer.native_type)
    if op_cls is None:
        msg = (f"CustomLayersMapping maps '{layer.native_type}' "
               f"(layer '{node.soft_get('name')}'), but no op '{layer.native_type}' is defined; "
               "scaffold one with 'extgen new --mo-op' and pass its folder with --extensions")
        raise ExtensionError(msg)
    attrs = _ir_attrs(node, layer)
    op_cls.update_node_stat(node, attrs)
    node["IE"] = list(dict.fromkeys([*node.soft_get("IE", []), *attrs]))
    embed_blobs(node)
    node["extracted"] = True
