"""MO's edits of a Kaldi net's output: `--counts` (log-priors subtracted) and
`--remove_output_softmax` (a Softmax that feeds the output dropped).

Where the log-priors go follows MO 2023.3: it subtracts them from the input of an output
Softmax, so the Softmax normalizes the shifted scores, except in nnet3, whose output-node MO
read as an Identity after the Softmax: there they are subtracted after it. The Softmax is then
dropped only when the output reads it directly (nnet1/nnet2 with --counts, or no --counts);
an nnet3 Softmax followed by the subtraction stays. extgen gives the same outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from converter.errors import InputFileError, UsageError
from converter.front.kaldi.builder import GraphBuilder
from converter.graph.port import Port
from converter.options import ConvertOptions

__all__ = ["finish_output", "read_counts"]

_SOFTMAX = ("Softmax", "SoftmaxComponent")  # MO 2023.3 kept an output LogSoftmax
_CUTOFF = 1.00000001e-10  # MO's floor on a count


def read_counts(path: Path) -> np.ndarray:
    """A counts file: one line of numbers, optionally within [ ]."""
    try:
        lines = [ln for ln in Path(path).read_text().splitlines() if ln.strip()]
    except (OSError, UnicodeDecodeError) as err:
        raise InputFileError(f"--counts {path}: cannot read it ({err})") from None
    if len(lines) != 1:
        msg = f"--counts {path}: expected one line of counts, found {len(lines)} lines"
        raise InputFileError(msg)
    try:
        return np.array([float(v) for v in lines[0].replace("[", " ").replace("]", " ").split()])
    except ValueError:
        msg = f"--counts {path}: the line holds something other than numbers"
        raise InputFileError(msg) from None


def log_priors(counts: np.ndarray) -> np.ndarray:
    """log(c / sum(c)), each count floored at 1e-10 first; a floored class gets a huge prior
    (half the largest float32), so its output becomes hugely negative (as MO did)."""
    counts = np.asarray(counts, np.float64)
    unseen = counts < _CUTOFF
    counts = np.where(unseen, _CUTOFF, counts)
    priors = np.log(counts / counts.sum())
    return np.where(unseen, priors + np.finfo(np.float32).max / 2, priors)


def _counts(opts: ConvertOptions, priors: np.ndarray | None, dim: int) -> np.ndarray:
    """The counts for an output of `dim` classes (one count, as MO took it, shifts nothing)."""
    if opts.counts != "":
        counts, source = read_counts(Path(opts.counts)), f"--counts {opts.counts}"
    elif priors is None or priors.size == 0:
        msg = (f'--counts "": {opts.input_model} stores no <Priors> '
               "(only an nnet3 .mdl does); pass a counts file")
        raise UsageError(msg)
    else:
        counts, source = priors, f'--counts "": the <Priors> of {opts.input_model}'
    if counts.size not in (1, dim):
        msg = (f"{source}: {counts.size} counts for an output of {dim} classes; "
               "give one count per output class")
        raise InputFileError(msg)
    return counts


def finish_output(b: GraphBuilder, port: Port, dim: int, opts: ConvertOptions,
                  priors: np.ndarray | None, identity: bool) -> Port:
    """The port the output Result reads, after --counts and --remove_output_softmax (dim: the
    output's; identity: MO's loader put an Identity between `port` and the output, as for
    nnet3)."""
    softmax = port.node.soft_get("op") in _SOFTMAX and not port.get_destinations()
    if opts.counts is not None:
        shift = (-log_priors(_counts(opts, priors, dim))).astype(np.float32)[None]
        if softmax and not identity:
            scores = port.node.in_port(0)
            add = b.op("Add", [scores.get_source(), shift], "sub_counts")
            add.out_port(0).connect(scores)
        else:
            port = b.op("Add", [port, shift], "sub_counts").out_port(0)
            softmax = False
    if opts.remove_output_softmax and softmax:
        source = port.node.in_port(0).get_source()
        b.graph.remove_node(port.node.id)
        port = source
    return port


def add_mo_name(final: Port, port: Port, node: str | None) -> None:
    """MO named the output tensor '<node>:0' (nnet1: the component type in lower case): the
    output gets that name too, when neither flag replaced the node's own port."""
    if node is not None and final is port:
        final.add_tensor_names([f"{node}:0"])
