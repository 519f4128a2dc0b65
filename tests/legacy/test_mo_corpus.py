"""MO 2023.3's own front/middle/back/ops modules, each loaded unmodified as an extension folder
under every legacy root: the number that import, register, build and order only grows
(tests/data/mo_corpus_min_ok.txt pins it; raise it when you make more load)."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_a_2021_folder_imports_through_mo_and_extensions() -> None:
    text = ("from openvino.tools.mo.graph.graph import Graph\n"
            "from openvino.tools.mo.ops.elementwise import Mul\n")
    assert mo_corpus.rewrite(text, "mo+extensions") == (
        "from mo.graph.graph import Graph\n"
        "from extensions.ops.elementwise import Mul\n")
