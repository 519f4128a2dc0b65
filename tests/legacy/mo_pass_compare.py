"""extgen's IR with each MO pass module as its only extension (tests/legacy/mo_pass_runs.py)
against MO 2023.3's IR of the same model: the same op types (as a multiset) and the same outputs
within 1e-5, both run in OpenVINO.

MO refuses a verbatim copy of one of its own pass modules as an extension: the copy's classes and
its own share their names ("Transform name `X` is not unique", a bug report), or, keyed by the
same op, the copy is dropped. What MO does with the module is therefore what it does without it:
its own copy of the module runs in every conversion. MO's answer for (model, module) is its IR of
the model, M1 (recorded through tests/mo_oracle.py), and what the module did there is M1 against
M0, MO's IR with the module's classes disabled (MO_DISABLED_TRANSFORMS); M0 is recorded only where
one of those classes changed MO's graph of the model (tests/legacy/mo_pass_probe.py), else it is M1.

With E1 and E0 extgen's IR with and without the module, on each model: E1 is M1 (op types as
a multiset, outputs within 1e-5), or the module changed extgen's IR as MO's copy changed MO's
(E1 - M1 is E0 - M0, outputs as close) or left the two no farther apart (E1 and M1 as few ops
apart as E0 and M0, outputs as close); else the module "differs". Where MO cannot convert a
model without the module, the module is a step of MO's own pipeline (extgen's does that step
itself): E1 and M1 as few ops apart as E0 and M1. A module that differs on no model is
- "same as MO" where E1 is M1 on a model it applies to (one of its classes changed MO's graph
  or extgen's);
- "same as MO, not triggered" where E1 is M1 only on models it left alone in both;
- "as MO's, baseline differs" where it changed extgen's graph only on models whose IR differs
  from MO's without the module too (MO writes any Slice as StridedSlice, keeps shape
  computations), or E1 is M1 on no model.

    python -m tests.legacy.mo_pass_compare     # prints the table
"""

from __future__ import annotations

import collections
import json
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.child_env import child_env
from tests.legacy import mo_pass_oracle, mo_pass_runs
from tests.legacy.mo_pass_models import Model, write_models

TOLERANCE = 1e-5


@dataclass(frozen=True)
class Verdict:
    only_mo: tuple[tuple[str, int], ...]  # op types MO's IR has more of (type, how many more)
    only_extgen: tuple[tuple[str, int], ...]
    max_diff: float  # largest output difference (inf: shapes differ)

    @property
    def same(self) -> bool:
        return not self.only_mo and not self.only_extgen and self.max_diff <= TOLERANCE

    @property
    def apart(self) -> int:
        """How many ops apart: the count of each op type one IR has more of, summed."""
        return sum(n for _, n in self.only_mo) + sum(n for _, n in self.only_extgen)

    def no_farther(self, base: Verdict) -> bool:
        """At most as many ops apart as `base`, and outputs as close; with the same op
        differences, the module changed extgen's IR as MO's copy changed MO's."""
        return self.apart <= base.apart and self.max_diff <= max(base.max_diff, TOLERANCE)

    def __str__(self) -> str:
        return (f"MO has more {dict(self.only_mo)}, extgen more {dict(self.only_extgen)}, "
                f"outputs differ by {self.max_diff:.2g}")


def op_types(xml: Path) -> collections.Counter:
    return collections.Counter(layer.get("type") for layer in ET.parse(xml).iter("layer"))


def _outputs(xml: Path, seed: int) -> dict[str, np.ndarray]:
    """Each output by its tensor names (joined), on inputs drawn from seed."""
    import openvino as ov

    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    rng = np.random.default_rng(seed)
    feed = [rng.standard_normal(list(p.get_shape())).astype(np.float32) for p in compiled.inputs]
    result = compiled(feed)
    return {",".join(sorted(out.get_names())): np.asarray(result[out])
            for out in compiled.outputs}


def _named_alike(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> list[tuple]:
    """Output pairs that share a tensor name (MO keeps outputs a model leaves unused); then
    those left, in name order, where both have as many left (the outputs MO and extgen named
    after their own ops: MO's `y` as `y:0` for MXNet, a kept LSTM state after each one's last
    op). Their values are compared: a wrong pairing shows as a difference."""
    pairs, left = [], (dict(got), dict(want))
    for gk, g in got.items():
        wk = next((wk for wk in left[1] if set(gk.split(",")) & set(wk.split(","))), None)
        if wk is not None and gk in left[0]:
            pairs.append((g, left[1].pop(wk)))
            del left[0][gk]
    if len(left[0]) == len(left[1]):
        pairs += [(left[0][gk], left[1][wk]) for gk, wk in zip(sorted(left[0]), sorted(left[1]))]
    return pairs


def compare(ours: Path, theirs: Path) -> Verdict:
    mine, mo = op_types(ours), op_types(theirs)
    got, want = _outputs(ours, 0), _outputs(theirs, 0)
    pairs = _named_alike(got, want)
    if len(pairs) != len(got) or any(g.shape != w.shape for g, w in pairs):
        diff = float("inf")
    else:
        diffs = [float(np.max(np.abs(g - w), initial=0)) for g, w in pairs]
        # (NaN: an IR that read memory it never wrote, as MO's without a pass it needed)
        diff = np.inf if np.isnan(diffs).any() else max(diffs, default=0.0)
    return Verdict(tuple(sorted((mo - mine).items())), tuple(sorted((mine - mo).items())), diff)


@dataclass
class Comparison:
    """One pass module's IRs against MO's, on the models it ran on that MO can convert here."""

    rel: str
    status: str  # from mo_pass_runs, or one of the module docstring's
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # E1 against M1, by model
    applies: list[str] = field(default_factory=list)  # models a class changed (MO's or extgen's)
    detail: str = ""  # the refusal, error or why not applicable
    why: dict[str, str] = field(default_factory=dict)  # model -> how it differs


def effect(after: Path, before: Path) -> dict[str, int]:
    """Op types `after` has more (or, negative, fewer) of than `before`."""
    a, b = op_types(after), op_types(before)
    return {op: a[op] - b[op] for op in sorted(a.keys() | b.keys()) if a[op] != b[op]}


@dataclass
class Baselines:
    """extgen's IR of each model without extensions (E0), against MO's with and without a
    module's classes (M1, M0)."""

    mo: mo_pass_oracle.Answers
    ours: dict[str, Path]  # model -> E0
    with_all: dict[str, Verdict]  # model -> E0 against M1
    _without: dict[tuple[str, str], Verdict | str] = field(default_factory=dict)

    def without(self, rel: str, model: str) -> Verdict | str:
        """E0 against M0 of (module, model): what the module's effect is measured from."""
        m0 = self.mo.without.get((rel, model))
        if m0 is None:
            return self.with_all[model]
        if isinstance(m0, str):
            return m0
        if (rel, model) not in self._without:
            try:
                self._without[rel, model] = compare(self.ours[model], m0)
            except RuntimeError as err:  # MO's own IR without the module
                last = str(err).strip().splitlines()[-1]
                self._without[rel, model] = f"MO's IR without it does not compile: {last}"
        return self._without[rel, model]


def baselines(models: dict[str, list[Model]], mo: mo_pass_oracle.Answers,
              work: Path) -> Baselines:
    ours = {}
    for m in (m for ms in models.values() for m in ms if m.name in mo.with_all):
        opts = ConvertOptions(m.path, output_dir=work / "base" / m.name, **m.options())
        ours[m.name] = convert(opts).xml
    return Baselines(mo, ours, {n: compare(xml, mo.with_all[n]) for n, xml in ours.items()})


def _why(run: mo_pass_runs.ModuleRun, name: str, base: Baselines, found: Verdict) -> str:
    """How the module differs from MO's copy on model `name` ("" where it does not): MO's copy
    changed its graph (M1 against M0) otherwise than extgen's changed extgen's (E1 against E0),
    and left the two IRs farther apart (the module did in one converter what it did not in
    the other).
    Where MO cannot convert the model without the module, E1 and M1 are as few ops apart as E0
    and M1."""
    m0 = base.without(run.rel, name)
    if found.same or (isinstance(m0, Verdict) and found.no_farther(m0)):
        return ""
    if isinstance(m0, str):  # a step of MO's own pipeline, which extgen's pipeline did itself
        ok = found.no_farther(base.with_all[name])
        return "" if ok else f"{m0}; extgen's IR with it: {found}"
    mo0 = base.mo.without.get((run.rel, name))
    mo_did = effect(base.mo.with_all[name], mo0) if isinstance(mo0, Path) else {}
    return (f"MO's copy changed {mo_did}, extgen's {effect(run.irs[name], base.ours[name])} "
            f"(with it: {found})")


def judge(run: mo_pass_runs.ModuleRun, base: Baselines) -> Comparison:
    found = Comparison(run.rel, run.status, detail=run.detail)
    if run.status != "ran":
        return found
    try:
        found.verdicts = {name: compare(xml, base.mo.with_all[name])
                          for name, xml in run.irs.items() if name in base.mo.with_all}
        found.why = {name: why for name, v in found.verdicts.items()
                     if (why := _why(run, name, base, v))}
    except RuntimeError as err:  # OpenVINO cannot compile the IR the module left
        found.status, found.detail = "error", "OpenVINO: " + str(err).strip().splitlines()[-1]
        return found
    changed = {name for c in run.classes.values() for name in c.changed}
    found.applies = [name for name in found.verdicts
                     if name in changed or (run.rel, name) in base.mo.without]
    same = [name for name, v in found.verdicts.items() if v.same]
    if not found.verdicts:
        found.status = "ran, no MO oracle"
    elif found.why:
        found.status = "differs"
    elif set(same) & set(found.applies):
        found.status = "same as MO"
    elif changed & set(found.verdicts):
        found.status = "as MO's, baseline differs"
    else:
        found.status = "same as MO, not triggered" if same else "as MO's, baseline differs"
    return found


def measure(only: list[str] | None = None, work: Path | None = None) -> tuple[
        dict[str, Comparison], dict[str, Verdict]]:
    """Each pass module -> its comparison; and each model's extgen-vs-MO baseline."""
    with tempfile.TemporaryDirectory() as tmp:
        work = work or Path(tmp)
        runs = mo_pass_runs.run(only, work)
        models = write_models(work / "models")
        base = baselines(models, mo_pass_oracle.answers(models, list(runs), work), work)
        return {rel: judge(r, base) for rel, r in runs.items()}, base.with_all


def table(found: dict[str, Comparison], base: dict[str, Verdict]) -> str:
    counts = collections.Counter(c.status for c in found.values())
    lines = [f"{len(found)} pass modules: " + ", ".join(f"{k} {v}" for k, v in
                                                          sorted(counts.items()))]
    lines += [f"  baseline {name}: {'same' if v.same else v}" for name, v in base.items()]
    for rel, c in sorted(found.items()):
        if c.status in ("error", "refuses", "not applicable", "skipped"):
            lines.append(f"  {c.status} {rel}: {c.detail}"[:300])
        if c.status == "differs":
            lines += [f"  differs {rel} on {name}: {why}" for name, why in c.why.items()]
    return "\n".join(lines)


def measure_apart(work: Path) -> tuple[dict[str, str], list[str], str]:
    """measure() in a Python of its own (what earlier tests left in a process changes how some
    MO passes end): each module's status, the models whose baseline differs, and the table."""
    code = ("import json, pathlib, sys; from tests.legacy import mo_pass_compare as m; "
            "found, base = m.measure(work=pathlib.Path(sys.argv[1])); "
            "print(json.dumps([{r: c.status for r, c in found.items()}, "
            "[n for n, v in base.items() if not v.same], m.table(found, base)]))")
    done = subprocess.run([sys.executable, "-c", code, str(work)], env=child_env(),
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AssertionError(done.stderr[-3000:])
    status, differs, text = json.loads(done.stdout.strip().splitlines()[-1])
    return status, differs, text


if __name__ == "__main__":
    print(table(*measure(sys.argv[1:] or None)))
