"""MO 2023.3's own front/middle/back/ops modules, each loaded unmodified as an extension folder
under every legacy root: the number that import, register, build and order only grows
(tests/data/mo_corpus_min_ok.txt pins it; raise it when you make more load)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.child_env import child_env
from tests.legacy import mo_corpus

PINNED = Path(__file__).resolve().parents[1] / "data" / "mo_corpus_min_ok.txt"


@pytest.mark.slow
def test_mo_corpus_loads_at_least_the_pinned_count() -> None:
    results = mo_corpus.run()
    assert len(results) == 900  # the corpus itself is the one the pin was taken on
    ok = len(mo_corpus.passing(results))
    pinned = int(PINNED.read_text().split()[0])
    assert ok >= pinned, f"fewer MO modules load than pinned ({ok} < {pinned}):\n" + \
        mo_corpus.tally(results)
    for outcome in (o for outs in results.values() for o in outs if o.status != "ok"):
        assert outcome.status == "framework" or _names_what_is_missing(outcome), outcome


def _names_what_is_missing(outcome: mo_corpus.Outcome) -> bool:
    """One line, from the module's file and line, naming the missing name in quotes."""
    text = outcome.message
    name = outcome.detail.rsplit(".", 1)[-1] if outcome.status == "missing" else r"[\w.]+"
    return "\n" not in text and bool(re.match(rf"{re.escape(outcome.rel)}:\d+: .*'{name}'", text))


def test_a_2021_folder_imports_through_mo_and_extensions() -> None:
    text = ("from openvino.tools.mo.graph.graph import Graph\n"
            "from openvino.tools.mo.ops.elementwise import Mul\n")
    assert mo_corpus.rewrite(text, "mo+extensions") == (
        "from mo.graph.graph import Graph\n"
        "from extensions.ops.elementwise import Mul\n")


@pytest.mark.slow
def test_two_workers_fetch_the_corpus_beside_an_older_checkout_s_mo_venv(tmp_path) -> None:
    """A fresh HOME but for the MO venv an older checkout made in ~/.cache/extgen/mo-2023.3:
    two processes at once both get the 900 modules (the corpus has a folder of its own)."""
    (tmp_path / ".cache" / "extgen" / "mo-2023.3" / "venv" / "bin").mkdir(parents=True)
    cache = subprocess.run([sys.executable, "-m", "pip", "cache", "dir"], capture_output=True,
                           text=True).stdout.strip()  # the wheel is not downloaded twice
    env = child_env(HOME=str(tmp_path), PIP_CACHE_DIR=cache)
    code = "from tests.legacy.mo_corpus import modules; print(len(modules()))"
    workers = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for worker in workers:
        out, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, err[-2000:]
        assert int(out) > 800


@pytest.mark.slow
def test_mo_pass_modules_together_order_without_a_cycle(tmp_path) -> None:
    """Every front/middle/back module of MO that loads alone, all in one folder: each phase
    orders as in MO (MarkSubgraphsWithCorrectLayout after PostMiddleStart once made a cycle
    with extgen's layout change)."""
    from converter.extensions import extension_scope, load_extension_dirs
    from converter.pipeline import _phase_passes

    base = mo_corpus.corpus() / mo_corpus.PREFIX
    rels = [rel for rel in mo_corpus.modules() if rel.split("/")[0] in ("front", "middle", "back")
            and not mo_corpus.needs_framework((base / rel).read_text())]
    for rel in rels:
        (tmp_path / "mo_passes" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "mo_passes" / rel).write_text((base / rel).read_text())
    alone = [rel for rel, outs in mo_corpus.run(("openvino.tools.mo",), only=rels).items()
             if outs[0].status == "ok"]
    for rel in set(rels) - set(alone):
        (tmp_path / "mo_passes" / rel).unlink()
    assert len(alone) > 600
    with extension_scope():
        load_extension_dirs([tmp_path / "mo_passes"], "onnx",
                            subdirs=tuple(sorted({str(Path(r).parent) for r in alone})))
        ordered = {phase: _phase_passes(phase) for phase in ("front", "middle", "back")}
    names = [c.__name__ for c in ordered["middle"]]
    assert names.index("PostMiddleStart") < names.index("MarkSubGraphsWithCorrectLayout") \
        < names.index("LayoutChangeNHWCtoNCHW")
