"""Real Keras/TF models (tests/tf_corpus.py: built with tensorflow-cpu, random weights, calibrated
batch norm) convert as a frozen .pb, a TF 2.x .pbtxt, a SavedModel and a .keras file
(recurrent layers unrolled) under a fixed --input_shape, and match TF's own output in OpenVINO
and in the shim; TF 1.x MetaGraphDefs and checkpoints read; the recurrent models (TF1 frames when
frozen, While in a SavedModel) convert to Loop-5 and match ovc's IR too."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from converter.errors import ModelFormatError, UsageError
from converter.front.tf.checkpoint import read_checkpoint
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.engines import open_engine
from tests.tf_corpus import HEAVY, MODELS, NO_PBTXT, TF1, materialize, run_tf, write_pbtxt

RECURRENT = ("lstm", "gru", "bilstm")
NO_KERAS_FORM = ("space_depth", "ssd")  # Lambda layers of TF code


def _marked(names) -> list:
    return [pytest.param(m, marks=pytest.mark.slow) if m in HEAVY else m for m in names]


FEEDFORWARD = _marked(m for m in MODELS if m not in RECURRENT)
ALL = [*FEEDFORWARD, *RECURRENT]
WITH_PBTXT = _marked(m for m in MODELS if m not in NO_PBTXT)
KERAS = _marked(m for m in MODELS if m not in NO_KERAS_FORM)


def _check(xml: Path, folder: Path) -> None:
    """The IR's input and output keep TF's layout (as ovc's), and its output is TF's within 1e-4
    of its magnitude, in the shim and in OpenVINO; TF's output depends on the input (else a wrong
    conversion could pass)."""
    x, want = np.load(folder / "input.npy"), np.load(folder / "expected.npy")
    other = np.load(folder / "expected2.npy")
    scale = float(np.abs(want).max())
    assert np.abs(want - other).max() > 1e-3 * scale
    for engine in ("shim", "openvino"):
        runner = open_engine(engine, xml, "CPU")
        spec = runner.inputs()[0]
        assert tuple(spec.shape) == x.shape, engine
        got = next(iter(runner.run({spec.name: x}).values()))
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 * scale, err_msg=engine)


def _convert(model: Path, out: Path, x_shape: tuple[int, ...], **opts) -> Path:
    return convert(ConvertOptions(model, output_dir=out, input_shape=[list(x_shape)],
                                  **opts)).xml


def _shape(folder: Path) -> tuple[int, ...]:
    return np.load(folder / "input.npy").shape


@pytest.mark.parametrize("name", ALL)
def test_frozen_graph_matches_tf(name: str, tmp_path: Path) -> None:
    folder = materialize(name)
    _check(_convert(folder / "frozen.pb", tmp_path, _shape(folder)), folder)


@pytest.mark.parametrize("name", WITH_PBTXT)
def test_tf2_pbtxt_matches_tf(name: str, tmp_path: Path) -> None:
    # TF 2.x writes experimental_type on Shape nodes: the protos declare it
    folder = materialize(name)
    _check(_convert(folder / "frozen.pbtxt", tmp_path, _shape(folder)), folder)


@pytest.mark.slow
def test_big_pbtxt_matches_tf(tmp_path: Path) -> None:
    # ResNet-50's text is 270 MB, nearly all escaped tensor_content (TF writes it on demand)
    folder = materialize("resnet50")
    text = write_pbtxt(folder, tmp_path)
    assert text.stat().st_size > 200 << 20
    _check(_convert(text, tmp_path / "ir", _shape(folder)), folder)


def test_deeplab_atrous_convolutions_and_resizes(tmp_path: Path) -> None:
    folder = materialize("deeplab")
    xml = _convert(folder / "frozen.pb", tmp_path, _shape(folder))
    types = re.findall(r'type="(\w+)"', xml.read_text())
    # Keras writes its dilated convolutions between SpaceToBatchND and BatchToSpaceND
    assert types.count("SpaceToBatch") == types.count("BatchToSpace") == 4
    assert types.count("Interpolate") == 2  # the ASPP pool's, the output's
    _check(xml, folder)


def test_ssd_post_processing_is_nms_top_k_and_a_loop(tmp_path: Path) -> None:
    folder = materialize("ssd")
    xml = _convert(folder / "saved_model", tmp_path, _shape(folder),
                   saved_model_dir=folder / "saved_model")
    types = re.findall(r'type="(\w+)"', xml.read_text())
    assert {"TopK", "Loop", "NonMaxSuppression"} <= set(types)
    assert np.load(folder / "expected.npy")[0, :, 4].min() > 0  # detections, not padding only
    _check(xml, folder)


@pytest.mark.parametrize("name", ALL)
def test_saved_model_matches_tf(name: str, tmp_path: Path) -> None:
    # Keras 3 keeps the model in the function library, variables in the checkpoint
    folder = materialize(name)
    xml = _convert(folder / "saved_model", tmp_path, _shape(folder),
                   saved_model_dir=folder / "saved_model")
    _check(xml, folder)


@pytest.mark.parametrize("name", KERAS)
def test_keras_file_matches_tf(name: str, tmp_path: Path) -> None:
    folder = materialize(name)
    _check(_convert(folder / "model.keras", tmp_path, _shape(folder)), folder)


def test_keras_conv_transpose_and_resize_keep_nhwc_semantics(tmp_path: Path) -> None:
    folder = materialize("upsample")  # Conv2DBackpropInput with computed input_sizes, resizes
    xml = _convert(folder / "frozen.pb", tmp_path, _shape(folder))
    types = set(__import__("re").findall(r'type="(\w+)"', xml.read_text()))
    assert {"ConvolutionBackpropData", "Interpolate"} <= types
    _check(xml, folder)


@pytest.mark.parametrize("name", RECURRENT)
@pytest.mark.parametrize("form", ["frozen.pb", "saved_model"])
def test_recurrent_model_is_fused_and_matches_ovc(name: str, form: str,
                                                              tmp_path: Path) -> None:
    import openvino as ov

    folder = materialize(name)
    x = np.load(folder / "input.npy")
    xml = _convert(folder / form, tmp_path, x.shape)
    types = re.findall(r'type="(\w+)"', xml.read_text())
    # Keras' LSTM and GRU loops fuse into LSTMSequence and GRUSequence
    want = {"lstm": {"LSTMSequence": 1}, "bilstm": {"LSTMSequence": 2},
            "gru": {"GRUSequence": 1}}[name]
    fused = ("LSTMSequence", "GRUSequence", "Loop")
    assert {op: types.count(op) for op in fused if op in types} == want
    runner = open_engine("openvino", xml, "CPU")
    assert len(runner.inputs()) == 1  # the frozen graph's dead placeholders are gone
    peer = ov.Core().compile_model(ov.convert_model(str(folder / form), input=[list(x.shape)]),
                                   "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(x)[0]
    got = next(iter(runner.run({runner.inputs()[0].name: x}).values()))
    np.testing.assert_allclose(got, peer, rtol=1e-5, atol=1e-5)


def test_check_finds_nothing_missing_in_the_lstm(capsys, tmp_path: Path) -> None:
    from extgen.cli import main

    folder = materialize("lstm")
    main(["check", str(folder / "frozen.pb"), "--output_dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert "every op is supported" in out and "cycle" not in out


def test_tf1_meta_graph_and_checkpoint(tmp_path: Path) -> None:
    folder = materialize(TF1)
    xml = _convert(folder / "model.meta", tmp_path / "meta", _shape(folder),
                   input_meta_graph=folder / "model.meta")
    _check(xml, folder)
    xml = _convert(folder / "graph.pbtxt", tmp_path / "ckpt", _shape(folder),
                   input_checkpoint=folder / "model")
    assert "SaveV2" not in xml.read_text()
    _check(xml, folder)


def test_checkpoint_reader_reads_what_tf_wrote(tmp_path: Path) -> None:
    prefix = materialize("squeeze_excite") / "saved_model" / "variables" / "variables"
    run_tf("import numpy as np, tensorflow as tf\n"
           f"reader = tf.train.load_checkpoint({str(prefix)!r})\n"
           f"names = [n for n, _ in tf.train.list_variables({str(prefix)!r}) "
           "if 'VARIABLE_VALUE' in n]\n"
           "np.savez('tf.npz', **{f'v{i}': reader.get_tensor(n) for i, n in enumerate(names)},"
           " names=np.array(names))\n", tmp_path)
    theirs = np.load(tmp_path / "tf.npz")
    names = list(theirs["names"])
    ours = read_checkpoint(prefix)
    assert len(names) > 10
    for i, name in enumerate(names):
        np.testing.assert_array_equal(ours[name], theirs[f"v{i}"])


def test_corrupt_checkpoint_is_one_format_error(tmp_path: Path) -> None:
    (tmp_path / "bad.index").write_bytes(b"\x00" * 100)
    with pytest.raises(ModelFormatError, match="not a valid TensorFlow checkpoint"):
        read_checkpoint(tmp_path / "bad")


def test_saved_model_with_unknown_tags_names_the_ones_it_has(tmp_path: Path) -> None:
    folder = materialize("squeeze_excite") / "saved_model"
    with pytest.raises(UsageError, match=r"no meta graph with tags train \(it has: serve\)"):
        convert(ConvertOptions(folder, output_dir=tmp_path, saved_model_tags=["train"]))


@pytest.mark.parametrize("op", ["ResizeBilinear", "ResizeNearestNeighbor"])
@pytest.mark.parametrize("flags", [{}, {"align_corners": True}, {"half_pixel_centers": True}])
def test_resize_flags_match_tf(op: str, flags: dict, tmp_path: Path) -> None:
    x = np.random.default_rng(1).standard_normal((1, 4, 5, 3)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    run_tf("import numpy as np, tensorflow as tf\n"
           f"resize = getattr(tf.raw_ops, {op!r})\n"
           f"fn = tf.function(lambda t: resize(images=t, size=[7, 10], **{flags!r}))\n"
           "graph = fn.get_concrete_function(tf.TensorSpec([1, 4, 5, 3], tf.float32)).graph\n"
           "open('resize.pb', 'wb').write(graph.as_graph_def().SerializeToString())\n"
           "np.save('want.npy', fn(tf.constant(np.load('x.npy'))).numpy())\n", tmp_path)
    path, want = tmp_path / "resize.pb", np.load(tmp_path / "want.npy")
    xml = convert(ConvertOptions(path, output_dir=tmp_path)).xml
    for engine in ("shim", "openvino"):  # no layout-sensitive op: the model stays NHWC
        got = next(iter(open_engine(engine, xml, "CPU").run({"t": x}).values()))
        np.testing.assert_allclose(got, want, atol=1e-5, err_msg=engine)


def test_legacy_h5_names_the_forms_that_are_read(tmp_path: Path, capsys) -> None:
    from extgen.cli import main

    (tmp_path / "model.h5").write_bytes(b"\x89HDF\r\n\x1a\n")
    assert main(["convert", "-m", str(tmp_path / "model.h5"), "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and ".keras" in err and "--saved_model_dir" in err


def test_tf1_simple_save_whose_output_keys_name_the_output_ops(tmp_path: Path) -> None:
    """tf.compat.v1.saved_model.simple_save keys the signature by the tensors' own op names
    ('prob' for the op 'prob'): the output is that op, as ovc reads it (it once was 'the graph
    has no output')."""
    x = np.random.default_rng(2).standard_normal((1, 4)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    run_tf("import numpy as np, tensorflow as tf\n"
           "tf.compat.v1.disable_eager_execution()\n"
           "g = tf.Graph()\n"
           "with g.as_default():\n"
           "    x = tf.compat.v1.placeholder(tf.float32, [1, 4], name='x')\n"
           "    w = tf.compat.v1.get_variable('w', initializer=np.arange(8, dtype=np.float32)"
           ".reshape(4, 2) / 8)\n"
           "    y = tf.nn.softmax(tf.matmul(x, w), name='prob')\n"
           "    s = tf.compat.v1.Session(graph=g)\n"
           "    s.run(tf.compat.v1.global_variables_initializer())\n"
           "    tf.compat.v1.saved_model.simple_save(s, 'sm', inputs={'x': x}, "
           "outputs={'prob': y})\n"
           "    np.save('want.npy', s.run(y, {x: np.load('x.npy')}))\n", tmp_path)
    xml = convert(ConvertOptions(tmp_path / "sm", output_dir=tmp_path / "ir")).xml
    want = np.load(tmp_path / "want.npy")
    for engine in ("shim", "openvino"):
        got = open_engine(engine, xml, "CPU").run({"x:0": x})
        np.testing.assert_allclose(got["prob"], want, rtol=1e-5, err_msg=engine)
