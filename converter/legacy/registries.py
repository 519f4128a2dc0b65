"""MO's process-wide records that extension code fills: the custom replacement descriptions read
from --transformations_config files (mo.front.common.custom_replacement_registry) and the ops
met without a translation (mo.utils.unsupported_ops)."""

from __future__ import annotations

import logging
import os
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from converter.graph.graph import Graph, Node
from converter.legacy.utils import Error, parse_custom_replacement_config_file, refer_to_faq_msg

__all__ = ["CustomReplacementRegistry", "UnsupportedOps"]

log = logging.getLogger("extgen")


class CustomReplacementRegistry:
    """Replacement id -> its descriptions; every instance shares one registry, as in MO."""

    _shared: dict[str, list] = {}

    def __init__(self) -> None:
        self.registry = CustomReplacementRegistry._shared

    def add_custom_replacement_description_from_config(self, file_name: str) -> None:
        if not os.path.exists(file_name):
            raise Error(f"Custom replacement configuration file '{file_name}' doesn't exist. "
                        + refer_to_faq_msg(46))
        for desc in parse_custom_replacement_config_file(file_name):
            self.registry.setdefault(desc.id, []).append(desc)
            log.info("Registered custom replacement with id '%s'", desc.id)

    def get_custom_replacement_description(self, replacement_id: str) -> list | None:
        if replacement_id not in self.registry:
            log.warning("Configuration file for custom replacement with id '%s' doesn't exist",
                        replacement_id)
        return self.registry.get(replacement_id)

    def get_all_replacements_descriptions(self) -> list:
        return [desc for descs in self.registry.values() for desc in descs]


class UnsupportedOps:
    """The graph's ops without a translation: op -> node names, reported grouped."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.unsupported: dict[str, list[str]] = defaultdict(list)

    def add(self, node: Node) -> None:
        op = node.op if node.has_valid("op") else "<UNKNOWN OP>"
        self.unsupported[op].append(node.name if node.has_valid("name") else "<UNKNOWN NAME>")

    def report(self, reporter: Callable[[str], Any], header: str | None = None) -> None:
        if self.unsupported and header:
            reporter(header)
        for op, names in self.unsupported.items():
            reporter(f"    {op} ({len(names)})")
            for name in names:
                reporter(f"        {name}")
