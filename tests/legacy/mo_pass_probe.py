"""Run by MO 2023.3's own Python (tests/mo_oracle.py `changed_passes`), never by the tests: MO
converts a model (its command line after the first argument) and each transformation class it
applies is watched; the `module.Class` names of those that changed the graph (a node or edge
added, removed or given another attribute value, or a graph attribute) are written as JSON to
the file named by the first argument.

Those classes are what MO_DISABLED_TRANSFORMS can switch off (utils/class_registration.py): a
module none of whose classes changed anything converts the model the same without them."""

import hashlib
import json
import sys

import numpy as np

# what MO's graph clean-up marks on every node after any pass that asks for it
_BOOKKEEPING = ("is_const_producer", "is_output_reachable", "is_undead")


def _plain(value, depth: int = 0):
    """A value as something whose repr says what it is (arrays by their content)."""
    if isinstance(value, np.ndarray):
        data = np.ma.getdata(value)
        mask = np.ma.getmaskarray(value) if np.ma.isMaskedArray(value) else None
        body = data.tobytes() + (mask.tobytes() if mask is not None else b"")
        return ("array", data.shape, str(data.dtype), hashlib.sha256(body).hexdigest())
    if isinstance(value, (bool, int, float, str, bytes, type(None), np.generic)):
        return value
    if depth > 4:
        return type(value).__name__
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_plain(v, depth + 1) for v in value]
        return tuple(sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _plain(v, depth + 1)) for k, v in value.items()))
    if callable(value):
        return getattr(value, "__qualname__", type(value).__name__)
    return type(value).__name__


def fingerprint(graph) -> str:
    """The graph's content, whatever its node ids (MO's clean-up rebuilds equal Consts under
    new ids): each node by its attributes, each edge by its ends' and its own attributes."""
    label = {n: hashlib.sha256(repr(_plain({k: v for k, v in attrs.items()
                                             if k not in _BOOKKEEPING})).encode()).hexdigest()
             for n, attrs in graph.nodes(data=True)}
    edges = sorted(repr((label[u], label[v], _plain(attrs)))
                   for u, v, attrs in graph.edges(data=True))
    extra = repr(_plain({k: v for k, v in graph.graph.items() if k != "cmd_params"}))
    return hashlib.sha256("\n".join([*sorted(label.values()), *edges, extra]).encode()).hexdigest()


def main() -> int:
    from openvino.tools.mo.main import main as mo_main
    from openvino.tools.mo.utils import class_registration
    from openvino.tools.mo.utils.cli_parser import get_all_cli_parser

    changed: list[str] = []
    apply = class_registration.apply_transform

    def watched(graph, replacer_cls, **kwargs):
        before = fingerprint(graph)
        result = apply(graph=graph, replacer_cls=replacer_cls, **kwargs)
        if fingerprint(graph) != before:
            changed.append(f"{replacer_cls.__module__}.{replacer_cls.__name__}")
        return result

    class_registration.apply_transform = watched
    answer, sys.argv = sys.argv[1], [sys.argv[0], *sys.argv[2:]]
    code = mo_main(get_all_cli_parser(), None)
    with open(answer, "w") as out:
        json.dump(sorted(set(changed)), out, indent=1)
    return code


if __name__ == "__main__":
    sys.exit(main())
