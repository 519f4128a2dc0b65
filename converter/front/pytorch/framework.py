"""PyTorch as a converter framework: a torch.export program (.pt2, from torch.export.save),
or a TorchScript archive (.pt/.pth, from torch.jit.save; --input_shape or --input gives its
input shapes, which TorchScript does not keep)."""

from __future__ import annotations

from converter.frameworks import Framework
from converter.front.pytorch.translator import REGISTRY
from converter.graph.graph import Graph, Node
from converter.options import ConvertOptions


def _load(opts: ConvertOptions) -> Graph:
    from converter.front.pytorch.exported import load_exported, program_to_graph
    from converter.front.pytorch.scripted import load_scripted, script_to_graph

    path = opts.input_model
    if path.suffix.lower() == ".pt2":
        return program_to_graph(load_exported(path), path.stem)
    return script_to_graph(load_scripted(path, opts), path.stem)


def _node_attrs(node: Node) -> dict:
    from converter.front.pytorch.attrs import constant_args

    return constant_args(node)


FRAMEWORK = Framework("pytorch", _load, REGISTRY, _node_attrs)
