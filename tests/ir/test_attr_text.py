"""IR attribute text: every float, the non-finite ones included, is written so it reads back."""

from __future__ import annotations

import math

import pytest

from converter.ir.types import format_attr, parse_attr


@pytest.mark.parametrize("value", [0.0, -0.0, 1.0, -3.0, 0.1, 1e20, -2.5e-8,
                                   math.inf, -math.inf, math.nan])
def test_floats_round_trip(value: float) -> None:
    text = format_attr(value, "float")
    back = parse_attr(text, "float")
    assert (math.isnan(back) and math.isnan(value)) or (back == value
                                                         and math.copysign(1, back)
                                                         == math.copysign(1, value))


def test_float_lists_with_infinities() -> None:
    assert format_attr([1.0, math.inf, -math.inf], "floats") == "1,inf,-inf"
