"""`extgen test`'s ovc rows: for each framework an op's config names, a tiny model of
that framework holding the op (extgen.framework_models) is converted by openvino.convert_model
with the extension, C++ (ovc-<framework>: libuser_cpu_extension.so) and Python
(ovc-<framework>-py: user_ov_extensions), and run by OpenVINO's CPU plugin: its outputs are
compared with the reference like every other target's."""

from __future__ import annotations

import importlib.util
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from converter.errors import ExtgenError
from converter.ir.reader import IRLayer
from converter.ops.op import Op
from extgen.framework_models import BUILDERS, ModelOp, ToolMissing
from extgen.target_check import Kernel, Row, Target, not_run

__all__ = ["ovc_targets"]

# framework -> (OpenVINO frontend name, the Python modules its model builder needs)
_TOOLS = {"onnx": ("onnx", ["onnx"]), "tf": ("tf", ["tensorflow"]),
          "tflite": ("tflite", ["tensorflow", "flatbuffers"]),
          "paddle": ("paddle", ["paddle"]), "pytorch": ("pytorch", ["torch"])}
_PACKAGES = {"tensorflow": "tensorflow", "flatbuffers": "flatbuffers", "paddle": "paddlepaddle",
             "torch": "torch", "onnx": "onnx"}
_F32 = {"INFERENCE_PRECISION_HINT": "f32"}


def _configs(folder: Path) -> dict[str, dict]:
    """Each op's config (what `extgen new` recorded in .extgen/base.json), by op name."""
    record = folder / ".extgen" / "base.json"
    if not record.is_file():
        return {}
    return {op["name"]: op for op in json.loads(record.read_text())["config"]["ops"]}


_PY_TYPES = {"int": int, "float": float, "bool": bool, "string": str}


def _typed(kind: str, value: Any) -> Any:
    """value as the attribute's type (a float attribute's 2 as 2.0, as each model stores it)."""
    if kind.endswith("_list"):
        return [_PY_TYPES[kind.removesuffix("_list")](v) for v in value]
    return _PY_TYPES[kind](value)


def _model_op(config: dict, framework: str, cls: type[Op], ins: list[np.ndarray]) -> ModelOp:
    from extgen.generator.config import OpConfig

    op = OpConfig.model_validate(config)
    outputs = [np.asarray(y) for y in cls.evaluate(dict(cls.defaults), ins)]
    values = {a.name: cls.defaults.get(a.name, a.default) for a in op.attributes}
    attrs = [(a.fw_name, a.type, _typed(a.type, values[a.name])) for a in op.attributes
             if values[a.name] is not None]  # none: the model leaves it to the default
    return ModelOp(op.framework_type(framework), ins, outputs, attrs,
                   [p.name for p in op.inputs], [p.name for p in op.outputs])


class _Models:
    """The models built so far, shared by an op's cases and the C++ and Python forms (a Paddle
    model, its dims dynamic, serves every case of a rank); in one folder kept for the run."""

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="extgen_ovc_")
        self._built: dict[tuple, Any] = {}

    def get(self, framework: str, op: ModelOp) -> Any:
        dims = (lambda a: a.ndim) if framework == "paddle" else (lambda a: a.shape)
        key = (framework, op.type, *((dims(a), a.dtype.str) for a in op.inputs + op.outputs))
        if key not in self._built:
            folder = Path(self._folder.name) / str(len(self._built))
            folder.mkdir()
            self._built[key] = BUILDERS[framework](op, folder)
        return self._built[key]


def _feed(model: Any, ins: list[np.ndarray]) -> dict:
    """The model's inputs by name (in<k>, as the builders call them), else in order."""
    feed = {}
    for k, port in enumerate(model.inputs):
        named = [int(n[2:].split(":")[0]) for n in port.get_names()
                 if n.startswith("in") and n[2:].split(":")[0].isdigit()]
        feed[port] = ins[named[0] if named else k]
    return feed


def _ordered(compiled: Any, result: Any) -> list[np.ndarray]:
    """The outputs by name (out<k>), else in the model's order."""
    outs = list(compiled.outputs)

    def index(k_port: tuple[int, Any]) -> int:
        names = [n.split(":")[0] for n in k_port[1].get_names()]
        return next((int(n[3:]) for n in names if n.startswith("out") and n[3:].isdigit()),
                    k_port[0])

    return [np.asarray(result[port]) for _, port in sorted(enumerate(outs), key=index)]


def _kernel(framework: str, extension: Any, configs: dict[str, dict],
            ops: dict[str, type[Op]], models: _Models):
    import openvino as ov

    core = ov.Core()
    core.add_extension(extension)

    def kernel(layer: IRLayer) -> Kernel | None:
        config, cls = configs.get(layer.type), ops.get(layer.type)
        if config is None or cls is None or framework not in config.get("framework_types", {}):
            return None

        def run(ins: list[np.ndarray]) -> list[np.ndarray]:
            model_op = _model_op(config, framework, cls, ins)
            try:
                source = models.get(framework, model_op)
                example = ({"example_input": tuple(_torch_tensors(ins))}
                           if framework == "pytorch" else {})
                model = ov.convert_model(source, extension=extension, **example)
                if not any(node.get_type_name() == layer.type for node in model.get_ops()):
                    msg = f"the converted model holds no {layer.type}: the mapping was not used"
                    raise ExtgenError(msg)
                compiled = core.compile_model(model, "CPU", _F32)
                return _ordered(compiled, compiled(_feed(compiled, ins)))
            except ToolMissing as err:
                raise ExtgenError(str(err)) from None
            except RuntimeError as err:
                from extgen.target_openvino import openvino_error

                raise openvino_error(err) from None

        return run

    return kernel


def _torch_tensors(ins: list[np.ndarray]) -> list:
    import torch

    return [torch.from_numpy(np.ascontiguousarray(x)) for x in ins]


def _missing_tool(framework: str, available: set[str]) -> str | None:
    frontend, modules = _TOOLS[framework]
    if frontend not in available:
        return f"this openvino package has no {frontend} frontend"
    for module in modules:
        if importlib.util.find_spec(module) is None:
            return (f"{_PACKAGES[module]} (which builds the model) is not installed in this "
                    f"Python: pip install {_PACKAGES[module]}")
    return None


def _forms(library: Path | None, package: Path) -> tuple[list[str], list[Row]]:
    """The extension forms there are (c++, python), and a row for each that is not."""
    forms, rows = [], []
    if library is not None:
        forms.append("c++")
    else:
        rows.append(not_run("ovc-*", "needs the built libuser_cpu_extension.so (see the "
                            "openvino row)"))
    if (package / "__init__.py").is_file():
        forms.append("python")
    else:
        rows.append(not_run("ovc-*-py", "not generated: `extgen new --ov-python-op` adds "
                            "user_ov_extensions"))
    return forms, rows


def ovc_targets(folder: Path, ops: dict[str, type[Op]], library: Path | None
                ) -> tuple[list[Target], list[Row]]:
    """The ovc-<framework> targets with the C++ library (when built) and ovc-<framework>-py
    with user_ov_extensions (when generated), for each framework an op's config names
    (framework_types) whose tools are installed; a row saying why for each that does not
    run, and one naming the ops whose config names none."""
    try:
        import openvino as ov
    except ImportError:
        return [], [not_run("ovc-*", "the openvino package is not installed in this Python: "
                            "pip install openvino")]
    from extgen.target_openvino import python_extensions

    package = folder / "user_ov_extensions"
    forms, rows = _forms(library, package)
    if not forms:
        return [], rows
    configs = _configs(folder)
    if not configs:
        why = f"no {folder / '.extgen' / 'base.json'}: extgen new records the config there"
        return [], [*rows, not_run("ovc-*", why)]
    unnamed = sorted(name for name, c in configs.items() if not c.get("framework_types"))
    if unnamed:
        rows.append(not_run("ovc-*", f"{', '.join(unnamed)}: the config names no framework "
                            "(framework_types) to build a model of"))
    available = set(ov.frontend.FrontEndManager().get_available_front_ends())
    named = {fw for c in configs.values() for fw in c.get("framework_types", {})}
    targets, models = [], _Models()
    for framework in [fw for fw in _TOOLS if fw in named]:
        why = _missing_tool(framework, available)
        if why is not None:
            rows.append(not_run(f"ovc-{framework}", why))
            continue
        for form in forms:
            if form == "c++":
                name, extension = f"ovc-{framework}", str(library)
            else:  # the generic TFLite mapping only for TFLite (see the generated module)
                name = f"ovc-{framework}-py"
                extension = python_extensions(package, tflite=framework == "tflite")
            kernel = _kernel(framework, extension, configs, ops, models)
            targets.append(Target(name, np.dtype(np.float32), kernel, quiet_absent=True))
    return targets, rows
