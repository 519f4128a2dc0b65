"""A Kaldi acoustic model's framing: nnet1 (`<Nnet>` then components, each ending in
`<!EndOfComponent>`), nnet2 (`<Nnet> <NumComponents> n <Components>` ...), nnet3 (`<Nnet3>`, the
config lines, an empty line, then `<NumComponents>` and named components), and `.mdl` files,
whose `<TransitionModel>` is skipped (an nnet3 `.mdl` may end with `<Priors>`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from converter.errors import ModelFormatError
from converter.front.kaldi.component import END_OF_COMPONENT, Component, read_body
from converter.front.kaldi.reader import KaldiReader

__all__ = ["KaldiModel", "read_model"]


@dataclass
class KaldiModel:
    kind: str  # "nnet1", "nnet2" or "nnet3"
    binary: bool
    components: list[Component]
    config: list[str] = field(default_factory=list)  # nnet3's config lines
    priors: np.ndarray | None = None


def _nnet1(reader: KaldiReader, prefix: str = "") -> list[Component]:
    components: list[Component] = []
    while True:
        token = reader.token()
        if token == "</Nnet>":
            return components
        if token == END_OF_COMPONENT:
            continue
        ctype = token[1:-1]
        comp = Component(ctype, f"{prefix}{ctype}_{len(components)}")
        comp.dims = (reader.int(), reader.int())
        # each nested net's components named under its own index: two nets both start at _0
        nested = functools.partial(_nested_net, parent=comp)
        end = read_body(reader, comp, (END_OF_COMPONENT, "</Nnet>"),
                        nested if ctype == "ParallelComponent" else None)
        components.append(comp)
        if end == "</Nnet>":
            return components


def _nested_net(reader: KaldiReader, parent: Component) -> list[Component]:
    return _nnet1(reader, prefix=f"{parent.name}/net_{len(parent.nested)}/")


def _counted(reader: KaldiReader, named: bool) -> list[Component]:
    reader.expect("<NumComponents>")
    count = reader.int()
    if not 0 <= count <= 1 << 20:
        raise reader.fail(f"implausible component count {count}")
    if not named:
        reader.expect("<Components>")
    components = []
    for i in range(count):
        name = None
        if named:
            reader.expect("<ComponentName>")
            name = reader.word()
        ctype = reader.token()[1:-1]
        comp = Component(ctype, name or f"{ctype}_{i}")
        read_body(reader, comp, (f"</{ctype}>",))
        components.append(comp)
    return components


def _nnet3(reader: KaldiReader) -> KaldiModel:
    reader.line()  # the rest of the <Nnet3> line
    config = []
    while True:
        if reader.pos >= len(reader.data):
            raise reader.fail("the config lines of <Nnet3> are not closed by an empty line")
        line = reader.line()
        if not line:
            break
        config.append(line)
    components = _counted(reader, named=True)
    reader.expect("</Nnet3>")
    priors = None
    if reader.skip_to("<Priors>"):
        priors = reader.real().reshape(-1)
    return KaldiModel("nnet3", reader.binary, components, config, priors)


def read_model(data: bytes, name: str) -> KaldiModel:
    """The nnet inside a Kaldi file (binary or text)."""
    reader = KaldiReader(data, name)
    try:
        token = reader.token()
    except ModelFormatError:
        msg = (f"{name}: not a Kaldi model (it should open with <Nnet>, <Nnet3> or "
               "<TransitionModel>)")
        raise ModelFormatError(msg) from None
    if token == "<TransitionModel>":
        if not reader.skip_to("</TransitionModel>"):
            raise reader.fail("<TransitionModel> is not closed")
        token = reader.token()
    if token == "<Nnet3>":
        return _nnet3(reader)
    if token != "<Nnet>":
        msg = (f"{name}: not a Kaldi nnet model (it does not open with <Nnet> or <Nnet3>); "
               "pass an nnet1/nnet2 .nnet, an nnet3 .raw or a .mdl")
        raise ModelFormatError(msg)
    if reader.peek_token() == "<NumComponents>":
        components = _counted(reader, named=False)
        reader.expect("</Components>")
        reader.expect("</Nnet>")
        return KaldiModel("nnet2", reader.binary, components)
    return KaldiModel("nnet1", reader.binary, _nnet1(reader))
