"""`extgen update`: regenerate after a config change without losing the user's edits.

`extgen new` records what it generated (the config and every file's content) in
<output_dir>/.extgen/base.json, as copier records its answers. `update` renders the new config
and merges each file three ways: the recorded version is the base, the file on disk holds the
user's edits, the new rendering the generator's. Conflicts are marked in the file
(<<<<<<< yours / ======= / >>>>>>> generated) and listed; the record then holds the new
rendering."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import merge3

from extgen.errors import ConfigError, ExtgenError
from extgen.generator.config import GeneratorConfig
from extgen.generator.generate import FileReport, plan_files, write_reports
from extgen.generator.targets import TARGETS

__all__ = ["Merged", "UnresolvedConflicts", "record_base", "update", "update_command"]

RECORD = Path(".extgen") / "base.json"
_MARKER = re.compile(r"^(<{7}|>{7})( |$)", re.M)


class UnresolvedConflicts(ExtgenError):
    """Files still hold the conflict markers of an earlier update: nothing is merged (exit 1)."""

    exit_code = 1


def update_command(config: Path, out_dir: Path, targets: list[str] | None = None) -> str:
    """The `extgen update` command line that regenerates out_dir from config (with targets)."""
    flags = [f"--{t}" for t in dict.fromkeys(targets or [])]
    return shlex.join(["extgen", "update", "--config", str(config), "--output_dir", str(out_dir),
                       *flags])


@dataclass
class Merged:
    path: Path
    status: str  # create | identical | update | kept | merged | conflict


def _record(out_dir: Path) -> dict:
    """The record of the last generation; ConfigError when there is none to read."""
    try:
        data = json.loads((out_dir / RECORD).read_text())
        if isinstance(data, dict) and isinstance(data.get("files"), dict):
            return data
    except (OSError, ValueError):
        pass
    msg = (f"{out_dir / RECORD}: no readable record of the last generation (extgen new writes "
           "it); regenerate with extgen new --force, or merge by hand")
    raise ConfigError(msg)


def _recorded_targets(record: dict) -> list[str]:
    """The targets a record holds, those extgen knows."""
    config = record.get("config")
    targets = config.get("targets") if isinstance(config, dict) else None
    if not isinstance(targets, list):
        return []
    return [t for t in targets if isinstance(t, str) and t in TARGETS]


def record_base(config: GeneratorConfig, out_dir: Path, reports: list[FileReport]) -> None:
    """Record the config and the generated files' content as the base of later updates; files
    and targets of earlier generations into out_dir (other targets) stay recorded."""
    try:
        old = _record(out_dir)
    except ConfigError:
        old = {"files": {}}
    files = {**old["files"], **{r.path.relative_to(out_dir).as_posix(): r.content
                                for r in reports}}
    dumped = config.model_dump(mode="json", exclude_defaults=True)
    targets = list(dict.fromkeys([*_recorded_targets(old), *config.targets]))
    if targets:
        dumped["targets"] = targets
    record = out_dir / RECORD
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"config": dumped, "files": files}, indent=1) + "\n")


def _check_no_markers(paths: list[Path]) -> None:
    """UnresolvedConflicts when a file still holds <<<<<<< / >>>>>>> marker lines."""
    marked = []
    for path in paths:
        try:
            if _MARKER.search(path.read_text(errors="replace")):
                marked.append(path)
        except OSError:
            continue
    if marked:
        msg = (f"{len(marked)} file(s) still hold conflict markers (<<<<<<< yours ... >>>>>>> "
               f"generated): {', '.join(map(str, marked))}; nothing was changed: resolve them "
               "(keep the lines you want, delete the marker lines), then run extgen update again")
        raise UnresolvedConflicts(msg)


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
    """Merge the new rendering of config into out_dir's files; returns a status per file. A
    config without targets regenerates the recorded ones; files still holding conflict markers
    stop it before anything is written."""
    record = _record(out_dir)
    base = record["files"]
    if not config.targets:
        config = config.model_copy(update={"targets": _recorded_targets(record)})
    planned = plan_files(config, out_dir)
    _check_no_markers([r.path for r in planned])
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
