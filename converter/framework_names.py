"""The frameworks the converter reads, defined once as plain data (light to import, for the CLI
and the generator): each one's display name and the model-file suffixes that pick it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FRAMEWORKS", "OVC_ONLY", "SUFFIXES", "FrameworkInfo"]


@dataclass(frozen=True)
class FrameworkInfo:
    title: str
    suffixes: tuple[str, ...]


FRAMEWORKS = {
    "onnx": FrameworkInfo("ONNX", (".onnx",)),
    "tf": FrameworkInfo("TensorFlow", (".pb", ".pbtxt", ".meta", ".keras", ".h5")),
    "caffe": FrameworkInfo("Caffe", (".caffemodel", ".prototxt")),
    "mxnet": FrameworkInfo("MXNet", (".params", ".json")),
    "kaldi": FrameworkInfo("Kaldi", (".nnet", ".raw", ".mdl")),
    "tflite": FrameworkInfo("TensorFlow Lite", (".tflite",)),
    # .pt2: a torch.export program; .pt/.pth: TorchScript (a .pth of bare weights is refused)
    "pytorch": FrameworkInfo("PyTorch", (".pt2", ".pt", ".pth")),
}
SUFFIXES = {name: info.suffixes for name, info in FRAMEWORKS.items()}
# model files OpenVINO's ovc reads and extgen does not: suffix -> the format's name
OVC_ONLY = {".pdmodel": "PaddlePaddle"}
