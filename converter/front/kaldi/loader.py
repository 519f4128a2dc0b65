"""Read a Kaldi model (nnet1 `.nnet`, nnet2 `.nnet`/`.mdl`, nnet3 `.raw`/`.mdl`; binary or
text) into a front-stage Graph: one input of shape [1, dim] (one frame per inference, as MO
made it), one framework node per component, nnet3's descriptors as opset ops, the Results."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from converter.errors import InputFileError, ModelFormatError, UnsupportedOpError
from converter.front.kaldi.builder import GraphBuilder
from converter.front.kaldi.component import Component
from converter.front.kaldi.descriptor import parse_descriptor, parse_line
from converter.front.kaldi.model import KaldiModel, read_model
from converter.front.kaldi.outputs import finish_output
from converter.graph.graph import Graph
from converter.graph.port import Port
from converter.options import ConvertOptions

__all__ = ["build_graph", "load"]


def _chain(b: GraphBuilder, components: list[Component], source: Port) -> Port:
    for comp in components:
        if comp.type == "ParallelComponent":
            source = _parallel(b, comp, source)
        else:
            source = b.component(comp, source)
    return source


def _parallel(b: GraphBuilder, comp: Component, source: Port) -> Port:
    """nnet1's ParallelComponent: the input split by the nested nets' input dims, each part
    through its net, the outputs concatenated."""
    if not comp.nested or any(not net for net in comp.nested):
        raise ModelFormatError(f"ParallelComponent '{comp.name}' holds no nested nets")
    dims = np.array([net[0].dims[1] for net in comp.nested], np.int64)
    split = b.op("VariadicSplit", [source, np.int64(1), dims], f"{comp.name}/split",
                 out_ports_count=len(dims))
    parts = [_chain(b, net, split.out_port(i)) for i, net in enumerate(comp.nested)]
    return b.op("Concat", parts, comp.name, axis=1).out_port(0)


def _first_dim(comp: Component) -> int:
    """The input dim of an nnet2 net, from its first component."""
    for tag in ("<InputDim>", "<Dim>"):
        if comp.has(tag):
            return comp.int(tag)
    for tag in ("<LinearParams>", "<Params>"):
        if comp.has(tag):
            return comp.array(tag).shape[-1]
    msg = f"{comp.type} component '{comp.name}': cannot tell the net's input dim from it"
    raise ModelFormatError(msg)


class _Nnet3:
    """nnet3's config lines resolved into graph nodes, name by name."""

    def __init__(self, b: GraphBuilder, model: KaldiModel, opts: ConvertOptions) -> None:
        self.b = b
        self.opts = opts
        self.priors = model.priors
        self.components = {c.name: c for c in model.components}
        self.nodes: dict[str, dict[str, str]] = {}
        self.kinds: dict[str, str] = {}
        self.ports: dict[str, Port] = {}
        self.outputs: list[dict[str, str]] = []
        for line in model.config:
            kind, fields = parse_line(line)
            if kind == "output-node":
                self.outputs.append(fields)
            elif kind in ("input-node", "component-node", "dim-range-node"):
                self.nodes[fields.get("name", "")] = fields
                self.kinds[fields.get("name", "")] = kind
            else:
                msg = f"nnet3 config line '{line}': unknown kind '{kind}'"
                raise ModelFormatError(msg)

    def build(self) -> None:
        for name, kind in self.kinds.items():
            if kind == "input-node":
                self.port(name, ())
        for fields in self.outputs:
            port = self.descriptor(self._field(fields, "input"), ())
            self.b.result(finish_output(self.b, port, self.opts, self.priors), fields["name"])

    def _field(self, fields: dict[str, str], key: str) -> str:
        if key not in fields:
            msg = f"nnet3 config node '{fields.get('name', '?')}' has no {key}="
            raise ModelFormatError(msg)
        return fields[key]

    def port(self, name: str, stack: tuple[str, ...]) -> Port:
        if name in self.ports:
            return self.ports[name]
        if name not in self.nodes:
            raise ModelFormatError(f"nnet3 config: node '{name}' is used but never defined")
        if name in stack:
            msg = (f"nnet3 node '{name}' depends on itself with no time offset; "
                   "the model is corrupt")
            raise ModelFormatError(msg)
        fields, kind = self.nodes[name], self.kinds[name]
        if kind == "input-node":
            port = self.b.parameter(name, int(self._field(fields, "dim")))
        elif kind == "component-node":
            source = self.descriptor(self._field(fields, "input"), (*stack, name))
            comp = self.components.get(self._field(fields, "component"))
            if comp is None:
                msg = f"nnet3 node '{name}': component '{fields['component']}' is not stored"
                raise ModelFormatError(msg)
            port = self.b.component(comp, source, name)
        else:
            source = self.port(self._field(fields, "input-node"), (*stack, name))
            start = int(self._field(fields, "dim-offset"))
            stop = start + int(self._field(fields, "dim"))
            port = self.b.op("Slice", [source, np.array([start]), np.array([stop]),
                                       np.array([1]), np.array([1])], name).out_port(0)
        self.ports[name] = port
        return port

    def descriptor(self, text: str, stack: tuple[str, ...]) -> Port:
        return self._tree(parse_descriptor(text), stack, text)

    def _tree(self, tree, stack: tuple[str, ...], text: str) -> Port:
        if isinstance(tree, str):
            return self.port(tree, stack)
        if not isinstance(tree, tuple):
            raise ModelFormatError(f"nnet3 descriptor '{text}': a number where a node belongs")
        fn, args = tree[0], tree[1:]
        if fn == "Append":
            parts = [self._tree(a, stack, text) for a in args]
            return parts[0] if len(parts) == 1 else self.b.op(
                "Concat", parts, "Append", axis=1).out_port(0)
        if fn == "Sum":
            ports = [self._tree(a, stack, text) for a in args]
            total = ports[0]
            for other in ports[1:]:
                total = self.b.op("Add", [total, other], "Sum").out_port(0)
            return total
        if fn == "Scale" and len(args) == 2:
            scaled = self._tree(args[1], stack, text)
            return self.b.op("Multiply", [scaled, np.array([args[0]], np.float32)],
                             "Scale").out_port(0)
        if fn in ("IfDefined", "ReplaceIndex") or (fn == "Offset" and args[1:] == (0,)):
            return self._tree(args[0], stack, text)
        if fn == "Offset":
            msg = (f"nnet3 descriptor '{text}': time offsets (Offset with t != 0) need "
                   "recurrent state, which the Kaldi frontend does not convert yet")
            raise UnsupportedOpError(msg)
        raise UnsupportedOpError(f"nnet3 descriptor '{text}': {fn}() is not supported")


def build_graph(model: KaldiModel, name: str, opts: ConvertOptions) -> Graph:
    """The front-stage graph of a parsed model."""
    b = GraphBuilder(name)
    if model.kind == "nnet3":
        _Nnet3(b, model, opts).build()
    else:
        if not model.components:
            raise ModelFormatError(f"{name}: the {model.kind} model holds no components")
        first = model.components[0]
        dim = first.dims[1] if model.kind == "nnet1" else _first_dim(first)
        source = b.parameter("Parameter" if model.kind == "nnet1" else "Input", dim)
        out = _chain(b, model.components, source)
        name = out.node.soft_get("name")
        b.result(finish_output(b, out, opts, model.priors), name)
    return b.graph


def load(opts: ConvertOptions) -> Graph:
    path = Path(opts.input_model)
    if not path.is_file():
        raise InputFileError(f"{path}: no such model file")
    model = read_model(path.read_bytes(), path.name)
    return build_graph(model, path.stem, opts)
