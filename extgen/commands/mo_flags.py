"""Model Optimizer / ovc flags of `extgen convert` beyond the basic ones, with MO's meaning, and
the argparse types they need (kept here so convert.py stays a short list)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

__all__ = [
    "add_framework_flags", "add_mo_flags", "boolean", "framework_flag_options", "mo_options",
    "model_and_output",
]

_SEPARATORS = ("/", os.sep, *([os.altsep] if os.altsep else []))  # a trailing one: a folder
_TRUE = ("true", "t", "yes", "y", "1", "on")
_FALSE = ("false", "f", "no", "n", "0", "off")


def boolean(text: str | bool) -> bool:
    """MO's boolean flag values: True/False in any case, also yes/no, y/n, 1/0, on/off."""
    if isinstance(text, bool):
        return text
    word = text.strip().lower()
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    msg = f"expected True or False, got '{text}'"
    raise argparse.ArgumentTypeError(msg)


def _bool_flag(p: argparse._ActionsContainer, name: str, default: bool | None,
               help: str) -> None:
    """`--name`, `--name=False`, `--name False`: MO's nargs='?' boolean."""
    p.add_argument(name, type=boolean, nargs="?", const=True, default=default, metavar="BOOL",
                   help=f"{help} (default: {bool(default)})")


def _existing(kind: str):
    """An argparse type: a path that must exist (MO checked named files before converting)."""
    def check(text: str) -> Path:
        path = Path(text)
        if not path.exists():
            msg = f"{text}: no such {kind}"
            raise argparse.ArgumentTypeError(msg)
        return path
    return check


def add_mo_flags(p: argparse.ArgumentParser) -> None:
    """MO's common flags that shape the IR beyond inputs and preprocessing, and ovc's."""
    _bool_flag(p, "--compress_to_fp16", True,
               "store float32 weights as float16, decompressed to f32 at load, as MO 2023 and "
               "ovc do; --compress_to_fp16=False keeps them float32")
    p.add_argument("--scale", "-s", type=float, metavar="VALUE",
                   help="divide every original input by VALUE (not with --scale_values)")
    p.add_argument("--batch", "-b", type=int, metavar="N",
                   help="batch size of every input: its N dimension (from --layout) or its "
                   "first (not with --input_shape)")
    p.add_argument("--layout", metavar="LAYOUTS",
                   help="input/output layouts: nchw, [n,c,h,w], name(nchw); name(nhwc->nchw) "
                   "gives the IR input the target layout through a Transpose")
    p.add_argument("--source_layout", metavar="LAYOUTS",
                   help="layouts of inputs/outputs in the framework model (like --layout)")
    p.add_argument("--target_layout", metavar="LAYOUTS",
                   help="layouts the IR's inputs/outputs get (a Transpose is inserted)")
    p.add_argument("--static_shape", action="store_true",
                   help="fold shape sub-graphs into constants (extgen always does so where "
                   "input shapes are static)")
    p.add_argument("--transform", metavar="NAMES",
                   help="OpenVINO transformations MO ran, comma-separated: "
                   "\"MakeStateful[param_res_names={'in':'out'}]\" turns each named input and "
                   "output pair into a variable (ReadValue/Assign, zeros at first) carried across "
                   "inferences; Pruning drops Convolution output channels whose weights and "
                   "bias are all zero (with the next Convolution's inputs; outputs unchanged); "
                   "LowLatency2[use_const_initializer=False] (only models without "
                   "TensorIterator/Loop: nothing to do)")
    p.add_argument("--freeze_placeholder_with_value", metavar="NAME->VALUE",
                   help="replace inputs by constants, e.g. is_training->False (MO's older "
                   "spelling of --input name->value)")
    p.add_argument("--output_model", metavar="FILE.xml|DIR/",
                   help="ovc: the IR's .xml path (instead of --output_dir/--model_name); a "
                   "folder (one that exists, or a path ending in /) gets <model name>.xml, "
                   "as ovc writes it, and is created when missing")
    _bool_flag(p, "--silent", False, "print nothing but errors")
    p.add_argument("--progress", action="store_true",
                   help="show conversion progress as lines on stdout")
    p.add_argument("--stream_output", action="store_true",
                   help="with --progress, print a new line per step (MO's multiline mode)")
    p.add_argument("--verbose", action="store_true", help="ovc: detailed log (--log_level INFO)")


def add_framework_flags(fw: argparse._ArgumentGroup) -> None:
    """MO's TensorFlow, Caffe and MXNet flags that extgen adds to its framework group."""
    fw.add_argument("--input_model_is_text", action="store_true", default=None,
                    help="TensorFlow: the model is a text GraphDef whatever its extension")
    fw.add_argument("--mean_file", type=_existing("mean file"), metavar="FILE.binaryproto",
                    help="Caffe: a mean image subtracted from the input (cropped at its centre)")
    fw.add_argument("--disable_omitting_optional", action="store_true", default=None,
                    help="Caffe: -k layers get every optional parameter, set or not")
    fw.add_argument("--enable_flattening_nested_params", action="store_true", default=None,
                    help="Caffe: -k layers name nested parameters outer__inner")
    fw.add_argument("--legacy_mxnet_model", action="store_true", default=None,
                    help="MXNet: a model from MXNet < 1.0 (extgen reads those with or without it)")
    fw.add_argument("--nd_prefix_name", metavar="PREFIX",
                    help="MXNet: weights from <PREFIX>_args.nd and <PREFIX>_auxs.nd (beside "
                    "--pretrained_model_name), over the checkpoint's; with "
                    "--pretrained_model_name and --input_symbol, no --input_model needed")
    fw.add_argument("--pretrained_model_name", type=Path, metavar="PREFIX-EPOCH.params",
                    help="MXNet: the checkpoint the .nd files complete (its 'arg:' weights "
                    "are kept where the .nd files have none; its 'aux:' ones are not)")
    fw.add_argument("--save_params_from_nd", action="store_true", default=None,
                    help="MXNet: also write the merged weights as <symbol prefix>-<EPOCH>.params "
                    "(overwriting a file of that name), for later conversions without .nd files")
    fw.add_argument("--enable_ssd_gluoncv", action="store_true", default=None,
                    help="MXNet: a GluonCV SSD export (box decoders and _contrib_box_nms at "
                    "its end) becomes one DetectionOutput over its class scores, box offsets "
                    "and anchors, the only output (as MO did)")


def model_and_output(args: argparse.Namespace) -> tuple[Path, Path, str | None]:
    """(model, output_dir, model_name) from MO's and ovc's spellings."""
    from converter.errors import UsageError

    forms = (args.model, args.input_model, getattr(args, "saved_model_dir", None),
             getattr(args, "input_meta_graph", None))
    given = [m for m in forms if m is not None]
    if not given and getattr(args, "pretrained_model_name", None) is not None:
        given = [args.input_symbol or args.pretrained_model_name]  # MO: .nd weights need no model
    if not given or (len(given) == 2 and given[0] != given[1]) or len(given) > 2:
        msg = ("give the model once: extgen convert MODEL, --input_model, --saved_model_dir or "
               "--input_meta_graph" if given else
               "no model given: extgen convert MODEL (or --input_model MODEL)")
        raise UsageError(msg)
    if args.output_model is None:
        return given[0], args.output_dir, args.model_name
    if args.model_name or args.output_dir != Path("."):
        msg = "--output_model names the IR file itself; drop --output_dir/--model_name"
        raise UsageError(msg)
    out = args.output_model
    if out.endswith(_SEPARATORS) or Path(out).is_dir():  # ovc: a folder, <model stem>.xml in it
        return given[0], Path(out), None
    path = Path(out)
    return given[0], path.parent, path.stem if path.suffix == ".xml" else path.name


def mo_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ConvertOptions fields these flags set."""
    from converter.errors import UsageError
    from converter.options import parse_freeze, parse_layouts, parse_transforms

    for a, b in (("scale", "scale_values"), ("batch", "input_shape")):
        if getattr(args, a) is not None and getattr(args, b):
            msg = f"both --{a} and --{b} are given; give one of them (as MO required)"
            raise UsageError(msg)
    layouts = []
    for flag in ("layout", "source_layout", "target_layout"):
        if getattr(args, flag):
            layouts += parse_layouts(f"--{flag}", getattr(args, flag))
    return {
        "compress_to_fp16": args.compress_to_fp16, "scale": args.scale, "batch": args.batch,
        "layouts": layouts, "static_shape": args.static_shape,
        "transforms": parse_transforms(args.transform) if args.transform else [],
        "freeze": (parse_freeze(args.freeze_placeholder_with_value)
                   if args.freeze_placeholder_with_value else []),
    }


def framework_flag_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ConvertOptions fields of add_framework_flags' flags."""
    return {
        "input_model_is_text": args.input_model_is_text, "mean_file": args.mean_file,
        "disable_omitting_optional": args.disable_omitting_optional,
        "enable_flattening_nested_params": args.enable_flattening_nested_params,
        "legacy_mxnet_model": args.legacy_mxnet_model,
        "nd_prefix_name": args.nd_prefix_name,
        "pretrained_model_name": args.pretrained_model_name,
        "save_params_from_nd": args.save_params_from_nd,
        "enable_ssd_gluoncv": args.enable_ssd_gluoncv,
    }
