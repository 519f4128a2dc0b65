"""MO 2023.3's own pass modules (front/, middle/, back/ files that define a transformation), each
copied unmodified as the only file of an extension folder, converting the small models of the
framework it targets (tests/legacy/mo_pass_models.py): which of its pass classes extgen ran, which
of those replaced something, which were not applicable (and why), and which module refused.

The passes are observed through the pipeline's own pass runner, unchanged: the module's classes
get counting wrappers as they load, and the runner's applicability check is recorded.

    python -m tests.legacy.mo_pass_runs      # prints the table
"""

from __future__ import annotations

import ast
import collections
import contextlib
import functools
import inspect
import re
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from converter import passes, pipeline
from converter.errors import ExtgenError
from converter.options import ConvertOptions
from converter.passes import ReplacementPattern
from tests.legacy import mo_corpus
from tests.legacy.mo_pass_models import Model, write_models

PHASES = ("front", "middle", "back")
FRAMEWORKS = ("onnx", "tf", "caffe", "mxnet", "kaldi")
# what a match calls (replace_sub_graph calls replace_op / replace_output ...)
MATCH_METHODS = ("replace_pattern", "replace_sub_graph", "replace_op", "replace_output",
                 "generate_sub_graph")
PASS_METHODS = ("find_and_replace_pattern", "replace_pattern", "replace_sub_graph", "replace_op")


@dataclass
class ClassRun:
    ordered: int = 0  # conversions whose phase pass list held the class
    called: list[str] = field(default_factory=list)  # models find_and_replace_pattern ran on
    changed: list[str] = field(default_factory=list)  # ... where it matched or changed the graph
    not_applicable: set[str] = field(default_factory=set)  # why the runner skipped it


@dataclass
class ModuleRun:
    rel: str
    frameworks: tuple[str, ...]
    status: str = ""  # ran | not applicable | refuses | skipped | error | framework | no pass
    # (error: the module's code crashed, or extgen did; refuses: extgen said what it lacks)
    classes: dict[str, ClassRun] = field(default_factory=dict)
    detail: str = ""  # the refusal or error, or why not applicable
    irs: dict[str, Path] = field(default_factory=dict)  # model -> extgen's IR with the module


def pass_modules() -> list[str]:
    """Corpus modules under front/, middle/, back/ that define a transformation method."""
    base = mo_corpus.corpus() / mo_corpus.PREFIX
    return [rel for rel in mo_corpus.modules() if rel.split("/")[0] in PHASES
            and any(f"def {m}(" in (base / rel).read_text() for m in PASS_METHODS)]


def frameworks_of(rel: str) -> tuple[str, ...]:
    parts = rel.split("/")
    return (parts[1],) if parts[0] == "front" and parts[1] in FRAMEWORKS else FRAMEWORKS


def _fingerprint(graph) -> tuple:
    """Nodes (id, op, type) and edges: what a pass that matched anything changes."""
    nodes = sorted((str(n), str(d.get("op")), str(d.get("type")))
                   for n, d in graph.nodes(data=True))
    return tuple(nodes), tuple(sorted((str(u), str(v)) for u, v in graph.edges()))


@functools.cache
def _does_nothing(cls: type) -> bool:
    """find_and_replace_pattern's body is only `pass` (MO's phase separators, FrontStart and
    the like: they order the passes, and no model can change under them)."""
    try:
        source = textwrap.dedent(inspect.getsource(cls.find_and_replace_pattern))
    except (OSError, TypeError):
        return False
    body = ast.parse(source).body[0].body
    return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr)
                                           and isinstance(s.value, ast.Constant)) for s in body)


class _Observer:
    """Counts, per class name, what the runner did with the classes defined in `source`."""

    def __init__(self, source: Path, record: ModuleRun) -> None:
        self.source, self.record, self.model = source, record, ""

    def _mine(self, cls: type) -> bool:
        file = getattr(sys.modules.get(cls.__module__), "__file__", None)
        return file is not None and Path(file) == self.source

    def instrument(self, classes: list[type]) -> None:
        for cls in filter(self._mine, classes):
            run = self.record.classes.setdefault(cls.__name__, ClassRun())
            if cls in ReplacementPattern.excluded_replacers:
                run.not_applicable.add("a base class (MO excludes it from the passes too)")
            if _does_nothing(cls):
                run.not_applicable.add("does nothing (it only orders MO's passes)")
            state = {"matched": False}
            for name in MATCH_METHODS:
                self._wrap(cls, name, functools.partial(self._on_match, state))
            self._wrap(cls, "find_and_replace_pattern", functools.partial(self._on_run, cls, state))

    @staticmethod
    def _wrap(cls: type, name: str, around) -> None:
        """Route cls.name through around(inner, graph, *args); a static method stays static."""
        raw = inspect.getattr_static(cls, name, None)
        if raw is None or isinstance(raw, classmethod) or not callable(getattr(cls, name)):
            return
        inner = getattr(cls, name)
        if isinstance(raw, staticmethod):
            setattr(cls, name, staticmethod(functools.wraps(inner)(
                lambda *a, **k: around(inner, *a, **k))))
        else:
            setattr(cls, name, functools.wraps(inner)(
                lambda self, *a, **k: around(functools.partial(inner, self), *a, **k)))

    @staticmethod
    def _on_match(state: dict, inner, *args, **kwargs):
        state["matched"] = True
        return inner(*args, **kwargs)

    def _on_run(self, cls: type, state: dict, inner, graph, *args, **kwargs):
        run = self.record.classes[cls.__name__]
        before, state["matched"] = _fingerprint(graph), False
        result = inner(graph, *args, **kwargs)
        if not _does_nothing(cls):
            run.called.append(self.model)
        if state["matched"] or _fingerprint(graph) != before:
            run.changed.append(self.model)
        return result

    def ordered(self, classes: list[type]) -> None:
        for cls in filter(self._mine, classes):
            self.record.classes[cls.__name__].ordered += 1

    def applies(self, inst: ReplacementPattern, graph, verdict: bool) -> None:
        cls = type(inst)
        if verdict or not self._mine(cls):
            return
        why = ("enabled = False" if not getattr(inst, "enabled", True)
               else f"graph_condition false ({graph.graph.get('fw', '?')})")
        self.record.classes[cls.__name__].not_applicable.add(why)


@contextlib.contextmanager
def observing(observer: _Observer) -> Iterator[None]:
    """The pipeline's loader, pass lists and applicability check, reported to observer."""
    load, phase_passes, applies = pipeline.load_extensions, pipeline._phase_passes, passes._applies

    def load_and_instrument(paths, fw) -> None:
        before = len(ReplacementPattern.registered_cls)
        load(paths, fw)
        observer.instrument(ReplacementPattern.registered_cls[before:])

    def listed(phase: str) -> list[type]:
        classes = phase_passes(phase)
        observer.ordered(classes)
        return classes

    def checked(inst, graph) -> bool:
        verdict = applies(inst, graph)
        observer.applies(inst, graph, verdict)
        return verdict

    pipeline.load_extensions, pipeline._phase_passes, passes._applies = (
        load_and_instrument, listed, checked)
    try:
        yield
    finally:
        pipeline.load_extensions, pipeline._phase_passes, passes._applies = (
            load, phase_passes, applies)


def run_module(rel: str, models: dict[str, list[Model]], work: Path) -> ModuleRun:
    """Convert each model of the module's frameworks with the module as the only extension."""
    record = ModuleRun(rel, frameworks_of(rel))
    text = (mo_corpus.corpus() / mo_corpus.PREFIX / rel).read_text()
    if mo_corpus.needs_framework(text):
        record.status = "framework"
        return record
    folder = work / "ext"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / rel).parent.mkdir(parents=True)
    (folder / rel).write_text(text)
    observer = _Observer(folder / rel, record)
    for model in (m for fw in record.frameworks for m in models.get(fw, [])):
        observer.model = model.name
        out = work / "ir" / rel.replace("/", "_") / model.name
        try:
            with mo_corpus._quiet(), observing(observer):
                result = pipeline.convert(ConvertOptions(
                    model.path, output_dir=out, extensions=[folder], **model.options()))
        except Exception as err:  # noqa: BLE001  (every failure is tallied)
            record.status = "refuses" if _refusal(err, rel) else "error"
            record.detail = f"{model.name}: {type(err).__name__}: {err}"[:400]
            return record
        record.irs[model.name] = result.xml
    record.status = _status(record)
    return record


def _refusal(err: BaseException, rel: str) -> bool:
    """extgen's own one-line refusal from the module's file and line, not a crash of the
    module's code (or of extgen on what it built) that extgen reports."""
    cause = err.__cause__ or err.__context__
    text = str(err).strip()
    return (isinstance(err, ExtgenError) and "\n" not in text
            and (cause is None or isinstance(cause, ExtgenError))
            and re.search(rf"{re.escape(rel)}:\d+: ", text) is not None)


def _status(record: ModuleRun) -> str:
    runs = record.classes.values()
    if not runs:
        return "no pass"
    if any(not r.called and not r.not_applicable for r in runs):
        return "skipped"
    if all(not r.called for r in runs):
        record.detail = "; ".join(sorted({w for r in runs for w in r.not_applicable}))
        return "not applicable"
    return "ran"


def run(only: list[str] | None = None, work: Path | None = None) -> dict[str, ModuleRun]:
    """Each pass module (or `only` those) -> what happened to it; IRs are kept under work."""
    with contextlib.ExitStack() as stack:
        work = work or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        (work / "models").mkdir(parents=True, exist_ok=True)
        models = write_models(work / "models")
        return {rel: run_module(rel, models, work) for rel in (only or pass_modules())}


def table(results: dict[str, ModuleRun]) -> str:
    counts = collections.Counter(r.status for r in results.values())
    changed = sum(1 for r in results.values() if r.status == "ran"
                  and any(c.changed for c in r.classes.values()))
    lines = [f"{len(results)} pass modules: " + ", ".join(f"{k} {v}" for k, v in
                                                          sorted(counts.items())),
             f"  of those that ran, {changed} replaced something on some model"]
    for rel, r in sorted(results.items()):
        if r.status not in ("ran",):
            lines.append(f"  {r.status:15s} {rel}: {r.detail}"[:220])
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(run(sys.argv[1:] or None)))
