"""TensorFlow (frozen GraphDef, .pb or .pbtxt) as a converter framework."""

from __future__ import annotations

from converter.frameworks import Framework

# _replacement and _layout are imported for their built-in passes: --transformations_config
# replacements (front) and the NHWC->NCHW change (middle)
from converter.front.tf import replacement as _replacement  # noqa: F401
from converter.front.tf.translator import REGISTRY
from converter.graph.graph import Graph
from converter.middle.layout import transposes as _layout  # noqa: F401
from converter.options import ConvertOptions


def _load(opts: ConvertOptions) -> Graph:
    from converter.front.tf.loader import graph_def_to_graph, load_graph_def
    from converter.front.tf.replacement import load_transformations_config

    graph_def = load_graph_def(opts.input_model, opts.input_model_is_text)
    graph = graph_def_to_graph(graph_def, opts.input_model.stem)
    if opts.transformations_config is not None:
        graph.graph["custom_replacement_descriptions"] = load_transformations_config(
            opts.transformations_config)
    return graph


FRAMEWORK = Framework("tf", _load, REGISTRY)
