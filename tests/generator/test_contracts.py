"""The contracts shared by the library and the generator have one source: the C ABI constants,
the targets and the frameworks."""

from __future__ import annotations

from pathlib import Path

from converter.framework_names import FRAMEWORKS
from converter.runtime import cpu_abi
from extgen.generator.generate import TEMPLATES, plan_files, validate_config
from extgen.generator.targets import TARGETS, extractor_target


def test_the_abi_header_is_rendered_from_cpu_abi(tmp_path: Path) -> None:
    config = validate_config({"targets": ["ie-cpu-ext"], "ops": [{"name": "Cosh"}]})
    files = {r.path.name: r.content for r in plan_files(config, tmp_path)}
    header = files["extgen_abi.h"]
    assert f"#define EXTGEN_ABI_VERSION {cpu_abi.VERSION}\n" in header
    assert f"#define EXTGEN_MAX_RANK {cpu_abi.MAX_RANK}\n" in header
    assert all(f" {name}(" in header for name in cpu_abi.FUNCTIONS.values())
    codes = ", ".join(f"{i} {t}" for i, t in enumerate(cpu_abi.ELEMENT_TYPES))
    assert f"/* element_type: {codes} */" in header
    kernel = files["extgen_kernel.hpp"]
    assert f"{{ {', '.join(cpu_abi.ELEMENT_TYPES)} }}" in kernel
    assert f"element_type_count = {len(cpu_abi.ELEMENT_TYPES)};" in kernel


def test_one_extractor_target_per_framework_and_templates_for_each_target() -> None:
    extractors = {name: spec.framework for name, spec in TARGETS.items() if spec.framework}
    assert extractors == {extractor_target(fw): fw for fw in FRAMEWORKS}
    assert all((TEMPLATES / spec.templates).is_dir() for spec in TARGETS.values())
