"""`extgen update`: regenerate a changed config into a folder `extgen new` wrote, keeping the
user's edits by a three-way merge."""

from __future__ import annotations

import argparse
from pathlib import Path

from extgen.generator.targets import TARGETS

HELP = "regenerate after a config change, merging into your edited files (three-way)"
DESCRIPTION = """\
Re-render the extensions from a changed config and merge them into the files in --output_dir.
The base of the merge is what extgen last generated there (recorded in
<output_dir>/.extgen/base.json); your edits and the generator's changes are both kept. Where
they touch the same lines, the file gets conflict markers (<<<<<<< yours, =======,
>>>>>>> generated) and is listed; the exit status is then 1. While a file still holds such
markers, update refuses (exit status 1, nothing changed): resolve them first. The targets are
the config's (the target flags take precedence; neither: those extgen last generated there)."""
EPILOG = """\
example:
  extgen new --config cosh.extgen.json --output_dir ext     # then edit ext/... by hand
  # add an attribute to cosh.extgen.json, then:
  extgen update --config cosh.extgen.json --output_dir ext"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    for target, spec in TARGETS.items():
        p.add_argument(f"--{target}", action="append_const", const=target, dest="targets",
                       help=spec.help)
    p.add_argument("--config", type=Path, required=True, metavar="FILE.json",
                   help="the changed op description")
    p.add_argument("--output_dir", type=Path, default=Path("."), metavar="DIR",
                   help="the folder extgen new wrote (default: current folder)")


def run(args: argparse.Namespace) -> int:
    from extgen.generator.generate import load_config
    from extgen.generator.update import update

    config = load_config(args.config)
    if args.targets:
        config = config.model_copy(update={"targets": list(dict.fromkeys(args.targets))})
    results = update(config, args.output_dir)
    for result in results:
        print(f"{result.status:10} {result.path}")
    conflicts = [r.path for r in results if r.status == "conflict"]
    if conflicts:
        print(f"{len(conflicts)} file(s) with conflicts, marked <<<<<<< yours ... >>>>>>> "
              f"generated: {', '.join(map(str, conflicts))}")
        return 1
    return 0
