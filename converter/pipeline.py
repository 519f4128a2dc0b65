"""Conversion pipeline: load -> extract -> front -> partial inference -> middle -> back -> emit."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from converter import frameworks
from converter.back import clamp_bounds as _clamp_bounds  # noqa: F401  (built-in passes)
from converter.back.activation_fusion import fuse_activations
from converter.back.compress_fp16 import compress_to_fp16
from converter.back.convert_like import resolve_convert_like
from converter.back.decompositions import decompose_for_fusion
from converter.back.fold_constants import fold_constants
from converter.back.linear_fusion import fuse_linear_ops
from converter.back.nop_elimination import eliminate_nops
from converter.back.pruning import prune_zero_channels
from converter.back.quantize_fusion import fuse_quantize_dequantize
from converter.errors import ShapeInferenceError
from converter.extension_libraries import LIBRARY_SUFFIXES, load_extension_libraries
from converter.extensions import extension_scope, load_extension_dirs
from converter.front.extractor import check_unsupported, extract_nodes
from converter.front.inputs import apply_input_options
from converter.front.mo_names import from_mo_names, to_mo_names
from converter.front.transforms import apply_transforms
from converter.front.translator import KEEP_PB
from converter.graph.graph import Graph
from converter.ir.writer import emit_ir
from converter.legacy.argv import mo_argv, set_graph_facts, set_is_cyclic
from converter.legacy.build import const_for_input_data
from converter.legacy.fake_output_resolver import remove_output_adds
from converter.legacy.fake_outputs import add_fake_outputs
from converter.legacy.result_names import name_results, note_unread_outputs
from converter.middle import constant_last as _constant_last  # noqa: F401  (built-in passes)
from converter.middle import gelu_fusion as _gelu_fusion  # noqa: F401
from converter.middle.declared_shapes import KEY as DECLARED
from converter.middle.partial_infer import partial_infer
from converter.middle.tensor_nodes import create_tensor_nodes
from converter.options import ConvertOptions
from converter.passes import ReplacementPattern, order_passes, run_passes
from converter.system import return_free_memory
from converter.version import installed_version

__all__ = ["PHASES", "ConvertResult", "convert", "convert_to_graph", "load_extensions"]

PHASES = ("load", "extract", "front", "infer", "middle", "back", "emit")
Progress = Callable[[str], None]


@dataclass
class ConvertResult:
    xml: Path
    bin: Path
    seconds: float
    fp16: tuple[int, int] | None = None  # --compress_to_fp16: (Consts compressed, kept f32)


def _phase_passes(phase: str) -> list[type[ReplacementPattern]]:
    excluded = set(ReplacementPattern.excluded_replacers)
    classes = [
        c for c in ReplacementPattern.registered_cls
        if getattr(c, "phase", None) == phase and c not in excluded
    ]
    return order_passes(classes)


def _rt_info(opts: ConvertOptions, framework: str) -> dict:
    params = {"framework": framework, "input_model": f"DIR/{opts.input_model.name}"}
    if opts.input_shape:
        shapes = ("[" + ",".join(map(str, s)) + "]" for s in opts.input_shape)
        params["input_shape"] = ",".join(shapes)
    for key in ("reverse_input_channels", "compress_to_fp16"):
        if getattr(opts, key):
            params[key] = "True"
    params.update(opts.extra)
    return {"MO_version": f"extgen {installed_version()}", "conversion_parameters": params}


def _input_hint(opts: ConvertOptions) -> str:
    """Which flags changed the model's input shapes or types, as the end of an error ('' for
    none)."""
    flags = ["--input_shape"] if opts.input_shape else []
    shaped = bool(flags) or any(s.shape is not None for s in opts.inputs or [])
    if any(s.shape is not None or s.dtype is not None for s in opts.inputs or []):
        flags.append("--input")
    if not flags:
        return ""
    return (f"; the input {'shape' if shaped else 'type'} given by {' / '.join(flags)} "
            "does not fit this model")


def _infer(graph: Graph, opts: ConvertOptions) -> None:
    """partial_infer; an op refusing its inputs after --input/--input_shape names the flag.
    The shapes a model declares hold at its own input shapes: new ones set them aside, and
    they are checked at this first inference only (later passes may change the layout)."""
    if opts.input_shape or opts.batch or any(s.shape is not None for s in opts.inputs or []):
        graph.graph.pop(DECLARED, None)
    try:
        partial_infer(graph)
    except ShapeInferenceError as err:
        hint = _input_hint(opts)
        if not hint:
            raise
        raise ShapeInferenceError(f"{err}{hint}") from err
    graph.graph.pop(DECLARED, None)


def load_extensions(paths: list[Path], fw: frameworks.Framework) -> None:
    """--extensions: folders of Python extensions and compiled libraries (their ops known to
    the converter); inside extension_scope()."""
    libraries = [p for p in paths if p.suffix in LIBRARY_SUFFIXES and not p.is_dir()]
    load_extension_dirs([p for p in paths if p not in libraries], fw.name)
    load_extension_libraries(libraries, fw)


def convert_to_graph(opts: ConvertOptions, progress: Progress | None = None) -> tuple[Graph, str]:
    """Run every phase but emission; returns the back-stage graph and the framework.
    Call it inside extension_scope() once the framework module is imported (resolve())."""
    step = progress or (lambda phase: None)
    fw = frameworks.resolve(opts.input_model, opts.framework)
    load_extensions(opts.extensions, fw)
    step("load")
    graph = fw.read(opts)
    graph.graph[KEEP_PB] = any(Path(p).is_dir() for p in opts.extensions)
    graph.graph["cmd_params"] = mo_argv(opts)
    step("extract")
    extract_nodes(graph, fw.translators, fw.node_attrs)
    to_mo_names(graph)
    add_fake_outputs(graph, opts.extensions)
    note_unread_outputs(graph, opts.extensions)
    return_free_memory()  # the framework's model, read by the translators, is gone
    if graph.has_cycle():  # the front passes cannot run on a loop: list unsupported ops first
        check_unsupported(graph, fw.name)
    step("front")
    apply_input_options(graph, opts)
    set_graph_facts(graph, graph.graph["cmd_params"], fw.name)
    apply_transforms(graph, opts)
    run_passes(graph, _phase_passes("front"))
    check_unsupported(graph, fw.name)
    graph.clean_up()
    step("infer")
    from_mo_names(graph)
    create_tensor_nodes(graph)
    _infer(graph, opts)
    step("middle")
    set_is_cyclic(graph)
    run_passes(graph, _phase_passes("middle"))
    const_for_input_data(graph)
    step("back")
    graph.stage = "back"
    run_passes(graph, _phase_passes("back"))
    remove_output_adds(graph)  # MO's FakeOutputResolver's Adds: OpenVINO dropped them
    name_results(graph)
    fold_constants(graph)
    resolve_convert_like(graph)
    eliminate_nops(graph)
    fuse_quantize_dequantize(graph)
    fuse_activations(graph)
    decompose_for_fusion(graph)
    fuse_linear_ops(graph)
    if any(name == "Pruning" for name, _ in opts.transforms):
        prune_zero_channels(graph)
    if opts.compress_to_fp16:
        graph.graph["fp16"] = compress_to_fp16(graph)
    return graph, fw.name


@contextmanager
def _rare_collections() -> Iterator[None]:
    """A conversion builds millions of long-lived containers (the graph's dicts) and little
    cyclic garbage: collecting the youngest generation every 50,000 allocations instead of 700
    stops the collector from rescanning them (a quarter of a 100k-node conversion's time)."""
    old = gc.get_threshold()
    gc.set_threshold(50_000, *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def convert(opts: ConvertOptions, progress: Progress | None = None) -> ConvertResult:
    """Convert opts.input_model to IR v11 in opts.output_dir."""
    start = time.perf_counter()
    # the framework's built-in passes register outside the extension scope
    opts.check_framework_flags(frameworks.resolve(opts.input_model, opts.framework).name)
    with extension_scope(), _rare_collections():
        graph, fw = convert_to_graph(opts, progress)
        if progress:
            progress("emit")
        name = opts.model_name or opts.input_model.stem
        xml, bin_ = emit_ir(graph, Path(opts.output_dir), name, _rt_info(opts, fw))
    return ConvertResult(xml, bin_, time.perf_counter() - start, graph.graph.get("fp16"))
