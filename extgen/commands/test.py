"""`extgen test DIR`: check every target of every op in a generated extension folder against
the Python op (see extgen.target_check)."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "check every built target of the ops in an extension folder against the Python op"
DESCRIPTION = (
    "For every op in DIR/user_mo_extensions/ops (what `extgen new` wrote), run each target that\n"
    "is there and built: the CPU kernel through the extgen C ABI (the first\n"
    "libuser_cpu_extension_abi.so under DIR, or --cpu_library), OpenVINO's CPU plugin with\n"
    "libuser_cpu_extension.so beside it (when OpenVINO is installed), and the GPU and VPU\n"
    "kernels on the OpenCL device, on random inputs with 0, negatives, large values, NaN and\n"
    "infinities (integers and booleans for inputs that declare such a type, with 0, +-1 and\n"
    "their extremes), over several shapes (and a broadcast case for ops with several inputs).\n"
    "Prints one table of the largest differences from the Python op's evaluate (relative to\n"
    "max(1, |value|); NaN and infinities must match exactly); a target that cannot run a case\n"
    "(the GPU for an op with several outputs, the VPU's half tensors for integers) is a skip\n"
    "saying why. Exit status 1 when a target disagrees or fails."
)
EPILOG = ("examples:\n  extgen test ext\n"
          "  extgen test ext --cpu_library build/libuser_cpu_extension_abi.so")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", type=Path, metavar="DIR", help="the folder `extgen new` wrote")
    p.add_argument("--cpu_library", type=Path, default=None, metavar="PATH",
                   help="the built CPU extension ABI library (default: found under DIR)")


def run(args: argparse.Namespace) -> int:
    from extgen.target_check import check_folder, format_table

    rows = check_folder(args.folder, args.cpu_library)
    print(format_table(rows))
    failed = [r for r in rows if not r.ok]
    if failed:
        targets = sorted({f"{r.op} on {r.target}" for r in failed})
        print(f"{len(failed)} disagreement(s): {', '.join(targets)}")
        return 1
    return 0
