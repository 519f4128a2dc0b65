"""Fuzz: mutated ONNX models, IR, pbtxt/prototxt text, MXNet symbol JSON, and the bytes of every
format's files (ONNX, TF, Caffe, MXNet, Kaldi, an `extgen new` config) through the CLI.

Every case must end in exit 0, or exit 2 with exactly one `[ ERROR ]` line; an internal error
(exit 1) or an exception escaping `main` fails. Each test prints its counts (`-s` shows them):
cases run, exit codes, internal errors (always 0). Hypothesis is derandomized (seeded) and each
test is bounded by max_examples, so the run is repeatable and takes about a minute."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import helper

from extgen.cli import main
from tests.fuzz_models import (
    EXTGEN_CONFIG,
    caffe_model,
    kaldi_model,
    mxnet_model,
    onnx_model,
    tf_model,
)

pytestmark = pytest.mark.slow

EXAMPLES = {"onnx": 250, "ir": 250, "text": 250, "mxnet": 150}
TOKENS = ["", "0", "-1", "-8", "1", "3", "99", "99999999999", "1.5", "abc", "f16", "i32", "q7",
          "1,2", "[1,3]", "\x00", "True", "(3, 3)", "{", "}", '"']
ints = st.integers(min_value=-3, max_value=1 << 41) | st.sampled_from([0, 1, 2, 3, 99])


def cli(stats: Counter, *argv: str) -> int:
    """Run `extgen argv` in-process; count the outcome and fail on anything but exit 0 (or 1
    from `check` with an error-free report of ops needing extensions) or exit 2 with one
    `[ ERROR ]` line (besides `run`'s `[ INFO ] input ...: random` notes)."""
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = main(list(argv))
    lines = [ln for ln in err.getvalue().strip().splitlines() if not ln.startswith("[ INFO ] ")]
    stats["cases"] += 1
    stats[f"exit {code}"] += 1
    gaps = argv[0] == "check" and code == 1 and not lines and "need an extension" in out.getvalue()
    if (code == 1 and not gaps) or "internal error" in err.getvalue():
        stats["internal"] += 1
    one_error = code == 2 and len(lines) == 1 and lines[0].startswith("[ ERROR ] ")
    assert code == 0 or gaps or one_error, (argv, code, err.getvalue())
    return code


def convert_and_check(stats: Counter, model: Path, *flags: str) -> None:
    """`extgen convert` (with flags) and `extgen check` of one model."""
    cli(stats, "convert", "--input_model", str(model), "-o", str(model.parent / "o"), *flags)
    cli(stats, "check", str(model), "--output_dir", str(model.parent / "c"))


def fuzz(name: str, case: Callable[..., None], kinds: st.SearchStrategy) -> None:
    """Run `case(stats, folder, kind, data)` for drawn kinds; report and check the counts."""
    stats: Counter = Counter()

    @settings(max_examples=EXAMPLES[name], deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(kind=kinds, data=st.data())
    def run(kind, data: st.DataObject) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            case(stats, Path(tmp), kind, data)

    run()
    print(f"\nfuzz {name}: {dict(stats)}")
    assert stats["cases"] > 0 and stats["internal"] == 0


# -- ONNX -----------------------------------------------------------------------------------------
def _mutate_onnx(model: onnx.ModelProto, kind: str, data: st.DataObject) -> None:
    g = model.graph
    if kind == "init":
        t = data.draw(st.sampled_from(list(g.initializer)))
        field = data.draw(st.sampled_from(["dims", "data_type", "raw_data", "external"]))
        if field == "dims" and t.dims:
            t.dims[data.draw(st.integers(0, len(t.dims) - 1))] = data.draw(ints)
        elif field == "data_type":
            t.data_type = data.draw(st.integers(0, 30) | st.just(999))
        elif field == "raw_data":
            t.raw_data = t.raw_data[: data.draw(st.integers(0, len(t.raw_data) + 8))]
        else:
            t.ClearField("raw_data")
            t.data_location = onnx.TensorProto.EXTERNAL
            for key in ("location", "offset", "length"):
                t.external_data.add(key=key, value=data.draw(st.sampled_from(TOKENS + ["w.bin"])))
        return
    node = data.draw(st.sampled_from(list(g.node)))
    if kind == "input" and node.input:
        names = [n.name for n in g.initializer] + [o for n in g.node for o in n.output]
        node.input[data.draw(st.integers(0, len(node.input) - 1))] = data.draw(
            st.sampled_from(names + ["x", "", "nope"]))
    elif kind == "attr":
        values = st.one_of(ints, st.floats(allow_nan=False, width=32), st.sampled_from(TOKENS),
                           st.lists(ints, min_size=1, max_size=5))
        value = data.draw(values)
        key = data.draw(st.sampled_from(["perm", "axis", "pads", "strides", "kernel_shape",
                                         "alpha"]))
        del node.attribute[:]
        node.attribute.append(helper.make_attribute(key, value))
    else:
        node.op_type = data.draw(st.sampled_from(["MatMul", "Gather", "Conv", "Reshape", "Foo"]))


def _onnx_case(stats: Counter, folder: Path, kind: str, data: st.DataObject) -> None:
    model = onnx_model()
    path = folder / "m.onnx"
    if kind == "bytes":
        raw = bytearray(model.SerializeToString())
        for _ in range(data.draw(st.integers(1, 4))):
            raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
        path.write_bytes(bytes(raw[: data.draw(st.integers(1, len(raw)))]))
    else:
        _mutate_onnx(model, kind, data)
        (folder / "w.bin").write_bytes(b"\0" * 64)
        onnx.save(model, path)
    convert_and_check(stats, path)


def test_fuzz_onnx_models() -> None:
    kinds = st.sampled_from(["bytes", "init", "input", "attr", "op"])
    fuzz("onnx", _onnx_case, kinds)


# -- IR -------------------------------------------------------------------------------------------
_IR_ATTR = re.compile(r'\b(element_type|shape|offset|size|id|from-layer|to-layer|to-port|'
                      r'precision|version|type|axis|special_zero)="[^"]*"')


def _ir_case(stats: Counter, folder: Path, kind: str, data: st.DataObject) -> None:
    model = folder / "m.onnx"
    onnx.save(onnx_model(), model)
    assert cli(stats, "convert", "--input_model", str(model), "-o", str(folder)) == 0
    xml, bin_ = folder / "m.xml", folder / "m.bin"
    text = xml.read_text()
    if kind == "attr":
        spans = list(_IR_ATTR.finditer(text))
        m = data.draw(st.sampled_from(spans))
        value = data.draw(st.sampled_from(TOKENS))
        text = f'{text[:m.start()]}{m.group(1)}="{value}"{text[m.end():]}'
    elif kind == "dim":
        spans = list(re.finditer(r"<dim>\d+</dim>", text))
        m = data.draw(st.sampled_from(spans))
        text = f"{text[:m.start()]}<dim>{data.draw(st.sampled_from(TOKENS))}</dim>{text[m.end():]}"
    elif kind == "xml":
        text = text[: data.draw(st.integers(0, len(text)))]
    else:
        bin_.write_bytes(bin_.read_bytes()[: data.draw(st.integers(0, bin_.stat().st_size))])
    xml.write_text(text)
    cli(stats, "run", "--model", str(xml), "--input", "random")


def test_fuzz_ir() -> None:
    fuzz("ir", _ir_case, st.sampled_from(["attr", "attr", "dim", "xml", "bin"]))


# -- text formats (TF .pbtxt, Caffe .prototxt) and MXNet symbol JSON ------------------------------
def _mutate_text(text: str, data: st.DataObject) -> str:
    kind = data.draw(st.sampled_from(["cut", "delete", "duplicate", "token", "number"]))
    a = data.draw(st.integers(0, len(text)))
    b = data.draw(st.integers(a, min(len(text), a + 80)))
    if kind == "cut":
        return text[:a]
    if kind == "delete":
        return text[:a] + text[b:]
    if kind == "duplicate":
        return text[:b] + text[a:b] + text[b:]
    if kind == "token":
        return text[:a] + data.draw(st.sampled_from(TOKENS)) + text[a:]
    numbers = list(re.finditer(r"-?\d+", text))
    m = data.draw(st.sampled_from(numbers))
    return text[:m.start()] + str(data.draw(ints)) + text[m.end():]


def _text_case(stats: Counter, folder: Path, fw: str, data: st.DataObject) -> None:
    if fw == "tf":
        model = text_file = tf_model(folder / "m.pbtxt")
    else:
        model = caffe_model(folder)
        text_file = model.with_suffix(".prototxt")
    text_file.write_text(_mutate_text(text_file.read_text(), data))
    convert_and_check(stats, model)


def test_fuzz_pbtxt_and_prototxt() -> None:
    fuzz("text", _text_case, st.sampled_from(["tf", "caffe"]))


def _mutate_symbol(doc: dict, data: st.DataObject) -> None:
    node = data.draw(st.sampled_from(doc["nodes"]))
    kind = data.draw(st.sampled_from(["op", "attr", "inputs", "heads"]))
    if kind == "op":
        ops = ["null", "Convolution", "FullyConnected", "Foo", ""]
        node["op"] = data.draw(st.sampled_from(ops))
    elif kind == "attr":
        key = data.draw(st.sampled_from(["kernel", "num_filter", "pad", "act_type", "no_bias"]))
        node.setdefault("attrs", {})[key] = data.draw(st.sampled_from(TOKENS))
    elif kind == "inputs":
        node["inputs"] = data.draw(st.lists(st.lists(ints, max_size=3), max_size=3))
    else:
        doc["heads"] = data.draw(st.lists(st.lists(ints, max_size=3), max_size=2))


def _symbol_case(stats: Counter, folder: Path, text_level: bool, data: st.DataObject) -> None:
    params = mxnet_model(folder)
    symbol = folder / "small-symbol.json"
    if text_level:
        symbol.write_text(_mutate_text(symbol.read_text(), data))
    else:
        doc = json.loads(symbol.read_text())
        _mutate_symbol(doc, data)
        symbol.write_text(json.dumps(doc))
    convert_and_check(stats, params, "--input_shape", "[1,3,8,8]")


def test_fuzz_mxnet_symbol() -> None:
    fuzz("mxnet", _symbol_case, st.booleans())


# -- bytes of every format's files: flipped, inserted, truncated at seeded positions -------------
BYTE_CASES = 200  # per file; all files together take well under a minute


def _byte_targets(folder: Path) -> dict[str, tuple[Path, list[list[str]]]]:
    """Per file to mutate: the file and the commands that read it."""
    out = str(folder / "o")
    onnx.save(onnx_model(), folder / "m.onnx")
    tf = tf_model(folder / "m.pb")
    caffe = caffe_model(folder)
    params = mxnet_model(folder)
    kaldi = kaldi_model(folder / "m.nnet")
    config = folder / "c.json"
    config.write_text(json.dumps(EXTGEN_CONFIG, indent=1))

    def model(path: Path, *flags: str) -> list[list[str]]:
        return [["convert", "--input_model", str(path), "-o", out, *flags],
                ["check", str(path), "--output_dir", out, "--force", *flags]]

    shape = ("--input_shape", "[1,3,8,8]")
    return {
        "onnx": (folder / "m.onnx", model(folder / "m.onnx")),
        "tf": (tf, model(tf)),
        "caffemodel": (caffe, model(caffe)),
        "prototxt": (caffe.with_suffix(".prototxt"), model(caffe)),
        "mxnet_params": (params, model(params, *shape)),
        "mxnet_symbol": (folder / "small-symbol.json", model(params, *shape)),
        "kaldi": (kaldi, model(kaldi)),
        "extgen_config": (config, [["new", "--config", str(config), "--output_dir", out,
                                    "--force"]]),
    }


def _mutate_bytes(raw: bytes, rng: random.Random) -> bytes:
    """One to three flipped bits (often the top one: invalid UTF-8, longer varints), or
    inserted random bytes, or a cut, at random positions."""
    data = bytearray(raw)
    kind = rng.choice(["flip", "flip", "flip", "insert", "truncate"])
    at = rng.randrange(len(data))
    if kind == "insert":
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
    elif kind == "truncate":
        del data[at:]
    else:
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(len(data))] ^= 1 << rng.choice([7, 7, rng.randrange(7)])
    return bytes(data)


@pytest.mark.parametrize("target", ["onnx", "tf", "caffemodel", "prototxt", "mxnet_params",
                                    "mxnet_symbol", "kaldi", "extgen_config"])
def test_fuzz_bytes_of_every_format(target: str, tmp_path: Path) -> None:
    """Each file with bytes flipped, inserted or cut at seeded positions: every command that
    reads it exits 0, or 2 with one error line; never an internal error or a traceback."""
    path, commands = _byte_targets(tmp_path)[target]
    original = path.read_bytes()
    rng = random.Random(target)  # a str seed: the same cases on every run
    stats: Counter = Counter()
    for _ in range(BYTE_CASES):
        path.write_bytes(_mutate_bytes(original, rng))
        for argv in commands:
            cli(stats, *argv)
    print(f"\nfuzz bytes {target}: {dict(stats)}")
    assert stats["internal"] == 0
