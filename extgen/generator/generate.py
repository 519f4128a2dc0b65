"""Render the templates for a GeneratorConfig and write them safely: everything is rendered
first, existing files are never overwritten without force (identical ones are left alone), and
each file is written to a temporary name and renamed."""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import jinja2
from pydantic import BaseModel, ValidationError

from converter.files import write_atomic
from converter.runtime import cpu_abi
from extgen.errors import ConfigError, OutputError
from extgen.generator.config import GeneratorConfig, snake_case
from extgen.generator.context import op_context, string_literal
from extgen.generator.targets import TARGETS

__all__ = [
    "TEMPLATES", "FileReport", "FilesExist", "generate", "load_config", "plan_files", "status",
    "write_reports",
]

# A wheel ships them as extgen/templates; a checkout keeps them at the top of the repository.
_PACKAGE = Path(__file__).resolve().parents[1]
TEMPLATES = next((d for d in (_PACKAGE / "templates", _PACKAGE.parent / "templates") if d.is_dir()),
                 _PACKAGE / "templates")


class FilesExist(OutputError):
    """Files extgen would write hold other content (the user's edits, or an older rendering):
    nothing was written. `what` names them; the command adds how to go on."""

    def __init__(self, paths: list[Path]) -> None:
        listed = ", ".join(str(p) for p in paths[:5]) + (" ..." if len(paths) > 5 else "")
        self.paths = paths
        self.what = f"{len(paths)} file(s) exist with other content: {listed}"
        super().__init__(f"{self.what}; nothing was written (--force overwrites them, "
                         "discarding your edits)")


@dataclass
class FileReport:
    path: Path
    status: str  # create | identical | overwrite | update (a combined file nobody edited)
    content: str


def load_config(path: Path) -> GeneratorConfig:
    """Read a config JSON (this tool's shape or the original extgen's keys); one-line errors."""
    from extgen.generator.legacy import LEGACY_KEYS, convert_legacy

    try:
        text: str | None = Path(path).read_bytes().decode("utf-8")
        data = json.loads(text)
    except OSError as err:
        msg = f"{path}: cannot read the config ({err.strerror})"
        raise ConfigError(msg) from None
    except UnicodeDecodeError as err:
        msg = f"{path}: not UTF-8 (byte {err.start}: {err.reason}); save the config as UTF-8"
        raise ConfigError(msg) from None
    except json.JSONDecodeError as err:
        msg = f"{path}:{err.lineno}: not valid JSON ({err.msg})"
        raise ConfigError(msg) from None
    except (RecursionError, ValueError) as err:  # nested too deep, or an int too long to read
        reason = "nested too deeply" if isinstance(err, RecursionError) else printable(str(err))
        msg = f"{path}: not a usable JSON config ({reason})"
        raise ConfigError(msg) from None
    if isinstance(data, dict):
        data.pop("$schema", None)  # an editor's pointer to `extgen schema` output
    if isinstance(data, dict) and any(k in data for k in LEGACY_KEYS):
        data, text = convert_legacy(data), None  # its keys are not the file's
    return validate_config(data, str(path), text)


def printable(text: str) -> str:
    """text on one line: characters that are not printable as their Python escapes."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _loc_part(part: int | str) -> str:
    return str(part) if isinstance(part, int) or part.isidentifier() else repr(part)


_UNKNOWN_KEY = ("extra_forbidden", "unexpected_keyword_argument")


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model an annotation holds (list[Attribute] -> Attribute), or None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((m for arg in get_args(annotation) if (m := _model_in(arg))), None)


def _did_you_mean(loc: tuple[int | str, ...]) -> str:
    """' (did you mean 'attributes'?)' for an unknown key at loc close to a known one, or ''."""
    model: type[BaseModel] | None = GeneratorConfig
    for part in loc[:-1]:
        if isinstance(part, int):  # an item of a list
            continue
        field = model.model_fields.get(part) if model else None
        model = _model_in(field.annotation) if field else None
    key = loc[-1] if loc else None
    if model is None or not isinstance(key, str):
        return ""
    known = {name.lower(): name for name in model.model_fields}
    close = difflib.get_close_matches(key.lower(), list(known), n=1, cutoff=0.6)
    return f"; did you mean {known[close[0]]!r}?" if close else ""


def _key_line(text: str | None, loc: tuple[int | str, ...]) -> str:
    """':<line>' of the key an error names, when it appears exactly once in the file's text."""
    if text is None or not loc or not isinstance(loc[-1], str):
        return ""
    found = list(re.finditer(re.escape(json.dumps(loc[-1])) + r"\s*:", text))
    return f":{text.count(chr(10), 0, found[0].start()) + 1}" if len(found) == 1 else ""


_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(data: Any, loc: tuple[int | str, ...] = ()) -> tuple[int | str, ...] | None:
    """Where in JSON data a string or key holds a lone surrogate (json reads `"\\ud800"` as
    one), or None."""
    if isinstance(data, str):
        return loc if _SURROGATE.search(data) else None
    items = (data.items() if isinstance(data, dict)
             else enumerate(data) if isinstance(data, list) else ())
    for key, value in items:
        if isinstance(key, str) and _SURROGATE.search(key):
            return (*loc, key)
        found = _lone_surrogate(value, (*loc, key))
        if found is not None:
            return found
    return None


def validate_config(data: Any, source: str = "config", text: str | None = None) -> GeneratorConfig:
    """The GeneratorConfig for data, or a one-line ConfigError naming the first bad field (an
    unknown key first: a misspelled key also makes the one it meant missing), and its line in
    text (the file data was read from) when the key appears there once."""
    try:
        bad = _lone_surrogate(data)
        if bad is not None:  # pydantic cannot even report such a string
            where = ".".join(_loc_part(p) for p in bad) or "(top level)"
            msg = (f"{source}: {where}: holds a lone UTF-16 surrogate (a \\ud800-\\udfff "
                   "escape without its pair), which is not text")
            raise ConfigError(msg)
        return GeneratorConfig.model_validate(data)
    except RecursionError:
        msg = f"{source}: the config is nested too deeply"
        raise ConfigError(msg) from None
    except ValidationError as err:
        errors = err.errors()
        first = next((e for e in errors if e["type"] in _UNKNOWN_KEY), errors[0])
        loc = tuple(first["loc"])
        where = ".".join(_loc_part(p) for p in loc) or "(top level)"
        message = printable(first["msg"].removeprefix("Value error, "))
        if first["type"] in _UNKNOWN_KEY:
            message = f"unknown key{_did_you_mean(loc)}"
        line = "" if first["type"] == "missing" else _key_line(text, loc)
        more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
        msg = f"{source}{line}: {where}: {message}{more}"
        raise ConfigError(msg) from None


def _environment(root: Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root)), undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True, autoescape=False,
    )
    env.filters["pystr"] = lambda s: string_literal(str(s), "python")
    env.filters["snake"] = snake_case
    env.filters["cstr"] = lambda s: string_literal(str(s), "c")
    env.filters["xmlattr"] = lambda s: (
        str(s).replace("&", "&amp;").replace('"', "&quot;")
        .replace("<", "&lt;").replace(">", "&gt;")
    )
    return env


def plan_files(config: GeneratorConfig, out_dir: Path, root: Path = TEMPLATES) -> list[FileReport]:
    """Render every file of every target, in memory; nothing is written."""
    env = _environment(root)
    contexts = [op_context(op) for op in config.ops]
    abi = cpu_abi.template_context()
    files: dict[Path, str] = {}
    _check_definitions(config, out_dir)
    _check_torch_types(config)
    for target in config.targets:
        folder, dest = TARGETS[target].templates, TARGETS[target].output
        base = root / folder
        if not base.is_dir():
            msg = f"templates for {target} are missing ({base})"
            raise ConfigError(msg)
        for template in sorted(base.rglob("*.jinja")):
            rel = template.relative_to(root).as_posix()
            name = template.relative_to(base).as_posix().removesuffix(".jinja")
            per_op = "{{" in name
            for ctx in contexts if per_op else [None]:
                values = {"op": ctx, "ops": contexts, "targets": config.targets, "abi": abi}
                path = out_dir / dest / env.from_string(name).render(values)
                if path in files:
                    msg = (f"op {ctx['name'] if ctx else ''!r}: {path.name} is also another "
                           "generated file; rename the op")
                    raise ConfigError(msg)
                try:
                    files[path] = env.get_template(rel).render(values)
                except jinja2.TemplateError as err:
                    msg = f"template {rel} failed to render: {err}"
                    raise ConfigError(msg) from err
    combined = [p for p in files if p.name == COMBINED_CONFIG]
    for path in combined:
        files[path] = _combined(path, files)
    for path in list(files):
        if path.suffix == ".py":
            for parent in path.parents:
                if parent == out_dir:
                    break
                files.setdefault(parent / "__init__.py", "")
    return [_combined_status(p, text) if p in combined else status(p, text)
            for p, text in sorted(files.items())]


COMBINED_CONFIG = "custom_layers.xml"  # every op's kernels, the one file the plugin loads
_LAYER = re.compile(r"^<CustomLayer\b.*?^</CustomLayer>\n", re.M | re.S)


def _combined(path: Path, files: dict[Path, str]) -> str:
    """custom_layers.xml holding the CustomLayers of every per-op <op>_kernel.xml in its folder,
    generated now or before (in file name order): ops generated from separate configs into one
    folder share it."""
    header = _LAYER.split(files[path], maxsplit=1)[0]
    per_op = {p: text for p, text in files.items()
              if p.parent == path.parent and p.name.endswith("_kernel.xml")}
    if path.parent.is_dir():
        for old in path.parent.glob("*_kernel.xml"):
            per_op.setdefault(old, old.read_text(encoding="utf-8", errors="replace"))
    layers = [layer for _, text in sorted(per_op.items()) for layer in _LAYER.findall(text)]
    return header + "".join(layers)


def _combined_status(path: Path, content: str) -> FileReport:
    """A combined config still as generated from the per-op files on disk is brought up to date
    (another op joins it) without --force; an edited one is the user's, as any file."""
    report = status(path, content)
    if report.status == "overwrite":
        old = path.read_text(encoding="utf-8", errors="replace")
        if old == _combined(path, {path: old}):
            return FileReport(path, "update", content)
    return report


def _check_definitions(config: GeneratorConfig, out_dir: Path) -> None:
    """ov-python-op runs each op's definition (mo-op's ops/<op>.py): generated now or before."""
    if "ov-python-op" not in config.targets or "mo-op" in config.targets:
        return
    ops = out_dir / TARGETS["mo-op"].output
    missing = [op.name for op in config.ops if not (ops / f"{op.snake}.py").is_file()]
    if missing:
        msg = (f"--ov-python-op runs each op's definition from {ops}, where "
               f"{', '.join(missing)} {'has' if len(missing) == 1 else 'have'} none: add --mo-op")
        raise ConfigError(msg)


def _check_torch_types(config: GeneratorConfig) -> None:
    """A PyTorch extractor matches a torch.library op by its 'namespace::op' name, which the
    op's own name cannot be: each op needs framework_types.pytorch."""
    if "mo-pytorch-ext" not in config.targets:
        return
    missing = [op.name for op in config.ops if "pytorch" not in op.framework_types]
    if missing:
        msg = (f"--mo-pytorch-ext matches a torch.library op by its 'namespace::op' name: set "
               f"framework_types.pytorch for {', '.join(missing)} (extgen check model.pt2 "
               "writes it)")
        raise ConfigError(msg)


def status(path: Path, content: str) -> FileReport:
    if not path.exists():
        return FileReport(path, "create", content)
    try:
        same = path.read_text() == content
    except (OSError, UnicodeDecodeError):
        same = False
    return FileReport(path, "identical" if same else "overwrite", content)


def generate(config: GeneratorConfig, out_dir: Path, *, force: bool = False,
             extra_files: dict[Path, str] | None = None) -> list[FileReport]:
    """Write the generated files (and extra_files) under out_dir; refuses to overwrite changed
    files unless force, and then writes nothing."""
    try:
        reports = plan_files(config, out_dir)
        reports += [status(path, text) for path, text in (extra_files or {}).items()]
    except OSError as err:
        msg = f"cannot write under {out_dir}: {printable(err.strerror or str(err))}"
        raise OutputError(msg) from err
    write_reports(reports, out_dir, force=force)
    return reports


def _check_destination(path: Path) -> None:
    """OutputError unless path can be written: no folder in its place, no file where one of
    its folders must be, the nearest existing folder writable."""
    if path.is_dir():
        msg = f"{path} is a folder where extgen writes a file; move it or use another --output_dir"
        raise OutputError(msg)
    existing = next(p for p in path.parents if p.exists() or p == p.parent)
    if not existing.is_dir():
        msg = f"{existing} is a file where extgen needs a folder; move it or use another folder"
        raise OutputError(msg)
    if not os.access(existing, os.W_OK | os.X_OK):
        msg = f"{existing} is not writable; choose another --output_dir"
        raise OutputError(msg)


def _new_folders(paths: list[Path]) -> list[Path]:
    """The folders writing paths will create, deepest first."""
    folders = {p for path in paths for p in path.parents if not p.exists()}
    return sorted(folders, key=lambda p: len(p.parts), reverse=True)


def write_reports(reports: list[FileReport], out_dir: Path, *, force: bool = False) -> None:
    """Write every planned file, or none: nothing when one would overwrite other content without
    force or a destination cannot be written; when a write fails, the files and folders this run
    created are removed again (files that --force already overwrote keep their new content)."""
    clashes = [r.path for r in reports if r.status == "overwrite"]
    if clashes and not force:
        raise FilesExist(clashes)
    todo = [r for r in reports if r.status != "identical"]
    created: list[Path] = []
    folders: list[Path] = []
    try:
        data = {r.path: r.content.encode() for r in todo}
        for report in todo:
            _check_destination(report.path)
        folders = _new_folders([r.path for r in todo])
        for report in todo:
            write_atomic(report.path, lambda f, b=data[report.path]: f.write(b))
            if report.status == "create":
                created.append(report.path)
    except (OSError, UnicodeError) as err:
        for path in created:
            path.unlink(missing_ok=True)
        for folder in folders:
            with contextlib.suppress(OSError):
                folder.rmdir()
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        msg = f"cannot write under {out_dir}: {printable(reason)} (files it created were removed)"
        raise OutputError(msg) from err
