"""Run by MO 2023.3's own Python (tests/mo_oracle.py `op_classes`), never by the tests: what
each op class of MO's ops package puts on a node it creates with default attributes (op,
type, version, input and output port counts, and the plain attribute values its constructor
sets), as JSON on stdout, keyed `module.Class`. Classes MO itself cannot build without
attributes are left out."""

import importlib
import inspect
import json
import pkgutil
import sys
import warnings

# what MO's graph machinery adds to every node, not the op class
_MACHINERY = {"name", "op", "type", "version", "in_ports_count", "out_ports_count", "kind",
              "infer", "type_infer", "reverse_infer", "IE", "dim_attrs", "shape_attrs"}


def _plain(value) -> bool:
    if isinstance(value, (list, tuple)):
        return all(isinstance(v, (bool, int, float, str)) for v in value)
    return isinstance(value, (bool, int, float, str))


def facts(node) -> dict:
    attrs = node.attrs()
    defaults = {key: list(value) if isinstance(value, tuple) else value
                for key, value in attrs.items() if key not in _MACHINERY and _plain(value)}
    return {"op": attrs.get("op"), "type": attrs.get("type"), "version": attrs.get("version"),
            "in": len(node.in_ports()), "out": len(node.out_ports()), "attrs": defaults}


def main() -> None:
    warnings.filterwarnings("ignore")
    import openvino.tools.mo.ops as package
    from openvino.tools.mo.graph.graph import Graph
    from openvino.tools.mo.ops.op import Op

    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        try:
            module = importlib.import_module(f"{package.__name__}.{info.name}")
        except Exception:  # noqa: BLE001  (a module that needs a framework MO lacks here)
            continue
        for name, cls in vars(module).items():
            if not (inspect.isclass(cls) and issubclass(cls, Op)
                    and cls.__module__ == module.__name__):
                continue
            graph = Graph()
            graph.stage = "front"
            try:
                found[f"{info.name}.{name}"] = facts(cls(graph, {}).create_node())
            except Exception:  # noqa: BLE001, S112  (MO needs attributes for this one)
                continue
    lines = (f"{json.dumps(key)}: {json.dumps(facts, sort_keys=True)}"
             for key, facts in sorted(found.items()))
    sys.stdout.write("{\n" + ",\n".join(lines) + "\n}")


if __name__ == "__main__":
    main()
