"""Shape checks refuse what OpenVINO's own validation refuses, and only that: each case is
built in OpenVINO (its Python opset) and through our op's check_inputs/infer_shapes."""

from __future__ import annotations

import numpy as np
import pytest

from converter.ops import Op

OPS = Op.registered_ops
ov_ops = pytest.importorskip("openvino.opset13")


def _ours(op: str, shapes: list, values: list, **attrs) -> tuple[str | None, list]:
    """(check_inputs' problem, infer_shapes' output or [] when refused)."""
    cls = OPS[op]
    full = {**cls.defaults, **attrs}
    types = [np.dtype(np.float32)] * len(shapes)
    problem = cls.check_inputs(full, shapes, types, values)
    return problem, [] if problem else cls.infer_shapes(full, shapes, values)


def _openvino(build) -> tuple | None:
    """The output shape OpenVINO infers (-1 for dynamic), None when it refuses the node."""
    try:
        shape = build().get_output_partial_shape(0)
    except RuntimeError:
        return None
    return tuple(d.get_length() if d.is_static else -1 for d in shape)


def _param(shape: tuple):
    return ov_ops.parameter([d if d >= 0 else -1 for d in shape], np.float32)


RESHAPES = [
    ((1, 768, 10, 10), [1, 768, 196], True), ((1, 768, 10, 10), [0, 0, -1], True),
    ((2, 3, 4), [-1, 5], False), ((2, 3, 4), [0, -1], True), ((2, 3, 4), [0, 0, 0, 0], True),
    ((2, 3), [0, -1], False), ((2, 3), [-1, -1], False), ((2, 3), [-2, 3], False),
    ((2, 3), [6, 0], False), ((2, 3, 4), [0, -1, 5], True), ((-1, 3, 4), [0, 7, -1], True),
    ((-1, 3, 4), [0, 12], True), ((2, -1), [4, -1], False), ((-1, 6), [-1, 5], False),
    ((2, -1, 3), [0, -1, 4], True), ((2, 0), [0, -1], False), ((2, 3, 4), [4, 6], False),
    ((2, 3, 4), [24], False), ((2, 3, 4), [], False), ((1,), [], False),
]


@pytest.mark.parametrize(("shape", "target", "special_zero"), RESHAPES)
def test_reshape_refuses_what_openvino_refuses(shape, target, special_zero) -> None:
    problem, out = _ours("Reshape", [shape, (len(target),)], [None, np.array(target)],
                         special_zero=special_zero)
    want = _openvino(lambda: ov_ops.reshape(
        _param(shape), ov_ops.constant(np.array(target, np.int64)), special_zero))
    assert (problem is None) == (want is not None), problem
    if want is not None and 0 not in want:  # OpenVINO sizes a -1 next to zero-size dims 1
        assert out == [want]


def test_reshape_refuses_counts_openvino_lets_through_with_special_zero() -> None:
    """OpenVINO skips the element count when special_zero copies a dim (backward
    compatibility), then fails at run time; a conversion stops at once."""
    problem, _ = _ours("Reshape", [(2, 3, 4), (2,)], [None, np.array([0, 7])], special_zero=True)
    assert problem == ("cannot reshape [2,3,4] (24 elements) to [0,7] (special_zero: [2,7]) "
                       "(14 elements)")


def test_reshape_messages_name_the_shapes_and_counts() -> None:
    def problem(shape, target, special_zero=False):
        return _ours("Reshape", [shape, (len(target),)], [None, np.array(target)],
                     special_zero=special_zero)[0]

    assert problem((1, 768, 10, 10), [1, 768, 196], True) == (
        "cannot reshape [1,768,10,10] (76800 elements) to [1,768,196] (150528 elements)")
    assert problem((2, 3, 4), [-1, 5]) == ("cannot reshape [2,3,4] (24 elements) to [-1,5]: "
                                           "the dims besides -1 hold 5 elements, which do not "
                                           "divide 24")
    assert problem((2, 3), [0, -1]) == ("cannot reshape [2,3] (6 elements) to [0,-1]: the -1 "
                                        "dim cannot make a size-0 shape hold 6 elements")
    assert problem((2, 3), [-1, -1]) == "target shape [-1,-1] has more than one -1"
    assert problem((2, 3), [-2, 3]) == ("target shape [-2,3] holds -2; only -1 and sizes >= 0 "
                                        "are allowed")
    assert problem((2, 3), [0, 0, 0], True) == ("target shape [0,0,0] copies dim 2 "
                                                "(special_zero) of [2,3], which has rank 2")
    assert problem((-1, 3, 4), [0, 7, -1], True) == (
        "cannot reshape [?,3,4] to [0,7,-1] (special_zero: [?,7,?]): the dims besides -1 hold "
        "7 elements, which do not divide 12")
    assert problem(None, [2, -1]) is None


BROADCASTS = [
    ((1, 197, 768), (1, 101, 768), "numpy"), ((1, -1, 768), (1, 101, 768), "numpy"),
    ((2, 3), (5,), "numpy"), ((2, 1, 4), (3, 1), "numpy"), ((), (2, 3), "numpy"),
    ((2, 3), (2, 3), "none"), ((2, 3), (3,), "none"), ((2, 3), (2, 1), "none"),
    ((2, -1), (2, 3), "none"),
    ((2, 3, 4), (3, 4), "pdpd"), ((2, 3, 4), (2, 3), "pdpd"), ((2, 3, 4), (2, 1), "pdpd"),
    ((2, 3, 4), (2,), "pdpd"), ((2, 3, 4), (1, 3, 4), "pdpd"), ((2, 3, 4), (2, 3, 4, 1), "pdpd"),
    ((1, 3, 4), (2, 3), "pdpd"), ((2, 3, -1), (2, 3, 5), "pdpd"), ((2, 3, 4), (-1, 3), "pdpd"),
]


@pytest.mark.parametrize(("a", "b", "mode"), BROADCASTS)
def test_elementwise_broadcast_refuses_what_openvino_refuses(a, b, mode) -> None:
    problem, out = _ours("Add", [a, b], [None, None], auto_broadcast=mode)
    want = _openvino(lambda: ov_ops.add(_param(a), _param(b), auto_broadcast=mode))
    assert (problem is None) == (want is not None), problem
    assert out == ([want] if want is not None else [])


def test_elementwise_messages_and_pdpd_values() -> None:
    problem, _ = _ours("Add", [(1, 197, 768), (1, 101, 768)], [None, None])
    assert problem == ("shapes [1,197,768] and [1,101,768] do not broadcast "
                       "(auto_broadcast numpy)")
    problem, _ = _ours("Multiply", [(2, 3, 4), (3, 4)], [None, None], auto_broadcast="pdpd")
    assert problem == ("shape [3,4] does not broadcast into [2,3,4] (auto_broadcast pdpd: its "
                       "dims must match the first ones or be 1)")
    x, y = np.ones((2, 3, 4), np.float32), np.arange(6, dtype=np.float32).reshape(2, 3)
    (z,) = OPS["Add"].compute({"auto_broadcast": "pdpd"}, [x, y])
    np.testing.assert_array_equal(z, x + y[:, :, None])


@pytest.mark.parametrize(("cond", "then", "other", "mode"), [
    ((2, 1), (1, 3), (2, 3), "numpy"), ((4,), (2, 3), (3,), "numpy"),
    ((2, 3), (2, 3), (2, 1), "none"), ((2,), (2, 3), (2, 1), "pdpd"), ((3,), (2, 3), (2,), "pdpd"),
])
def test_select_refuses_what_openvino_refuses(cond, then, other, mode) -> None:
    problem, out = _ours("Select", [cond, then, other], [None] * 3, auto_broadcast=mode)
    want = _openvino(lambda: ov_ops.select(
        ov_ops.parameter(list(cond), np.bool_), _param(then), _param(other), mode))
    assert (problem is None) == (want is not None), problem
    assert out == ([want] if want is not None else [])


@pytest.mark.parametrize(("shapes", "axis"), [
    ([(1, 1, 768), (1, 196, 768)], 1), ([(1, 1, 768), (1, 196, 769)], 1),
    ([(1, 1, 768), (2, 196, 768)], -2), ([(1, -1, 768), (-1, 196, 768), (1, 2, -1)], 1),
    ([(1, 2), (1, 2, 3)], 0), ([(3, 2), (3, 2), (4, 2)], 1),
])
def test_concat_refuses_what_openvino_refuses(shapes, axis) -> None:
    problem, out = _ours("Concat", shapes, [None] * len(shapes), axis=axis)
    want = _openvino(lambda: ov_ops.concat([_param(s) for s in shapes], axis))
    assert (problem is None) == (want is not None), problem
    assert out == ([want] if want is not None else [])


def test_concat_message_names_the_inputs_and_dim() -> None:
    problem, _ = _ours("Concat", [(1, 1, 768), (1, 196, 768), (1, 5, 769)], [None] * 3, axis=1)
    assert problem == ("inputs 0 and 2 differ in dim 2, which is not the concat axis 1 "
                       "([1,1,768] vs [1,5,769])")
    problem, _ = _ours("Concat", [(1, 2), None, (1, 2, 3)], [None] * 3, axis=0)
    assert problem == "inputs 0 and 2 have ranks 2 and 3 ([1,2] vs [1,2,3])"


def test_ports_without_dims_are_not_judged() -> None:
    """An IR port of unknown rank has no <dim>s: the shim reads it as (), which is no scalar
    for Concat or Reshape to refuse."""
    assert OPS["Concat"].check_inputs({"axis": 0}, [(-1, 1), ()], [None] * 2, [None] * 2) is None
    assert OPS["Reshape"].check_inputs({"special_zero": False}, [(), (2,)],
                                       [None] * 2, [None, np.array([2, 3])]) is None
