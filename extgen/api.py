"""extgen's Python API: `convert_model` and `save_model`, as openvino's are called.

Options are the CLI's (MO's and ovc's names) as keywords, with the CLI's defaults (weights
compressed to FP16): each value goes through the same parsing as on the command line, so
`input_shape=[1, 3, 224, 224]` and `input_shape="[1,3,224,224]"` mean the same. Errors are the
CLI's one-line `ExtgenError`s.
"""

from __future__ import annotations

import argparse
import difflib
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from extgen.errors import UsageError

__all__ = ["IRModel", "convert_model", "save_model"]


class IRModel:
    """A converted model without openvino installed: the IR files, kept in a temporary folder
    until saved (`save_model(model, "out/m.xml")`, or `model.save(...)`)."""

    def __init__(self, xml: Path, folder: tempfile.TemporaryDirectory) -> None:
        self.xml, self.bin = xml, xml.with_suffix(".bin")
        self._folder = folder  # removed with this object

    def save(self, path: str | Path) -> Path:
        """Copy the IR to path (an .xml; its .bin beside it); the .xml's path."""
        xml = Path(path).with_suffix(".xml")
        xml.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.bin, xml.with_suffix(".bin"))
        shutil.copyfile(self.xml, xml)
        return xml


class _OptionParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"convert_model: {message}")


def _parser() -> argparse.ArgumentParser:
    from extgen.commands import convert

    parser = _OptionParser(prog="extgen.convert_model", add_help=False, allow_abbrev=False)
    convert.add_arguments(parser)
    return parser


def _text(value: Any) -> str:
    """A Python value as the command line spells it: [1,3,224,224], [1,3],[1,4], a,b,
    x[1,2,3],y[4,5,6]."""
    if isinstance(value, Mapping):
        return ",".join(f"{name}{_text(list(v))}" for name, v in value.items())
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, (list, tuple)) for v in value):
            return ",".join(_text(v) for v in value)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return "[" + ",".join(str(v) for v in value) + "]"
        return ",".join(str(v) for v in value)
    return str(value)


def _argv(parser: argparse.ArgumentParser, options: dict[str, Any]) -> list[str]:
    by_dest = {a.dest: a for a in parser._actions if a.option_strings}
    argv: list[str] = []
    for key, value in options.items():
        action = by_dest.get(key)
        if action is None:
            guess = difflib.get_close_matches(key, by_dest, n=1)
            hint = f"; did you mean {guess[0]}?" if guess else " (see `extgen convert --help`)"
            raise UsageError(f"convert_model: no option '{key}'{hint}")
        flag = next(o for o in action.option_strings if o.startswith("--"))
        if action.nargs == 0:  # an on/off flag: True adds it
            if not isinstance(value, bool):
                raise UsageError(f"convert_model: {key} takes True or False, not {value!r}")
            argv += [flag] * value
        elif value is not None:
            argv.append(f"{flag}={_text(value)}")
    return argv


def _torch_program(model: Any, example_input: Any, folder: Path) -> Path | None:
    """A torch.nn.Module (exported with torch.export.export on example_input) or a
    torch.export program, saved as folder/model.pt2; None for anything else (a file)."""
    torch = sys.modules.get("torch")  # a torch object means torch is imported
    if torch is None or isinstance(model, (str, Path)):
        return None
    if isinstance(model, torch.nn.Module):
        if example_input is None:
            raise UsageError("convert_model: a torch.nn.Module needs example_input (a tensor, "
                             "a tuple of them, or a dict of keyword tensors)")
        args, kwargs = ((), example_input) if isinstance(example_input, dict) else (
            (example_input,) if isinstance(example_input, torch.Tensor)
            else tuple(example_input), None)
        model = torch.export.export(model, args, kwargs)
    if not isinstance(model, torch.export.ExportedProgram):
        return None
    path = folder / "model.pt2"
    torch.export.save(model, str(path))
    return path


def convert_model(input_model: str | Path | Any, **options: Any) -> Any:
    """Convert a model to OpenVINO IR v11, as `extgen convert` does: an `openvino.Model` when
    openvino is installed (its custom ops given to OpenVINO from the `extensions`: Python ops
    of a folder, or a library built from the generated C++), else an IRModel that `save_model`
    writes. input_model is a model file, a torch.export program, or a torch.nn.Module with
    `example_input` (exported with torch.export.export, as ovc takes one)."""
    from converter.pipeline import convert
    from extgen.commands.convert import options_from_args

    parser = _parser()
    if "output_dir" in options or "output_model" in options:
        raise UsageError("convert_model: the model is returned; write it with save_model")
    folder = tempfile.TemporaryDirectory(prefix="extgen-model-")
    example_input = options.pop("example_input", None)
    input_model = _torch_program(input_model, example_input, Path(folder.name)) or input_model
    argv = ["--input_model", str(input_model), "--output_dir", folder.name,
            *_argv(parser, options)]
    opts = options_from_args(parser.parse_args(argv))
    xml = convert(opts).xml
    try:
        import numpy as np
        import openvino as ov
    except ImportError:
        return IRModel(xml, folder)
    from converter.runtime.engines import add_ov_extensions

    core = ov.Core()
    add_ov_extensions(core, opts.extensions)  # the model's custom ops, as `extgen run` adds them
    with folder:  # read into memory: the temporary files go now
        weights = ov.Tensor(np.fromfile(xml.with_suffix(".bin"), np.uint8))
        return core.read_model(xml.read_text(encoding="utf-8"), weights)


def save_model(model: Any, output_model: str | Path) -> Path:
    """Write what convert_model returned as IR (output_model.xml and .bin); the .xml's path.
    Weights are written as converted (FP16 unless convert_model had compress_to_fp16=False)."""
    if isinstance(model, IRModel):
        return model.save(output_model)
    try:
        import openvino as ov
    except ImportError:
        raise UsageError("save_model: model is not what convert_model returned") from None
    if not isinstance(model, ov.Model):
        raise UsageError("save_model: model is not what convert_model returned")
    xml = Path(output_model).with_suffix(".xml")
    xml.parent.mkdir(parents=True, exist_ok=True)
    ov.save_model(model, str(xml), compress_to_fp16=False)  # already as converted
    return xml
