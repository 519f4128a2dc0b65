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
    "middle/ConvertGroupedStridedSlice.py": ("on shuffle MO's groups the StridedSlices its "
                                             "SliceConverter made of ONNX Slices, which extgen "
                                             "keeps as Slices"),
    "middle/SharedWeightsDuplication.py": ("gives each consumer of a shared Const its own copy, "
                                           "as in MO; on shuffle that is 2 more Consts in "
                                           "extgen, 1 in MO (same outputs)"),
}

# model -> why extgen's IR without any extension differs from MO's. The corpus keeps each such
# form in a small model of its own, so that on the others a module's IR is MO's or it differs;
# on these a module must change extgen's IR as MO's copy changed MO's, or leave them no farther
# apart ("as MO's, baseline differs" where it ran on no other model).
BASE_DIFFERS = {
    "softmax": ("MO writes Softmax-13 as Reshape+SoftMax-1+Reshape and Reciprocal as "
                "Power"),
    "l2_norms": "MO writes the L2 norm's Sqrt as Power",
    "shuffle": ("MO fuses Reshape-Transpose-Reshape to ShuffleChannels, Slices+Concat to Split, "
                "and folds Transposes away"),
    "resize": "MO computes Resize's output shape in the IR (ShapeOf, Floor, StridedSlice...)",
    "topk": ("MO keeps TopK's unused indices output as a Result, and its FakeOutputResolver's "
             "Add (OpenVINO cannot give an op of two outputs the output's name)"),
    "tf_softmax": ("MO writes Sub as an Add of the negated constant and Square as Power "
                   "(extgen, as ovc, Subtract and Multiply)"),
    "mxnet_softmax": ("MO writes SoftmaxOutput as SoftMax on axis 1; extgen flattens the input "
                      "to 2-D and back (2 Reshapes, no-ops on this 2-D input), as MXNet "
                      "defines it for any rank"),
    **dict.fromkeys(("lstm", "gru", "rnn"), (
        "MO keeps the layer's unused state outputs as Results and builds the sequence lengths "
        "and its state layout at run time (ShapeOf, Gather, Broadcast, Squeeze/Unsqueeze), "
        "which extgen, as ovc, folds")),
    "relu_qdq": ("MO's middle pass folds a ReLU into the FakeQuantize after it; extgen and ovc "
                 "keep the ReLU"),
    "cast64": ("MO's back pass makes a Cast to float64 float32, and then both Casts go; extgen "
               "and ovc keep the two Converts"),
    "slice9": "MO writes any Slice as StridedSlice; extgen, as ovc, Slice-8",
    "softmax9": ("MO writes Softmax-9 and LogSoftmax-9 over the last axis as Reshape, SoftMax "
                 "and Reshape, the shapes computed in the IR (ShapeOf, Gather, ReduceProd, "
                 "Concat)"),
    "resize10": "MO computes Resize's output shape in the IR (ShapeOf, Floor, StridedSlice...)",
    "tf_resize": ("MO computes TF resizes' scales and ReverseV2's sequence lengths in the IR "
                  "(ShapeOf, StridedSlice, Divide, Broadcast) and writes ReverseV2 as "
                  "ReverseSequence; extgen, as ovc, a Slice of step -1"),
    "loop": ("MO's middle pass moves the Loop's unchanged constant into its body (ovc does too), "
             "and MO drops a body input no op reads; extgen keeps both as body Parameters"),
}

# status -> modules (322 corpus files: 320 pass modules, a base-class file, one needing TF);
# "same as MO, not triggered" needs a model that one of its classes changes
PINNED = {"same as MO": 169, "same as MO, not triggered": 97, "as MO's, baseline differs": 8,
          "ran, no MO oracle": 0, "not applicable": 33, "refuses": 11, "error": 0, "differs": 2,
          "framework": 1, "no pass": 1}
GOOD = ("same as MO", "same as MO, not triggered", "as MO's, baseline differs",
        "ran, no MO oracle")


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
    assert counts["same as MO"] >= PINNED["same as MO"], table
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
    assert "hswish" in found["front/HSwish_fusion.py"].applies
    assert found["front/HSwish_fusion.py"].status == "same as MO"


def test_mo_s_onnx_replacer_reads_the_framework_node_as_in_mo(tmp_path: Path) -> None:
    """MO's HardSigmoid replacer reads the ONNX node's attributes (onnx_attr: node.pb), which
    extgen's translated node keeps where extension folders join."""
    found, _ = mo_pass_compare.measure(["front/onnx/hard_sigmoid_ext.py"], tmp_path)
    assert found["front/onnx/hard_sigmoid_ext.py"].status == "same as MO"
    assert "hard_sigmoid" in found["front/onnx/hard_sigmoid_ext.py"].applies


def test_refusals_are_one_line_naming_the_module(tmp_path: Path) -> None:
    runs = mo_pass_runs.run(["middle/quantize_fuses.py"], tmp_path)
    record = runs["middle/quantize_fuses.py"]
    assert record.status == "refuses"
    assert "\n" not in record.detail and "middle/quantize_fuses.py:" in record.detail


def test_a_pass_that_only_orders_others_is_not_applicable() -> None:
    """MO's phase separators (FrontStart, ...) do nothing: no model can trigger them."""

    class Separator:
        def find_and_replace_pattern(self, graph) -> None:
            """Only a place in the order."""
            pass

    class Worker:
        def find_and_replace_pattern(self, graph) -> None:
            graph.clean_up()

    assert mo_pass_runs._does_nothing(Separator)
    assert not mo_pass_runs._does_nothing(Worker)
