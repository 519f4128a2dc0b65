"""The generator's input: one op description (pydantic) that drives every target, and the
mapping from the original extgen's JSON keys onto it."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from converter.framework_names import FRAMEWORKS
from converter.runtime.opencl.contract import GpuFormat, VpuScalar
from converter.runtime.opencl.expressions import parse_list
from extgen.errors import ConfigError
from extgen.generator.names import (
    OP_NAMES,
    check_identifier,
    check_macro,
    check_text,
    torch_type_problem,
)
from extgen.generator.targets import Target

__all__ = [
    "OVC_FRAMEWORKS",
    "Attribute",
    "GeneratorConfig",
    "OpConfig",
    "WorkSizes",
    "name_clash",
    "shape_names_problem",
    "snake_case",
]

# the converter's frameworks, and PaddlePaddle (a custom op's type), which only the generated
# OpenVINO extensions map (for ovc / openvino.convert_model)
OVC_FRAMEWORKS = tuple(dict.fromkeys((*FRAMEWORKS, "paddle")))
FrameworkName = Literal[OVC_FRAMEWORKS]  # type: ignore[valid-type]
_INT64_MAX = 2**63 - 1

_FLOAT32_MAX = 3.4028234663852886e38
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def snake_case(name: str) -> str:
    """ScaledCosh -> scaled_cosh (also how Caffe names a layer's parameter field)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def name_clash(name: str, seen: Mapping[str, str], op_name: str = "") -> str | None:
    """Why an input, output or attribute name cannot join those seen (lower-cased name ->
    name: names must differ in more than case) and the op's name (compared exactly), or None."""
    other = seen.get(name.lower(), op_name if name == op_name else None)
    if other is None:
        return None
    case = "" if other == name else f" (as {other!r}: names must differ in more than case)"
    return f"{name!r} is used twice among the op, inputs, outputs and attributes{case}"


def shape_names_problem(names: list[str], taken: set[str]) -> str | None:
    """Why names cannot name an input's dims (taken: the ports' and attributes' lower-cased
    names), or None."""
    for k, name in enumerate(names):
        if name.lower() in taken or name in names[:k]:
            return f"{name!r} is used twice among the names, ports and attributes"
    return None


def _op_name(value: str) -> str:
    check_identifier(value)
    if value in OP_NAMES or value.startswith("m_"):
        msg = f"{value!r} is a name the generated op class uses (or starts with m_); choose another"
        raise ValueError(msg)
    return value


def _text(value: str) -> str:
    problem = check_text(value)
    if problem:
        raise ValueError(f"{value!r}: {problem}")
    return value


def _attr_name(value: str) -> str:
    check_identifier(value)
    check_macro(value)
    return value


def _default_problem(value: object) -> str | None:
    """Why a (type-checked) default cannot be written in every target language, or None."""
    for v in value if isinstance(value, list) else [value]:
        if isinstance(v, float) and not (math.isfinite(v) and abs(v) <= _FLOAT32_MAX):
            return f"{v!r} is not a finite float32 value"
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > _INT64_MAX:
            return f"{v} is out of the int64 range (at most ±{_INT64_MAX})"
        if isinstance(v, str):
            return check_text(v)
    return None


def _module_path(value: str) -> str:
    if not all(_DOTTED.fullmatch(part) for part in value.split(".")):
        msg = f"{value!r} is not a dotted Python name (module.layer)"
        raise ValueError(msg)
    return value


def _work_sizes(value: str) -> str:
    """A WorkSizes value, checked by the runtime's own parser (what `extgen run` will read)."""
    parse_list(value)
    return value


def _framework_type(value: str) -> str:
    if not value or any(c in value for c in "/\\\"'") or ".." in value.replace("::", ""):
        msg = (f"framework op type {value!r} must be a plain name "
               "(ONNX custom domains: 'domain::Type')")
        raise ValueError(msg)
    return _text(value)


Identifier = Annotated[str, AfterValidator(check_identifier)]
OpName = Annotated[str, AfterValidator(_op_name)]
Text = Annotated[str, AfterValidator(_text)]
ModulePath = Annotated[str, AfterValidator(_module_path)]
AttrName = Annotated[str, AfterValidator(_attr_name)]
FrameworkType = Annotated[str, AfterValidator(_framework_type)]
WorkSizes = Annotated[str, AfterValidator(_work_sizes)]
AttrType = Literal["int", "float", "bool", "string", "int_list", "float_list"]
ElementType = Literal["f32", "f16", "f64", "i8", "i32", "i64", "u8", "boolean"]
_PY_TYPES: dict[str, tuple[type, ...]] = {
    "int": (int,), "float": (int, float), "bool": (bool,), "string": (str,),
    "int_list": (list,), "float_list": (list,),
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Attribute(_Model):
    """An op attribute: its type, default, name in the framework model, and whether it is \
in the IR."""

    name: AttrName = Field(description="attribute name in the IR and the generated code")
    type: AttrType = Field(description="value type")
    default: int | float | bool | str | list[int] | list[float] | None = Field(
        None, description="default when the model does not set it (none: zero/empty)")
    framework_name: Text | None = Field(
        None, description="name in the framework model (default: name)")
    in_ir: bool = Field(True, description="written to the IR (False: internal to the converter)")
    tf_type: Text | None = Field(None, description="TF attribute type code: b f i s list.b list.f "
                                "list.i list.s shape type padding")

    @model_validator(mode="after")
    def _default_matches_type(self) -> Attribute:
        d = self.default
        if d is None:
            return self
        bool_as_number = self.type in ("int", "float") and isinstance(d, bool)
        ok = isinstance(d, _PY_TYPES[self.type]) and not bool_as_number
        if ok and self.type.endswith("_list"):
            elem = int if self.type == "int_list" else (int, float)
            ok = all(isinstance(v, elem) and not isinstance(v, bool) for v in d)
        if not ok:
            msg = f"default {d!r} does not fit type {self.type}"
            raise ValueError(msg)
        problem = _default_problem(d)
        if problem:
            msg = f"default: {problem}"
            raise ValueError(msg)
        return self

    @property
    def fw_name(self) -> str:
        return self.framework_name or self.name


class Port(_Model):
    name: Identifier = Field(description="name of the input or output in the generated code")
    type: ElementType | None = Field(
        None, description="inputs only: the element type the input takes, which `extgen test` "
        "feeds it (none: floating point)")


class ShapeRule(_Model):
    """Output shape: the same as input N, a formula of input N's dims and the attributes, or a
    custom inference the user fills in."""

    kind: Literal["same_as_input", "formula", "custom"] = Field(
        "same_as_input", description="formula: `dims` below; custom: the generated shape "
        "inference is a TODO to fill in")
    input: int = Field(0, ge=0, description="which input the output shape copies (or `names`)")
    names: list[Identifier] = Field(
        default_factory=list, description="formula: names for that input's dims, e.g. "
        "[N, C, H, W] (its rank must match)")
    dims: list[str] = Field(
        default_factory=list, description="formula: each output dim from those names and the "
        "int/float attributes, e.g. [N, C, H * scale, W * scale]; rounded down to an integer")


class DtypeRule(_Model):
    kind: Literal["same_as_input", "fixed"] = Field(
        "same_as_input", description="output element type: that of an input, or fixed")
    input: int = Field(0, ge=0, description="which input the output type copies")
    type: ElementType = Field("f32", description="the fixed output element type")


class CaffeOptions(_Model):
    pythonic: bool = Field(False, description="a Caffe Python layer (type: 'Python')")
    module: ModulePath | None = Field(None, description="Python layer: module.layer")
    param_name: Text | None = Field(
        None, description="the layer's parameter message field, e.g. cosh_param")
    copy_all: bool = Field(True, description="copy every proto parameter to the IR")
    flatten: bool = Field(False, description="flatten nested parameter messages")
    omit_defaults: bool = Field(False, description="omit optional parameters not set in the model")


class TfOptions(_Model):
    parse_all: bool = Field(True, description="copy every TF attribute as is")


class MxnetOptions(_Model):
    custom: bool = Field(False, description="an MXNet Custom operator (op_type)")


class GpuOptions(_Model):
    global_work_size: WorkSizes = Field("B*F*Y*X", description="WorkSizes global, over B,F,Y,X")
    local_work_size: WorkSizes = Field("", description="WorkSizes local")
    format: GpuFormat = Field(
        "BFYX", description="tensor layout the kernel indexes in (Tensor format)")


class VpuOptions(_Model):
    global_work_size: WorkSizes = Field("B*F*Y*X", description="WorkSizes global, over B,F,Y,X")
    local_work_size: WorkSizes = Field("1,1,1", description="WorkSizes local")
    scalars: list[VpuScalar] = Field(
        default_factory=list, description="extra Scalar arguments (besides one per int/float "
        "attribute and the output's dims, which are always passed)")


class OpConfig(_Model):
    """One custom operation."""

    name: OpName = Field(description="op name, also the IR layer type, e.g. Cosh")
    ir_opset: Identifier = Field("extension", description="IR version (opset) name of the op")
    framework_types: dict[FrameworkName, FrameworkType] = Field(
        default_factory=dict,
        description="op type in each framework model (ONNX custom domain: 'domain::Type'; "
        "tflite: the custom op's custom_code; paddle: the custom op's type, its inputs and "
        "outputs named as here; pytorch: 'namespace::op', mapped only when given); "
        "default: the op name",
    )
    inputs: list[Port] = Field(default_factory=lambda: [Port(name="x")], min_length=1,
                               description="inputs in order (default: one, x)")
    outputs: list[Port] = Field(default_factory=lambda: [Port(name="y")], min_length=1,
                                description="outputs in order (default: one, y)")
    attributes: list[Attribute] = Field(default_factory=list, description="the op's attributes")
    shape: ShapeRule = Field(default_factory=ShapeRule, description="output shape rule")
    dtype: DtypeRule = Field(default_factory=DtypeRule, description="output element type rule")
    expression: str | list[str] | None = Field(
        None, description="elementwise math over inputs and attributes, e.g. x * sigmoid(x); "
        "a list gives one per output. The inputs broadcast numpy-style, or with a shape formula "
        "are read at the nearest position (see docs/reference.md for the language)")
    caffe: CaffeOptions = Field(default_factory=CaffeOptions, description="Caffe extractor options")
    tf: TfOptions = Field(default_factory=TfOptions, description="TensorFlow extractor options")
    mxnet: MxnetOptions = Field(default_factory=MxnetOptions, description="MXNet extractor options")
    gpu: GpuOptions = Field(default_factory=GpuOptions, description="GPU kernel options")
    vpu: VpuOptions = Field(default_factory=VpuOptions, description="VPU kernel options")

    @model_validator(mode="after")
    def _consistent(self) -> OpConfig:
        seen: dict[str, str] = {}
        names = [p.name for p in self.inputs + self.outputs] + [a.name for a in self.attributes]
        for name in names:
            problem = name_clash(name, seen, self.name)
            if problem:
                raise ValueError(problem)
            seen[name.lower()] = name
        self._check_vpu_scalars(set(seen.values()))
        torch_type = self.framework_types.get("pytorch")
        if torch_type is not None and torch_type_problem(torch_type):
            msg = f"framework_types.pytorch {torch_type!r} {torch_type_problem(torch_type)}"
            raise ValueError(msg)
        typed = [p.name for p in self.outputs if p.type is not None]
        if typed:
            msg = f"output {typed[0]!r}: an output's element type comes from `dtype`, not `type`"
            raise ValueError(msg)
        if self.shape.input >= len(self.inputs) or self.dtype.input >= len(self.inputs):
            msg = (f"shape/dtype rule refers to input {max(self.shape.input, self.dtype.input)}, "
                   f"the op has {len(self.inputs)}")
            raise ValueError(msg)
        self._check_shape_formula(set(seen))
        if self.expression is not None:
            from extgen.expression import parse_expression

            if len(self.expressions) != len(self.outputs) or self.shape.kind == "custom":
                msg = (f"an expression op needs one expression per output ({len(self.outputs)}) "
                       "and the inputs' broadcast shape (shape kind same_as_input) or a formula")
                raise ValueError(msg)
            numeric = {a.name for a in self.attributes if a.type in ("int", "float", "bool")}
            for text in self.expressions:
                try:
                    parse_expression(text, {p.name for p in self.inputs} | numeric)
                except ConfigError as err:  # under the op's location, like every other field
                    raise ValueError(str(err)) from None
        return self

    @property
    def expressions(self) -> list[str]:
        """One expression per output (empty when the op has none)."""
        e = self.expression
        return [] if e is None else [e] if isinstance(e, str) else list(e)

    def _check_shape_formula(self, taken: set[str]) -> None:
        from extgen.expression import parse_expression

        rule = self.shape
        if (rule.kind == "formula") != bool(rule.dims):
            msg = "shape: kind formula goes with a non-empty dims list (and dims only with it)"
            raise ValueError(msg)
        problem = shape_names_problem(rule.names, taken)
        if problem:
            msg = f"shape.names: {problem}"
            raise ValueError(msg)
        numeric = {a.name for a in self.attributes if a.type in ("int", "float")}
        for k, text in enumerate(rule.dims):
            try:
                parse_expression(text, set(rule.names) | numeric)
            except ConfigError as err:
                msg = f"shape.dims.{k}: {err}"
                raise ValueError(msg) from None

    def _check_vpu_scalars(self, names: set[str]) -> None:
        taken = {"dim_b", "dim_f", "dim_y", "dim_x", "count"}
        taken |= {a.name.upper() for a in self.attributes}
        ports = {"input": len(self.inputs), "output": len(self.outputs)}
        numeric = {a.name for a in self.attributes if a.in_ir and a.type in ("int", "float")}
        for i, sc in enumerate(self.vpu.scalars):
            where = f"vpu.scalars.{i}"
            try:
                check_identifier(sc.name)
            except ValueError as err:
                msg = f"{where}.name: {err}"
                raise ValueError(msg) from None
            if sc.name in taken or sc.name in names or re.fullmatch(r"x\d+|in\d+_[bfyx]", sc.name):
                msg = f"VPU scalar {sc.name!r} clashes with a kernel argument extgen already passes"
                raise ValueError(msg)
            dim = sc.dimension()
            blob = sc.source.partition(".")[0]
            if dim is not None and blob not in ("I", "O"):
                msg = (f"{where}.source: the plugin reads {sc.source!r} as output "
                       f"{sc.port_index}'s {dim[2]} (only 'I.' names an input); write I.{dim[2]} "
                       f"or O.{dim[2]} and pick the tensor with port_index")
                raise ValueError(msg)
            if dim is None and sc.source not in numeric:
                msg = (f"{where}.source: {sc.source!r} is neither a dimension (I.X, O.F) "
                       "nor an int or float attribute of the op written to the IR "
                       f"({', '.join(sorted(numeric)) or 'it has none'})")
                raise ValueError(msg)
            if dim and dim[1] >= ports[dim[0]]:
                msg = (f"{where}.port_index: source '{sc.source}' refers to {dim[0]} {dim[1]}, "
                       f"the op has {ports[dim[0]]}")
                raise ValueError(msg)

    def framework_type(self, fw: str) -> str:
        return self.framework_types.get(fw, self.name)  # type: ignore[call-overload]

    @property
    def snake(self) -> str:
        return snake_case(self.name)


class GeneratorConfig(_Model):
    """What `extgen new --config` reads: the targets and the ops to generate them for."""

    targets: list[Target] = Field(
        default_factory=list,
        description="what to generate (the command-line flags take precedence)",
    )
    ops: list[OpConfig] = Field(
        min_length=1, description="the ops, generated into the same folders")

    @model_validator(mode="after")
    def _unique_ops(self) -> GeneratorConfig:
        seen: dict[str, str] = {}
        for op in self.ops:
            if op.snake in seen:
                other = seen[op.snake]
                same = ("is described twice" if other == op.name
                        else f"and {other!r} share files {op.snake}*")
                msg = f"op {op.name!r} {same}"
                raise ValueError(msg)
            seen[op.snake] = op.name
        return self


