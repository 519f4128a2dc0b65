"""MO 2023.3's side of tests/legacy/mo_pass_compare.py, recorded through tests/mo_oracle.py:
its IR of each model (M1: MO runs its own copy of every pass module), and, for each pass module
one of whose classes changed MO's graph of a model (tests/legacy/mo_pass_probe.py), its IR of
the model with the module's classes disabled (M0). Where none of them changed anything, M0 is M1.

MO_DISABLED_TRANSFORMS (utils/class_registration.py) names a class as `module.Class` (or by an
`id` attribute); MO sets `enabled = False` on the direct subclasses of its replacer bases, the
only classes it registers, and apply_transform skips them, whatever their kind (pattern, op or
sub-graph replacer, front, middle or back). A class another pass calls directly still runs.
"""

from __future__ import annotations

import ast
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tests import mo_oracle
from tests.legacy import mo_corpus
from tests.legacy.mo_pass_models import Model
from tests.legacy.mo_pass_runs import frameworks_of

# frameworks whose models MO converts here (scripts/record_mo_fixtures.py installs TF and MXNet)
ORACLE_FRAMEWORKS = ("onnx", "caffe", "kaldi", "tf", "mxnet")
# how the names of MO's replacer base classes end (FrontReplacementOp, MiddleReplacementPattern,
# FrontReplacementFromConfigFileSubGraph, ...): the classes of a pass module MO registers
_REPLACER_BASES = ("ReplacementPattern", "ReplacementOp", "ReplacementSubgraph", "SubGraph",
                   "General")


@dataclass
class Answers:
    with_all: dict[str, Path]  # model -> M1
    # (module, model) -> M0 where a class of the module changed MO's graph, or why MO failed
    without: dict[tuple[str, str], Path | str]


def mo_classes(rel: str) -> list[str]:
    """`module.Class` of each transformation class that rel (front/x.py) defines in MO."""
    module = "openvino.tools.mo." + rel.removesuffix(".py").replace("/", ".")
    tree = ast.parse((mo_corpus.corpus() / mo_corpus.PREFIX / rel).read_text())
    return [f"{module}.{c.name}" for c in tree.body if isinstance(c, ast.ClassDef)
            and any(ast.unparse(b).endswith(_REPLACER_BASES) for b in c.bases)]


def oracle_models(models: dict[str, list[Model]]) -> list[Model]:
    return [m for fw in ORACLE_FRAMEWORKS for m in models.get(fw, [])]


def _without(rel: str, model: Model, classes: list[str], work: Path) -> Path | str:
    out = work / "mo0" / rel.replace("/", "_") / model.name
    try:
        return mo_oracle.convert(model.path, out, model.mo_flags(), classes)
    except mo_oracle.Refused as err:
        return "MO fails without it: " + (str(err).splitlines() or ["?"])[-1][:200]


def answers(models: dict[str, list[Model]], rels: list[str], work: Path) -> Answers:
    """M1 of each model MO converts here; M0 of each (module of rels, model) that has one."""
    with_all = {m.name: mo_oracle.convert(m.path, work / "mo" / m.name, m.mo_flags())
                for m in oracle_models(models)}
    jobs = []
    for m in oracle_models(models):
        changed = set(mo_oracle.changed_passes(m.path, work / "probe" / m.name, m.mo_flags()))
        for rel in rels:
            classes = mo_classes(rel)
            if m.framework in frameworks_of(rel) and changed & set(classes):
                jobs.append((rel, m, classes))
    with ThreadPoolExecutor(2) as pool:  # MO takes seconds a conversion when it records
        done = list(pool.map(lambda job: _without(*job, work), jobs))
    return Answers(with_all, {(rel, m.name): m0 for (rel, m, _), m0 in zip(jobs, done)})
