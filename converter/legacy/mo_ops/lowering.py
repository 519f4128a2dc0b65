"""Back-phase passes for MO op nodes: those a middle or back pass built without inferring them
become their opset ops (MO's back passes did the same job), and identity ops are erased. They
join a conversion once extension code resolves an MO op class."""

from __future__ import annotations

from converter.back.replacement import BackFinish, BackReplacementPattern, BackStart
from converter.graph.graph import Graph
from converter.passes import ReplacementPattern

__all__ = ["EraseIdentity", "LowerLateMoOps", "LowerMoOps", "register"]


class LowerMoOps(BackReplacementPattern):
    """Infer MO op nodes never inferred (built after the infer phase, left in MO's form)."""

    def run_after(self) -> list:
        return [BackStart]

    def find_and_replace_pattern(self, graph: Graph) -> None:
        for node in graph.topological_order():
            if node.soft_get("mo_lowered", True) is False:
                node.infer(node)


class LowerLateMoOps(LowerMoOps):
    """The same after the back passes, for MO op nodes they built (MO's back passes left new
    nodes uninferred too)."""

    def run_after(self) -> list:
        return [BackFinish]

    def run_before(self) -> list:
        return []


class EraseIdentity(BackReplacementPattern):
    """Each input of an identity op feeds what its output fed, under its tensor names."""

    def run_after(self) -> list:
        return [LowerMoOps]

    def find_and_replace_pattern(self, graph: Graph) -> None:
        for node in graph.get_op_nodes(identity=True):
            for port, out in list(node.iter_out_data()):
                src = node.in_port(port).data_node()
                names = node.out_port(port).get_tensor_names()
                node.in_port(port).get_source().add_tensor_names(names)
                for _, dst, attrs in list(graph.out_edges(out.id, data=True)):
                    graph.add_edge(src.id, dst, **attrs)
                graph.remove_node(out.id)
            graph.remove_node(node.id)


_PASSES = (LowerMoOps, LowerLateMoOps, EraseIdentity)
for _cls in _PASSES:  # they join a conversion through register()
    ReplacementPattern.registered_cls.remove(_cls)


def register() -> None:
    """Put these passes into the current conversion's passes (once)."""
    present = set(ReplacementPattern.registered_cls)
    ReplacementPattern.registered_cls.extend(c for c in _PASSES if c not in present)
