"""The OpenVINO targets of `extgen test`: one layer of a generated op, in a one-op IR, run by the
OpenVINO CPU plugin with the built extension library (libuser_cpu_extension.so) or with the
Python ops of user_ov_extensions/. OpenVINO is the runtime under test here, never a
converter."""

from __future__ import annotations

import sys
import tempfile
import xml.etree.ElementTree as ET  # writing only; nothing is parsed here
from collections.abc import Callable
from pathlib import Path

import numpy as np

from converter.errors import ExtgenError
from converter.ir.reader import IRLayer
from converter.ir.types import element_type, precision

__all__ = ["LIBRARY", "openvino_error", "openvino_kernel", "python_extensions",
           "python_op_kernel"]

LIBRARY = "libuser_cpu_extension.so"


def _port(parent: ET.Element, port: int, shape: tuple[int, ...], prec: str | None) -> None:
    el = ET.SubElement(parent, "port", {"id": str(port), **({"precision": prec} if prec else {})})
    for d in shape:
        ET.SubElement(el, "dim").text = str(d)


def _ir(layer: IRLayer, ins: list[np.ndarray]) -> bytes:
    """IR v11: a Parameter per input, the layer, a Result per output."""
    net = ET.Element("net", {"name": "extgen_test", "version": "11"})
    layers, edges = ET.SubElement(net, "layers"), ET.SubElement(net, "edges")
    op_id = len(ins)
    for k, x in enumerate(ins):
        p = ET.SubElement(layers, "layer", {"id": str(k), "name": f"in{k}", "type": "Parameter",
                                            "version": "opset1"})
        ET.SubElement(p, "data", {"shape": ",".join(map(str, x.shape)),
                                  "element_type": element_type(x.dtype)})
        _port(ET.SubElement(p, "output"), 0, x.shape, precision(x.dtype))
        ET.SubElement(edges, "edge", {"from-layer": str(k), "from-port": "0",
                                      "to-layer": str(op_id), "to-port": str(k)})
    op = ET.SubElement(layers, "layer", {"id": str(op_id), "name": "op", "type": layer.type,
                                         "version": layer.version})
    ET.SubElement(op, "data", dict(layer.attrs))
    inputs, outputs = ET.SubElement(op, "input"), ET.SubElement(op, "output")
    for k, x in enumerate(ins):
        _port(inputs, k, x.shape, None)
    for k, out in enumerate(layer.outputs):
        _port(outputs, out.id, out.dims, out.precision)
        rid = op_id + 1 + k
        r = ET.SubElement(layers, "layer", {"id": str(rid), "name": f"out{k}", "type": "Result",
                                            "version": "opset1"})
        _port(ET.SubElement(r, "input"), 0, out.dims, None)
        ET.SubElement(edges, "edge", {"from-layer": str(op_id), "from-port": str(out.id),
                                      "to-layer": str(rid), "to-port": "0"})
    return ET.tostring(net, encoding="utf-8", xml_declaration=True)


def openvino_kernel(library: Path) -> Callable[[IRLayer], Callable | None] | None:
    """layer -> a kernel running it in OpenVINO with the built C++ library, or None when
    OpenVINO is not installed."""
    try:
        import openvino as ov
    except ImportError:
        return None
    from converter.runtime.cpu import CpuLibrary

    core = ov.Core()
    core.add_extension(str(library))
    return _ir_kernel(core, CpuLibrary(library).implements)


def python_extensions(package: Path, tflite: bool = False) -> list:
    """The `extensions(tflite)` of a generated user_ov_extensions package, loaded from its
    path (openvino must be installed)."""
    import importlib.util

    name = f"_extgen_test_{package.name}"
    spec = importlib.util.spec_from_file_location(name, package / "__init__.py",
                                                  submodule_search_locations=[str(package)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its `from .<op>_ov import ...` find the package
    try:
        spec.loader.exec_module(module)
        return module.extensions(tflite) if tflite else module.extensions()
    except Exception as err:  # user code: one line naming the package
        msg = f"{package}: extensions() failed: {type(err).__name__}: {err}"
        raise ExtgenError(msg) from None
    finally:
        for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            sys.modules.pop(loaded)


def python_op_kernel(package: Path, ops: set[tuple[str, str]]
                     ) -> Callable[[IRLayer], Callable | None] | None:
    """layer -> a kernel running it in OpenVINO with the Python ops of a generated
    user_ov_extensions package (its `extensions()`, which adds the ops of (type, version)
    `ops`), or None when OpenVINO is not installed."""
    try:
        import openvino as ov
    except ImportError:
        return None
    core = ov.Core()
    core.add_extension(python_extensions(package))
    return _ir_kernel(core, lambda layer: (layer.type, layer.version) in ops)


def _ir_kernel(core, implements: Callable[[IRLayer], bool]) -> Callable[[IRLayer], Callable | None]:
    """layer -> a kernel running it as a one-op IR in OpenVINO's CPU plugin (f32)."""

    def kernel(layer: IRLayer) -> Callable | None:
        if not implements(layer):
            return None

        def run(ins: list[np.ndarray]) -> list[np.ndarray]:
            try:
                with tempfile.TemporaryDirectory() as tmp:
                    xml = Path(tmp) / "op.xml"
                    xml.write_bytes(_ir(layer, ins))
                    xml.with_suffix(".bin").write_bytes(b"")
                    model = core.read_model(str(xml))
                compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
                result = compiled(ins)
            except RuntimeError as err:
                raise openvino_error(err) from None
            return [np.asarray(result[out]) for out in compiled.outputs]

        return run

    return kernel


def openvino_error(err: Exception) -> ExtgenError:
    """What OpenVINO threw, in one line: its last (the first says only where it threw)."""
    lines = [line for line in str(err).splitlines() if line.strip()] or ["failed"]
    return ExtgenError(f"OpenVINO: {lines[-1].strip()}")
