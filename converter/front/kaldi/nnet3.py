"""nnet3's config lines resolved into graph nodes: input-node (a Parameter), component-node (a
framework node fed by its input descriptor), dim-range-node (a Slice), output-node (a
Result). Descriptors become opset ops: Append (Concat), Sum (Add), Scale (Multiply), Const
(a constant); IfDefined and ReplaceIndex pass their input on; Offset and TdnnComponent's time
offsets read delay lines (converter.front.kaldi.timing); Round, Failover and Switch, which the
legacy MO refused too, are refused."""

from __future__ import annotations

import logging

import numpy as np

from converter.errors import ModelFormatError, UnsupportedOpError, UsageError
from converter.front.kaldi.builder import GraphBuilder
from converter.front.kaldi.descriptor import parse_descriptor, parse_line
from converter.front.kaldi.model import KaldiModel
from converter.front.kaldi.outputs import add_mo_name, finish_output
from converter.front.kaldi.states import state_lines
from converter.front.kaldi.timing import component_offsets, delays, leaves, output_dim
from converter.graph.port import Port
from converter.options import ConvertOptions

__all__ = ["Nnet3Graph"]

log = logging.getLogger("extgen")

_KINDS = ("input-node", "component-node", "dim-range-node")


class Nnet3Graph:
    """Builds one nnet3 net into a GraphBuilder, node by node (sources first)."""

    def __init__(self, b: GraphBuilder, model: KaldiModel, opts: ConvertOptions) -> None:
        self.b, self.opts, self.priors = b, opts, model.priors
        self.components = {c.name: c for c in model.components}
        self.nodes: dict[str, dict[str, str]] = {}
        self.kinds: dict[str, str] = {}
        self.trees: dict[str, object] = {}
        self.ports: dict[str, Port] = {}
        self.dims: dict[str, int] = {}
        self.outputs: list[dict[str, str]] = []
        for line in model.config:
            kind, fields = parse_line(line)
            if kind == "output-node":
                self.outputs.append(fields)
            elif kind in _KINDS:
                self.nodes[fields.get("name", "")] = fields
                self.kinds[fields.get("name", "")] = kind
            else:
                raise ModelFormatError(f"nnet3 config line '{line}': unknown kind '{kind}'")
        self.delay = delays(self._reads())
        self.lines = state_lines(b)

    def _reads(self) -> dict[str, list[tuple[str, int]]]:
        reads: dict[str, list[tuple[str, int]]] = {}
        for name, fields in [*self.nodes.items(), *((f"\0{f.get('name')}", f)
                                                   for f in self.outputs)]:
            kind = self.kinds.get(name, "output-node")
            if kind == "input-node":
                reads[name] = []
            elif kind == "dim-range-node":
                reads[name] = [(self._field(fields, "input-node"), 0)]
            else:
                tree = self.trees[name] = parse_descriptor(self._field(fields, "input"))
                shifts = component_offsets(self.components.get(fields.get("component", "")))
                reads[name] = [(src, o + t) for src, o in leaves(tree) for t in shifts]
        return reads

    def build(self) -> None:
        if self.opts.counts is not None and len(self.outputs) > 1:
            names = ", ".join(f.get("name", "?") for f in self.outputs)
            msg = (f"--counts: the net has {len(self.outputs)} outputs ({names}), and the legacy "
                   "MO applied counts to a net of one output only; convert without --counts "
                   "and subtract the log-priors from the output you decode")
            raise UsageError(msg)
        if self.opts.counts is None and self.priors is not None and self.priors.size:
            log.warning('%s stores <Priors>; to subtract them from the output, as MO did, '
                        'add --counts ""', self.opts.input_model)
        for name, kind in self.kinds.items():
            if kind == "input-node":
                self.port(name, ())
        for fields in self.outputs:
            name = fields.get("name", "output")
            tree = self.trees[f"\0{name}"]
            port = self._tree(tree, (), f"\0{name}", 0)
            final = finish_output(self.b, port, self._tree_dim(tree, ()), self.opts,
                                  self.priors, identity=True)
            add_mo_name(final, port, tree if isinstance(tree, str) else None)
            self.b.result(final, name)
        self.lines.connect(lambda n: self.port(n, ()))

    def _field(self, fields: dict[str, str], key: str) -> str:
        if key not in fields:
            msg = f"nnet3 config node '{fields.get('name', '?')}' has no {key}="
            raise ModelFormatError(msg)
        return fields[key]

    def _int_field(self, fields: dict[str, str], key: str) -> int:
        text = self._field(fields, key)
        try:
            return int(text)
        except ValueError:
            msg = f"nnet3 config node '{fields.get('name', '?')}': {key}= is not a whole number"
            raise ModelFormatError(msg) from None

    def port(self, name: str, stack: tuple[str, ...]) -> Port:
        if name in self.ports:
            return self.ports[name]
        if name not in self.nodes:
            raise ModelFormatError(f"nnet3 config: node '{name}' is used but never defined")
        if name in stack:
            msg = (f"nnet3 node '{name}' depends on itself with no time offset; "
                   "the model is corrupt")
            raise ModelFormatError(msg)
        fields, kind, stack = self.nodes[name], self.kinds[name], (*stack, name)
        if kind == "input-node":
            port = self.b.parameter(name, self._int_field(fields, "dim"))
        elif kind == "component-node":
            comp = self.components.get(self._field(fields, "component"))
            if comp is None:
                msg = f"nnet3 node '{name}': component '{fields['component']}' is not stored"
                raise ModelFormatError(msg)
            parts = [self._tree(self.trees[name], stack, name, t)
                     for t in component_offsets(comp)]
            source = parts[0] if len(parts) == 1 else self.b.op(
                "Concat", parts, f"{name}/splice", axis=1).out_port(0)
            port = self.b.component(comp, source, name)
        else:
            source = self.port(self._field(fields, "input-node"), stack)
            start = self._int_field(fields, "dim-offset")
            stop = start + self._int_field(fields, "dim")
            port = self.b.crop(source, start, stop, name, mo_crop=True)
        self.ports[name] = port
        return port

    def dim(self, name: str, stack: tuple[str, ...] = ()) -> int:
        """A node's output dim, from the config and the components alone."""
        if name not in self.dims:
            if name in stack or name not in self.nodes:
                raise ModelFormatError(f"nnet3 config: cannot tell the dim of node '{name}'")
            fields, kind = self.nodes[name], self.kinds[name]
            if kind != "component-node":
                self.dims[name] = self._int_field(fields, "dim")
            else:
                comp = self.components[self._field(fields, "component")]
                self.dims[name] = output_dim(
                    comp, lambda: self._tree_dim(self.trees[name], (*stack, name)))
        return self.dims[name]

    def _tree_dim(self, tree, stack: tuple[str, ...]) -> int:
        if isinstance(tree, str):
            return self.dim(tree, stack)
        fn, args = tree[0], tree[1:]
        if fn == "Append":
            return sum(self._tree_dim(a, stack) for a in args)
        if fn == "Const":
            return int(args[1])
        return self._tree_dim(args[1] if fn == "Scale" else args[0], stack)

    def _tree(self, tree, stack: tuple[str, ...], owner: str, offset: int,
              if_defined: bool = False) -> Port:
        """The port of a descriptor read by node `owner`, shifted by `offset` frames (inside
        IfDefined: a recurrent state, named as MO named it, with --remove_memory)."""
        if isinstance(tree, str):
            if tree not in self.nodes:
                raise ModelFormatError(f"nnet3 config: node '{tree}' is used but never defined")
            k = self.delay[owner] - offset - self.delay[tree]
            if k < 0:
                raise ModelFormatError(f"nnet3 node '{owner}': reads '{tree}' ahead of time")
            if k == 0:
                return self.port(tree, stack)
            shift = f"Offset_{tree}_" + (f"_{-offset}" if offset < 0 else str(offset))
            return self.lines.delayed(tree, k, self.dim(tree),
                                      variable=f"{shift}{shift}_out" if if_defined else None)
        if not isinstance(tree, tuple):
            raise ModelFormatError(f"nnet3 descriptor of '{owner}': a number where a node belongs")
        fn, args = tree[0], tree[1:]
        if fn == "Offset":
            return self._tree(args[0], stack, owner, offset + int(args[1]), if_defined)
        if fn in ("IfDefined", "ReplaceIndex"):
            return self._tree(args[0], stack, owner, offset, if_defined or fn == "IfDefined")
        if fn == "Scale" and len(args) == 2:
            scaled = self._tree(args[1], stack, owner, offset, if_defined)
            return self.b.op("Multiply", [scaled, np.array([args[0]], np.float32)],
                             "Scale").out_port(0)
        if fn == "Const" and len(args) == 2:
            batch = self.b.graph.graph.get("kaldi_state", (False, 1))[1]
            return self.b.const(np.full((batch, int(args[1])), args[0], np.float32), "Const")
        if fn not in ("Append", "Sum"):
            raise UnsupportedOpError(_refusal(owner, fn))
        parts = [self._tree(a, stack, owner, offset, if_defined) for a in args]
        if fn == "Append":
            return parts[0] if len(parts) == 1 else self.b.op(
                "Concat", parts, "Append", axis=1).out_port(0)
        total = parts[0]
        for other in parts[1:]:
            total = self.b.op("Add", [total, other], "Sum").out_port(0)
        return total


def _refusal(owner: str, fn: str) -> str:
    why = {"Round": "it reads frames by the time index modulo its argument",
           "Failover": "it reads its second input where the first is not computable",
           "Switch": "it picks an input by the time index"}.get(fn)
    if why is None:
        return f"nnet3 descriptor of '{owner}': {fn}() is not an nnet3 descriptor"
    return (f"nnet3 descriptor of '{owner}': {fn}() is not supported, as in the legacy MO "
            f"({why}, which a one-frame-per-call IR has no counter for)")
