"""Ops that change nothing go as ovc makes them go (converter/back/nop_elimination.py): the IR's
op types are ovc's on the same model, its outputs keep their names, and it computes what the
model does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from tests.ovc_forms import assert_ovc_form, onnx_model


def _i(*v: int) -> np.ndarray:
    return np.array(v, np.int64)


# name -> (nodes over "x" -> "y", initializers, y's shape)
CASES = {
    "zero_pad": ([helper.make_node("Pad", ["x", "pads", "v"], ["p"]),
                  helper.make_node("Relu", ["p"], ["y"])],
                 {"pads": _i(0, 0, 0, 0, 0, 0, 0, 0), "v": np.float32(0)}, [1, 4, 6, 6]),
    "zero_pad_output": ([helper.make_node("Relu", ["x"], ["r"]),
                         helper.make_node("Pad", ["r", "pads", "v"], ["y"])],
                        {"pads": _i(0, 0, 0, 0, 0, 0, 0, 0), "v": np.float32(0)}, [1, 4, 6, 6]),
    "pad_of_input_to_output": ([helper.make_node("Pad", ["x", "pads", "v"], ["y"])],
                               {"pads": _i(0, 0, 0, 0, 0, 0, 0, 0), "v": np.float32(0)},
                               [1, 4, 6, 6]),
    "real_pad": ([helper.make_node("Pad", ["x", "pads"], ["y"])],  # ovc writes the value 0
                 {"pads": _i(0, 0, 1, 0, 0, 0, 0, 1)}, [1, 4, 7, 7]),
    "reshape_chain": ([helper.make_node("Reshape", ["x", "rows"], ["r"]),
                       helper.make_node("Reshape", ["r", "flat"], ["f"]),
                       helper.make_node("Reshape", ["f", "back"], ["y"])],
                      {"rows": _i(1, 4, 36), "flat": _i(144), "back": _i(1, 2, 72)},
                      [1, 2, 72]),
    "reshape_read_twice": ([helper.make_node("Reshape", ["x", "rows"], ["r"]),
                            helper.make_node("Reshape", ["r", "back"], ["b"]),
                            helper.make_node("Relu", ["r"], ["rr"]),
                            helper.make_node("Reshape", ["rr", "back"], ["b2"]),
                            helper.make_node("Add", ["b", "b2"], ["y"])],
                           {"rows": _i(1, 4, 36), "back": _i(1, 144)}, [1, 144]),
    "add_zero": ([helper.make_node("Relu", ["x"], ["r"]),
                  helper.make_node("Add", ["zero", "r"], ["a"]),
                  helper.make_node("Mul", ["a", "one"], ["m"]),
                  helper.make_node("Div", ["m", "one"], ["d"]),
                  helper.make_node("Sub", ["d", "zero"], ["y"])],
                 {"zero": np.float32(0), "one": np.ones((1, 1, 1, 1), np.float32)},
                 [1, 4, 6, 6]),
    "add_zeros_kept": ([helper.make_node("Relu", ["x"], ["r"]),
                        helper.make_node("Add", ["r", "zeros"], ["a"]),
                        helper.make_node("Relu", ["a"], ["y"])],
                       {"zeros": np.zeros((1, 4, 1, 6), np.float32)}, [1, 4, 6, 6]),
    "add_zeros_broadcast": ([helper.make_node("Add", ["x", "zeros"], ["a"]),
                             helper.make_node("Relu", ["a"], ["y"])],
                            {"zeros": np.zeros((2, 4, 6, 6), np.float32)}, [2, 4, 6, 6]),
    "sub_from_zeros": ([helper.make_node("Sub", ["zeros", "x"], ["s"]),
                        helper.make_node("Relu", ["s"], ["y"])],
                       {"zeros": np.zeros(6, np.float32)}, [1, 4, 6, 6]),
    "concat_of_one": ([helper.make_node("Relu", ["x"], ["r"]),
                       helper.make_node("Concat", ["r"], ["c"], axis=1),
                       helper.make_node("Exp", ["c"], ["y"])], {}, [1, 4, 6, 6]),
    "concat_of_one_as_output": ([helper.make_node("Relu", ["x"], ["r"]),
                                 helper.make_node("Concat", ["r"], ["y"], axis=1)], {},
                                [1, 4, 6, 6]),
    "reshape_zero_copies": ([helper.make_node("Reshape", ["x", "rows"], ["r"]),
                             helper.make_node("Reshape", ["r", "keep"], ["y"])],
                            {"rows": _i(2, 2, 36), "keep": _i(0, -1)}, [2, 72]),
    "split_of_one": ([helper.make_node("Relu", ["x"], ["r"]),
                      helper.make_node("Split", ["r"], ["s"], axis=1),
                      helper.make_node("Exp", ["s"], ["y"])], {}, [1, 4, 6, 6]),
    "transposes_fused": ([helper.make_node("Relu", ["x"], ["r"]),
                          helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1, 3]),
                          helper.make_node("Transpose", ["t"], ["t2"], perm=[0, 1, 3, 2]),
                          helper.make_node("Transpose", ["t2"], ["t3"], perm=[3, 1, 2, 0]),
                          helper.make_node("Softmax", ["t3"], ["y"])], {}, [4, 6, 6, 1]),
    "transposes_cancel": ([helper.make_node("Relu", ["x"], ["r"]),
                           helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 3, 1]),
                           helper.make_node("Transpose", ["t"], ["t2"], perm=[0, 3, 1, 2]),
                           helper.make_node("Exp", ["t2"], ["y"])], {}, [1, 4, 6, 6]),
    "transposes_as_output": ([helper.make_node("Relu", ["x"], ["r"]),
                              helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 3, 1]),
                              helper.make_node("Transpose", ["t"], ["y"], perm=[0, 2, 1, 3])],
                             {}, [1, 6, 6, 4]),
    "transpose_read_twice": ([helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 3, 1]),
                              helper.make_node("Transpose", ["t"], ["t2"], perm=[0, 3, 1, 2]),
                              helper.make_node("Relu", ["t"], ["r"]),
                              helper.make_node("Transpose", ["r"], ["t3"], perm=[0, 3, 1, 2]),
                              helper.make_node("Add", ["t2", "t3"], ["y"])], {}, [1, 4, 6, 6]),
    # an op of several outputs cannot take the output's name: ovc keeps the Add
    "add_zero_after_topk": ([helper.make_node("TopK", ["x", "k"], ["t", "i"], axis=-1),
                             helper.make_node("Add", ["t", "zero"], ["y"])],
                            {"k": _i(2), "zero": np.float32(0)}, [1, 4, 6, 2]),
    "add_zero_after_topk_inside": ([helper.make_node("TopK", ["x", "k"], ["t", "i"], axis=-1),
                                    helper.make_node("Add", ["t", "zero"], ["a"]),
                                    helper.make_node("Relu", ["a"], ["y"])],
                                   {"k": _i(2), "zero": np.float32(0)}, [1, 4, 6, 2]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_ir_holds_ovc_s_ops_and_computes_the_model(tmp_path: Path, name: str) -> None:
    assert_ovc_form(onnx_model(tmp_path / f"{name}.onnx", *CASES[name]), tmp_path)
