"""extgen's IR with each MO pass module as its only extension (tests/legacy/mo_pass_runs.py)
against MO 2023.3's IR of the same model: the same op types (as a multiset) and the same outputs
within 1e-5, both run in OpenVINO.

MO refuses a verbatim copy of one of its own pass modules as an extension: the copy's classes and
its own share their names ("Transform name `X` is not unique", a bug report), or, keyed by the
same op, the copy is dropped. What MO does with the module is therefore what it does without it:
its own copy of the module runs in every conversion. MO's answer for (model, module) is its IR of
the model (recorded through tests/mo_oracle.py).

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
from tests import mo_oracle
from tests.child_env import child_env
from tests.legacy import mo_pass_runs
from tests.legacy.mo_pass_models import Model, write_models

# frameworks whose legacy MO runs here (MO's venv has no TensorFlow or MXNet)
ORACLE_FRAMEWORKS = ("onnx", "caffe", "kaldi")
TOLERANCE = 1e-5


@dataclass(frozen=True)
class Verdict:
    only_mo: tuple[tuple[str, int], ...]  # op types MO's IR has more of (type, how many more)
    only_extgen: tuple[tuple[str, int], ...]
    max_diff: float  # largest output difference (inf: shapes differ)

    @property
    def same(self) -> bool:
        return not self.only_mo and not self.only_extgen and self.max_diff <= TOLERANCE

    def within(self, base: Verdict) -> bool:
        """No op difference that `base` (extgen without the module) does not have, and outputs
        as close: the module did what MO's copy did, or nothing."""
        def covered(mine: tuple, theirs: tuple) -> bool:
            return all(n <= dict(theirs).get(op, 0) for op, n in mine)

        return (covered(self.only_mo, base.only_mo) and covered(self.only_extgen, base.only_extgen)
                and self.max_diff <= max(base.max_diff, TOLERANCE))

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
    """Output pairs that share a tensor name (MO keeps outputs a model leaves unused)."""
    return [(g, w) for gk, g in got.items() for wk, w in want.items()
            if set(gk.split(",")) & set(wk.split(","))]


def compare(ours: Path, theirs: Path) -> Verdict:
    mine, mo = op_types(ours), op_types(theirs)
    got, want = _outputs(ours, 0), _outputs(theirs, 0)
    pairs = _named_alike(got, want)
    if len(pairs) != len(got) or any(g.shape != w.shape for g, w in pairs):
        diff = float("inf")
    else:
        diff = max((float(np.max(np.abs(g - w), initial=0)) for g, w in pairs), default=0.0)
    return Verdict(tuple(sorted((mo - mine).items())), tuple(sorted((mine - mo).items())), diff)


@dataclass
class Comparison:
    """One pass module's IRs against MO's, on the models it ran on that MO can convert here."""

    rel: str
    status: str  # from mo_pass_runs, or: same as MO | differs as without it | differs
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    detail: str = ""  # the refusal, error or why not applicable


def mo_irs(models: dict[str, list[Model]], work: Path) -> dict[str, Path]:
    """model name -> MO's IR of it (recorded), for the frameworks MO runs here."""
    return {m.name: mo_oracle.convert(m.path, work / "mo" / m.name, m.mo_flags())
            for fw in ORACLE_FRAMEWORKS for m in models.get(fw, [])}


def baselines(models: dict[str, list[Model]], mo: dict[str, Path],
              work: Path) -> dict[str, Verdict]:
    """model name -> extgen's IR without extensions against MO's."""
    found = {}
    for m in (m for ms in models.values() for m in ms if m.name in mo):
        ours = convert(ConvertOptions(m.path, output_dir=work / "base" / m.name, **m.options()))
        found[m.name] = compare(ours.xml, mo[m.name])
    return found


def judge(run: mo_pass_runs.ModuleRun, mo: dict[str, Path],
          base: dict[str, Verdict]) -> Comparison:
    found = Comparison(run.rel, run.status, detail=run.detail)
    if run.status != "ran":
        return found
    try:
        found.verdicts = {name: compare(xml, mo[name]) for name, xml in run.irs.items()
                          if name in mo}
    except RuntimeError as err:  # OpenVINO cannot compile the IR the module left
        found.status, found.detail = "error", "OpenVINO: " + str(err).strip().splitlines()[-1]
        return found
    if not found.verdicts:
        found.status = "ran, no MO oracle"
    elif all(v.same for v in found.verdicts.values()):
        found.status = "same as MO"
    elif all(v.within(base[name]) for name, v in found.verdicts.items()):
        found.status = "differs as without it"
    else:
        found.status = "differs"
    return found


def measure(only: list[str] | None = None, work: Path | None = None) -> tuple[
        dict[str, Comparison], dict[str, Verdict]]:
    """Each pass module -> its comparison; and each model's extgen-vs-MO baseline."""
    with tempfile.TemporaryDirectory() as tmp:
        work = work or Path(tmp)
        runs = mo_pass_runs.run(only, work)
        models = write_models(work / "models")
        mo = mo_irs(models, work)
        base = baselines(models, mo, work)
        return {rel: judge(r, mo, base) for rel, r in runs.items()}, base


def table(found: dict[str, Comparison], base: dict[str, Verdict]) -> str:
    counts = collections.Counter(c.status for c in found.values())
    lines = [f"{len(found)} pass modules: " + ", ".join(f"{k} {v}" for k, v in
                                                          sorted(counts.items()))]
    lines += [f"  baseline {name}: {'same' if v.same else v}" for name, v in base.items()]
    for rel, c in sorted(found.items()):
        if c.status in ("error", "refuses", "not applicable", "skipped"):
            lines.append(f"  {c.status} {rel}: {c.detail}"[:300])
        if c.status == "differs":
            bad = {n: str(v) for n, v in c.verdicts.items() if not v.within(base[n])}
            lines.append(f"  differs {rel}: {bad}")
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
