"""Sub-graph replacement described in JSON (`--transformations_config`), with the Model
Optimizer's names.

The file is a list of descriptions:

    [{"id": "MyBlock", "match_kind": "scope", "instances": [".*block_[0-9]+"],
      "custom_attributes": {"alpha": 0.5}}]

- `id` (non-empty string) and `match_kind` (`scope`, `points` or `general`) are required;
  `custom_attributes` (object), `instances` (scope: list of name-prefix regexes; points: an
  object with `start_points`/`end_points` lists of node names), `inputs` (list of lists of
  `{"node": regex, "port": int}`), `outputs` (list of `{"node": regex, "port": int}`), `op`
  and `include_inputs_to_sub_graph`/`include_outputs_to_sub_graph` are optional. Regexes in
  inputs/outputs are relative to the matched scope. Without inputs/outputs, the edges into and
  out of the matched nodes are taken in graph order.

A user extension subclasses one of the bases below and sets `replacement_id` to a description's
`id`; it runs once per description (general) or per match (scope, points):

- FrontReplacementFromConfigFileGeneral: `transform_graph(graph, replacement_descriptions)`
  receives the `custom_attributes` dict;
- FrontReplacementFromConfigFileSubGraph: `generate_sub_graph(graph, match)` builds the new
  nodes and returns them by name, `input_edges_match`/`output_edges_match` map the match's
  edges onto them; the matched nodes are then removed (`nodes_to_remove`);
- FrontReplacementFromConfigFileOp: the match becomes one op, the one named by the
  description's `op` (custom_attributes become its attributes).
"""

from __future__ import annotations

import logging
import re
from typing import ClassVar

from converter.errors import ConversionError
from converter.front.replacement import FrontReplacementPattern, FrontReplacementSubgraph
from converter.front.tf.replacement_config import (
    CustomReplacementDescriptor,
    load_transformations_config,
)
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.ops.op import Op
from converter.passes import ReplacementPattern

__all__ = [
    "CustomReplacementDescriptor",
    "FrontReplacementFromConfigFileGeneral",
    "FrontReplacementFromConfigFileOp",
    "FrontReplacementFromConfigFileSubGraph",
    "SubgraphMatch",
    "load_transformations_config",
]

log = logging.getLogger("extgen.convert")


def _descriptions(graph: Graph, replacement_id: str) -> list[CustomReplacementDescriptor]:
    return graph.graph.get("custom_replacement_descriptions", {}).get(replacement_id, [])


# -- matches --------------------------------------------------------------------------------------
class SubgraphMatch:
    """The nodes a scope/points description matched, with its inputs and outputs in order."""

    def __init__(self, graph: Graph, desc: CustomReplacementDescriptor, nodes: list[Node],
                 scope: str) -> None:
        self.graph = graph
        self.custom_replacement_desc = desc
        self.scope = scope
        self._nodes = nodes
        ids = {n.id for n in nodes}
        self._inputs: list[list[tuple[Node, int]]] = []
        self._outputs: list[tuple[Node, int]] = []
        if desc.inputs is not None:
            self._inputs = [[(self.node_by_pattern(d["node"]), d["port"]) for d in group]
                            for group in desc.inputs]
        else:
            seen: dict[tuple[str, int], int] = {}
            for node in nodes:
                for idx, port in node.in_ports().items():
                    src = port.get_source()
                    if src is None or src.node.id in ids or src.node.soft_get("op") == "Const":
                        continue
                    key = (src.node.id, src.idx)
                    if key not in seen:
                        seen[key] = len(self._inputs)
                        self._inputs.append([])
                    self._inputs[seen[key]].append((node, idx))
        if desc.outputs is not None:
            self._outputs = [(self.node_by_pattern(d["node"]), d["port"]) for d in desc.outputs]
        else:
            for node in nodes:
                for idx, port in node.out_ports().items():
                    if any(d.node.id not in ids for d in port.get_destinations()):
                        self._outputs.append((node, idx))

    def matched_nodes_names(self) -> list[str]:
        return [n.id for n in self._nodes]

    def matched_nodes(self) -> list[Node]:
        return list(self._nodes)

    def node_by_pattern(self, pattern: str) -> Node:
        """The one matched node whose name (after the scope) matches the regex."""
        prefix = self.scope + "/" if self.scope else ""
        rx = re.compile(re.escape(prefix) + pattern)
        found = [n for n in self._nodes if rx.match(n.soft_get("name", n.id))]
        if len(found) != 1:
            msg = (f"transformations config '{self.custom_replacement_desc.id}': node pattern "
                   f"'{pattern}' matches {len(found)} nodes in scope '{self.scope}', not one")
            raise ConversionError(msg)
        return found[0]

    def inputs_count(self) -> int:
        return len(self._inputs)

    def outputs_count(self) -> int:
        return len(self._outputs)

    def input_nodes(self, port: int) -> list[tuple[Node, int]]:
        return list(self._inputs[port])

    def single_input_node(self, port: int) -> tuple[Node, int]:
        nodes = self._inputs[port]
        if len(nodes) != 1:
            msg = f"input {port} of the match '{self.scope}' feeds {len(nodes)} nodes, not one"
            raise ConversionError(msg)
        return nodes[0]

    def output_node(self, port: int) -> tuple[Node, int]:
        return self._outputs[port]


def _scope_matches(graph: Graph, desc: CustomReplacementDescriptor) -> list[SubgraphMatch]:
    matches = []
    for pattern in desc.instances:
        rx = re.compile(f"(?:{pattern})(?=/|$)")
        scopes: dict[str, list[Node]] = {}
        for node in graph.topological_order():
            if node.soft_get("kind") != "op" or node.soft_get("op") in ("Result", "Parameter"):
                continue
            m = rx.match(node.soft_get("name", node.id))
            if m:
                scopes.setdefault(m.group(0), []).append(node)
        matches += [SubgraphMatch(graph, desc, nodes, scope) for scope, nodes in scopes.items()]
    return matches


def _points_match(graph: Graph, desc: CustomReplacementDescriptor) -> list[SubgraphMatch]:
    by_name = {n.soft_get("name"): n for n in graph.get_op_nodes()}
    for name in desc.instances["start_points"] + desc.instances["end_points"]:
        if name not in by_name:
            msg = f"transformations config '{desc.id}': no node named '{name}' in the model"
            raise ConversionError(msg)
    starts = [by_name[n] for n in desc.instances["start_points"]]
    ends = {by_name[n].id for n in desc.instances["end_points"]}
    found: dict[str, Node] = {}
    stack = list(starts)
    while stack:
        node = stack.pop()
        if node.id in found:
            continue
        if node.soft_get("op") == "Parameter":
            msg = (f"transformations config '{desc.id}': "
                   f"the sub-graph reaches the input '{node.name}'")
            raise ConversionError(msg)
        found[node.id] = node
        if node.id in ends:
            continue
        stack += [d.node for p in node.out_ports().values() for d in p.get_destinations()
                  if d.node.soft_get("op") != "Result"]
    missing = ends - set(found)
    if missing:
        msg = f"transformations config '{desc.id}': end point(s) {sorted(missing)} are not reached"
        raise ConversionError(msg)
    for node in list(found.values()):  # constant producers of the sub-graph's nodes
        for port in node.in_ports().values():
            src = port.get_source()
            if src is not None and src.node.soft_get("op") == "Const":
                found.setdefault(src.node.id, src.node)
    order = {n.id: i for i, n in enumerate(graph.topological_order())}
    nodes = sorted(found.values(), key=lambda n: order[n.id])
    return [SubgraphMatch(graph, desc, nodes, "")]


# -- bases ----------------------------------------------------------------------------------------
class FrontReplacementFromConfigFileGeneral(FrontReplacementPattern):
    """match_kind general: transform_graph(graph, custom_attributes) once per description."""

    replacement_id: ClassVar[str] = "None"

    def transform_graph(self, graph: Graph, replacement_descriptions: dict) -> None:
        msg = (f"{type(self).__name__} must implement "
               "transform_graph(graph, replacement_descriptions)")
        raise NotImplementedError(msg)

    def find_and_replace_pattern(self, graph: Graph) -> None:
        for desc in _descriptions(graph, self.replacement_id):
            self.transform_graph(graph, desc.custom_attributes)


class FrontReplacementFromConfigFileSubGraph(FrontReplacementSubgraph):
    """match_kind scope/points: every match becomes what generate_sub_graph builds."""

    replacement_id: ClassVar[str] = "None"

    def find_and_replace_pattern(self, graph: Graph) -> None:
        for desc in _descriptions(graph, self.replacement_id):
            if desc.match_kind == "scope":
                matches = _scope_matches(graph, desc)
            elif desc.match_kind == "points":
                matches = _points_match(graph, desc)
            else:
                continue
            if not matches:
                log.warning("transformations config '%s' matched nothing", desc.id)
            for match in matches:
                self.replace_sub_graph(graph, match)

    # -- the MO hooks ---------------------------------------------------------------------------
    def generate_sub_graph(self, graph: Graph, match: SubgraphMatch) -> dict[str, Node]:
        msg = f"{type(self).__name__} must implement generate_sub_graph(graph, match)"
        raise NotImplementedError(msg)

    def input_edges_match(self, graph: Graph, match: SubgraphMatch, new_sub_graph: dict) -> dict:
        """{(old node id, in port): (new node id, in port)}."""
        return {}

    def output_edges_match(self, graph: Graph, match: SubgraphMatch, new_sub_graph: dict) -> dict:
        """{(old node id, out port): (new node id, out port)}."""
        return {}

    def nodes_to_remove(self, graph: Graph, match: SubgraphMatch) -> list[str]:
        return match.matched_nodes_names()

    def replace_sub_graph(self, graph: Graph, match: SubgraphMatch) -> None:
        new_sub_graph = self.generate_sub_graph(graph, match)
        inputs = self.input_edges_match(graph, match, new_sub_graph)
        outputs = self.output_edges_match(graph, match, new_sub_graph)
        for (old_id, old_in), (new_id, new_in) in inputs.items():
            src = Node(graph, old_id).in_port(old_in).get_source()
            if src is not None:
                src.connect(Node(graph, new_id).in_port(new_in))
        for (old_id, old_out), (new_id, new_out) in outputs.items():
            new_port: Port = Node(graph, new_id).out_port(new_out)
            Node(graph, old_id).out_port(old_out).get_connection().set_source(new_port)
        keep = {n.id for n in new_sub_graph.values() if isinstance(n, Node)}
        for node_id in self.nodes_to_remove(graph, match):
            if node_id in graph and node_id not in keep:
                graph.remove_node(node_id)


class FrontReplacementFromConfigFileOp(FrontReplacementFromConfigFileSubGraph):
    """The match becomes one op: the description's `op` (or replacement_id), with the
    custom_attributes as its attributes; input i / output i of the match map onto it."""

    def generate_sub_graph(self, graph: Graph, match: SubgraphMatch) -> dict[str, Node]:
        desc = match.custom_replacement_desc
        name = desc.op or self.replacement_id
        cls = Op.registered_ops.get(name)
        if cls is None:
            msg = f"transformations config '{desc.id}': no op named '{name}' is registered"
            raise ConversionError(msg)
        node = cls(graph, dict(desc.custom_attributes)).add_node(
            {"name": match.scope or graph.unique_id(name)})
        return {"new_node": node}

    def input_edges_match(self, graph: Graph, match: SubgraphMatch, new_sub_graph: dict) -> dict:
        new = new_sub_graph["new_node"].id
        return {(node.id, port): (new, i) for i in range(match.inputs_count())
                for node, port in match.input_nodes(i)}

    def output_edges_match(self, graph: Graph, match: SubgraphMatch, new_sub_graph: dict) -> dict:
        new = new_sub_graph["new_node"].id
        outputs = [match.output_node(j) for j in range(match.outputs_count())]
        return {(node.id, port): (new, i) for i, (node, port) in enumerate(outputs)}


for _base in (FrontReplacementFromConfigFileGeneral, FrontReplacementFromConfigFileSubGraph,
              FrontReplacementFromConfigFileOp):
    ReplacementPattern.excluded_replacers.append(_base)
