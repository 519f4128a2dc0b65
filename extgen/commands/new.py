"""`extgen new`: scaffold MO extensions and CPU/GPU/VPU kernels for a custom op."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from converter.runtime.opencl.contract import output_limit, rank_limit
from extgen.errors import ConfigError, ExtgenError, OutputError
from extgen.generator.targets import TARGETS

if TYPE_CHECKING:
    from extgen.generator.config import OpConfig

HELP = "generate Model Optimizer extensions and CPU/GPU/VPU kernels for a custom op"
DESCRIPTION = """\
Generate everything a custom op needs, from one description: converter extensions
(user_mo_extensions/: extractors for Caffe, TensorFlow, MXNet, ONNX and the op class) and kernels
(user_ie_extensions/: CPU C++ on the OpenVINO API 2.0, GPU and VPU OpenCL with their XML).
The VPU target is legacy: OpenVINO loads VPU kernels only up to 2022.3 (the MYRIAD plugin,
removed after it); extgen run's OpenCL shim runs them on any machine.
Without --config it asks questions (on a terminal; Ctrl-C stops with nothing written); with
--config FILE.json it asks nothing. Existing files with other content are never overwritten:
after a config change, `extgen update` regenerates keeping your edits; --force discards them.

Silent mode, as the original extgen had it: `extgen FILE.json` is `extgen new --config
FILE.json` into the current folder. Such a file may use the original extgen's keys (mo_op,
ie_op, mo_tf_extractor, mo_caffe_extractor, mo_mxnet_extractor) and values as it wrote them:
defaults as strings ("1.0"), types by their original names (int, float, bool, string, listint,
listfloat). A "$schema" key (pointing at `extgen schema` output) is ignored."""
EPILOG = """\
examples:
  extgen new --mo-tf-ext --mo-op --ie-cpu-ext --ie-gpu-ext --output_dir cosh_ext
  extgen new --config cosh.json --output_dir cosh_ext
  extgen cosh.json                               # silent mode: the same into the current folder
  extgen schema > extgen-config.schema.json      # for editor completion of config files"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    for target, spec in TARGETS.items():
        p.add_argument(f"--{target}", action="append_const", const=target, dest="targets",
                       help=spec.help)
    p.add_argument("--output_dir", type=Path, default=Path("."), metavar="DIR",
                   help="where user_mo_extensions/ and user_ie_extensions/ go "
                   "(default: current folder)")
    p.add_argument("--config", type=Path, metavar="FILE.json",
                   help="read the op description from this file instead of asking")
    p.add_argument("--force", action="store_true",
                   help="overwrite files that exist with other content, discarding your edits "
                   "(extgen update keeps them)")
    p.add_argument("--from-model", dest="from_model", type=Path, metavar="MODEL",
                   help="pre-fill the questions from an op of this model (with --op)")
    p.add_argument("--op", metavar="TYPE", help="the op type to pre-fill from --from-model")
    p.add_argument("--template-dir", dest="template_dir", type=Path, metavar="DIR",
                   help="render your own cookiecutter template per op (with op_name, op_snake, "
                   "attributes, expression, ... as its context) instead of the built-in targets")


def _prefill(model: Path | None, op_type: str | None) -> dict:
    """Answers taken from the model's unknown op op_type (extgen check's view of it)."""
    from extgen.model_ops import config_for, find_unknown_ops

    if model is None or op_type is None:
        msg = "--from-model and --op go together: extgen new --from-model model.onnx --op MyOp"
        raise ConfigError(msg)
    unknown = {u.op_type: u for u in find_unknown_ops(model)}
    if op_type not in unknown:
        listed = ", ".join(unknown) or "none"
        msg = f"--op {op_type}: {model} has no unsupported op of that type (unsupported: {listed})"
        raise ConfigError(msg)
    config = config_for(unknown[op_type])
    op = config["ops"][0]
    return {
        "targets": config["targets"], "name": op["name"], "framework_types": op["framework_types"],
        "inputs": [p["name"] for p in op["inputs"]], "outputs": [p["name"] for p in op["outputs"]],
        "attributes": op["attributes"],
    }


def _keep(extra: dict[Path, str]) -> Path:
    """Save interactive answers that could not be generated (files in the way) as a config in
    the current folder, under a name not taken; the user replays it with --config."""
    ((replay, text),) = extra.items()
    path, n = Path(replay.name), 1
    while path.exists() and path.read_text() != text:
        n += 1
        path = Path(f"{replay.name.removesuffix('.extgen.json')}-{n}.extgen.json")
    path.write_text(text)
    return path


def run(args: argparse.Namespace) -> int:
    from extgen.generator.generate import TEMPLATES, FilesExist, generate, load_config
    from extgen.generator.update import record_base, update_command

    if args.template_dir is None and not TEMPLATES.is_dir():  # before any question is asked
        msg = f"extgen's templates are missing ({TEMPLATES}): reinstall extgen"
        raise ConfigError(msg)
    extra = {}
    if args.config is None:
        from extgen.generator.interactive import ask_config

        prefill = _prefill(args.from_model, args.op) if args.from_model or args.op else {}
        targets = args.targets or prefill.pop("targets", [])
        config = ask_config(targets, args.output_dir, prefill)
        replay = args.output_dir / f"{config.ops[0].snake}.extgen.json"
        extra[replay] = config.model_dump_json(indent=2, exclude_defaults=True) + "\n"
    else:
        config = load_config(args.config)
    if args.targets:
        config = config.model_copy(update={"targets": list(dict.fromkeys(args.targets))})
    if args.template_dir is not None:
        from extgen.generator.user_templates import render_user_templates

        folders = render_user_templates(args.template_dir, config, args.output_dir,
                                        force=args.force)
        for folder in folders:
            print(f"create     {folder}")
        return 0
    if not config.targets:
        msg = f"nothing to generate: pass one or more of {' '.join('--' + t for t in TARGETS)}"
        raise ConfigError(msg)
    try:
        reports = generate(config, args.output_dir, force=args.force, extra_files=extra)
    except FilesExist as err:  # edited files: update merges into them, --force discards them
        source = args.config or _keep(extra)
        kept = "" if args.config else f"; your answers are kept in {source}"
        how = update_command(source, args.output_dir, args.targets)
        msg = (f"{err.what}; nothing was written{kept}: `{how}` regenerates them keeping your "
               "edits (--force discards your edits)")
        raise OutputError(msg) from None
    except ExtgenError as err:
        if not extra:
            raise
        msg = (f"{err}; your answers are kept: extgen new --config {_keep(extra)} "
               f"--output_dir {args.output_dir} replays them")
        raise type(err)(msg) from err
    record_base(config, args.output_dir, [r for r in reports if r.path not in extra])
    for report in reports:
        print(f"{report.status:10} {report.path}")
    for op in config.ops:
        for warning in _plugin_limits(op, config.targets):
            print(f"warning: {op.name}: {warning}")
    ops = ", ".join(op.name for op in config.ops)
    print(f"generated {', '.join(config.targets)} for {ops} in {args.output_dir}")
    return 0


def _plugin_limits(op: OpConfig, targets: list[str]) -> list[str]:
    """What OpenVINO's plugins cannot run of what was generated for op (the shim refuses it too)."""
    found = []
    for target, device in (("ie-gpu-ext", "gpu"), ("ie-vpu-ext", "vpu")):
        if target not in targets:
            continue
        if why := output_limit(device, len(op.outputs)):
            found.append(f"{why}: its {device.upper()} kernel cannot run there")
        rule = op.shape  # a formula knows its input's rank (names) and its output's (dims)
        if rule.kind == "formula" and (why := rank_limit(device, len(rule.names),
                                                         len(rule.dims))):
            found.append(why)
    return found
