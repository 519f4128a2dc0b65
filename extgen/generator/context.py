"""What templates see for one op: names and types already spelled for each target language,
so templates hold layout only and never escape or convert anything themselves."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from extgen.expression import parse_expression
from extgen.expression_render import opencl_helpers
from extgen.generator.config import OVC_FRAMEWORKS, Attribute, OpConfig
from extgen.generator.targets import gpu_output_limit

__all__ = ["AttrContext", "op_context", "string_literal"]

# attribute type -> (IR attr kind, ONNX AttributeProto field, C++ type, OpenCL Define type)
_TYPES = {
    "int": ("int", "i", "int64_t", "int"),
    "float": ("float", "f", "float", "float"),
    "bool": ("bool", "i", "bool", "int"),
    "string": ("str", "s", "std::string", None),
    "int_list": ("ints", "ints", "std::vector<int64_t>", "int[]"),
    "float_list": ("floats", "floats", "std::vector<float>", "float[]"),
}
_NAMED_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b",
                  "\f": "\\f"}
_ZERO = {"int": 0, "float": 0.0, "bool": False, "string": "", "int_list": [], "float_list": []}


def _escape(c: str, lang: str) -> str:
    o = ord(c)
    if c in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[c]
    if 0x20 <= o < 0x7F:
        return c
    if lang == "c" and (o < 0xA0 or 0xD800 <= o < 0xE000):  # C++ has no \u for these: bytes
        return "".join(f"\\{b:03o}" for b in c.encode("utf-8", "surrogatepass"))
    return f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def string_literal(text: str, lang: str) -> str:
    """text as an ASCII string literal of lang ("python" or "c": C and C++), double-quoted;
    as json.dumps spells it, except characters outside the BMP (one \\U escape, not a
    surrogate pair) and, in C, control characters (octal UTF-8 bytes)."""
    return '"' + "".join(_escape(c, lang) for c in text) + '"'


@dataclass(frozen=True)
class AttrContext:
    name: str
    type: str
    fw_name: str
    in_ir: bool
    ir_kind: str
    onnx_field: str
    cpp_type: str
    cl_type: str | None
    default: Any
    tf_type: str | None

    @property
    def py_default(self) -> str:
        return repr(self.default)

    @property
    def ir_default(self) -> str:
        """The default as the IR writes it (what OpenCL Define defaults take)."""
        d = self.default
        if isinstance(d, bool):
            return "true" if d else "false"
        if isinstance(d, list):
            return ",".join(str(v) for v in d)
        return str(d)

    @property
    def cpp_default(self) -> str:
        d = self.default
        if self.type == "bool":
            return "true" if d else "false"
        if self.type == "string":
            return string_literal(d, "c")
        if self.type == "float":
            return f"{float(d)!r}f"
        if self.type.endswith("_list"):
            suffix = "f" if self.type == "float_list" else ""
            return "{" + ", ".join(f"{v}{suffix}" for v in d) + "}"
        return str(d)


def _attr(a: Attribute) -> AttrContext:
    kind, field, cpp, cl = _TYPES[a.type]
    default = a.default if a.default is not None else _ZERO[a.type]
    if a.type == "float_list":
        default = [float(v) for v in default]
    if a.type == "float":
        default = float(default)
    return AttrContext(a.name, a.type, a.fw_name, a.in_ir, kind, field, cpp, cl, default, a.tf_type)


def _expression(op: OpConfig, inputs: list[str], attrs: set[str]) -> dict[str, Any]:
    """Each output's expression in every language, and the OpenCL helpers they call."""
    exprs = [parse_expression(text, set(inputs) | attrs) for text in op.expressions]
    index = {n: i for i, n in enumerate(inputs)}
    spell = {  # input k is the local x<k> (C++ double, OpenCL float); an attribute its member
        "numpy": lambda v: f"x{index[v]}" if v in index else f"attrs[{v!r}]",
        "cpp": lambda v: f"x{index[v]}" if v in index else f"m_{v}",
        "opencl": lambda v: f"x{index[v]}" if v in index else f"((float){v.upper()})",
    }
    out: dict[str, Any] = {lang: [e.render(lang, names) for e in exprs]
                           for lang, names in spell.items()}
    out["opencl_helpers"] = opencl_helpers(frozenset().union(*(e.functions for e in exprs)))
    return out


def _shape_formula(op: OpConfig) -> dict[str, Any] | None:
    """The output shape formula in Python and C++ (dim name n is the local d_<name>)."""
    rule = op.shape
    if rule.kind != "formula":
        return None
    attrs = {a.name for a in op.attributes if a.type in ("int", "float")}
    index = {n: k for k, n in enumerate(rule.names)}
    exprs = [parse_expression(text, set(index) | attrs) for text in rule.dims]
    python = []
    for e in exprs:  # dim(fn, *dims): fn of the dims it uses, or -1 when one is dynamic
        used = sorted(index[v] for v in e.variables if v in index)
        body = e.render("numpy", lambda v: f"v{index[v]}" if v in index else f"attrs[{v!r}]")
        params = ", ".join(f"v{k}" for k in used)
        python.append(f"dim(lambda {params}: fn.floor({body}), "
                      f"{''.join(f'd[{k}], ' for k in used)})".replace(", )", ")"))
    return {"python": python, "rank": len(rule.names), "names": rule.names,
            "cpp": [e.render("cpp", lambda v: f"d_{v}" if v in index else f"m_{v}") for e in exprs]}


_WORK_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}


def _work_size(node: ast.expr, letters: dict[str, str], top: bool = True) -> str | None:
    """A shape formula dim in the WorkSizes grammar (integer B F Y X, + - * /), or None when it
    cannot be written there: an attribute, a float, a function, or a division inside (WorkSizes
    divide integers at each step; the formula rounds down once, at the end)."""
    if isinstance(node, ast.Constant):
        ok = type(node.value) is int and node.value >= 0
        return str(node.value) if ok else None
    if isinstance(node, ast.Name):
        return letters.get(node.id)
    ops = {**_WORK_OPS, ast.Div: "/"} if top else _WORK_OPS
    if not (isinstance(node, ast.BinOp) and type(node.op) in ops):
        return None
    left, right = (_work_size(n, letters, False) for n in (node.left, node.right))
    if left is None or right is None:
        return None
    return f"({left}{ops[type(node.op)]}{right})"


def _work_sizes(op: OpConfig, output_dim: str) -> dict[str, str] | None:
    """WorkSizes dim and global for a shape formula: the output's element count over the
    formula's input dims when every dim can be written in their grammar; else (an attribute, a
    float, an inner division) B*F*Y*X over the output's own dims (output_dim: `output` on GPU,
    `output,0` on VPU), which the plugin takes from the op's shape inference. The kernels count
    over the output's dims either way. None without a formula."""
    rule = op.shape
    if rule.kind != "formula":
        return None
    over_output = {"dim": output_dim, "global": "B*F*Y*X",
                   "why": "the output's own dims (WorkSizes know only B, F, Y, X in integer "
                          "arithmetic, which cannot write the formula)"}
    if len(rule.names) > 4 or len(rule.dims) > 4:
        return over_output
    letters = dict(zip(rule.names, "BFYX"))
    dims = [_work_size(ast.parse(text.strip(), mode="eval").body, letters) for text in rule.dims]
    if any(d is None for d in dims):
        return over_output
    return {"dim": f"input,{rule.input}", "global": "*".join(dims),  # type: ignore[arg-type]
            "why": f"the shape formula over input {rule.input}'s dims"}


_TF_CODES = {"int": "i", "float": "f", "bool": "b", "string": "s", "int_list": "list.i",
             "float_list": "list.f"}


def op_context(op: OpConfig) -> dict[str, Any]:
    attrs = [_attr(a) for a in op.attributes]
    onnx_type = op.framework_type("onnx")
    domain, _, onnx_name = onnx_type.rpartition("::")
    inputs = [p.name for p in op.inputs]
    expression = _expression(op, inputs, {a.name for a in attrs}) if op.expression else None
    return {
        "name": op.name,
        "snake": op.snake,
        "ir_opset": op.ir_opset,
        **{f"{fw}_type": op.framework_type(fw) for fw in OVC_FRAMEWORKS},
        # a torch.library custom op, 'namespace::op' (TorchScript; torch.export calls it
        # 'namespace.op.default'): its attributes are the inputs after the op's own, in order
        "pytorch_type": op.framework_types.get("pytorch"),
        "onnx_domain": domain,
        "onnx_name": onnx_name,
        "inputs": inputs,
        "input_types": [p.type for p in op.inputs],
        "outputs": [p.name for p in op.outputs],
        "attrs": attrs,
        "ir_attrs": [a for a in attrs if a.in_ir],
        "shape": op.shape,
        "shape_formula": _shape_formula(op),
        "dtype": op.dtype,
        "expression": expression,
        "caffe": op.caffe,
        "tf": op.tf,
        # the C++ TensorFlow mapping reads attributes as their own type (shape, type and padding
        # codes need the MO extractor's conversion: then only that extractor maps the op)
        "tf_cpp": all(a.tf_type in (None, _TF_CODES.get(a.type)) for a in attrs),
        "mxnet": op.mxnet,
        "gpu": op.gpu,
        "vpu": op.vpu,
        "gpu_output_limit": gpu_output_limit(len(op.outputs)),
        # WorkSizes from the shape formula, unless the config gives its own global size
        "gpu_work": None if "global_work_size" in op.gpu.model_fields_set
        else _work_sizes(op, "output"),
        "vpu_work": None if "global_work_size" in op.vpu.model_fields_set
        else _work_sizes(op, "output,0"),
        # the VPU kernel reads inputs through their own dims (else element i of each is i)
        "vpu_input_dims": bool(op.expression) and (len(inputs) > 1 or op.shape.kind == "formula"),
    }
