"""Read a Kaldi model (nnet1 `.nnet`, nnet2 `.nnet`/`.mdl`, nnet3 `.raw`/`.mdl`; binary or
text) into a front-stage Graph: one input of shape [1, dim] (one frame per inference, as MO
made it), one framework node per component, nnet3's descriptors as opset ops, the Results."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from converter.errors import InputFileError, ModelFormatError
from converter.front.kaldi.builder import GraphBuilder
from converter.front.kaldi.component import Component
from converter.front.kaldi.model import KaldiModel, read_model
from converter.front.kaldi.nnet3 import Nnet3Graph
from converter.front.kaldi.outputs import add_mo_name, finish_output
from converter.front.kaldi.states import state_lines
from converter.front.kaldi.timing import output_dim
from converter.graph.graph import Graph
from converter.graph.port import Port
from converter.options import ConvertOptions

__all__ = ["build_graph", "load"]


_SPLICES = ("Splice", "SpliceComponent")


class _Chain:
    """nnet1/nnet2: components one after the other; splicing reads delay lines (the chain's
    delay grows by the largest future offset, as in converter.front.kaldi.timing)."""

    def __init__(self, b: GraphBuilder) -> None:
        self.b = b
        self.lines = state_lines(b)
        self.delay = 0
        self.dim = 0

    def run(self, components: list[Component], source: Port, dim: int) -> Port:
        """The chain's output port (its dim left in self.dim)."""
        for comp in components:
            if comp.type == "ParallelComponent":
                source = self._parallel(comp, source)
            elif comp.type in _SPLICES:
                source = self._splice(comp, source, dim)
            else:
                source = self.b.component(comp, source)
            dim = output_dim(comp, lambda d=dim: d)
        self.dim = dim
        return source

    def _parallel(self, comp: Component, source: Port) -> Port:
        """nnet1's ParallelComponent: the input split by the nested nets' input dims, each
        part through its net, the outputs concatenated. A net that splices delays its output;
        the others' outputs wait as long, so all parts hold the same frame."""
        if not comp.nested or any(not net for net in comp.nested):
            raise ModelFormatError(f"ParallelComponent '{comp.name}' holds no nested nets")
        dims = np.array([net[0].dims[1] for net in comp.nested], np.int64)
        split = self.b.op("VariadicSplit", [source, np.int64(1), dims], f"{comp.name}/split",
                          out_ports_count=len(dims))
        parts, delays = [], []
        for i, net in enumerate(comp.nested):
            chain = _Chain(self.b)
            parts.append(chain.run(net, split.out_port(i), int(dims[i])))
            chain.lines.connect()
            delays.append(chain.delay)
        wait = max(delays)
        parts = [part if d == wait else self.lines.delayed(
            f"{comp.name}/part_{i}", wait - d, net[-1].dims[0], part)
            for i, (part, d, net) in enumerate(zip(parts, delays, comp.nested))]
        self.delay += wait
        return self.b.op("Concat", parts, comp.name, axis=1).out_port(0)

    def _splice(self, comp: Component, source: Port, dim: int) -> Port:
        offsets = _splice_offsets(comp)
        if comp.int("<ConstComponentDim>", 0):
            msg = f"{comp.type} '{comp.name}': <ConstComponentDim> other than 0 is not supported"
            raise ModelFormatError(msg)
        delay = max(0, self.delay + max(offsets))
        name = source.node.soft_get("name")
        parts = []
        for o in offsets:
            k = delay - o - self.delay
            parts.append(source if k == 0 else self.lines.delayed(name, k, dim, source))
        self.delay = delay
        if len(parts) == 1:
            return parts[0]
        return self.b.op("Concat", parts, comp.name, axis=1).out_port(0)


def _splice_offsets(comp: Component) -> list[int]:
    if comp.has("<LeftContext>"):
        return list(range(-comp.int("<LeftContext>"), comp.int("<RightContext>", 0) + 1))
    offsets = [int(v) for v in comp.array("<Context>" if comp.has("<Context>") else "")]
    if not offsets:
        raise ModelFormatError(f"{comp.type} '{comp.name}' splices no frames")
    return offsets


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


def _batch(opts: ConvertOptions) -> int:
    """The frames per call --batch (-b) or --input_shape (--input) asks for: so many streams,
    each with its own state (MO's batch for Kaldi: the first dim of every input)."""
    if opts.batch is not None:
        return int(opts.batch)
    shapes = [s.shape for s in opts.inputs or [] if s.shape] or opts.input_shape or []
    first = shapes[0] if shapes else ()
    return int(first[0]) if len(first) == 2 and first[0] > 0 else 1


def build_graph(model: KaldiModel, name: str, opts: ConvertOptions) -> Graph:
    """The front-stage graph of a parsed model."""
    b = GraphBuilder(name)
    b.graph.graph["kaldi_state"] = (bool(opts.remove_memory), _batch(opts))
    if model.kind == "nnet3":
        Nnet3Graph(b, model, opts).build()
    else:
        if not model.components:
            raise ModelFormatError(f"{name}: the {model.kind} model holds no components")
        first = model.components[0]
        dim = first.dims[1] if model.kind == "nnet1" else _first_dim(first)
        source = b.parameter("Parameter" if model.kind == "nnet1" else "Input", dim)
        chain = _Chain(b)
        out = chain.run(model.components, source, dim)
        name, named = out.node.soft_get("name"), out.node.has_valid("component")
        final = finish_output(b, out, chain.dim, opts, model.priors, identity=False)
        types = [c.type.lower() for c in model.components]
        if model.kind == "nnet1" and types.count(types[-1]) == 1 and named:
            add_mo_name(final, out, types[-1])
        b.result(final, name)
        chain.lines.connect()
    return b.graph


def load(opts: ConvertOptions) -> Graph:
    path = Path(opts.input_model)
    if not path.is_file():
        raise InputFileError(f"{path}: no such model file")
    model = read_model(path.read_bytes(), path.name)
    return build_graph(model, path.stem, opts)
