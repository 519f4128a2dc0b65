"""Work-size rules read as the plugins' own evaluators read them.

GPU: openvinotoolkit/openvino src/plugins/intel_gpu/src/plugin/simple_math.cpp (a shunting-yard
over int: digits via std::stoi, the variables of custom_layer.cpp IsLegalSizeRule, b B f F y Y
x X, the operators + - (priority 0) and * / % (priority 1), parentheses, ' ' and '\\t' skipped
before a token with at(i), which throws past the end); a rule is legal when Evaluate() succeeds
with every variable 1. MYRIAD, tag 2022.3: src/plugins/intel_myriad/common/src/utils/
simple_math.cpp and include/vpu/utils/simple_math.hpp (IntOrFloat, std::stof numbers, names
from the layer's numeric attributes, floor ceil round abs sqrt)."""

from __future__ import annotations

import pytest

from converter.runtime.opencl.expressions import Expression, parse_list

DIMS = {"B": 2, "F": 3, "Y": 7, "X": 5}


@pytest.mark.parametrize(("rule", "value"), [
    ("(y+7)/8*8", 8),          # lower-case letters are variables too
    ("2+3*4-1", 13),           # * before +
    ("10-4-3", 3),             # left-associative: equal priority pops first
    ("100/10/5", 2),
    ("7%4*2", 6),
    ("(X-12)/2", -3),          # int division truncates toward zero
    ("(X-12)%4", -3),          # % takes the dividend's sign
    ("  X*Y", 35),             # blanks before a token
    ("2147483647+1", -2**31),  # int overflow wraps
])
def test_gpu_rules_evaluate_as_int_arithmetic(rule: str, value: int) -> None:
    assert Expression(rule).evaluate(DIMS) == value


@pytest.mark.parametrize(("rule", "reason"), [
    ("-X", "not enough values for operator evaluation"),  # no unary minus
    ("+1", "not enough values for operator evaluation"),
    ("X*-1", "not enough values for operator evaluation"),
    ("2X", "not enough operators"),                       # no implied product
    ("XY", "not enough operators"),                       # variables are one letter
    ("()", "not enough operators"),
    ("", "not enough operators"),
    ("(X", "Mismatched parentheses"),
    ("X)", "Mismatched parentheses"),
    ("1.5", "Unknown token ."),                           # integers only
    ("W", "Unknown token W"),
    ("floor(X)", "Unknown token l"),  # no functions on the GPU (f is a variable there)
    ("X ", "a blank at the end"),                         # at(i) past the end
    ("2147483648", "out of int range"),                   # std::stoi throws
    ("X/(Y-1)", "integer division by zero"),              # the check runs with every dim 1
])
def test_gpu_rules_the_plugin_rejects_fail_with_its_reason(rule: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        Expression(rule)


def test_gpu_rule_lists_split_on_commas_and_keep_a_trailing_empty_rule() -> None:
    # ProcessWorkSizesNode cuts at each comma; "X," leaves "" after the cut only for "X,,"
    assert [e.text for e in parse_list("X, Y")] == ["X", " Y"]
    with pytest.raises(ValueError, match="not enough operators"):
        parse_list("X,,Y")


@pytest.mark.parametrize(("rule", "value"), [
    ("stride*stride", 4),      # a numeric attribute is a variable
    ("X*alpha", 2),            # a float attribute makes it float32: 2.5 truncates to 2
    ("floor(X/2)", 2),
    ("floor X/2", 2),          # a function takes the next value, parentheses or not
    ("round(2.5)", 3),         # std::round: halves away from zero
    ("sqrt(16)+1", 5),
    ("2.5e1", 25),             # std::stof reads the number
    ("((X*Y+7)/8)*8", 40),     # the shipped RegionYolo binding's global size
    (" X ", 5),                # blanks anywhere
    ("16777216+1.5", 16777218),  # with a float, float32 arithmetic (double would give ...17)
])
def test_myriad_rules_read_attributes_floats_and_functions(rule: str, value: int) -> None:
    attrs = {"stride": "2", "alpha": "0.5", "mask": "0,1,2"}
    expr = Expression(rule, attributes=True)
    assert expr.legal(attrs) is None
    assert expr.evaluate(DIMS, attrs) == value


def test_myriad_names_only_numeric_attributes_and_checks_them_per_layer() -> None:
    # isLegalSizeRule parses with the layer's params: a list or missing attribute is no variable
    expr = Expression("X*mask", attributes=True)
    assert "'mask'" in expr.legal({"mask": "0,1,2"}) and expr.legal({"mask": "3"}) is None
    with pytest.raises(ValueError, match="Unknown token k"):
        expr.evaluate(DIMS, {})
    assert Expression("X", attributes=True).evaluate(DIMS, {"X": "9"}) == 9  # params win


@pytest.mark.parametrize(("rule", "reason"), [
    ("-X", "not enough values for operator evaluation"),  # parses, fails when evaluated
    ("1.5%2", "Can't apply modulus operation to floating point value"),
    ("X Y", "not enough operators"),
])
def test_myriad_rules_that_fail_when_the_plugin_evaluates_them(rule: str, reason: str) -> None:
    expr = Expression(rule, attributes=True)
    with pytest.raises(ValueError, match=reason):
        expr.evaluate(DIMS, {})


@pytest.mark.parametrize(("rule", "reason"), [
    ("(X", "Mismatched parentheses in"),
    ("X$2", "Unknown token \\$"),
    (".5", "Unknown token \\."),  # a number starts with a digit
])
def test_myriad_rules_that_never_parse(rule: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        Expression(rule, attributes=True)
