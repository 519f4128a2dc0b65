"""`extgen check`: which ops of a model the converter cannot handle, and a ready config for each."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from converter.framework_names import FRAMEWORKS

HELP = "list the ops a model holds that the converter cannot handle, and write configs for them"
DESCRIPTION = """\
Load a model (with your --extensions) and list every op type nothing handles: its nodes,
input/output counts and the attributes seen on them. For each, write a ready
`extgen new --config` file (<output_dir>/<op>.extgen.json) that scaffolds all targets."""
EPILOG = """\
examples:
  extgen check model.onnx
  extgen check model.onnx --extensions user_mo_extensions --output_dir configs/
  extgen new --config configs/my_op.extgen.json --output_dir my_op_ext"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", type=Path, help="the model file")
    p.add_argument("--framework", choices=list(FRAMEWORKS),
                   help="framework of the model; guessed from the file extension when omitted")
    p.add_argument("--extensions", metavar="DIR[,DIR...]", default="",
                   help="extension folders whose ops count as handled")
    p.add_argument("--output_dir", type=Path, default=Path("."), metavar="DIR",
                   help="where the <op>.extgen.json configs go (default: current folder)")
    p.add_argument("--force", action="store_true",
                   help="overwrite configs that exist with other content")


def run(args: argparse.Namespace) -> int:
    from extgen.generator.generate import FileReport, write_reports
    from extgen.generator.generate import status as file_status
    from extgen.model_ops import config_for, find_unknown_ops

    extensions = [Path(p) for p in args.extensions.split(",") if p.strip()]
    unknown = find_unknown_ops(args.model, args.framework, extensions)
    if not unknown:
        print(f"{args.model}: every op is supported; "
              f"convert it with extgen convert --input_model {args.model}")
        return 0
    print(f"{args.model}: {len(unknown)} op type(s) need an extension")
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
        snake = config["ops"][0]["name"].lower()
        content = json.dumps(config, indent=2) + "\n"
        reports.append(file_status(args.output_dir / f"{snake}.extgen.json", content))
    write_reports(reports, args.output_dir, force=args.force)
    for report in reports:
        print(f"{report.status:10} {report.path}  (then: extgen new --config {report.path})")
    return 0
