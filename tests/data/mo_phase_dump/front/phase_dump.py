# A legacy MO extension that writes, at each phase boundary, what every op node of the graph is
# (name, op, type, version, port counts) to $EXTGEN_PHASE_DUMP/<phase>.json. The same folder
# runs in MO 2023.3 (recorded through tests/mo_oracle.py) and in extgen, for
# tests/legacy/test_mo_phase_graphs.py.
import json
import os

from openvino.tools.mo.back.pass_separator import BackFinish, BackStart
from openvino.tools.mo.back.replacement import BackReplacementPattern
from openvino.tools.mo.front.common.replacement import FrontReplacementPattern
from openvino.tools.mo.front.pass_separator import FrontFinish, FrontStart
from openvino.tools.mo.middle.pass_separator import MiddleFinish, MiddleStart
from openvino.tools.mo.middle.replacement import MiddleReplacementPattern


def dump(graph, phase):
    nodes = [{'name': str(node.soft_get('name', node.id)), 'op': node.soft_get('op', None),
              'type': node.soft_get('type', None), 'version': node.soft_get('version', None),
              'in': len(node.in_ports()), 'out': len(node.out_ports())}
             for node in graph.get_op_nodes()]
    nodes.sort(key=lambda facts: (facts['name'], str(facts['op'])))
    with open(os.path.join(os.environ['EXTGEN_PHASE_DUMP'], phase + '.json'), 'w') as file:
        json.dump(nodes, file, indent=0, default=str)


class DumpExtracted(FrontReplacementPattern):
    enabled = True

    def run_after(self):
        return []

    def run_before(self):
        return [FrontStart]

    def find_and_replace_pattern(self, graph):
        dump(graph, 'extract')


class DumpFront(FrontReplacementPattern):
    enabled = True

    def run_after(self):
        return [FrontFinish]

    def run_before(self):  # MO orders every phase's passes as one graph
        return [MiddleStart]

    def find_and_replace_pattern(self, graph):
        dump(graph, 'front')


class DumpMiddle(MiddleReplacementPattern):
    enabled = True

    def run_after(self):
        return [MiddleFinish]

    def run_before(self):
        return [BackStart]

    def find_and_replace_pattern(self, graph):
        dump(graph, 'middle')


class DumpBack(BackReplacementPattern):
    enabled = True

    def run_after(self):
        return [BackFinish]

    def run_before(self):
        return []

    def find_and_replace_pattern(self, graph):
        dump(graph, 'back')
