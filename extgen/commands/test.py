"""`extgen test DIR`: check every target of every op in a generated extension folder against
the Python op (see extgen.target_check)."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "check every built target of the ops in an extension folder against the Python op"
DESCRIPTION = (
    "For every op in DIR/user_mo_extensions/ops (what `extgen new` wrote), run each target that\n"
    "is there and built: the CPU kernel through the extgen C ABI (the first\n"
    "libuser_cpu_extension_abi.so under DIR, else in build/ beside DIR, where the tutorial\n"
    "builds it; or --cpu_library), OpenVINO's CPU plugin with libuser_cpu_extension.so beside\n"
    "it (or --openvino_library; when OpenVINO is installed), and the GPU and VPU\n"
    "kernels on the OpenCL device (the GPU ones again as gpu-pad, every tensor padded with NaN\n"
    "around it, as the GPU plugin may pass it), on random inputs with 0, negatives, large\n"
    "values, NaN and infinities (integers and booleans for inputs that declare such a type,\n"
    "with 0, +-1 and their extremes), over several shapes (and a broadcast case for ops with\n"
    "several inputs). For each framework an op's config names (framework_types), a tiny model\n"
    "of that framework holding the op, built with its own tools where installed, is converted\n"
    "by openvino.convert_model with the C++ library (ovc-<framework>) and with the Python op\n"
    "(ovc-<framework>-py) and run. Prints one table of the largest differences from the\n"
    "Python op's evaluate (relative to max(1, |value|); NaN and infinities must match\n"
    "exactly), then a summary line; a target that cannot run a case (the GPU for an op with\n"
    "several outputs: SimpleGPU binds OUTPUT0 alone; the VPU's half tensors for integers) is a\n"
    "skip saying why, and so is every target that does not run at all (one row, op *, with\n"
    "what adds it).\n"
    "Exit status 1 when a target disagrees or fails."
)
EPILOG = ("examples:\n  extgen test ext\n"
          "  extgen test ext --cpu_library build/libuser_cpu_extension_abi.so")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", type=Path, metavar="DIR", help="the folder `extgen new` wrote")
    p.add_argument("--cpu_library", type=Path, default=None, metavar="PATH",
                   help="the built CPU extension ABI library (default: the first under DIR, "
                   "else in build/ beside DIR)")
    p.add_argument("--openvino_library", type=Path, default=None, metavar="PATH",
                   help="the built OpenVINO extension library (default: "
                   "libuser_cpu_extension.so beside the CPU library)")


def run(args: argparse.Namespace) -> int:
    from converter.runtime.quiet import warnings_logged
    from extgen.target_check import check_folder, format_table, summary

    with warnings_logged("extgen test"):  # the extremes fed on purpose overflow casts and exp
        rows = check_folder(args.folder, args.cpu_library, openvino_library=args.openvino_library)
    print(format_table(rows))
    print(summary(rows))
    return 1 if any(not r.ok for r in rows) else 0
