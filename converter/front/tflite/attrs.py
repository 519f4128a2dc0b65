"""A TFLite custom op's attributes: its custom options, a FlexBuffer map (as TF's converter
writes a TF op's attributes), for `extgen check` and for generated extractors."""

from __future__ import annotations

import logging
from typing import Any

from converter.front.tflite.flexbuffer import FlexBufferError, read_flexbuffer
from converter.graph.graph import Node

__all__ = ["custom_attrs"]

log = logging.getLogger("extgen.convert")
# the TF op's element type attribute, which TF's converter copies along: not the op's own
_TYPE_ATTRS = {"T"}


def custom_attrs(node: Node) -> dict[str, Any]:
    """The custom options of a custom-op node as {name: value}; {} when it has none or they
    are not a FlexBuffer map (logged)."""
    raw = node.pb.custom_options
    if not raw:
        return {}
    try:
        value = read_flexbuffer(raw)
    except FlexBufferError as err:
        log.info("custom op '%s': its options are not a FlexBuffer (%s)", node.pb.op, err)
        return {}
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if k not in _TYPE_ATTRS}
