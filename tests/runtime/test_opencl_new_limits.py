"""`extgen new` warns, naming the plugin's rule, for what OpenVINO's GPU and MYRIAD plugins
cannot run of the kernels it generates (both bind every tensor as BFYX).

Facts: MYRIAD (2022.3) src/plugins/intel_myriad/graph_transformer/src/stages/custom.cpp orders
a BFYX tensor NCHW, which model/data_desc.cpp DataDesc::reorder asserts on a tensor of another
rank, and reads dim Scalars with dims.at(index - 4 + rank); parseCustom asserts one output.
GPU: src/plugins/intel_gpu/src/plugin/ops/custom.cpp sizes the output from dims 0..3 and
registers OUTPUT0 alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from extgen.cli import main


def _warnings(tmp_path: Path, capsys, shape: dict, targets: list[str]) -> list[str]:
    op = {"name": "Shaped", "shape": shape, "expression": "x"}
    config = tmp_path / "op.json"
    config.write_text(json.dumps({"targets": ["mo-op", *targets], "ops": [op]}))
    assert main(["new", "--config", str(config), "--output_dir", str(tmp_path / "out")]) == 0
    return [line for line in capsys.readouterr().out.splitlines() if line.startswith("warning")]


@pytest.mark.parametrize(("names", "dims", "vpu", "gpu"), [
    (["N", "C", "H", "W"], ["N", "C", "H", "W"], False, False),
    (["N", "C", "H", "W"], ["N", "C * H * W"], True, False),  # the output is rank 2
    (["C", "H", "W"], ["C", "H", "W"], True, False),
    (["N", "C", "D", "H", "W"], ["N", "C", "D", "H", "W"], True, True),
])
def test_new_warns_for_ranks_the_plugins_cannot_run(tmp_path, capsys, names, dims, vpu,
                                                    gpu) -> None:
    shape = {"kind": "formula", "names": names, "dims": dims}
    lines = _warnings(tmp_path, capsys, shape, ["ie-gpu-ext", "ie-vpu-ext"])
    rank = f"(input rank {len(names)}, output rank {len(dims)})"
    assert any("MYRIAD plugin orders a BFYX tensor as NCHW" in w and rank in w
               for w in lines) == vpu
    assert any("GPU plugin lays a custom layer's tensors out in 4D formats" in w
               for w in lines) == gpu
    assert all(w.startswith("warning: Shaped: ") for w in lines)


def test_only_the_generated_targets_are_warned_about(tmp_path, capsys) -> None:
    shape = {"kind": "formula", "names": ["C", "H", "W"], "dims": ["C", "H", "W"]}
    assert _warnings(tmp_path, capsys, shape, ["ie-gpu-ext"]) == []
