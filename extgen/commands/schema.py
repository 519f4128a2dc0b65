"""`extgen schema`: the JSON Schema of `extgen new --config` files, for editors."""

from __future__ import annotations

import argparse
import json

HELP = "print the JSON Schema of extgen new --config files"
DESCRIPTION = "Print the JSON Schema of the generator's config (from its pydantic model)."
EPILOG = "example:\n  extgen schema > extgen-config.schema.json"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """No options."""


def run(args: argparse.Namespace) -> int:
    from extgen.generator.config import GeneratorConfig

    print(json.dumps(GeneratorConfig.model_json_schema(), indent=2))
    return 0
