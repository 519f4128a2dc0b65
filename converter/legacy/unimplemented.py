"""MO functions and classes extgen does not implement: a module that imports one still loads,
and using one (calling it, reading an attribute of it, subclassing it) stops the conversion
with one line naming the MO name, the file and line that used it, and what does that job in
extgen instead. Never a silent stand-in.

Most are MO's loading and extraction machinery, which extgen's own frontends replace (MO's
modules that hold them are not extensions), and MO's graph-level fusing functions.
"""

from __future__ import annotations

from typing import Any, NoReturn

from converter.errors import ExtensionError

__all__ = ["UNIMPLEMENTED", "Unimplemented"]

_FRONTEND = "extgen's own {} frontend loads and extracts models (MO's loader is no extension)"
_CAFFE, _TF = _FRONTEND.format("Caffe"), _FRONTEND.format("TensorFlow")
_MXNET, _KALDI = _FRONTEND.format("MXNet"), _FRONTEND.format("Kaldi")
_ONNX = _FRONTEND.format("ONNX")
_BODIES = ("extgen's ONNX and TensorFlow frontends build Loop/If bodies themselves: leave MO's "
           "body extractors (loop_ext.py, if_ext.py, while_ext.py) out of the extension folder")
_FUSING = ("extgen does not run MO's graph-level fusing (OpenVINO's own transformations fuse "
           "at load time); do what it did in your own pass")
_CLI = "extgen applies --input/--output itself, before the front passes"

# legacy module (pre-2022 root) -> (what does that job in extgen, the names)
UNIMPLEMENTED: dict[str, tuple[str, tuple[str, ...]]] = {
    "mo.front.caffe.extractors.native_caffe": (_CAFFE, ("native_caffe_node_extractor",)),
    "mo.front.common.partial_infer.caffe_fallback": (_CAFFE, ("caffe_native_node_infer",)),
    "mo.front.kaldi.loader.utils": (_KALDI, (
        "find_next_component", "get_name_from_path", "find_end_of_component", "end_of_nnet_tag",
        "get_parameters", "create_edge_attrs", "get_args_for_specifier")),
    "mo.front.mxnet.extractors.batchnorm": (_MXNET, ("batch_norm_ext",)),
    "mo.front.mxnet.extractors.concat": (_MXNET, ("concat_ext",)),
    "mo.front.mxnet.extractors.l2_normalization": (_MXNET, ("l2_normalization_ext",)),
    "mo.front.mxnet.extractors.multibox_prior": (_MXNET, ("multi_box_prior_ext",)),
    "mo.front.mxnet.extractors.scaleshift": (_MXNET, ("scale_shift_ext",)),
    "mo.front.mxnet.extractors.slice_axis": (_MXNET, ("slice_axis_ext",)),
    "mo.front.tf.extractors.concat": (_TF, ("tf_concat_ext",)),
    "mo.front.tf.extractors.fused_bn": (_TF, ("tf_fused_bn_extractor",)),
    "mo.front.tf.extractors.native_tf": (_TF, ("native_tf_node_extractor",)),
    "mo.front.tf.extractors.pack": (_TF, ("tf_pack_ext",)),
    "mo.front.tf.partial_infer.tf": (_TF, ("tf_native_tf_node_infer",)),
    "mo.front.tf.loader": (_TF, ("variables_to_constants",)),
    "mo.front.tf.extractor": (_BODIES, ("tf_op_extractor", "tf_op_extractors",
                                        "create_tf_edge")),
    "extensions.front.tf.extractors.subgraph_utils": (_BODIES, (
        "update_body_graph", "convert_graph_inputs_to_parameters", "get_graph_proto",
        "create_internal_graph")),
    "mo.front.onnx.extractor": (_BODIES, ("onnx_op_extractor", "onnx_op_extractors")),
    "mo.front.onnx.loader": (_BODIES, ("node_id", "add_initializers_and_inputs_to_graph")),
    "mo.front.extractor": (_CLI, ("user_data_repack", "output_user_data_repack")),
    "mo.front.subgraph_matcher": (
        "extgen matches --transformations_config sub-graphs in its TensorFlow frontend",
        ("SubgraphMatcher",)),
    "mo.front.tf.custom_subgraph_call": (
        "extgen replaces --transformations_config sub-graphs in its TensorFlow frontend",
        ("merge_nodes",)),
    "mo.utils.pipeline_config": (
        "extgen does not read Object Detection API pipeline.config files", ("PipelineConfig",)),
    "extensions.middle.TensorIterator_utils": (
        "extgen's TensorFlow frontend builds loops from while frames itself",
        ("delete_selects_from",)),
    "extensions.middle.EltwiseInputReshape": (_FUSING, ("normalize_eltwise_inputs",)),
    "mo.middle.passes.conv": (_FUSING, ("fuse_pad",)),
    "mo.middle.passes.fusing.decomposition": (_FUSING, (
        "convert_scale_shift_to_mul_add", "convert_batch_norm")),
    "mo.middle.passes.fusing.fuse_grouped_conv": (_FUSING, ("grouped_convolutions_fusing",)),
    "mo.middle.passes.fusing.fuse_linear_ops": (_FUSING, ("fuse_linear_ops",)),
    "mo.middle.passes.fusing.fuse_linear_seq": (_FUSING, ("fuse_mul_add_sequence",)),
    "mo.middle.passes.fusing.mark_unfused_nodes": (_FUSING, (
        "mark_unfused_nodes", "mark_shape_of_sugraph_as_unfusable")),
    "mo.middle.passes.fusing.resnet_optimization": (_FUSING, ("stride_optimization",)),
}


class Unimplemented:
    """Stands for MO's `module.name` until used; any use refuses in one line."""

    def __init__(self, module: str, name: str, instead: str) -> None:
        self._where = (module, name, instead)

    def _refuse(self, how: str = "") -> NoReturn:
        from converter.legacy.importer import caller  # the importer reads names, which reads us

        module, name, instead = self._where
        below = module.split(".", 1)[1]
        msg = (f"{caller()}uses MO's {below}.{name}{how}, which extgen does not implement: "
               f"{instead}")
        raise ExtensionError(msg)

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._refuse()

    def __getattr__(self, attr: str) -> NoReturn:
        if attr.startswith("__") or attr == "_where":
            raise AttributeError(attr)
        self._refuse(f".{attr}")

    def __mro_entries__(self, bases: tuple) -> NoReturn:
        self._refuse(" (as a base class)")

    def __getitem__(self, key: Any) -> NoReturn:
        self._refuse(f"[{key!r}]")

    def __contains__(self, key: Any) -> NoReturn:
        self._refuse(f" (looking up {key!r})")

    def __iter__(self) -> NoReturn:
        self._refuse(" (iterating it)")

    def __len__(self) -> NoReturn:
        self._refuse(" (its length)")

    def __bool__(self) -> NoReturn:
        self._refuse(" (as a condition)")

    def __repr__(self) -> str:
        module, name, _ = self._where
        return f"<MO's {module}.{name}: not implemented by extgen>"


_BY_NAME = {name: Unimplemented(module, name, instead)
            for module, (instead, names) in UNIMPLEMENTED.items() for name in names}
assert len(_BY_NAME) == sum(len(names) for _, names in UNIMPLEMENTED.values())


def __getattr__(name: str) -> Any:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise AttributeError(name) from None
