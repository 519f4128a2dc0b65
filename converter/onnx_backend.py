"""onnx.backend.base.Backend over extgen: convert with our converter, run the IR in an engine.

    rep = ExtgenBackend.prepare(model, device="CPU", engine="openvino")
    outputs = rep.run([x])

engine="openvino" runs our IR in the real OpenVINO runtime (Core.read_model on our .xml/.bin);
engine="shim" runs it in extgen's own numpy runtime (converter/runtime).

Inputs may be TensorProtos, as the node suite gives types numpy lacks (bf16, float8, int4).
Outputs come back as TensorProtos named for the graph outputs when every input was one, or when
numpy lacks the output's type; otherwise as numpy arrays.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.backend.base import Backend, BackendRep

from converter.ir.types import numpy_lacks
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.ov_tensors import from_ov, to_ov

__all__ = ["ExtgenBackend", "ExtgenRep"]


class ExtgenRep(BackendRep):
    def __init__(self, runner, input_names: list[str], output_names: list[str]) -> None:
        self.runner, self.input_names, self.output_names = runner, input_names, output_names

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        if isinstance(inputs, dict):
            feed = dict(inputs)
        else:
            arrays = [inputs] if isinstance(inputs, np.ndarray) else list(inputs)
            feed = dict(zip(self.input_names, arrays))
        protos = bool(feed) and all(isinstance(v, onnx.TensorProto) for v in feed.values())
        feed = {k: _array(v) for k, v in feed.items()}
        outputs = self.runner(feed, self.output_names)
        return tuple(
            numpy_helper.from_array(v, name) if protos or numpy_lacks(v.dtype) else v
            for name, v in zip(self.output_names, outputs)
        )


def _array(value: Any) -> Any:
    return numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else value


def _openvino_runner(xml: Path):
    import openvino as ov

    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(xml)), "CPU",
                                  {"INFERENCE_PRECISION_HINT": "f32"})
    ports = {name: port for port in compiled.inputs for name in port.get_names()}

    def run(feed: dict[str, np.ndarray], outputs: list[str]) -> list[np.ndarray]:
        request = compiled.create_infer_request()
        request.infer({ports[k]: to_ov(v) for k, v in feed.items() if k in ports})
        return [from_ov(request.get_tensor(compiled.output(name))) for name in outputs]

    return run


def _shim_runner(xml: Path):
    from converter.ir.reader import read_ir
    from converter.runtime.executor import Executor

    executor = Executor(read_ir(xml), [])

    def run(feed: dict[str, np.ndarray], outputs: list[str]) -> list[np.ndarray]:
        result = executor.run(feed)
        return [result[name] for name in outputs]

    return run


_ENGINES = {"openvino": _openvino_runner, "shim": _shim_runner}


class ExtgenBackend(Backend):
    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", engine: str = "openvino",
                **kwargs: Any) -> ExtgenRep:
        if engine not in _ENGINES:
            msg = f"engine '{engine}' is not available; choose one of {', '.join(_ENGINES)}"
            raise ValueError(msg)
        inits = {t.name for t in model.graph.initializer}
        input_names = [i.name for i in model.graph.input if i.name not in inits]
        output_names = [o.name for o in model.graph.output]
        with tempfile.TemporaryDirectory(prefix="extgen-") as tmp:
            path = Path(tmp) / "model.onnx"
            onnx.save(model, path)
            result = convert(ConvertOptions(path, output_dir=Path(tmp)))
            runner = _ENGINES[engine](result.xml)
        return ExtgenRep(runner, input_names, output_names)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"
