"""Each of MO 2023.3's 320 pass modules as the only extension (tests/legacy/mo_pass_runs.py),
against MO's IR of the same models (tests/legacy/mo_pass_compare.py): no pass is silently
skipped, none crashes or differs from MO unless listed below with the reason, and the counts
only improve (lower a pin's error count, raise its good count, when you fix one).

    python -m tests.legacy.mo_pass_compare    # the table
"""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from tests.legacy import mo_pass_compare, mo_pass_runs

# module -> why it crashes, or differs from MO, with only itself as the extension
KNOWN = {
    "back/TopKNormalizer.py": ("the Result it adds on TopK's unused indices output reads the "
                               "ONNX tensor name 'topi'; MO's ONNX loader named no unused "
                               "output, so MO's emitter named it TopK_top:1"),
    "front/kaldi/set_ports.py": ("MO's Kaldi loader left one node per component for it to "
                                 "give ports; extgen's loader builds the components' inner ops "
                                 "(a Split feeding 5 consumers from 2 ports), which its "
                                 "port-count check rejects"),
    "middle/ConvertGroupedStridedSlice.py": ("groups kaldi_lstm's dim-range StridedSlices into a "
                                             "VariadicSplit: MO's were Crops until its back "
                                             "phase; on movement MO's grouped the StridedSlices "
                                             "its SliceConverter made of Slices extgen keeps"),
    "middle/SharedWeightsDuplication.py": ("gives each consumer of a shared Const its own copy, "
                                           "as in MO; on movement that is 2 more Consts in "
                                           "extgen, 1 in MO (same outputs)"),
}

# model -> why extgen's IR without any extension differs from MO's (status "as MO's, baseline
# differs" for a module that changed extgen's IR as MO's copy changed MO's, or left them no
# farther apart)
BASE_DIFFERS = {
    "activations": ("MO writes Softmax-13 as Reshape+SoftMax-1+Reshape and Reciprocal as "
                    "Power"),
    "norms": ("MO writes the L2 norm's Sqrt as Power; extgen's InstanceNormalization keeps 2 "
              "Reshapes"),
    "movement": "MO fuses Reshape-Transpose-Reshape to ShuffleChannels, Slices+Concat to Split",
    "conv": "MO computes Resize's output shape in the IR (ShapeOf, Floor, StridedSlice...)",
    "selection": "MO keeps TopK's unused indices output as a Result",
    "tf_conv": "MO writes TF's Softmax as SoftMax-1, extgen (as ovc) as Softmax-8",
    "mxnet_cnn": ("MO writes SoftMax-1 and names the output y:0; extgen writes Softmax-8 with "
                  "2 Reshapes around it and names the output y"),
    "tf_arith": ("MO writes Sub as an Add of the negated input and RealDiv as a Multiply by "
                 "Power(-1); extgen (as ovc) keeps Subtract and Divide"),
}

# status -> modules (322 corpus files: 320 pass modules, a base-class file, one needing TF)
PINNED = {"same as MO": 20, "as MO's, baseline differs": 258, "ran, no MO oracle": 0,
          "not applicable": 30, "refuses": 8, "error": 1, "differs": 3, "framework": 1,
          "no pass": 1}
GOOD = ("same as MO", "as MO's, baseline differs", "ran, no MO oracle")


@pytest.mark.slow
def test_each_mo_pass_module_alone_runs_as_mo_or_refuses(tmp_path: Path) -> None:
    status, base_differs, table = mo_pass_compare.measure_apart(tmp_path)
    assert len(status) == 322, table
    assert not [rel for rel, s in status.items() if s == "skipped"], table
    bad = {rel for rel, s in status.items() if s in ("error", "differs")}
    assert not bad - KNOWN.keys(), f"crash or differ from MO, not in KNOWN:\n{table}"
    assert not KNOWN.keys() - bad, f"fixed: remove from KNOWN: {sorted(KNOWN.keys() - bad)}"
    assert set(base_differs) == set(BASE_DIFFERS), table
    counts = collections.Counter(status.values())
    assert sum(counts[s] for s in GOOD) >= sum(PINNED.get(s, 0) for s in GOOD), table
    assert counts["error"] <= PINNED["error"], table


def test_a_static_pass_and_a_pattern_match_are_seen(tmp_path: Path) -> None:
    """The observer sees a static find_and_replace_pattern run and a pattern replace."""
    runs = mo_pass_runs.run(["middle/AddIsCyclicAttribute.py", "front/HSwish_fusion.py"],
                            tmp_path)
    assert runs["middle/AddIsCyclicAttribute.py"].classes["AddIsCyclicAttribute"].called
    hswish = runs["front/HSwish_fusion.py"].classes
    assert hswish["HSwishWithClamp"].changed == ["hswish"]
    assert hswish["HSwishWithMinMax"].called and not hswish["HSwishWithMinMax"].changed


def test_mo_s_hswish_pass_alone_gives_mo_s_ir(tmp_path: Path) -> None:
    found, base = mo_pass_compare.measure(["front/HSwish_fusion.py"], tmp_path)
    verdicts = found["front/HSwish_fusion.py"].verdicts
    assert verdicts["hswish"].same and base["hswish"].same  # extgen fuses HSwish as ovc does
    assert found["front/HSwish_fusion.py"].status == "as MO's, baseline differs"


def test_refusals_are_one_line_naming_the_module(tmp_path: Path) -> None:
    runs = mo_pass_runs.run(["middle/quantize_fuses.py"], tmp_path)
    record = runs["middle/quantize_fuses.py"]
    assert record.status == "refuses"
    assert "\n" not in record.detail and "middle/quantize_fuses.py:" in record.detail
