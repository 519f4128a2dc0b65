"""The legacy MO 2023.3 package's own front/, middle/, back/ and ops/ modules as a corpus of real
extension code: each is dropped unmodified into an extension folder and loaded with extgen's
loader, under each legacy root. Test data only: the wheel is fetched once per machine.

    python -m tests.legacy.mo_corpus        # prints the tally and the most-missing names
"""

from __future__ import annotations

import ast
import collections
import contextlib
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

from tests.cache_folder import write_once

# the modules only (a folder of its own: nothing else may share it)
CACHE = Path.home() / ".cache" / "extgen" / "mo-2023.3-modules"
WHEEL = "openvino-dev==2023.3.0"
PARTS = ("front", "middle", "back", "ops")
PREFIX = "openvino/tools/mo/"
# modules whose code needs a third-party framework (or OpenVINO's runtime) are counted apart
FRAMEWORKS = ("mxnet", "tensorflow", "caffe_pb2", "openvino.runtime", "openvino._pyopenvino",
              "openvino.frontend", "google.protobuf", "paddle", "torch")
# 2021 layout: the core lived under mo., the transformations and most ops under extensions.
_MO_2021 = ("graph", "utils", "front.common", "front.extractor", "front.subgraph_matcher",
            "front.tf.graph_utils", "front.tf.replacement", "front.tf.extractors",
            "front.onnx.extractors.utils", "front.caffe.extractors", "front.caffe.collect",
            "front.caffe.extractor", "front.mxnet.extractors.utils", "front.kaldi.loader",
            "front.kaldi.utils", "front.extractor", "middle.replacement", "middle.passes",
            "middle.pattern_match", "back.replacement", "ops.op", "ops.const", "ops.result",
            "ops.reshape", "ops.concat", "ops.shape", "ops.squeeze", "ops.unsqueeze",
            "ops.clamp", "ops.softmax", "ops.convolution", "ops.pooling", "ops.crop",
            "ops.strided_slice", "ops.broadcast", "ops.tile", "ops.pad", "ops.memory",
            "ops.eltwise", "ops.lrn", "ops.deconvolution", "ops.split", "ops.power",
            "ops.scale_shift", "ops.roipooling", "ops.space_to_batch", "pipeline", "load")
ROOTS = ("openvino.tools.mo", "mo+extensions")


def corpus() -> Path:
    """The extracted modules (fetched and extracted once per machine; safe across processes)."""
    return write_once(CACHE, _extract)


def _extract(staged: Path) -> None:
    with tempfile.TemporaryDirectory(dir=staged.parent) as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", WHEEL, "--no-deps", "-q",
                        "-d", tmp], check=True)
        (wheel,) = Path(tmp).glob("*.whl")
        with zipfile.ZipFile(wheel) as zf:
            for name in zf.namelist():
                parts = name.split("/")
                if name.startswith(PREFIX) and parts[3] in PARTS and name.endswith(".py"):
                    zf.extract(name, staged)


def modules(root: Path | None = None) -> list[str]:
    """Paths (front/onnx/x.py, ...) of the corpus modules, sorted; no __init__.py."""
    base = (root or corpus()) / PREFIX
    return sorted(str(p.relative_to(base)) for part in PARTS for p in (base / part).rglob("*.py")
                  if p.name != "__init__.py")


def _root_of(rel: str, below: str) -> str:
    return "mo" if below.startswith(_MO_2021) else "extensions"


def rewrite(text: str, root: str) -> str:
    """The module as a folder written for `root` would hold it (2021: mo. and extensions.)."""
    if root == "openvino.tools.mo":
        return text

    def repl(m: re.Match) -> str:
        below = m.group(1)
        return f"{_root_of('', below)}.{below}"

    return re.sub(r"openvino\.tools\.mo\.([\w.]+)", repl, text)


def needs_framework(text: str) -> bool:
    tree = ast.parse(text)
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        if any(n.startswith(FRAMEWORKS) or ".caffe.proto" in n for n in names):
            return True
    return False


@dataclass
class Outcome:
    rel: str
    root: str
    status: str  # ok | framework | missing | error
    detail: str = ""  # the missing legacy name, or the error's first line
    message: str = ""  # what the user sees: the error's whole text


_MISSING = re.compile(r"'([\w]+)' from ([\w.]+) is not supported")


def _classify(err: BaseException) -> tuple[str, str]:
    seen = err
    while seen is not None:
        m = _MISSING.search(str(seen))
        if m:
            module = re.sub(r"^(openvino\.tools\.mo|mo|extensions)\.", "", m.group(2))
            return "missing", f"{module}.{m.group(1)}"
        seen = seen.__cause__ or seen.__context__
    text = re.sub(r"\S*/moc\d{4}/", "", str(err).splitlines()[0] if str(err) else "")
    return "error", f"{type(err).__name__}: {text}"[:200]


def load_one(src: Path, rel: str, root: str, work: Path, index: int) -> Outcome:
    """Load one module as the only file of an extension folder: import, register, build its
    ops with defaults, order every pass."""
    from converter.extensions import extension_scope, load_extension_dirs
    from converter.graph.graph import Graph
    from converter.ops.op import Op
    from converter.pipeline import _phase_passes

    text = src.read_text()
    if needs_framework(text):  # loading it would import (and then unload) a framework
        return Outcome(rel, root, "framework")
    folder = work / f"moc{index:04d}"
    shutil.rmtree(folder, ignore_errors=True)
    target = folder / rel
    target.parent.mkdir(parents=True)
    target.write_text(rewrite(text, root))
    sub = str(Path(rel).parent)
    try:
        with extension_scope(), _quiet():
            before = len(Op.registered_cls)
            load_extension_dirs([folder], "onnx", subdirs=(sub,))
            for cls in Op.registered_cls[before:]:
                _build(cls, Graph(), target)
            for phase in ("front", "middle", "back"):
                _phase_passes(phase)
    except Exception as err:  # noqa: BLE001  (every failure is tallied)
        message = re.sub(r"\S*/moc\d{4}/", "", str(err))
        return Outcome(rel, root, *_classify(err), message=message)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return Outcome(rel, root, "ok")


def _build(cls: type, graph: object, source: Path) -> None:
    """The op with default attributes. An op whose own __init__ refuses to go without some
    attribute (MO's ops assert theirs) has loaded all the same: its check, not extgen, failed."""
    try:
        cls(graph, {})
    except Exception as err:  # noqa: BLE001
        frames = traceback.extract_tb(err.__traceback__)
        if not frames or frames[-1].filename != str(source):
            raise


@contextlib.contextmanager
def _quiet():
    import logging

    log = logging.getLogger("extgen")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        log.setLevel(level)


def run(roots: tuple[str, ...] = ROOTS, only: list[str] | None = None) -> dict[str, list[Outcome]]:
    """Every corpus module (or `only` those) under every root -> its outcomes."""
    base = corpus() / PREFIX
    out: dict[str, list[Outcome]] = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        for i, rel in enumerate(only if only is not None else modules()):
            for root in roots:
                out[rel].append(load_one(base / rel, rel, root, Path(tmp), i))
    return out


def passing(results: dict[str, list[Outcome]]) -> list[str]:
    """Modules that load under every root."""
    return [rel for rel, outs in results.items() if all(o.status == "ok" for o in outs)]


def _function_imports(text: str) -> list[tuple[str, str]]:
    """(legacy module, name) of each `from openvino.tools.mo... import name` inside a function."""
    found = []
    for fn in ast.walk(ast.parse(text)):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += [(n.module, a.name) for n in ast.walk(fn) if isinstance(n, ast.ImportFrom)
                      and (n.module or "").startswith("openvino.tools.mo.") for a in n.names]
    return found


def missing_in_functions(results: dict[str, list[Outcome]]) -> dict[str, list[str]]:
    """For the modules that load: legacy names their functions import that do not resolve
    (those fail only when the function runs) -> the modules."""
    import importlib

    from converter.legacy import legacy_imports

    base = corpus() / PREFIX
    found: dict[str, list[str]] = collections.defaultdict(list)
    with legacy_imports():
        for rel in passing(results):
            for module, name in _function_imports((base / rel).read_text()):
                try:
                    getattr(importlib.import_module(module), name)
                except ImportError:
                    found[f"{module[len('openvino.tools.mo.'):]}.{name}"].append(rel)
    return found


def tally(results: dict[str, list[Outcome]]) -> str:
    firsts = {rel: next((o for o in outs if o.status != "ok"), None)
              for rel, outs in results.items()}
    status = collections.Counter(o.status if o else "ok" for o in firsts.values())
    names = collections.Counter(o.detail for o in firsts.values() if o and o.status == "missing")
    errors = collections.Counter(o.detail for o in firsts.values() if o and o.status == "error")
    lines = [f"{status['ok']} of {len(results)} modules load under every root ({', '.join(ROOTS)})",
             f"  framework-bound (counted apart): {status['framework']}",
             f"  missing a legacy name: {status['missing']} ({len(names)} distinct names)",
             f"  other errors: {status['error']}", "most-missing names:"]
    lines += [f"  {n:4d}  {name}" for name, n in names.most_common(40)]
    lines += ["other errors:"] + [f"  {n:4d}  {e}" for e, n in errors.most_common(15)]
    later = missing_in_functions(results)
    lines.append(f"names imported inside functions of loading modules that do not resolve: "
                 f"{len(later)} (in {len({r for rs in later.values() for r in rs})} modules)")
    lines += [f"  {len(rs):4d}  {name}" for name, rs in
              sorted(later.items(), key=lambda kv: -len(kv[1]))[:15]]
    return "\n".join(lines)


DOCS = Path(__file__).resolve().parents[2] / "docs" / "migration.md"
BEGIN, END = "<!-- mo-corpus:begin -->", "<!-- mo-corpus:end -->"


def markdown(results: dict[str, list[Outcome]]) -> str:
    """The failing modules grouped by the missing name that stops them (first root first)."""
    by_name: dict[str, list[str]] = collections.defaultdict(list)
    framework, other = [], []
    for rel, outs in sorted(results.items()):
        bad = next((o for o in outs if o.status != "ok"), None)
        if bad is not None and bad.status == "missing":
            by_name[bad.detail].append(rel)
        elif bad is not None and bad.status == "framework":
            framework.append(f"`{rel}`")
        elif bad is not None:
            other.append(f"`{rel}` ({bad.detail})")
    ok = len(passing(results))
    lines = [BEGIN, f"{ok} of {len(results)} modules load under every legacy root "
             f"(`python -m tests.legacy.mo_corpus`)."]
    if by_name:
        lines[-1] += (f" The others, by the legacy name that stops them ({len(by_name)} names; "
                      "most-needed first):")
        lines.append("")
    for name, rels in sorted(by_name.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"- `{name}` ({len(rels)}): " + ", ".join(f"`{r}`" for r in rels))
    lines += ["", "Counted apart, needing a framework: " + ", ".join(framework) + ".", ""]
    lines += ["Failing otherwise: " + "; ".join(other) + ".", ""] if other else []
    lines.append(END)
    return "\n".join(lines)


def write_docs(results: dict[str, list[Outcome]]) -> None:
    """Replace the generated section of docs/migration.md."""
    text = DOCS.read_text()
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    DOCS.write_text(head + markdown(results) + tail)


if __name__ == "__main__":
    found = run()
    print(tally(found))
    if "--write-docs" in sys.argv:
        write_docs(found)
