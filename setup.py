"""Ship the top-level templates/ folder inside the wheel as extgen.templates (its sub-folders
as its sub-packages); everything else about the package is in pyproject.toml."""

from pathlib import Path

from setuptools import find_namespace_packages, setup

TEMPLATE_DIRS = sorted(d for d in Path("templates").rglob("*") if d.is_dir())

setup(
    packages=[*find_namespace_packages(include=["extgen*", "converter*"], exclude=["*__pycache__"]),
              "extgen.templates",
              *(".".join(("extgen", *d.parts)) for d in TEMPLATE_DIRS)],
    package_dir={"extgen.templates": "templates"},
)
