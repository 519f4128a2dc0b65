"""`extgen run`: shim and OpenVINO engines, --compare, --benchmark, --output, bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.options import ConvertOptions
from converter.pipeline import convert
from extgen.cli import main


@pytest.fixture
def relu_add_ir(relu_add_model: Path, tmp_path: Path) -> Path:
    return convert(ConvertOptions(relu_add_model, output_dir=tmp_path / "ir")).xml


def test_run_compare_benchmark_output(relu_add_ir: Path, tmp_path: Path, capsys) -> None:
    x = np.random.default_rng(0).standard_normal((1, 3, 4, 4)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    code = main(["run", "--model", str(relu_add_ir), "--input", f"x={tmp_path / 'x.npy'}",
                 "--output", str(tmp_path / "out.npz"), "--compare", "--benchmark", "3"])
    out = capsys.readouterr().out
    assert code == 0
    assert "y: float32 [1, 3, 4, 4]" in out
    assert "latency over 3 runs: min" in out
    diff = float(out.split("  y: ")[1].split()[0])
    assert diff < 1e-6
    saved = np.load(tmp_path / "out.npz")["y"]
    expected = np.maximum(x, 0) + np.arange(3).reshape(1, 3, 1, 1)
    np.testing.assert_allclose(saved, expected, rtol=1e-6)


@pytest.mark.parametrize(("shift", "code", "verdict"), [
    (18.2, 1, "18.2 beyond the tolerance"), (np.nan, 1, "NaN in different places"),
    (5e-5, 0, "5.0")])
def test_compare_exits_1_when_the_engines_differ(relu_add_ir: Path, monkeypatch, capsys,
                                                 shift: float, code: int, verdict: str) -> None:
    """OpenVINO's answer made to differ by `shift`: beyond the tolerance (1e-4 of max(1, |y|))
    --compare says which output and exits 1."""
    from converter.runtime import engines

    real = engines.open_engine

    def shifted(name, *args, **kwargs):
        engine = real(name, *args, **kwargs)
        if name == "openvino":
            run = engine.run
            engine.run = lambda feed, *a: {k: v + np.float32(shift)
                                           for k, v in run(feed, *a).items()}
        return engine

    monkeypatch.setattr(engines, "open_engine", shifted)
    assert main(["run", str(relu_add_ir), "--input", "random", "--compare"]) == code
    out, err = capsys.readouterr()
    line = next(n for n in out.splitlines() if n.startswith("  y: "))
    assert line.startswith(f"  y: {verdict}") and line.endswith("ok") == (code == 0)
    assert ("[ ERROR ] 1 output(s) differ between shim and openvino: y" in err) == (code == 1)


@pytest.mark.parametrize("engine", ["shim", "openvino"])
def test_benchmark_reports_time_per_op_type(relu_add_ir: Path, capsys, engine: str) -> None:
    """Like benchmark_app -pc: each op type with its layer count, slowest first, shares
    summing to 100%."""
    assert main(["run", "--model", str(relu_add_ir), "--input", "random", "--engine", engine,
                 "--benchmark", "2"]) == 0
    out = capsys.readouterr().out
    table = out.split(f"time per op type ({engine}, mean of 2 runs):\n")[1].splitlines()
    rows = {line.split()[0]: line.split() for line in table}
    if engine == "shim":
        assert rows["ReLU"][-2:] == ["1", "layers"] and rows["Add"][-2:] == ["1", "layers"]
    assert rows and all(r[2] == "ms" and r[-1] == "layers" for r in rows.values())
    shares = [float(r[3].rstrip("%")) for r in rows.values()]
    assert abs(sum(shares) - 100) < 0.6 and shares == sorted(shares, reverse=True)


@pytest.mark.parametrize("array", [np.zeros((1, 3, 4, 4), np.float64),
                                   np.zeros((1, 3, 5, 4), np.float32)])
def test_wrong_input_is_one_line(relu_add_ir: Path, tmp_path: Path, capsys, array) -> None:
    np.save(tmp_path / "x.npy", array)
    code = main(["run", "--model", str(relu_add_ir), "--input", f"x={tmp_path / 'x.npy'}"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "input 'x' must be float32 of shape [1, 3, 4, 4]" in err[0]


def test_bin_shorter_than_offsets(relu_add_ir: Path, capsys) -> None:
    bin_path = relu_add_ir.with_suffix(".bin")
    bin_path.write_bytes(bin_path.read_bytes()[:5])
    code = main(["run", "--model", str(relu_add_ir)])
    err = capsys.readouterr().err
    assert code == 2 and "shorter than the IR's offsets" in err


def test_malformed_xml_names_line(relu_add_ir: Path, capsys) -> None:
    lines = relu_add_ir.read_text().splitlines()
    lines[5] = lines[5].replace(">", "", 1)
    relu_add_ir.write_text("\n".join(lines))
    code = main(["run", "--model", str(relu_add_ir)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and f"{relu_add_ir}:" in err and "malformed IR XML" in err


def test_an_unknown_input_name_lists_the_inputs(relu_add_ir: Path, tmp_path: Path, capsys) -> None:
    np.save(tmp_path / "x.npy", np.zeros((1, 3, 4, 4), np.float32))
    code = main(["run", "--model", str(relu_add_ir), "--input", f"WRONG={tmp_path / 'x.npy'}"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "'WRONG': the model has no input of that name (its inputs: x)" in err[0]


def test_a_missing_input_is_an_error_unless_random_is_asked(relu_add_ir: Path, capsys) -> None:
    assert main(["run", "--model", str(relu_add_ir)]) == 2
    assert "input 'x' has no value: pass --input x=FILE.npy" in capsys.readouterr().err
    assert main(["run", "--model", str(relu_add_ir), "--input", "random"]) == 0
    assert "input 'x': random float32 [1, 3, 4, 4]" in capsys.readouterr().err
    assert main(["run", "--model", str(relu_add_ir), "--input", "x=random"]) == 0


def test_an_unwritable_output_stops_before_running(relu_add_ir: Path, tmp_path, capsys) -> None:
    code = main(["run", "--model", str(relu_add_ir), "--input", "random",
                 "--output", str(tmp_path / "nodir" / "o.npz")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "no such folder" in err[0]
    assert not any("random" in line for line in err)  # nothing ran


def test_any_tensor_name_of_an_input_is_accepted(tmp_path: Path, capsys) -> None:
    """A TF-style input known as both 'image' and 'image:0' takes either name."""
    from converter.runtime.engines import open_engine

    ir = tmp_path / "m.xml"
    ir.write_text("""<?xml version="1.0"?>
<net name="m" version="11"><layers>
<layer id="0" name="image" type="Parameter" version="opset1">
<data shape="1,2" element_type="f32"/><output><port id="0" precision="FP32" names="image:0,image">
<dim>1</dim><dim>2</dim></port></output></layer>
<layer id="1" name="out" type="Result" version="opset1"><input><port id="0" precision="FP32">
<dim>1</dim><dim>2</dim></port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>""")
    ir.with_suffix(".bin").write_bytes(b"")
    (spec,) = open_engine("shim", ir).inputs()
    assert spec.names == {"image", "image:0"}
    np.save(tmp_path / "x.npy", np.ones((1, 2), np.float32))
    for name in ("image", "image:0"):
        assert main(["run", "--model", str(ir), "--input", f"{name}={tmp_path / 'x.npy'}"]) == 0
    assert "min 1 max 1" in capsys.readouterr().out
