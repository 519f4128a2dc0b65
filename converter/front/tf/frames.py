"""TF1 control flow in a frozen GraphDef made functional again, so that one translator handles
both forms: while frames (`Enter`/`Merge`/`Switch`/`LoopCond`/`NextIteration`/`Exit`, what TF
writes for a lowered `While`) become one `While` node whose cond and body are new functions of
the library; lowered conds (`Switch` on a predicate, `Merge` of the branches) `If` nodes.

In a frame, each loop variable i runs Enter -> Merge(Enter, NextIteration) -> Switch(Merge,
LoopCond); Switch:1 feeds the body, Switch:0 the Exit, and NextIteration takes the body's new
value. An Enter with `is_constant` is a loop invariant: here it becomes one more variable that
the body hands back unchanged. The cond is what LoopCond reads, from the Merges; the body is
what the NextIterations read, from the Switches. Each Exit becomes an Identity of the While's
output, so its readers are unchanged.

In a lowered cond, each input x runs through Switch(x, pred): the then branch reads Switch:1,
the else branch Switch:0, and a Merge takes whichever ran. Each Merge becomes an If on pred
whose branches compute its two inputs.
"""

from __future__ import annotations

from collections.abc import Iterable

from converter.errors import ModelFormatError
from converter.front.tf.attrs import attr_value, get_tf_node_port

__all__ = ["conds_to_if", "frames_to_while"]

_ARG = "_frame_arg{}"


class _Frame:
    """The nodes of one frame, found from its Enters."""

    def __init__(self, enters: list, nodes: dict, readers: dict[str, list]) -> None:
        self.enters = enters
        self.merges, self.switches, self.exits, self.nexts = [], [], [], []
        for enter in (e for e in enters if not _constant(e)):
            merge = _only(readers[enter.name], "Merge", enter)
            switch = _only(readers[merge.name], "Switch", merge)
            feed = next(get_tf_node_port(i)[0] for i in _data(merge) if _canonical(i) != enter.name)
            self.merges.append(merge)
            self.switches.append(switch)
            self.nexts.append(nodes[feed])
            self.exits.append(next((r for r in readers[switch.name] if r.op == "Exit"), None))
        self.invariants = [e for e in enters if _constant(e)]
        self.loop_cond = nodes[get_tf_node_port(self.switches[0].input[1])[0]]

    def variables(self) -> list:
        return [e for e in self.enters if not _constant(e)] + self.invariants


def _constant(enter) -> bool:
    return "is_constant" in enter.attr and bool(enter.attr["is_constant"].b)


def _only(readers: list, op: str, node) -> object:
    found = [r for r in readers if r.op == op]
    if len(found) != 1:
        msg = (f"while frame node '{node.name}' ({node.op}) feeds {len(found)} {op} nodes, "
               "not one (not a TF while loop this converter reads)")
        raise ModelFormatError(msg)
    return found[0]


def _data(node) -> list[str]:
    return [i for i in node.input if not i.startswith("^")]


def _collect(starts: Iterable[str], stops: dict[str, str], nodes: dict) -> list[str]:
    """The nodes the tensors `starts` depend on, up to the tensors `stops` names."""
    seen: list[str] = []
    stack = [get_tf_node_port(t)[0] for t in starts if _canonical(t) not in stops]
    while stack:
        name = stack.pop()
        if name in seen or name not in nodes:
            continue
        node = nodes[name]
        if node.op in ("Enter", "Merge", "Switch", "Placeholder"):
            msg = (f"control flow node '{name}' ({node.op}) is read from inside a loop body "
                   "or a branch it is not part of (TF1 control flow nested so is not "
                   "supported)")
            raise ModelFormatError(msg)
        seen.append(name)
        stack.extend(get_tf_node_port(t)[0] for t in _data(node) if _canonical(t) not in stops)
    return seen


def _function(library, name: str, args: dict[str, str], nodes: dict, outputs: list[str],
              types: list[int]) -> list[str]:
    """A library function over the frame's variables: what `outputs` compute from `args`
    (tensor name -> argument name). Returns the names of the nodes it copied."""
    fdef = library.function.add()
    fdef.signature.name = name
    for i, dtype in enumerate(types):
        fdef.signature.input_arg.add(name=_ARG.format(i), type=dtype)
    copied = _collect(outputs, args, nodes)
    for name_ in reversed(copied):
        node = fdef.node_def.add()
        node.CopyFrom(nodes[name_])
        del node.input[:]
        node.input.extend(args.get(_canonical(t), t) for t in _data(nodes[name_]))
    for k, out in enumerate(outputs):
        fdef.signature.output_arg.add(name=f"out{k}")
        fdef.ret[f"out{k}"] = args.get(_canonical(out), out)
    return copied


def _canonical(tensor: str) -> str:
    name, port = get_tf_node_port(tensor)
    return name if port == 0 else f"{name}:{port}"


def _convert(graph_def, frame: _Frame) -> None:
    """Replace one frame by a While node and two functions."""
    nodes = {n.name: n for n in graph_def.node}
    variables = frame.variables()
    types = [v.attr["T"].type for v in variables]
    invariants = {e.name: _ARG.format(len(frame.merges) + i)
                  for i, e in enumerate(frame.invariants)}
    cond_args = {m.name: _ARG.format(i) for i, m in enumerate(frame.merges)} | invariants
    body_args = {f"{s.name}:1": _ARG.format(i) for i, s in enumerate(frame.switches)}
    name = frame.loop_cond.name + "/While"
    library = graph_def.library
    inside = _function(library, name + "/cond", cond_args, nodes, [frame.loop_cond.input[0]],
                       types)
    body_out = [_data(n)[0] for n in frame.nexts] + list(invariants)
    inside += _function(library, name + "/body", body_args | invariants, nodes, body_out, types)
    loop = graph_def.node.add(name=name, op="While", input=[_data(v)[0] for v in variables])
    loop.attr["cond"].func.name = name + "/cond"
    loop.attr["body"].func.name = name + "/body"
    loop.attr["T"].list.type.extend(types)
    for i, exit_ in enumerate(frame.exits):
        if exit_ is not None:
            exit_.op = "Identity"
            del exit_.input[:]
            exit_.input.append(f"{name}:{i}" if i else name)
    # the frame's nodes, and those it reads that hang on its pivot by control input only (a
    # Fill of constants) and so are not fed by an Enter
    _drop(graph_def, [e.name for e in frame.enters] + inside,
          {e.name for e in frame.exits if e})


def _drop(graph_def, starts: list[str], keep: set[str]) -> None:
    """Remove the nodes `starts` and what they feed, up to the nodes `keep`."""
    readers: dict[str, list[str]] = {}
    for node in graph_def.node:
        for t in _data(node):
            readers.setdefault(get_tf_node_port(t)[0], []).append(node.name)
    drop, stack = set(), list(starts)
    while stack:
        name = stack.pop()
        if name not in drop and name not in keep:
            drop.add(name)
            stack.extend(readers.get(name, ()))
    kept = [n for n in graph_def.node if n.name not in drop]
    del graph_def.node[:]
    graph_def.node.extend(kept)


def frames_to_while(graph_def) -> None:
    """Turn every while frame of graph_def into a While node, innermost frames first."""
    while True:
        frames: dict[str, list] = {}
        for node in graph_def.node:
            if node.op == "Enter":
                frames.setdefault(attr_value(node.attr["frame_name"]), []).append(node)
        if not frames:
            return
        nodes = {n.name: n for n in graph_def.node}
        readers: dict[str, list] = {}
        for node in graph_def.node:
            for t in _data(node):
                readers.setdefault(get_tf_node_port(t)[0], []).append(node)
        _convert(graph_def, _Frame(_innermost(frames, readers), nodes, readers))


def _innermost(frames: dict[str, list], readers: dict[str, list]) -> list:
    """The Enters of a frame whose body holds no other frame's Enter."""
    for enters in frames.values():
        names = {e.name for e in enters}
        seen, stack = set(), list(names)
        while stack:
            readers_ = [r for r in readers.get(stack.pop(), ()) if r.op != "Exit"]
            if any(r.op == "Enter" and r.name not in names for r in readers_):
                break
            fresh = [r.name for r in readers_ if r.name not in seen]
            seen.update(fresh)
            stack.extend(fresh)
        else:
            return enters
    msg = "TF1 while frames nest in a cycle (corrupt graph)"
    raise ModelFormatError(msg)


def _switches(tensor: str, nodes: dict) -> set[tuple[str, int]] | None:
    """The Switch outputs a branch result depends on; None when it reads past them."""
    seen, found, stack = set(), set(), [tensor]
    while stack:
        name, port = get_tf_node_port(stack.pop())
        node = nodes.get(name)
        if node is None or node.op in ("Placeholder", "Enter", "Merge"):
            return None
        if node.op == "Switch":
            found.add((name, port))
        elif name not in seen:
            seen.add(name)
            stack.extend(_data(node))
    return found


def _cond(merge, nodes: dict) -> tuple[str, list[str], list[str]] | None:
    """(predicate, Switch names, [then result, else result]) of a lowered cond's Merge."""
    results = _data(merge)
    sides = [_switches(t, nodes) for t in results] if len(results) == 2 else [None]
    if None in sides:
        return None
    if {p for _, p in sides[0]} == {0} or {p for _, p in sides[1]} == {1}:
        results, sides = results[::-1], sides[::-1]
    switches = sorted({s for s, _ in sides[0] | sides[1]})
    preds = {_canonical(nodes[s].input[1]) for s in switches}
    ports = [{p for _, p in side} for side in sides]
    if len(preds) != 1 or not ports[0] <= {1} or not ports[1] <= {0}:
        return None
    return preds.pop(), switches, results


def _merge_to_if(graph_def, merge, cond: tuple[str, list[str], list[str]], nodes: dict) -> None:
    pred, switches, results = cond
    types = [nodes[s].attr["T"].type for s in switches]
    for key, port, result in (("then", 1, results[0]), ("else", 0, results[1])):
        args = {_canonical(f"{s}:{port}"): _ARG.format(i) for i, s in enumerate(switches)}
        _function(graph_def.library, f"{merge.name}/{key}", args, nodes, [result], types)
    merge.op = "If"
    del merge.input[:]
    merge.input.extend([pred, *(_data(nodes[s])[0] for s in switches)])
    merge.attr.clear()
    merge.attr["then_branch"].func.name = f"{merge.name}/then"
    merge.attr["else_branch"].func.name = f"{merge.name}/else"
    merge.attr["Tin"].list.type.extend(types)


def conds_to_if(graph_def) -> None:
    """Turn the Merge of every lowered cond into an If, innermost conds first."""
    while True:
        nodes = {n.name: n for n in graph_def.node}
        conds = [(m, c) for m in graph_def.node if m.op == "Merge" and not any(
            nodes.get(get_tf_node_port(t)[0]) is not None
            and nodes[get_tf_node_port(t)[0]].op in ("Enter", "NextIteration")
            for t in _data(m)) and (c := _cond(m, nodes)) is not None]
        if not conds:
            return
        pred = conds[0][1][0]
        switches = {s for _, (p, names, _) in conds if p == pred for s in names}
        for merge, cond in conds:
            if cond[0] == pred:
                _merge_to_if(graph_def, merge, cond, nodes)
        _drop(graph_def, sorted(switches | {n.name for n in graph_def.node if n.op == "Switch"
                                            and _canonical(n.input[1]) == pred}), set())
