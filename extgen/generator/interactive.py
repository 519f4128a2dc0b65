"""Interactive `extgen new`: questionary prompts that fill the same GeneratorConfig a JSON file
does. Every answer is validated as it is typed; a review step lets the user go back to any
question; Ctrl-C or end of input at any prompt stops with nothing written."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import questionary
from pydantic import TypeAdapter, ValidationError

from converter.framework_names import FRAMEWORKS
from extgen.errors import Cancelled, ConfigError
from extgen.generator.config import (
    AttrName,
    GeneratorConfig,
    Identifier,
    ModulePath,
    OpName,
    WorkSizes,
    name_clash,
    shape_names_problem,
    snake_case,
)
from extgen.generator.names import torch_type_problem
from extgen.generator.targets import TARGETS, extractor_target

__all__ = ["ask_config", "parse_default"]

_ATTR_TYPES = ["float", "int", "bool", "string", "int_list", "float_list"]
_IDENT = TypeAdapter(Identifier)


def _check(adapter: TypeAdapter) -> Callable[[str], bool | str]:
    """A questionary validator: True, or the config field's own error message."""
    def check(text: str) -> bool | str:
        try:
            adapter.validate_python(text.strip())
        except ValidationError as err:
            return err.errors()[0]["msg"].removeprefix("Value error, ")
        return True

    return check


_ident_check = _check(_IDENT)
_op_name_check = _check(TypeAdapter(OpName))
_attr_name_check = _check(TypeAdapter(AttrName))
_work_sizes_check = _check(TypeAdapter(WorkSizes))
_module_check = _check(TypeAdapter(ModulePath))


def _split(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def _lower(names: list[str]) -> dict[str, str]:
    return {n.lower(): n for n in names}


def _names_check(seen: dict[str, str], op_name: str = "") -> Callable[[str], bool | str]:
    """A validator of comma-separated port names: identifiers, none twice among themselves,
    seen (lower-cased -> name: the other ports and the attributes) and op_name."""
    def check(text: str) -> bool | str:
        names = _split(text)
        if not names:
            return "give at least one name"
        taken = dict(seen)
        for name in names:
            result = _ident_check(name)
            if result is not True:
                return result
            clash = name_clash(name, taken, op_name)
            if clash:
                return clash
            taken[name.lower()] = name
        return True

    return check


def _dim_names_check(taken: set[str]) -> Callable[[str], bool | str]:
    """A validator of an input's dim names: identifiers, not twice, no port or attribute."""
    def check(text: str) -> bool | str:
        names = _split(text)
        if not names:
            return "give at least one name"
        for name in names:
            result = _ident_check(name)
            if result is not True:
                return result
        return shape_names_problem(names, taken) or True

    return check


def parse_default(text: str, kind: str) -> Any:
    """A typed default from what the user typed ('' = none); ValueError if it does not fit."""
    text = text.strip()
    if not text:
        return None
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    if kind == "bool":
        if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
            raise ValueError("write true or false")
        return text.lower() in ("true", "1", "yes")
    if kind == "string":
        return text
    items = [p for p in text.replace("[", "").replace("]", "").replace(",", " ").split() if p]
    return [int(p) for p in items] if kind == "int_list" else [float(p) for p in items]


def _type_check(framework: str, op_type: str) -> bool | str:
    """questionary's answer on an op type as the model names it."""
    if not op_type:
        return "give a type"
    problem = torch_type_problem(op_type) if framework == "pytorch" else None
    return f"the type {problem}" if problem else True


def _ask(question: questionary.Question) -> Any:
    try:
        return question.unsafe_ask()
    except KeyboardInterrupt:
        msg = "cancelled: nothing was written (replay a generation with --config FILE.json)"
        raise Cancelled(msg) from None
    except EOFError:
        msg = "input ended before the last answer: nothing was written (use --config FILE.json)"
        raise ConfigError(msg) from None


class _Session:
    """The answers and the questions that fill them, in order."""

    def __init__(self, targets: list[str], prefill: dict[str, Any]) -> None:
        self.a: dict[str, Any] = {"targets": targets, "attributes": [], **prefill}
        self.questions: list[tuple[str, Callable[[], None], Callable[[], bool]]] = [
            ("targets", self.q_targets, lambda: True),
            ("op name", self.q_name, lambda: True),
            ("framework op types", self.q_types,
             lambda: any(t.startswith("mo-") and t != "mo-op" for t in self.a["targets"])),
            ("framework options", self.q_framework,
             lambda: any(extractor_target(fw) in self.a["targets"]
                         for fw in ("caffe", "tf", "mxnet"))),
            ("inputs and outputs", self.q_ports, lambda: True),
            ("attributes", self.q_attributes, lambda: True),
            ("output shape", self.q_shape, lambda: True),
            ("math expression", self.q_expression, lambda: self.a.get("shape") != "custom"),
            ("GPU work sizes", self.q_gpu, lambda: "ie-gpu-ext" in self.a["targets"]),
        ]

    def names(self, *skip: str) -> dict[str, str]:
        """Lower-cased name -> name of the inputs, outputs and attributes, but those in skip."""
        groups = {"inputs": self.a.get("inputs", ["x"]), "outputs": self.a.get("outputs", ["y"]),
                  "attributes": [a["name"] for a in self.a["attributes"]]}
        return _lower([n for key, names in groups.items() if key not in skip for n in names])

    def op_name_check(self, text: str) -> bool | str:
        """The op name's rules, and no port or attribute named exactly so."""
        result = _op_name_check(text)
        if result is not True:
            return result
        return next((c for n in self.names().values() if (c := name_clash(n, {}, text.strip()))),
                    None) or True

    def q_targets(self) -> None:
        choices = [questionary.Choice(f"{t}: {spec.help}", value=t, checked=t in self.a["targets"])
                   for t, spec in TARGETS.items()]
        self.a["targets"] = _ask(questionary.checkbox(
            "What should be generated?", choices=choices,
            validate=lambda v: bool(v) or "choose at least one"))

    def q_name(self) -> None:
        old = self.a.get("name")
        self.a["name"] = _ask(questionary.text(
            "Op name (also its IR type), e.g. Cosh:", default=self.a.get("name", ""),
            validate=self.op_name_check)).strip()
        types = self.a.get("framework_types", {})
        for fw, op_type in types.items():  # types that followed the old name follow the new one
            if op_type == old:
                types[fw] = self.a["name"]

    def q_types(self) -> None:
        types = self.a.setdefault("framework_types", {})
        hints = {"onnx": " (custom domain: domain::Type)",
                 "pytorch": " (the torch.library op: namespace::op)"}
        for fw in FRAMEWORKS:
            if extractor_target(fw) in self.a["targets"]:
                default = types.get(fw, "" if fw == "pytorch" else self.a["name"])
                types[fw] = _ask(questionary.text(
                    f"{fw} op type in the model{hints.get(fw, '')}:", default=default,
                    validate=lambda t, fw=fw: _type_check(fw, t.strip()))).strip()

    def q_framework(self) -> None:
        """What the original extgen asked per framework: Caffe's layer kind and parameter
        field, TF's copy-all, MXNet's Custom op."""
        targets = self.a["targets"]
        if extractor_target("caffe") in targets:
            caffe = self.a.setdefault("caffe", {})
            caffe["pythonic"] = _ask(questionary.select("Caffe layer:", choices=[
                questionary.Choice("a layer with its own parameter message", False),
                questionary.Choice("a Python layer (type: Python)", True)],
                default=caffe.get("pythonic", False)))
            if caffe["pythonic"]:
                caffe["module"] = _ask(questionary.text(
                    "  Python layer as module.LayerClass:", default=caffe.get("module", ""),
                    validate=_module_check)).strip()
            else:
                caffe["param_name"] = _ask(questionary.text(
                    "  its parameter field:", validate=_ident_check,
                    default=caffe.get("param_name") or f"{snake_case(self.a['name'])}_param"))
            caffe["copy_all"] = _ask(questionary.confirm(
                "  copy every parameter of the layer to the IR?", default=True))
        if extractor_target("tf") in targets:
            self.a["tf"] = {"parse_all": _ask(questionary.confirm(
                "TF: copy every attribute of the node to the IR?", default=True))}
        if extractor_target("mxnet") in targets:
            self.a["mxnet"] = {"custom": _ask(questionary.confirm(
                "MXNet: a Custom op (registered with mx.operator.register)?", default=False))}

    def q_ports(self) -> None:
        for key, default in (("inputs", "x"), ("outputs", "y")):
            text = _ask(questionary.text(
                f"{key.capitalize()} (comma-separated names):",
                default=", ".join(self.a.get(key, [default])),
                validate=_names_check(self.names(key), self.a["name"])))
            self.a[key] = _split(text)

    def q_attributes(self) -> None:
        attrs = list(self.a["attributes"])
        if attrs:
            names = ", ".join(a["name"] for a in attrs)
            if not _ask(questionary.confirm(f"Keep the attributes {names}?", default=True)):
                attrs = []
        ports = self.names("attributes")

        def name_check(text: str) -> bool | str:
            result = _attr_name_check(text)
            if result is not True:
                return result
            seen = {**ports, **_lower([a["name"] for a in attrs])}
            return name_clash(text.strip(), seen, self.a["name"]) or True

        while _ask(questionary.confirm(f"Add an attribute? ({len(attrs)} so far)",
                                       default=not attrs)):
            name = _ask(questionary.text("  attribute name:", validate=name_check)).strip()
            kind = _ask(questionary.select("  type:", choices=_ATTR_TYPES))

            def fits(text: str, kind: str = kind) -> bool | str:
                try:
                    parse_default(text, kind)
                except ValueError as err:
                    return f"not a {kind}: {err}"
                return True

            default = parse_default(_ask(questionary.text(
                "  default (empty: none):", validate=fits)), kind)
            in_ir = _ask(questionary.confirm("  write it to the IR?", default=True))
            attrs.append({"name": name, "type": kind, "default": default, "in_ir": in_ir})
        self.a["attributes"] = attrs

    def q_shape(self) -> None:
        self.a["shape"] = _ask(questionary.select(
            "Output shape:", choices=[
                questionary.Choice("same as the first input (the inputs' broadcast shape)",
                                   "same"),
                questionary.Choice("a formula of the first input's dims, e.g. [N, C, H * 2, W]",
                                   "formula"),
                questionary.Choice("changes: I will implement shape inference", "custom")],
            default=self.a.get("shape", "same")))
        if self.a["shape"] == "formula":
            self.q_formula()

    def q_formula(self) -> None:
        from extgen.expression import parse_expression

        names = _split(_ask(questionary.text(
            "Names of the first input's dims, in order:", default=", ".join(
                self.a.get("dim_names", ["N", "C", "H", "W"])),
            validate=_dim_names_check(set(self.names())))))
        known = set(names) | {a["name"] for a in self.a["attributes"]
                              if a["type"] in ("int", "float")}

        def check(text: str) -> bool | str:
            try:
                parse_expression(text, known)
            except ConfigError as err:
                return str(err)
            return True

        self.a["dim_names"] = names
        self.a["dims"] = [_ask(questionary.text(
            f"Output dim {k} (rounded down):", default=name, validate=check)).strip()
            for k, name in enumerate(names)]

    def q_expression(self) -> None:
        from extgen.expression import parse_expression

        numeric = {a["name"] for a in self.a["attributes"] if a["type"] in ("int", "float", "bool")}
        names = set(self.a.get("inputs", ["x"])) | numeric

        def check(text: str) -> bool | str:
            if not text.strip():
                return True
            try:
                parse_expression(text, names)
            except ConfigError as err:
                return str(err)
            return True

        outputs = self.a.get("outputs", ["y"])
        before = self.a.get("expression") or []
        before = [before] if isinstance(before, str) else before
        texts = []
        for k, out in enumerate(outputs):
            texts.append(_ask(questionary.text(
                f"Elementwise math for {out}, e.g. x * sigmoid(x) (empty: write the kernels "
                "yourself):", default=before[k] if k < len(before) else "",
                validate=check)).strip())
            if not texts[-1]:
                break
        done = all(texts) and len(texts) == len(outputs)
        self.a["expression"] = (texts[0] if len(texts) == 1 else texts) if done else None

    def q_gpu(self) -> None:
        self.a["gpu_global"] = _ask(questionary.text(
            "GPU global work size over B,F,Y,X:", default=self.a.get("gpu_global", "B*F*Y*X"),
            validate=_work_sizes_check))

    def config(self) -> dict[str, Any]:
        a = self.a
        types = {fw: t for fw, t in a.get("framework_types", {}).items()
                 if extractor_target(fw) in a["targets"]}  # deselected frameworks' go
        op: dict[str, Any] = {
            "name": a["name"], "framework_types": types,
            "inputs": [{"name": n} for n in a.get("inputs", ["x"])],
            "outputs": [{"name": n} for n in a.get("outputs", ["y"])],
            "attributes": [
                {k: v for k, v in at.items() if v is not None} for at in a["attributes"]
            ],
            "shape": {"kind": {"same": "same_as_input"}.get(a.get("shape", "same"), a["shape"])},
        }
        if a.get("shape") == "formula":
            op["shape"].update(names=a["dim_names"], dims=a["dims"])
        if a.get("expression") and a.get("shape") != "custom":
            op["expression"] = a["expression"]
        if a.get("gpu_global"):
            op["gpu"] = {"global_work_size": a["gpu_global"]}
        for fw in ("caffe", "tf", "mxnet"):
            if a.get(fw) and extractor_target(fw) in a["targets"]:
                op[fw] = {k: v for k, v in a[fw].items()
                          if not (fw == "caffe" and k == ("param_name" if a[fw].get("pythonic")
                                                          else "module"))}
        return {"targets": a["targets"], "ops": [op]}

    def run(self) -> dict[str, Any]:
        for _, ask, wanted in self.questions:
            if wanted() and not (ask == self.q_targets and self.a["targets"]):
                ask()
        while True:
            print(json.dumps(self.config(), indent=2))
            labels = [label for label, _, wanted in self.questions if wanted()]
            choice = _ask(questionary.select(
                "Change an answer?", choices=["no, generate", *labels]))
            if choice == "no, generate":
                return self.config()
            dict((label, ask) for label, ask, _ in self.questions)[choice]()


def ask_config(targets: list[str], out_dir: Path,
               prefill: dict[str, Any] | None = None) -> GeneratorConfig:
    """Ask for everything; returns the validated config (the caller writes it beside the output)."""
    from extgen.generator.generate import validate_config

    if not sys.stdin.isatty():
        msg = ("standard input is not a terminal, so extgen new cannot ask its questions; "
               "describe the op in a JSON file and pass --config FILE.json")
        raise ConfigError(msg)
    return validate_config(_Session(list(targets), prefill or {}).run(), "answers")
