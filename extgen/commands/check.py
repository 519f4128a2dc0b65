"""`extgen check`: which ops of a model the converter cannot handle, and a ready config for each."""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path
from typing import Any

from converter.framework_names import FRAMEWORKS
from extgen.commands.convert import add_framework_group, framework_options, input_options

HELP = "list the ops a model holds that the converter cannot handle, and write configs for them"
DESCRIPTION = """\
Load models (with your --extensions) and list every op type nothing handles: its nodes,
input/output counts and the attributes seen on them, merged over all models. A PyTorch file
(.pt2 from torch.export.save, .pt/.pth from TorchScript) lists its torch.library custom ops,
for the generated extensions to map in extgen convert, ovc and openvino.convert_model, and
with torch installed (and a TorchScript file's --input_shape) the ATen ops extgen lacks. For
each, write a
ready `extgen new --config` file (<output_dir>/<op>.extgen.json) that scaffolds all targets.
Exit status: 0 when every op is supported, 1 when some need an extension, 2 on bad input."""
EPILOG = """\
examples:
  extgen check model.onnx
  extgen check models/ other.pb --extensions user_mo_extensions --output_dir configs/
  extgen check deploy.caffemodel --input_proto deploy.prototxt
  extgen check model.pt2        # torch.library custom ops of a torch.export program
  extgen check model.onnx || extgen new --config my_op.extgen.json --output_dir my_op_ext"""
# model files a folder argument contributes (companions such as .prototxt and -symbol.json are
# found from these)
_MODEL_SUFFIXES = (".onnx", ".pb", ".pbtxt", ".caffemodel", ".params", ".pt", ".pt2")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("models", type=Path, nargs="+", metavar="MODEL",
                   help="model files, or folders holding them (one merged report)")
    p.add_argument("--framework", choices=list(FRAMEWORKS),
                   help="framework of the models; guessed from each file's extension when omitted")
    p.add_argument("--extensions", metavar="DIR|LIB.so[,...]", default="",
                   help="extension folders (or CPU libraries, for ONNX models) whose ops "
                   "count as handled")
    p.add_argument("--output_dir", type=Path, default=Path("."), metavar="DIR",
                   help="where the <op>.extgen.json configs go (default: current folder)")
    p.add_argument("--force", action="store_true",
                   help="overwrite configs that exist with other content")
    p.add_argument("--input_shape", metavar="SHAPE", help="as in extgen convert")
    p.add_argument("--input", metavar="INPUTS", help="as in extgen convert")
    add_framework_group(p)


def _model_files(paths: list[Path]) -> list[Path]:
    """The models given, a folder standing for the model files in it (sorted, recursively)."""
    out = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix.lower() in _MODEL_SUFFIXES)
            if not found:
                from converter.errors import InputFileError

                msg = f"{path}: no model files in this folder ({', '.join(_MODEL_SUFFIXES)})"
                raise InputFileError(msg)
            out += found
        else:
            out.append(path)
    return out


def _options(args: argparse.Namespace) -> dict:
    return {**input_options(args), **framework_options(args)}


def _merged(args: argparse.Namespace, models: list[Path]) -> list:
    """The unknown ops of every model, one entry per op type; a line per model says its count."""
    from extgen.model_ops import find_unknown_ops
    from extgen.torch_ops import TORCH_SUFFIXES, find_torch_custom_ops

    extensions = [Path(p) for p in args.extensions.split(",") if p.strip()]
    options = _options(args)
    merged: dict[tuple[str, str], Any] = {}
    for model in models:
        if model.suffix in TORCH_SUFFIXES and not _converter_reads(model, args):
            # without torch, or TorchScript without shapes: the custom ops, read from the file
            unknown = find_torch_custom_ops(model)
            if not unknown:
                print(f"{model}: no custom ops (torch.library): ovc and "
                      "openvino.convert_model convert it as it is")
                continue
        else:
            unknown = find_unknown_ops(model, args.framework, extensions, **options)
        if not unknown and len(models) == 1:
            print(f"{model}: every op is supported; convert it with "
                  f"{_convert_command(args, model)}")
        elif not unknown:
            print(f"{model}: every op is supported")
        else:
            print(f"{model}: {len(unknown)} op type(s) need an extension")
        for op in unknown:
            if len(models) > 1:  # which model each node is in
                op.nodes = [f"{model.name}:{n}" for n in op.nodes]
            have = merged.setdefault((op.framework, op.op_type), op)
            if have is not op:
                have.nodes += op.nodes
                have.inputs, have.outputs = max(have.inputs, op.inputs), max(have.outputs,
                                                                             op.outputs)
                for key, value in op.attributes.items():
                    have.attributes.setdefault(key, value)
    return sorted(merged.values(), key=lambda u: (u.op_type, u.framework))


def _converter_reads(model: Path, args: argparse.Namespace) -> bool:
    """Whether the converter can read a PyTorch file here (torch installed; TorchScript with
    its input shapes given), so that check lists the ATen ops it lacks too."""
    from importlib.util import find_spec

    shaped = model.suffix == ".pt2" or bool(args.input_shape or args.input)
    return shaped and find_spec("torch") is not None


def _convert_command(args: argparse.Namespace, model: Path) -> str:
    """The `extgen convert` command for model, with the flags given to check that convert takes
    too (not --output_dir: check's own, where the configs go)."""
    from extgen.commands import convert

    words = ["extgen", "convert", "--input_model", str(model)]
    parser = argparse.ArgumentParser(add_help=False)
    convert.add_arguments(parser)
    for action in parser._actions:
        flag = next((o for o in action.option_strings if o.startswith("--")), None)
        value = getattr(args, action.dest, None)
        if flag in (None, "--output_dir") or value is None or value is False \
                or value == action.default:
            continue
        if action.nargs == 0:
            words.append(flag)
        elif action.nargs == "?":
            words.append(f"{flag}={value}")
        else:
            words += [flag, str(value)]
    return " ".join(shlex.quote(w) for w in words)


def _refusal(config: dict) -> str | None:
    """Why `extgen new` would refuse config (an op type no extension can declare: empty, or
    with a path in it), or None."""
    from extgen.errors import ConfigError
    from extgen.generator.generate import validate_config

    try:
        validate_config(config, "config")
    except ConfigError as err:
        return str(err).removeprefix("config: ")
    return None


def run(args: argparse.Namespace) -> int:
    from extgen.generator.config import snake_case
    from extgen.generator.generate import FileReport, write_reports
    from extgen.generator.generate import status as file_status
    from extgen.model_ops import config_for

    models = _model_files(args.models)
    unknown = _merged(args, models)
    if not unknown:
        return 0
    if len(models) > 1:
        print(f"{len(models)} models: {len(unknown)} op type(s) need an extension")
    reports: list[FileReport] = []
    taken: set[str] = set()  # one config file (and op name) per op type, across domains
    for op in unknown:
        names = ", ".join(op.nodes[:5]) + (", ..." if len(op.nodes) > 5 else "")
        print(f"- {op.op_type}: {len(op.nodes)} node(s) ({names}); "
              f"{op.inputs} input(s), {op.outputs} output(s)")
        if op.standard:
            print(f"    {op.standard} is not supported yet (a standard op extgen lacks); "
                  "its config scaffolds a custom extension, a workaround until it is")
        for key, value in op.attributes.items():
            shown = value.tolist() if hasattr(value, "tolist") else value
            print(f"    {key}: {type(value).__name__} = {shown!r}")
        config = config_for(op, taken)
        problem = _refusal(config)
        if problem:
            print(f"    no config written: `extgen new` would refuse it ({problem})")
            continue
        snake = snake_case(config["ops"][0]["name"])
        content = json.dumps(config, indent=2) + "\n"
        reports.append(file_status(args.output_dir / f"{snake}.extgen.json", content))
    write_reports(reports, args.output_dir, force=args.force)
    for report in reports:
        print(f"{report.status:10} {report.path}  (then: extgen new --config {report.path})")
    return 1  # so that scripts can test whether a model needs extensions
