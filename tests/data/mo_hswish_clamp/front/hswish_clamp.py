# A legacy MO front extension written as MO 2023.3's own HSwishWithClamp is (the same pattern:
# x * Clamp(x + 3, 0, 6) * (1/6), the Clamp's bounds on its inputs 1 and 2, and MO's op names),
# for tests/legacy/test_mo_node_names.py; it imports only what MO's module imports.
import numpy as np

from openvino.tools.mo.front.AttributedClampNormalizer import AttributedClampNormalizer
from openvino.tools.mo.front.common.replacement import FrontReplacementSubgraph
from openvino.tools.mo.graph.graph import Graph, rename_nodes
from openvino.tools.mo.middle.pattern_match import check_value
from openvino.tools.mo.ops.activation_ops import HSwish


def _const_near(number):
    return dict(op='Const',
                value=lambda v: check_value(v, lambda x: np.allclose(x, number, atol=1e-6)))


class HSwishFromClamp(FrontReplacementSubgraph):
    enabled = True

    def run_after(self):
        return [AttributedClampNormalizer]

    def pattern(self):
        return dict(
            nodes=[('x', dict()), ('plus', dict(op='Add')), ('three', _const_near(3.0)),
                   ('low', _const_near(0.0)), ('high', _const_near(6.0)),
                   ('sixth', _const_near(1.0 / 6.0)), ('clamp', dict(op='Clamp')),
                   ('times', dict(op='Mul')), ('scaled', dict(op='Mul'))],
            edges=[('x', 'plus', {}), ('three', 'plus', {}), ('x', 'times', {}),
                   ('plus', 'clamp', {'in': 0}), ('low', 'clamp', {'in': 1}),
                   ('high', 'clamp', {'in': 2}), ('clamp', 'times', {}),
                   ('times', 'scaled', {}), ('sixth', 'scaled', {})])

    def replace_sub_graph(self, graph: Graph, match: dict):
        plus, times, scaled = match['plus'], match['times'], match['scaled']
        x_port = int(plus.in_port(0).get_source().node.soft_get('op') == 'Const')
        times_port = int(times.in_port(0).get_source().node.soft_get('op') == 'Clamp')
        source = plus.in_port(x_port).get_source()
        if source != times.in_port(times_port).get_source():
            return
        name = scaled.soft_get('name', scaled.id)
        hswish = HSwish(graph, {}).create_node()
        hswish.in_port(0).connect(source)
        scaled.out_port(0).get_connection().set_source(hswish.out_port(0))
        rename_nodes([(scaled, name + '/replaced'), (hswish, name)])
