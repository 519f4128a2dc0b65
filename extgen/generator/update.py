"""`extgen update`: regenerate after a config change without losing the user's edits.

`extgen new` records what it generated (the config and every file's content) in
<output_dir>/.extgen/base.json, as copier records its answers. `update` renders the new config
and merges each file three ways: the recorded version is the base, the file on disk holds the
user's edits, the new rendering the generator's. Conflicts are marked in the file
(<<<<<<< yours / ======= / >>>>>>> generated) and listed; the record then holds the new
rendering."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import merge3

from extgen.errors import ConfigError
from extgen.generator.config import GeneratorConfig
from extgen.generator.generate import FileReport, plan_files, write_reports

__all__ = ["Merged", "record_base", "update"]

RECORD = Path(".extgen") / "base.json"


@dataclass
class Merged:
    path: Path
    status: str  # create | identical | update | kept | merged | conflict


def record_base(config: GeneratorConfig, out_dir: Path, reports: list[FileReport]) -> None:
    """Record the config and the generated files' content as the base of later updates."""
    files = {r.path.relative_to(out_dir).as_posix(): r.content for r in reports}
    record = out_dir / RECORD
    record.parent.mkdir(parents=True, exist_ok=True)
    data = {"config": config.model_dump(mode="json", exclude_defaults=True), "files": files}
    record.write_text(json.dumps(data, indent=1) + "\n")


def _base(out_dir: Path) -> dict[str, str]:
    try:
        return json.loads((out_dir / RECORD).read_text())["files"]
    except (OSError, ValueError, KeyError, TypeError):
        msg = (f"{out_dir / RECORD}: no readable record of the last generation (extgen new writes "
               "it); regenerate with extgen new --force, or merge by hand")
        raise ConfigError(msg) from None


def _merge(base: str | None, ours: str, theirs: str) -> tuple[str, bool]:
    """(merged text, whether it holds conflicts); no base: everything differing conflicts."""
    lines = merge3.Merge3((base or "").splitlines(True), ours.splitlines(True),
                          theirs.splitlines(True))
    conflict = any(region[0] == "conflict" for region in lines.merge_regions())
    return "".join(lines.merge_lines(name_a="yours", name_b="generated")), conflict


def _decide(path: Path, base: str | None, theirs: str) -> tuple[str, str | None]:
    """(status, content to write or None)."""
    try:
        ours = path.read_text()
    except FileNotFoundError:
        return "create", theirs
    if ours == theirs:
        return "identical", None
    if ours == base:
        return "update", theirs
    if theirs == base:
        return "kept", None
    merged, conflict = _merge(base, ours, theirs)
    return ("conflict" if conflict else "merged"), merged


def update(config: GeneratorConfig, out_dir: Path) -> list[Merged]:
    """Merge the new rendering of config into out_dir's files; returns a status per file."""
    base = _base(out_dir)
    planned = plan_files(config, out_dir)
    results, writes = [], []
    for report in planned:
        rel = report.path.relative_to(out_dir).as_posix()
        status, content = _decide(report.path, base.get(rel), report.content)
        results.append(Merged(report.path, status))
        if content is not None:
            writes.append(FileReport(report.path, "create" if status == "create" else "overwrite",
                                     content))
    write_reports(writes, out_dir, force=True)
    record_base(config, out_dir, planned)
    return results
