"""`python -m extgen.paddle_model FOLDER`: FOLDER/model.pdmodel, a PaddlePaddle static program
holding one custom op as FOLDER/paddle_op.json describes it (extgen.framework_models writes it;
run apart because paddle crashes when imported after tensorflow). Paddle builds no op it has no
kernel for, so the program holds a registered op that Paddle's own OpDesc then retypes, renames
the ports of and gives the attributes; every dim is dynamic."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def build(spec: dict) -> bytes:
    """The serialized ProgramDesc (what OpenVINO's Paddle frontend reads)."""
    import paddle
    from paddle.pir_utils import OldIrGuard  # OpenVINO reads ProgramDesc, not PIR

    with OldIrGuard():
        paddle.enable_static()
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            xs = [paddle.static.data(f"in{k}", [-1] * rank, dtype)
                  for k, (rank, dtype) in enumerate(spec["inputs"])]
            block = main.global_block()
            outs = [block.create_var(name=f"out{k}", dtype=dtype, shape=[-1] * rank)
                    for k, (rank, dtype) in enumerate(spec["outputs"])]
            node = block.append_op(type="assign", inputs={"X": [xs[0]]},
                                   outputs={"Out": [outs[0]]})
        desc = node.desc
        desc.set_type(spec["type"])
        desc.remove_input("X")
        desc.remove_output("Out")
        for name, var in zip(spec["input_names"], xs):
            desc.set_input(name, [var.name])
        for name, var in zip(spec["output_names"], outs):
            desc.set_output(name, [var.name])
        for name, value in spec["attrs"]:
            node._set_attr(name, value)
        return paddle.static.normalize_program(main, xs, outs).desc.serialize_to_string()


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    spec = json.loads((folder / "paddle_op.json").read_text())
    (folder / "model.pdmodel").write_bytes(build(spec))
