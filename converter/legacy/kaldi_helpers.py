"""MO's Kaldi names that live outside its readers: the affine extractor MO's own affine
extractors subclass, the pair-vector reader and the node-name counter of its LSTM patterns."""

from __future__ import annotations

from typing import BinaryIO

import numpy as np

from converter.front.extractor import FrontExtractorOp
from converter.front.kaldi.mo_readers import (
    collect_until_token,
    read_binary_integer32_token,
    read_binary_matrix,
    read_binary_vector,
    read_blob,
    read_placeholder,
)
from converter.graph.graph import Node

__all__ = ["FixedAffineComponentFrontExtractor", "read_binary_vector_of_pairs", "unique_id"]


class FixedAffineComponentFrontExtractor(FrontExtractorOp):
    """<LinearParams> [out, in] and <BiasParams> [out] of an affine component, as MO's
    FullyConnected with both as constant inputs. Subclasses set `op` to their component's
    lower-case token (MO's affine_component_ext does so)."""

    enabled = True

    @classmethod
    def extract(cls, node: Node) -> bool:
        from converter.legacy.mo_ops import FullyConnected

        pb = node.parameters
        collect_until_token(pb, b"<LinearParams>")
        weights, shape = read_binary_matrix(pb)
        collect_until_token(pb, b"<BiasParams>")
        biases = read_binary_vector(pb)
        attrs = {"out-size": shape[0], "layout": "NCHW", "weights": weights.reshape(shape),
                 "biases": biases, "embedded_inputs": [(1, "weights", {"bin": "weights"}),
                                                       (2, "biases", {"bin": "biases"})]}
        FullyConnected.update_node_stat(node, attrs)
        return cls.enabled


# MO's own key, set after the class exists so that naming the class registers no extractor
FixedAffineComponentFrontExtractor.op = "fixedaffinecomponent"


def read_binary_vector_of_pairs(f: BinaryIO, read_token: bool = True,
                                dtype: type = np.float32) -> np.ndarray:
    """A Kaldi binary vector of pairs (an element-size byte, an int32 count, the pairs), flat;
    read_token: a 3-byte type token comes first."""
    if read_token:
        read_placeholder(f)
    return read_blob(f, 2 * read_binary_integer32_token(f), dtype)


def unique_id(prefix: str = "id") -> str:
    """prefix, or prefix_N for the first N that no earlier call returned."""
    name, index = prefix, len(unique_id.names)
    while name in unique_id.names:
        name, index = f"{prefix}_{index}", index + 1
    unique_id.names.append(name)
    return name


unique_id.names = []
