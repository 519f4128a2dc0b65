"""MO's MXNet-only flags and ops: weights from .nd files (--nd_prefix_name,
--pretrained_model_name, --save_params_from_nd) and the symbol API's SSD head
(_contrib_MultiBoxPrior, _contrib_MultiBoxDetection). MO 2023.3 needs MXNet to read these, so
the expected results follow MO's source (mo/front/mxnet/nd_to_params.py, the SSD passes)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from converter.front.mxnet.params import read_ndarray_file, write_ndarray_file
from converter.front.mxnet.symbol import SymbolBuilder
from extgen.cli import main
from tests.front.test_mxnet import run_both

RNG = np.random.default_rng(11)


def _w(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _nd_model(folder: Path) -> tuple[Path, dict]:
    """data[1,4] -> fc -> BatchNorm; the symbol deploy-symbol.json, a checkpoint net-0003.params
    and init_args.nd/init_auxs.nd. Returns the symbol and the weights MO would use."""
    sym = SymbolBuilder()
    names = ("fc_weight", "fc_bias", "bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var")
    fc = sym.op("FullyConnected", "fc", [sym.var("data"), sym.var(names[0]), sym.var(names[1])],
                num_hidden=3)
    bn = sym.op("BatchNorm", "bn", [fc, *(sym.var(n) for n in names[2:])], fix_gamma=False,
                eps=1e-3)
    sym.save(folder / "deploy-symbol.json", [bn])
    want = {"fc_weight": _w(3, 4), "fc_bias": _w(3), "bn_gamma": _w(3) + 2, "bn_beta": _w(3),
            "bn_moving_mean": _w(3), "bn_moving_var": np.abs(_w(3)) + 1}
    write_ndarray_file(folder / "net-0003.params", {
        "arg:fc_weight": np.zeros((3, 4), np.float32),  # the .nd file's wins
        "arg:fc_bias": want["fc_bias"], "arg:bn_gamma": want["bn_gamma"],
        "arg:bn_beta": want["bn_beta"],
        "aux:bn_moving_mean": np.full(3, 100, np.float32)})  # aux states come from .nd only
    write_ndarray_file(folder / "init_args.nd", {"fc_weight": want["fc_weight"]})
    write_ndarray_file(folder / "init_auxs.nd", {k: want[k] for k in names[4:]})
    return folder / "deploy-symbol.json", want


def _bn_fc(data: np.ndarray, w: dict) -> np.ndarray:
    fc = data @ w["fc_weight"].T + w["fc_bias"]
    scale = w["bn_gamma"] / np.sqrt(w["bn_moving_var"] + 1e-3)
    return (fc - w["bn_moving_mean"]) * scale + w["bn_beta"]


def test_nd_weights_over_the_pretrained_checkpoint_and_saved_as_params(tmp_path) -> None:
    symbol, want = _nd_model(tmp_path)
    flags = ["--input_shape", "[1,4]", "--compress_to_fp16=False"]
    assert main(["convert", "--input_symbol", str(symbol), "--nd_prefix_name", "init",
                 "--pretrained_model_name", str(tmp_path / "net-0003.params"),
                 "--save_params_from_nd", "-o", str(tmp_path / "ir"), *flags]) == 0
    data = _w(1, 4)
    xml = tmp_path / "ir" / "deploy-symbol.xml"  # MO named the IR after the symbol file
    for got in run_both(xml, {"data": data}, ["bn"]):
        np.testing.assert_allclose(got[0], _bn_fc(data, want), rtol=1e-5, atol=1e-5)
    saved = read_ndarray_file(tmp_path / "deploy-0003.params")
    assert sorted(saved) == sorted(f"{'aux' if 'moving' in k else 'arg'}:{k}" for k in want)
    assert main(["convert", str(tmp_path / "deploy-0003.params"), "-o", str(tmp_path / "ir2"),
                 *flags]) == 0
    for got in run_both(tmp_path / "ir2" / "deploy-0003.xml", {"data": data}, ["bn"]):
        np.testing.assert_allclose(got[0], _bn_fc(data, want), rtol=1e-5, atol=1e-5)


def test_nd_flags_go_together(tmp_path, capsys) -> None:
    _nd_model(tmp_path)
    code = main(["convert", str(tmp_path / "net-0003.params"), "--nd_prefix_name", "init",
                 "--pretrained_model_name", str(tmp_path / "net-0003.params")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "give all three, or none" in err[0]
