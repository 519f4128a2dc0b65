"""The window attributes of ONNX convolution and pooling (kernel_shape, strides, dilations,
pads, output_padding, auto_pad) must fit each other, the weights and the input: one clear
refusal naming the node instead of an IR that says something else than the model."""

from __future__ import annotations

from converter.front.onnx.translator import OnnxNode

__all__ = ["AUTO_PAD", "check_window"]

AUTO_PAD = {"NOTSET": "explicit", "SAME_UPPER": "same_upper", "SAME_LOWER": "same_lower",
            "VALID": "valid"}
_FIX = "fix the node's attributes in the model"


def _static_shape(n: OnnxNode, i: int) -> tuple[int, ...] | None:
    """Input i's shape when known before inference: a Const's, a static Parameter's."""
    value = n.const_value(i)
    if value is not None:
        return tuple(value.shape)
    src = n.input(i)
    shape = src.node.soft_get("shape", None) if src is not None else None
    if src is None or src.node.soft_get("op") != "Parameter" or shape is None:
        return None
    return tuple(shape) if all(d >= 0 for d in shape) else None


def _check_list(n: OnnxNode, name: str, count: int, least: int) -> None:
    if not n.has_attr(name):
        return
    values = list(n.attr(name))
    if len(values) != count:
        axes = count // 2 if name == "pads" else count
        n.reject(f"attribute {name} {values} does not have the {count} values its {axes} "
                 "spatial axes need", _FIX)
    if any(v < least for v in values):
        n.reject(f"attribute {name} {values} holds a value below {least}", _FIX)


def check_window(n: OnnxNode, nsp: int, weights: int | None = None) -> None:
    """n's window attributes against its nsp spatial axes, the shape of its input 0 and, for a
    convolution, of its weights (input `weights`) when they are known before inference."""
    if n.attr("auto_pad", "NOTSET") not in AUTO_PAD:
        n.reject(f"attribute auto_pad is not one of {', '.join(AUTO_PAD)}", _FIX)
    _check_list(n, "kernel_shape", nsp, 1)
    for name in ("strides", "dilations"):
        _check_list(n, name, nsp, 1)
    _check_list(n, "pads", 2 * nsp, 0)
    _check_list(n, "output_padding", nsp, 0)
    w = _static_shape(n, weights) if weights is not None else None
    if w is not None and n.has_attr("kernel_shape"):
        kernel = list(n.attr("kernel_shape"))
        if list(w[2:]) != kernel:
            n.reject(f"attribute kernel_shape {kernel} contradicts its weights of shape "
                     f"{list(w)} (kernel {list(w[2:])})",
                     "fix kernel_shape or the weights in the model")
    data = _static_shape(n, 0)
    if data is not None and len(data) != nsp + 2:
        n.reject(f"its input of shape {list(data)} has {len(data) - 2} spatial axes, its "
                 f"window attributes {nsp}", "fix the model or the input's shape (--input_shape)")
