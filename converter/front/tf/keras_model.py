"""A Keras 3 `.keras` file (a zip of config.json and model.weights.h5) as a frozen GraphDef: each
layer of the model config becomes the TensorFlow ops Keras runs for it (keras_layers,
keras_attention, keras_audio, keras_recurrent), its weights Consts, so the TF translators do the
rest. Sequential and functional models nest as layers.

Reading the weights needs h5py (the `keras` extra): HDF5 is too large a format to parse here.
A model keeps its layers' weights under `layers/<class_name>[_n]/` in model order (a nested
model's own under `layers/.../layers/...`, a sub-layer's under its attribute name, e.g.
`cell/vars/<i>`). A layer this module does not know is reported by class name, with the
SavedModel route as the fix.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import numpy as np

from converter.errors import InputFileError, ModelFormatError, UsageError
from converter.front.tf import (  # noqa: F401 - they register
    keras_attention,
    keras_audio,
    keras_recurrent,
)
from converter.front.tf.keras_layers import F32, LAYERS, Builder, layer

__all__ = ["load_keras"]


def _snake(name: str) -> str:
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def _tree(group) -> dict:
    """An HDF5 group as nested dicts of numpy arrays."""
    return {k: _tree(v) if hasattr(v, "keys") else np.asarray(v) for k, v in group.items()}


def _layer_trees(model_tree: dict, layers: list[dict]) -> list[dict]:
    """Each layer's weights group. The file keys them not by layer name but by class,
    numbered in model order: conv2d, conv2d_1, ..."""
    group, seen, out = model_tree.get("layers") or {}, {}, []
    for spec in layers:
        base = _snake(spec["class_name"])
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.append(group.get(f"{base}_{count}" if count else base) or {})
    return out


def _apply(b: Builder, spec: dict, tree: dict, xs: list[str], kwargs: dict | None = None) -> str:
    """One call of one layer on tensors xs, with the call's keyword arguments."""
    cls, name = spec["class_name"], spec["config"].get("name", spec.get("name"))
    if cls not in LAYERS:
        msg = f"Keras layer {cls} ('{name}')"
        raise KeyError(msg)
    cfg = {**spec["config"], "__class__": cls, "__build__": spec.get("build_config") or {},
           "__tree__": tree, "__call__": kwargs or {}}
    try:
        return LAYERS[cls](b, name, cfg, xs)
    except (ValueError, IndexError, TypeError) as err:
        msg = f"Keras layer {cls} ('{name}') with these settings or weights ({err})"
        raise KeyError(msg) from None


def _tensor_name(ref: dict, outputs: dict) -> str:
    layer_name, node_index, _ = ref["config"]["keras_history"]
    return outputs[(layer_name, node_index)]


def _inputs(args, outputs: dict) -> list[str]:
    """The tensor names a call's args hold (a tensor, or a list of them)."""
    if isinstance(args, dict) and args.get("class_name") == "__keras_tensor__":
        return [_tensor_name(args, outputs)]
    if isinstance(args, list):
        return [t for a in args for t in _inputs(a, outputs)]
    return []


def _triples(refs) -> list:
    return [refs] if refs and isinstance(refs[0], str) else refs  # one: a bare triple


def _check_kwargs(spec: dict, kwargs: dict) -> None:
    """Call arguments are read only as attention's key and causal mask, or at their defaults
    (the graph is inference's whatever `training` says)."""
    given = sorted(k for k, v in kwargs.items()
                   if k not in ("key", "training", "use_causal_mask") and v not in (None, False))
    if given:
        msg = f"Keras layer {spec['class_name']} ('{spec['name']}') called with {given}"
        raise KeyError(msg)


def _functional(b: Builder, config: dict, tree: dict, feed: dict[str, str]) -> list[str]:
    """A functional model's output tensors, its input layers fed the given tensors."""
    outputs: dict[tuple[str, int], str] = {(k, 0): v for k, v in feed.items()}
    for spec, sub in zip(config["layers"], _layer_trees(tree, config["layers"]), strict=True):
        if spec["class_name"] == "InputLayer":
            continue
        for index, call in enumerate(spec["inbound_nodes"]):
            kwargs = call.get("kwargs") or {}
            _check_kwargs(spec, kwargs)
            xs = _inputs(call["args"], outputs) + _inputs(kwargs.get("key"), outputs)
            outputs[(spec["name"], index)] = _apply(b, spec, sub, xs, kwargs)
    return [outputs[(name, index)] for name, index, _ in _triples(config["output_layers"])]


def _sequential(b: Builder, config: dict, tree: dict, x: str) -> str:
    layers = config["layers"]
    for spec, sub in zip(layers, _layer_trees(tree, layers), strict=True):
        if spec["class_name"] != "InputLayer":
            x = _apply(b, spec, sub, [x])
    return x


@layer("Sequential")
def _nested_sequential(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    return _sequential(b, cfg, cfg["__tree__"], xs[0])


@layer("Functional")
def _nested_functional(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    heads = [name for name, _, _ in _triples(cfg["input_layers"])]
    out = _functional(b, cfg, cfg["__tree__"], dict(zip(heads, xs, strict=True)))
    if len(out) != 1:
        msg = "a nested model with several outputs"
        raise KeyError(msg)
    return out[0]


def _placeholder(b: Builder, spec: dict) -> str:
    shape = [-1 if d is None else d for d in spec["config"]["batch_shape"]]
    return b.g.placeholder(spec["config"]["name"], shape)


def _build(model: dict, tree: dict) -> Builder:
    b, config = Builder(), model["config"]
    if model.get("class_name") == "Sequential":
        first = config["layers"][0]
        if first["class_name"] != "InputLayer":
            msg = "a Sequential model without an Input"
            raise KeyError(msg)
        heads = [_sequential(b, config, tree, _placeholder(b, first))]
    else:
        feed = {spec["name"]: _placeholder(b, spec) for spec in config["layers"]
                if spec["class_name"] == "InputLayer"}
        heads = _functional(b, config, tree, feed)
    for i, head in enumerate(heads):
        b.g.node("Identity", f"output_{i}", [head], T=F32)
    return b


def load_keras(path: Path):
    """The frozen GraphDef of a Keras 3 .keras file."""
    try:
        import h5py
    except ImportError:
        msg = f"{path}: reading a .keras file needs h5py (pip install 'extgen[keras]')"
        raise UsageError(msg) from None
    try:
        with zipfile.ZipFile(path) as archive:
            model = json.loads(archive.read("config.json"))
            with archive.open("model.weights.h5") as raw, h5py.File(raw, "r") as h5:
                tree = _tree(h5)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as err:
        msg = f"{path}: not a Keras 3 .keras file ({err})"
        raise InputFileError(msg) from None
    if model.get("class_name") not in ("Functional", "Sequential"):
        msg = (f"{path}: a {model.get('class_name')} model; only functional and Sequential "
               "Keras models are read")
        raise ModelFormatError(msg)
    try:
        return _build(model, tree).g.graph_def
    except KeyError as err:
        msg = (f"{path}: {err.args[0] if err.args else err} is not read from .keras files; "
               "export a SavedModel (model.export(folder)) and pass --saved_model_dir")
        raise ModelFormatError(msg) from None
