"""MXNet weights from `.nd` files, as MO's --nd_prefix_name/--pretrained_model_name took them
(mo/front/mxnet/nd_to_params.py): arguments are the pretrained checkpoint's "arg:" arrays
(the model inputs aside) overridden by `<dir>/<prefix>_args.nd`; auxiliary states come from
`<dir>/<prefix>_auxs.nd` only (`<dir>`: the pretrained .params' folder). With
--save_params_from_nd the merged weights are written to `<symbol prefix>-<epoch>.params`."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from converter.errors import OutputError, UsageError
from converter.front.mxnet.params import load_params, read_ndarray_file, write_ndarray_file
from converter.options import ConvertOptions

__all__ = ["nd_weights", "uses_nd"]

_EPOCH = re.compile(r"-(\d+)$")


def uses_nd(opts: ConvertOptions) -> bool:
    return bool(opts.nd_prefix_name or opts.pretrained_model_name)


def _epoch(params: Path) -> int:
    match = _EPOCH.search(params.stem)
    if match is None:
        msg = (f"--pretrained_model_name {params}: expected <prefix>-<epoch>.params "
               "(e.g. ssd-0000.params)")
        raise UsageError(msg)
    return int(match[1])


def nd_weights(opts: ConvertOptions) -> tuple[Path, dict[str, np.ndarray],
                                              dict[str, np.ndarray]]:
    """(symbol file, arguments, auxiliary states) of a model whose weights are in .nd files."""
    if not (opts.nd_prefix_name and opts.pretrained_model_name and opts.input_symbol):
        msg = ("--nd_prefix_name, --pretrained_model_name and --input_symbol go together "
               "(as in MO): give all three, or none")
        raise UsageError(msg)
    pretrained = Path(opts.pretrained_model_name)
    epoch = _epoch(pretrained)
    folder = pretrained.parent
    inputs = {s.name for s in opts.inputs or [] if s.name} or {"data"}
    args = {k: v for k, v in load_params(pretrained)[0].items() if k not in inputs}
    args.update(read_ndarray_file(folder / f"{opts.nd_prefix_name}_args.nd"))
    aux = read_ndarray_file(folder / f"{opts.nd_prefix_name}_auxs.nd")
    symbol = Path(opts.input_symbol)
    if opts.save_params_from_nd:
        prefix = str(symbol).rsplit("-", 1)[0]
        target = Path(f"{prefix}-{epoch:04}.params")
        arrays = {**{f"arg:{k}": v for k, v in args.items()},
                  **{f"aux:{k}": v for k, v in aux.items()}}
        try:
            write_ndarray_file(target, arrays)
        except OSError as err:
            msg = f"--save_params_from_nd: cannot write {target} ({err.strerror})"
            raise OutputError(msg) from None
    return symbol, args, aux
