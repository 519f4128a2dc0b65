"""If, Loop and TensorIterator evaluated on plain-Python bodies: port maps, back edges, slicing
in both directions, special Loop ports, and inference through a body."""

from __future__ import annotations

import numpy as np
import pytest

from converter.ops.control._body import PortMap, PortRule, Spec
from converter.ops.control.if_op import If
from converter.ops.control.loop import Loop
from converter.ops.control.tensor_iterator import TensorIterator


class FnBody:
    """A body computing results {id: fn(feed)} from its parameters, counting its runs."""

    def __init__(self, **results) -> None:
        self.results, self.runs = results, 0

    def run(self, feed):
        self.runs += 1
        return {k: np.asarray(fn(feed)) for k, fn in self.results.items()}

    def spec(self, result):
        return Spec((-1,), np.dtype(np.int64))

    def infer(self, feed):
        return {k: Spec(np.shape(fn({p: np.zeros(s.shape) for p, s in feed.items()})),
                        np.dtype(np.float32)) for k, fn in self.results.items()}


def test_if_runs_the_branch_its_condition_picks() -> None:
    then, other = FnBody(r=lambda f: f["a"] + 1), FnBody(r=lambda f: f["b"] * 10)
    attrs = {"bodies": {"then_body": then, "else_body": other}, "port_maps": {
        "then_body": PortMap([PortRule(1, "a")], [PortRule(0, "r")]),
        "else_body": PortMap([PortRule(1, "b")], [PortRule(0, "r")])}}
    x = np.array([1.0, 2.0])
    assert If.evaluate(attrs, [np.array(True), x])[0].tolist() == [2, 3]
    assert If.evaluate(attrs, [np.array([False]), x])[0].tolist() == [10, 20]
    assert (then.runs, other.runs) == (1, 1)


def _loop(condition=lambda f: True):
    body = FnBody(acc=lambda f: f["acc"] + f["i"], part=lambda f: f["acc"][None] * 1,
                  go=condition)
    port_map = PortMap(
        [PortRule(-1, "i", purpose="current_iteration"), PortRule(2, "acc")],
        [PortRule(-1, "go", purpose="execution_condition"), PortRule(0, "acc"),
         PortRule(1, "part", axis=0)],
        [("acc", "acc")],
    )
    return body, {"bodies": {"body": body}, "port_maps": {"body": port_map}}


def test_loop_carries_values_and_concatenates_parts() -> None:
    body, attrs = _loop()
    acc, parts = Loop.evaluate(attrs, [np.array(4), np.array(True), np.array(10)])
    assert acc == 10 + 0 + 1 + 2 + 3 and parts.tolist() == [10, 10, 11, 13]
    assert body.runs == 4


def test_loop_stops_on_its_condition_and_may_not_run() -> None:
    body, attrs = _loop(lambda f: f["acc"] < 12)
    acc, _ = Loop.evaluate(attrs, [np.array(-1), np.array(True), np.array(10)])
    # the condition reads acc before the step: 10 -> 10 -> 11 -> 13 -> 16, when 13 < 12 fails
    assert acc == 16 and body.runs == 4
    body, attrs = _loop()
    acc, parts = Loop.evaluate(attrs, [np.array(5), np.array(False), np.array(7)])
    assert acc == 7 and body.runs == 0 and parts.shape == (0,) and parts.dtype == np.int64


@pytest.mark.parametrize("reverse", [False, True])
def test_tensor_iterator_slices_both_ways(reverse: bool) -> None:
    body = FnBody(s=lambda f: f["s"] + f["x"].sum(), y=lambda f: f["x"] * 2)
    way = {"start": -1, "end": 0, "stride": -1} if reverse else {}
    port_map = PortMap(
        [PortRule(0, "x", axis=1, **way), PortRule(1, "s")],
        [PortRule(0, "s"), PortRule(1, "y", axis=1, **way)],
        [("s", "s")],
    )
    x = np.arange(6.0).reshape(2, 3)
    attrs = {"bodies": {"body": body}, "port_maps": {"body": port_map}}
    s, y = TensorIterator.evaluate(attrs, [x, np.array(0.0)])
    assert s == x.sum() and body.runs == 3
    np.testing.assert_array_equal(y, x * 2)  # parts go back where they came from


def test_tensor_iterator_infers_the_concatenated_length() -> None:
    port_map = PortMap([PortRule(0, "x", axis=0, part_size=2)], [PortRule(0, "y", axis=0)])
    attrs = {"bodies": {"body": FnBody(y=lambda f: f["x"][:1])}, "port_maps": {"body": port_map}}
    (out,) = TensorIterator.infer_outputs(attrs, [Spec((8, 3), np.dtype(np.float32))])
    assert out.shape == (4, 3)


def test_if_on_a_known_condition_infers_the_taken_branch_only() -> None:
    class Unfit(FnBody):
        def infer(self, feed):
            raise ValueError("this branch does not fit these inputs")

    then = FnBody(r=lambda f: f["a"] + 1)
    attrs = {"bodies": {"then_body": then, "else_body": Unfit()}, "port_maps": {
        name: PortMap([PortRule(1, "a")], [PortRule(0, "r")]) for name in If.body_names}}
    x = Spec((2, 3), np.dtype(np.float32))
    (out,) = If.infer_outputs(attrs, [Spec((), np.dtype(bool), np.array(True)), x])
    assert out.shape == (2, 3)
    with pytest.raises(ValueError, match="does not fit"):
        If.infer_outputs(attrs, [Spec((), np.dtype(bool)), x])
