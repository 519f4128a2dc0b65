"""The environment for a child Python process that imports this checkout: its root first on
PYTHONPATH, what the parent had after it (a site folder of carried wheels, say)."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child_env(**extra: str) -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, **extra}
