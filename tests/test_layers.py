"""Layering: the library (converter) never imports the application (extgen), and every
import-linter contract of pyproject.toml (runtime below conversion, ir/ops at the bottom) holds."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_LINT = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def _imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def test_no_converter_module_imports_extgen() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: imports {module}"
        for path in sorted((ROOT / "converter").rglob("*.py"))
        for line, module in _imported_modules(ast.parse(path.read_text(), str(path)))
        if module == "extgen" or module.startswith("extgen.")
    ]
    assert not offenders, "the library imports the application:\n" + "\n".join(offenders)


def test_import_linter_contracts_hold() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _LINT, "--config", "pyproject.toml", "--no-cache", "--no-logo"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
