"""converter.front.proto.textproto reads what protobuf's own text_format reads, to the same
message, and big tensor_content fast; a bad text is one TextFormatError naming its line."""

from __future__ import annotations

import time

import numpy as np
import pytest
from google.protobuf import text_format

from converter.front.proto.textproto import TextFormatError, merge_text
from converter.front.tf.loader import graph_def_class
from tests.tf_corpus import materialize


def _both(text: bytes):
    ours = merge_text(text, graph_def_class()())
    theirs = text_format.Parse(text.decode("utf-8"), graph_def_class()())
    return ours, theirs


@pytest.mark.parametrize("name", ["squeeze_excite", "lstm", "transformer"])
def test_corpus_pbtxt_reads_as_protobuf_reads_it(name: str) -> None:
    text = (materialize(name) / "frozen.pbtxt").read_bytes()
    ours, theirs = _both(text)
    assert len(ours.node) > 20 and ours.library.function == theirs.library.function
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True)


def test_escapes_lists_numbers_and_separators_read_as_protobuf_reads_them() -> None:
    text = rb"""# a comment
node < name: 'a\'b\"c' op: "Const" ; device: "\303\251\x41\x4\a\b\f\v\\\r\n\t" >
node {
  name: "v" "w"  # adjacent strings join
  attr { key: "value" value { tensor {
    dtype: DT_FLOAT
    tensor_shape { dim { size: 3 } dim: { size: -1 } unknown_rank: true }
    float_val: [1.5, -2e-3, inf, -inf, 7]
    int_val: 0x10 int_val: 010 int_val: -5
    string_val: "\u00e9\U0001F600\\?"
    tensor_content: "\000\377\"\\"
    bool_val: t bool_val: False
  } } },
  attr { key: "shape" value { shape { } } }
}
versions { producer: 27 }
"""
    ours, theirs = _both(text)
    assert ours == theirs
    assert ours.node[1].attr["shape"].HasField("shape")  # an empty message is present
    assert ours.node[1].name == "vw" and ours.node[0].name == "a'b\"c"
    # \? is C's '?' (as TF's C++ reads it; Python's protobuf keeps the backslash)
    assert merge_text(rb'node { name: "a\?" }', graph_def_class()()).node[0].name == "a?"


def test_big_tensor_content_reads_fast() -> None:
    # protobuf's text_format takes about 7 s on 30 MB of escaped floats; this reader well under 1
    graph_def = graph_def_class()()
    node = graph_def.node.add(name="w", op="Const")
    values = np.random.default_rng(0).standard_normal(7_500_000).astype(np.float32)
    node.attr["value"].tensor.tensor_content = values.tobytes()
    text = text_format.MessageToString(graph_def).encode()
    start = time.perf_counter()
    ours = merge_text(text, graph_def_class()())
    seconds = time.perf_counter() - start
    assert ours == graph_def
    assert seconds < 5.0, f"{seconds:.1f} s for {len(text) >> 20} MB"


@pytest.mark.parametrize(("text", "line", "what"), [
    (b'node {\n  name: "x"\n  colour: 3\n}\n', 3, "a field name message tensorflow.NodeDef"),
    (b'node {\n  name: "x\n}\n', 2, "not closed on its line"),
    (b'node {\n  name: "x"\n', 3, "expected '}' but the text ends"),
    (b'node {\n\n  attr { key: "k" value { type: DT_NOPE } }\n}', 3,
     "'type' takes a value of tensorflow.DataType"),
    (b'node {\n  name: x\n}', 2, "takes a quoted string"),
    (b'node {\n  name "x"\n}', 2, "expected ':'"),
    (b'versions {\n producer: 1.5 }', 2, "'producer' takes an integer"),
    (b'node {\n  name: "x" ! }', 2, "a character the text format does not allow"),
    (b'\nnode { name: "\\q" }', 2, "an escape sequence"),
])
def test_bad_text_names_its_line(text: bytes, line: int, what: str) -> None:
    """The line and what is wrong, never the text itself (colour, DT_NOPE, 1.5, !, q)."""
    with pytest.raises(TextFormatError) as err:
        merge_text(text, graph_def_class()())
    assert err.value.line == line and what in err.value.what, str(err.value)
    assert not {"colour", "NOPE", "1.5", "!", "q"} & set(err.value.what.replace("'", " ").split())
