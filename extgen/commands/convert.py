"""`extgen convert`: a model (ONNX today) to OpenVINO IR v11, with Model Optimizer's flags."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from converter.framework_names import FRAMEWORKS
from extgen.commands.mo_flags import (
    add_framework_flags,
    add_mo_flags,
    framework_flag_options,
    mo_options,
    model_and_output,
)
from extgen.errors import OutputError

HELP = "convert a model to OpenVINO IR v11 (.xml + .bin)"
DESCRIPTION = """\
Convert a model to OpenVINO IR v11. The pipeline follows the Model Optimizer: load, extract
(your --extensions first), front transforms, shape inference with constant folding, middle and
back transforms, emit. Ops it cannot handle are listed in one error with the `extgen new`
command that scaffolds them."""
EPILOG = (
    "examples:\n"
    "  extgen convert --input_model model.onnx --output_dir ir/\n"
    "  extgen convert --input_model model.onnx --input_shape [1,3,224,224]"
    " --mean_values [123.7,116.3,103.5] \\\n"
    "      --scale_values [58.4,57.1,57.4] --reverse_input_channels --compress_to_fp16=False\n"
    "  extgen convert --input_model model.onnx --extensions user_mo_extensions --output_dir ir/\n"
    "  extgen convert model.onnx --output_model ir/model.xml   # as ovc takes it"
)


def _add_model_arguments(p: argparse.ArgumentParser) -> None:
    """The model: a file (positional, as ovc takes it, or --input_model), or the TF forms MO
    named with their own flags; model_and_output checks that exactly one is given."""
    p.add_argument("model", nargs="?", type=Path, metavar="MODEL",
                   help="the model file, as ovc takes it (or --input_model)")
    model = p.add_mutually_exclusive_group()
    model.add_argument("--input_model", "-m", "-w", type=Path, metavar="FILE",
                       help="the model file (.onnx; .pb/.pbtxt/.meta/.keras or a SavedModel "
                       "folder; .caffemodel; .params)")
    model.add_argument("--saved_model_dir", type=Path, metavar="DIR",
                       help="TensorFlow: a SavedModel folder (saved_model.pb, variables/)")
    model.add_argument("--input_meta_graph", type=Path, metavar="FILE.meta",
                       help="TensorFlow: a MetaGraphDef; its variables come from "
                       "--input_checkpoint (default: the .meta's name without .meta)")


def _add_tf_arguments(fw: argparse._ArgumentGroup) -> None:
    fw.add_argument("--tensorflow_custom_operations_config_update", type=Path,
                    metavar="FILE.json",
                    help="TensorFlow: fill in a transformations config from the model and "
                    "rewrite it (as MO did): each 'scope' description without inputs/outputs "
                    "gets the tensors entering and leaving its scope, as {node, port} patterns "
                    "relative to it; then pass the file with --transformations_config")
    fw.add_argument("--saved_model_tags", metavar="TAG[,TAG...]",
                    help="TensorFlow: the tags of the SavedModel's meta graph (default: serve)")
    fw.add_argument("--input_checkpoint", type=Path, metavar="PREFIX",
                    help="TensorFlow: the checkpoint holding the variables (the prefix of its "
                    ".index and .data files)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    _add_model_arguments(p)
    p.add_argument("--framework", choices=list(FRAMEWORKS),
                   help="framework of the model; guessed from the file extension when omitted")
    p.add_argument("--output_dir", "-o", type=Path, default=Path("."), metavar="DIR",
                   help="where to write <model_name>.xml/.bin (default: current folder)")
    p.add_argument("--model_name", "-n", metavar="NAME",
                   help="name of the IR files and the network (default: the model file's stem)")
    p.add_argument("--extensions", metavar="DIR|LIB.so[,...]", default="",
                   help="folders of extensions (ops/, front/, front/<framework>/, middle/, back/); "
                   "later folders override earlier ones for the same op. A CPU library built "
                   "from `extgen new --ie-cpu-ext` (as ovc --extension takes it): ONNX nodes of "
                   "its op types convert with their attributes as named in the model and the "
                   "library's shape inference (static input shapes)")
    p.add_argument("--input_shape", metavar="SHAPE",
                   help="input shapes in framework layout, e.g. [1,3,224,224] or "
                   "[1,3,224,224],[1,10]; -1 or ? for a dynamic dimension")
    p.add_argument("--input", metavar="INPUTS",
                   help="comma-separated inputs name[shape]{type}->value, e.g. "
                   "data[1,3,224,224]{f32}; an inner tensor name cuts the model there; "
                   "->value freezes it; shapes alone ([1,3,224,224],[1,10], as ovc takes "
                   "them) are for the model's inputs in order")
    p.add_argument("--output", metavar="NAMES",
                   help="comma-separated output tensor names; the model is cut after them")
    p.add_argument("--mean_values", metavar="VALUES",
                   help="per-channel means subtracted from inputs: [123.7,116.3,103.5] "
                   "or data[...]")
    p.add_argument("--scale_values", metavar="VALUES",
                   help="per-channel scales inputs are divided by (after the mean): "
                   "[58.4,57.1,57.4]")
    p.add_argument("--reverse_input_channels", action="store_true",
                   help="swap RGB<->BGR on 3-channel inputs (before mean/scale)")
    add_mo_flags(p)
    add_framework_group(p)


def add_framework_group(p: argparse.ArgumentParser) -> None:
    """The framework-specific flags (`extgen check` takes them too)."""
    fw = p.add_argument_group("framework-specific")
    fw.add_argument("--input_proto", "-d", type=Path, metavar="FILE.prototxt",
                    help="Caffe: the network .prototxt "
                    "(default: the model's name with .prototxt)")
    fw.add_argument("--caffe_parser_path", type=Path, metavar="PATH",
                    help="Caffe: your own caffe.proto (or its folder) "
                    "for layers with new parameters")
    fw.add_argument("-k", "--custom_layers_mapping", "--k", type=Path, metavar="FILE.xml",
                    help="Caffe: CustomLayersMapping.xml (NativeType, hasParam, protoParamName)")
    fw.add_argument("--transformations_config", type=Path, metavar="FILE.json",
                    help="TensorFlow: sub-graph replacement descriptions (scope, points, general)")
    _add_tf_arguments(fw)
    fw.add_argument("--input_symbol", type=Path, metavar="FILE-symbol.json",
                    help="MXNet: the symbol file (default: derived from the .params name)")
    add_framework_flags(fw)
    kaldi = p.add_argument_group("Kaldi")
    kaldi.add_argument("--counts", metavar="FILE",
                       help='Kaldi: class counts (one line); their log-priors are subtracted '
                       'from the output, as MO did; "" takes the <Priors> stored in an '
                       'nnet3 .mdl')
    kaldi.add_argument("--remove_output_softmax", action="store_true", default=None,
                       help="Kaldi: drop the Softmax that makes the output (a LogSoftmax stays, "
                       "as in MO)")
    kaldi.add_argument("--remove_memory", action="store_true", default=None,
                       help="Kaldi: recurrent state (frame delays, LSTM cells) as extra inputs "
                       "and outputs instead of ReadValue/Assign, laid out as MO did: feed each "
                       "output Result_for_<var>/strided_slice back into every input "
                       "Parameter_<i>_for_<var>, starting from zeros")


def options_from_args(args: argparse.Namespace):
    """ConvertOptions from the parsed flags (converter imports stay out of `extgen --help`)."""
    from converter.options import ConvertOptions, parse_per_input_values

    model, output_dir, model_name = model_and_output(args)
    return ConvertOptions(
        input_model=model,
        saved_model_dir=args.saved_model_dir,
        input_meta_graph=args.input_meta_graph,
        framework=args.framework,
        output_dir=output_dir,
        model_name=model_name,
        extensions=[Path(p) for p in args.extensions.split(",") if p.strip()],
        **input_options(args),
        outputs=[n.strip() for n in args.output.split(",") if n.strip()] if args.output else None,
        mean_values=(parse_per_input_values("--mean_values", args.mean_values)
                     if args.mean_values else {}),
        scale_values=(parse_per_input_values("--scale_values", args.scale_values)
                      if args.scale_values else {}),
        reverse_input_channels=args.reverse_input_channels,
        **framework_options(args),
        **mo_options(args),
    )


def input_options(args: argparse.Namespace) -> dict:
    """The ConvertOptions fields of --input_shape and --input (`extgen check` takes them too)."""
    from converter.options import parse_input, parse_input_shape, parse_input_shape_bounds

    return {
        "input_shape": parse_input_shape(args.input_shape) if args.input_shape else None,
        "input_shape_bounds": (parse_input_shape_bounds(args.input_shape)
                               if args.input_shape else None),
        "inputs": parse_input(args.input) if args.input else None,
    }


def framework_options(args: argparse.Namespace) -> dict:
    """The ConvertOptions fields of add_framework_group's flags."""
    return {
        "input_proto": args.input_proto,
        "caffe_parser_path": args.caffe_parser_path,
        "custom_layers_mapping": args.custom_layers_mapping,
        "transformations_config": args.transformations_config,
        "tensorflow_custom_operations_config_update":
            args.tensorflow_custom_operations_config_update,
        "input_symbol": args.input_symbol,
        "counts": args.counts,
        "remove_output_softmax": args.remove_output_softmax,
        "remove_memory": args.remove_memory,
        "saved_model_tags": ([t.strip() for t in args.saved_model_tags.split(",") if t.strip()]
                             if args.saved_model_tags else None),
        "input_checkpoint": args.input_checkpoint,
        **framework_flag_options(args),
    }


def check_output_dir(path: Path, flag: str = "--output_dir") -> None:
    """Fail before any work when the output folder cannot be created or written."""
    probe = path.resolve()
    while not probe.exists():
        probe = probe.parent
    try:
        if not probe.is_dir():
            raise NotADirectoryError(f"{probe} is a file")
        os.rmdir(tempfile.mkdtemp(prefix=".extgen-probe-", dir=probe))
    except OSError as err:
        msg = f"{flag} {path}: cannot write there ({err}); choose a writable folder"
        raise OutputError(msg) from err


def run(args: argparse.Namespace) -> int:
    from converter.pipeline import PHASES, convert
    from converter.system import peak_rss_mib
    from extgen.progress import phases

    opts = options_from_args(args)
    check_output_dir(opts.output_dir, "--output_model" if args.output_model else "--output_dir")
    mode = ("stream" if args.stream_output else "line") if args.progress else None
    with phases("Converting", PHASES, mode) as step:
        result = convert(opts, step)
    peak_mb = peak_rss_mib()
    if args.silent:
        return 0
    out = sys.stdout
    out.write("[ SUCCESS ] Generated IR version 11 model.\n")
    out.write(f"[ SUCCESS ] XML file: {result.xml.resolve()}\n")
    out.write(f"[ SUCCESS ] BIN file: {result.bin.resolve()}\n")
    if result.fp16 and result.fp16[0]:
        compressed, kept = result.fp16
        also = f"; {kept} that FP16 cannot hold kept FP32" if kept else ""
        out.write(f"[ SUCCESS ] Weights stored as FP16: {compressed} constant(s){also} "
                  "(--compress_to_fp16=False keeps all FP32).\n")
    out.write(f"[ SUCCESS ] Total execution time: {result.seconds:.2f} seconds.\n")
    out.write(f"[ SUCCESS ] Memory consumed: {peak_mb:.0f} MB.\n")
    return 0
