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
    "middle/SliceConverter.py": ("converts the Slices extgen keeps to StridedSlices, as MO's "
                                 "would; MO fused those Slices to a Split first (same outputs)"),
    "back/MatMulNormalizer.py": "a port's data.get_shape() is an int, not MO's shape array",
    "front/kaldi/set_ports.py": "edges carry no fw_tensor_debug_info",
    "middle/MergeNodesPermutations.py": "edge keys are not MO's 0, 1, ... (get_edge_data()[0])",
    "back/StridedSliceMasksNormalizer.py": ("its IR of kaldi_lstm does not compile in OpenVINO "
                                            "(a ReadValue initialised [1,4,3] for a [1,3] "
                                            "variable); not traced"),
    "middle/ConvertGroupedStridedSlice.py": ("reads `slices`, which MO's StridedSlice inference "
                                             "left on the node; extgen's (Kaldi dim ranges) "
                                             "has none"),
    "middle/StridedSliceNormalizer.py": ("calls StridedSlice.align_mask_with_slice_rank, which "
                                         "extgen's StridedSlice lacks"),
    "middle/SharedWeightsDuplication.py": ("gives each consumer of a shared Const its own copy, "
                                           "as in MO; MO's IR has fewer Consts (same outputs)"),
}

# model -> why extgen's IR without any extension differs from MO's (every module that changes
# nothing there differs the same way: status "differs as without it")
BASE_DIFFERS = {
    "activations": ("MO writes Softmax-13 as Reshape+SoftMax-1+Reshape and Reciprocal as "
                    "Power"),
    "norms": ("MO writes the L2 norm's Sqrt as Power; extgen's InstanceNormalization keeps 2 "
              "Reshapes"),
    "movement": "MO fuses Reshape-Transpose-Reshape to ShuffleChannels, Slices+Concat to Split",
    "conv": "MO computes Resize's output shape in the IR (ShapeOf, Floor, StridedSlice...)",
    "selection": "MO keeps TopK's unused indices output as a Result",
}

# status -> modules (322 corpus files: 320 pass modules, a base-class file, one needing TF)
PINNED = {"same as MO": 20, "differs as without it": 183, "ran, no MO oracle": 70,
          "not applicable": 30, "refuses": 8, "error": 6, "differs": 3, "framework": 1,
          "no pass": 1}
GOOD = ("same as MO", "differs as without it", "ran, no MO oracle")


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
    assert found["front/HSwish_fusion.py"].status == "differs as without it"


def test_refusals_are_one_line_naming_the_module(tmp_path: Path) -> None:
    runs = mo_pass_runs.run(["middle/quantize_fuses.py"], tmp_path)
    record = runs["middle/quantize_fuses.py"]
    assert record.status == "refuses"
    assert "\n" not in record.detail and "middle/quantize_fuses.py:" in record.detail
