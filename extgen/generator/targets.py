"""What `extgen new` can generate, defined once: each target's flag help, template folder and
output folder. There is one extractor target per framework the library reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from converter.framework_names import FRAMEWORKS

__all__ = ["TARGETS", "Target", "TargetSpec", "extractor_target", "gpu_output_limit"]


@dataclass(frozen=True)
class TargetSpec:
    help: str
    templates: str  # folder under templates/
    output: str  # folder under --output_dir
    framework: str | None = None  # the framework a Model Optimizer extractor reads


def extractor_target(framework: str) -> str:
    """The target of a framework's Model Optimizer extractor: tf -> mo-tf-ext."""
    return f"mo-{framework}-ext"


TARGETS: dict[str, TargetSpec] = {
    **{extractor_target(fw): TargetSpec(f"generate a Model Optimizer {info.title} extractor",
                                        f"mo/front/{fw}", f"user_mo_extensions/front/{fw}", fw)
       for fw, info in FRAMEWORKS.items()},
    "mo-op": TargetSpec("generate a Model Optimizer operation", "mo/ops", "user_mo_extensions/ops"),
    "ie-cpu-ext": TargetSpec("generate a CPU extension (OpenVINO API 2.0 op, C ABI, CMake)",
                             "ie_cpu", "user_ie_extensions/cpu"),
    "ie-gpu-ext": TargetSpec("generate a GPU extension (OpenCL kernel + SimpleGPU XML)",
                             "ie_gpu", "user_ie_extensions/gpu"),
    "ie-vpu-ext": TargetSpec("generate a VPU extension (OpenCL kernel + MVCL XML); legacy: "
                             "OpenVINO loads it up to 2022.3 (MYRIAD plugin), extgen run's "
                             "shim anywhere", "ie_vpu", "user_ie_extensions/vpu"),
    "ov-python-op": TargetSpec("generate the op for today's OpenVINO in Python (openvino.Op, with "
                               "ONNX, TensorFlow, PaddlePaddle and PyTorch frontend mappings for "
                               "ovc and convert_model; TensorFlow Lite's with "
                               "extensions(tflite=True)): no compiler needed; with --mo-op, whose "
                               "definition it runs",
                               "ov_python", "user_ov_extensions"),
    "op-test": TargetSpec("generate test_<op>.py: pytest runs `extgen test` for the op",
                          "op_test", ""),
}
Target = Literal[tuple(TARGETS)]  # type: ignore[valid-type]


def gpu_output_limit(n_outputs: int) -> str | None:
    """Why a GPU (SimpleGPU) kernel cannot compute every output of an op, or None: the GPU
    plugin's custom-layer contract binds a single output, OUTPUT0 (docs/kernels.md)."""
    if n_outputs <= 1:
        return None
    return ("the GPU plugin's SimpleGPU custom-layer contract supports a single output, OUTPUT0 "
            f"(docs/kernels.md); the op has {n_outputs}")
