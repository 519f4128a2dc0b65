"""TensorFlow as a converter framework: a frozen GraphDef (.pb, .pbtxt), a SavedModel folder,
a MetaGraphDef (.meta) with its checkpoint, a GraphDef with --input_checkpoint, or a Keras 3
.keras file."""

from __future__ import annotations

from pathlib import Path

from converter.errors import ModelFormatError
from converter.frameworks import Framework

# _replacement and _layout are imported for their built-in passes: --transformations_config
# replacements (front) and the NHWC->NCHW change (middle)
from converter.front.tf import replacement as _replacement  # noqa: F401
from converter.front.tf.translator import REGISTRY
from converter.graph.graph import Graph
from converter.middle.layout import transposes as _layout  # noqa: F401
from converter.options import ConvertOptions


def _graph_def(opts: ConvertOptions):
    """The model as one frozen GraphDef, functions inlined and variables made constants."""
    from converter.front.tf.functions import inline_functions
    from converter.front.tf.keras_model import load_keras
    from converter.front.tf.loader import load_graph_def
    from converter.front.tf.saved_model import freeze, load_meta_graph, load_saved_model

    model = Path(opts.input_model)
    if model.name == "saved_model.pb":  # the file inside a SavedModel folder
        model = model.parent
    if model.is_dir():
        return load_saved_model(model, opts.saved_model_tags)
    if model.suffix.lower() == ".meta":
        return load_meta_graph(model, opts.input_checkpoint)
    if model.suffix.lower() == ".keras":
        return load_keras(model)
    if model.suffix.lower() == ".h5":
        msg = (f"{model}: legacy Keras .h5 files are not read; save the model as .keras "
               "(model.save('model.keras')) or export a SavedModel and pass --saved_model_dir")
        raise ModelFormatError(msg)
    graph_def = load_graph_def(model, opts.input_model_is_text)
    if opts.input_checkpoint is not None:
        return freeze(graph_def, opts.input_checkpoint)
    inline_functions(graph_def)
    return graph_def


def _load(opts: ConvertOptions) -> Graph:
    from converter.front.tf.bodies import prepare_loops
    from converter.front.tf.config_update import update_config_file
    from converter.front.tf.declarations import check_graph_def
    from converter.front.tf.loader import graph_def_to_graph
    from converter.front.tf.replacement import load_transformations_config

    graph_def = _graph_def(opts)
    check_graph_def(graph_def, Path(opts.input_model))
    prepare_loops(graph_def)
    graph = graph_def_to_graph(graph_def, opts.input_model.stem)
    if opts.tensorflow_custom_operations_config_update is not None:
        update_config_file(graph, opts.tensorflow_custom_operations_config_update)
    if opts.transformations_config is not None:
        graph.graph["custom_replacement_descriptions"] = load_transformations_config(
            opts.transformations_config)
    return graph


FRAMEWORK = Framework("tf", _load, REGISTRY)
