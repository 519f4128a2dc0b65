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


# -- the SSD head of the symbol API ----------------------------------------------------------
SIZES, RATIOS, CLASSES = (0.3, 0.6), (1.0, 2.0, 0.5), 3  # 4 anchors per cell; class 0: background


def mxnet_multibox_prior(h: int, w: int) -> np.ndarray:
    """MXNet's MultiBoxPrior (src/operator/contrib/multibox_prior.cc), steps -1, offsets 0.5."""
    out = []
    for r in range(h):
        for c in range(w):
            cy, cx = (r + 0.5) / h, (c + 0.5) / w
            shapes = [(s, RATIOS[0]) for s in SIZES] + [(SIZES[0], q) for q in RATIOS[1:]]
            for size, ratio in shapes:
                half_w = size * h / w * np.sqrt(ratio) / 2
                half_h = size / np.sqrt(ratio) / 2
                out.append([cx - half_w, cy - half_h, cx + half_w, cy + half_h])
    return np.array(out, np.float32)[None]


def mxnet_multibox_detection(cls_prob, loc, anchors, threshold, nms, top_k,
                             stds=(0.1, 0.1, 0.2, 0.2), clip=True) -> list:
    """MXNet's MultiBoxDetection (multibox_detection.cc) for image 0: the kept
    (class - 1, score, box) rows, best first."""
    found = []
    for i, (x0, y0, x1, y1) in enumerate(anchors[0]):
        scores = cls_prob[0, 1:, i]
        best = int(np.argmax(scores))
        if scores[best] < threshold:
            continue
        dx, dy, dw, dh = loc[0, 4 * i:4 * i + 4]
        aw, ah, ax, ay = x1 - x0, y1 - y0, (x0 + x1) / 2, (y0 + y1) / 2
        ox, oy = dx * stds[0] * aw + ax, dy * stds[1] * ah + ay
        ow, oh = np.exp(dw * stds[2]) * aw / 2, np.exp(dh * stds[3]) * ah / 2
        box = np.array([ox - ow, oy - oh, ox + ow, oy + oh], np.float32)
        box = np.clip(box, 0, 1) if clip else box
        found.append((best, float(scores[best]), box))
    found.sort(key=lambda f: -f[1])
    found = found[:top_k]
    kept = []
    for cand in found:
        if all(k[0] != cand[0] or _iou(k[2], cand[2]) <= nms for k in kept):
            kept.append(cand)
    return kept


def _iou(a, b) -> float:
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / union


def _conv(sym: SymbolBuilder, weights: dict, name: str, x: str, filters: int, channels: int,
          **attrs) -> str:
    weights[f"{name}_weight"] = _w(filters, channels, 3, 3) * 0.3
    weights[f"{name}_bias"] = _w(filters) * 0.3
    return sym.op("Convolution", name, [x, sym.var(f"{name}_weight"), sym.var(f"{name}_bias")],
                  kernel=(3, 3), pad=(1, 1), num_filter=filters, **attrs)


def _ssd(folder: Path) -> tuple[Path, dict]:
    """data[1,3,8,8] -> conv (stride 2) feat[1,8,4,4] -> anchors, loc and class heads as
    MXNet's SSD example (example/ssd/symbol/common.py multibox_layer) builds them."""
    sym, weights = SymbolBuilder(), {}
    anchors_per_cell = len(SIZES) + len(RATIOS) - 1
    feat = _conv(sym, weights, "feat", sym.var("data"), 8, 3, stride=(2, 2))
    prior = sym.op("_contrib_MultiBoxPrior", "anchors", [feat], sizes=SIZES, ratios=RATIOS,
                   clip=False)
    anchors = sym.op("Reshape", "anchors_r", [sym.op("Concat", "anchors_c", [
        sym.op("Flatten", "anchors_f", [prior])], dim=1)], shape=(0, -1, 4))
    heads = {}
    for head, per in (("loc", 4), ("cls", CLASSES)):
        x = _conv(sym, weights, head, feat, anchors_per_cell * per, 8)
        x = sym.op("Flatten", f"{head}_f", [sym.op("transpose", f"{head}_t", [x],
                                                   axes=(0, 2, 3, 1))])
        heads[head] = sym.op("Concat", f"{head}_c", [x], dim=1)
    cls = sym.op("Reshape", "cls_r", [heads["cls"]], shape=(0, -1, CLASSES))
    prob = sym.op("SoftmaxActivation", "cls_prob", [
        sym.op("transpose", "cls_rt", [cls], axes=(0, 2, 1))], mode="channel")
    det = sym.op("_contrib_MultiBoxDetection", "detection", [prob, heads["loc"], anchors],
                 nms_threshold=0.45, threshold=0.2, nms_topk=30)
    sym.save(folder / "ssd-symbol.json", [det, anchors, prob, heads["loc"]])
    write_ndarray_file(folder / "ssd-0000.params", {f"arg:{k}": v for k, v in weights.items()})
    return folder / "ssd-0000.params", weights


def test_ssd_head_matches_mxnet_s_multibox_ops(tmp_path) -> None:
    params, _ = _ssd(tmp_path)
    assert main(["convert", str(params), "-o", str(tmp_path / "ir"), "--input_shape",
                 "[1,3,8,8]", "--compress_to_fp16=False"]) == 0
    xml = tmp_path / "ir" / "ssd-0000.xml"
    text = xml.read_text()
    assert 'type="DetectionOutput"' in text and 'decrease_label_id="true"' in text
    data = _w(1, 3, 8, 8)
    names = ["detection", "anchors_r", "cls_prob", "loc_c"]
    for det, anchors, prob, loc in run_both(xml, {"data": data}, names):
        np.testing.assert_allclose(anchors, mxnet_multibox_prior(4, 4), rtol=1e-5, atol=1e-6)
        want = mxnet_multibox_detection(prob, loc, anchors, 0.2, 0.45, 30)
        rows = det[0, 0][:list(det[0, 0, :, 0]).index(-1)]  # up to the -1 row (zeros after)
        assert len(want) > 3 and len(rows) == len(want)
        want.sort(key=lambda k: (k[0], -k[1]))  # DetectionOutput lists them class by class
        for row, (label, score, box) in zip(rows, want):
            assert row[1] == label
            np.testing.assert_allclose(row[2:], [score, *box], rtol=1e-4, atol=1e-5)


# -- a GluonCV SSD export (--enable_ssd_gluoncv) -------------------------------------------------
STDS = (0.1, 0.1, 0.25, 0.25)  # not MO's defaults: the decoder's own are read


def _gluoncv_anchors() -> np.ndarray:
    """SSDAnchorGenerator's constant: [1, 1, 6, 6, 2 * 4] centre-form boxes in pixels."""
    cells = [[(j + 0.5) * 2, (i + 0.5) * 2, w, h] for i in range(6) for j in range(6)
             for w, h in ((3.0, 3.0), (4.0, 2.0))]
    return np.array(cells, np.float32).reshape(1, 1, 6, 6, 8)


def _gluoncv_ssd(folder: Path) -> Path:
    """The tail of gluoncv.model_zoo.ssd.SSD.hybrid_forward as HybridBlock.export writes it:
    heads, anchors cut to the feature map by slice_like, decoders and box_nms."""
    sym, weights = SymbolBuilder(), {"anchor_0": _gluoncv_anchors()}
    feat = _conv(sym, weights, "feat", sym.var("data"), 8, 3, stride=(2, 2))
    cut = sym.op("slice_like", "anchor_cut", [
        sym.var("anchor_0"), sym.op("_mul_scalar", "zeros", [feat], scalar=0)], axes=(2, 3))
    flat = sym.op("Reshape", "anchor_flat", [sym.op("Reshape", "anchor_r1", [
        sym.op("Reshape", "anchor_r0", [cut], shape=(1, -1, 4))], shape=(1, -1))], shape=(1, -1))
    anchors = sym.op("Reshape", "anchors", [sym.op("Concat", "anchor_c", [flat], dim=1)],
                     shape=(1, -1, 4))
    heads = {}
    for head, per in (("box", 4), ("cls", CLASSES)):
        x = _conv(sym, weights, head, feat, 2 * per, 8)
        heads[head] = sym.op("Concat", f"{head}_c", [sym.op("Flatten", f"{head}_f", [
            sym.op("transpose", f"{head}_t", [x], axes=(0, 2, 3, 1))])], dim=1)
    prob = sym.op("softmax", "cls_prob", [sym.op("Reshape", "cls_r", [heads["cls"]],
                                                 shape=(0, -1, CLASSES))], axis=-1)
    split = sym.op("SliceChannel", "box_split", [sym.op("Reshape", "box_r", [heads["box"]],
                                                        shape=(0, -1, 4))],
                   num_outputs=4, axis=-1)
    decoded = [sym.op("_mul_scalar", f"box_std{k}", [(split, k)], scalar=std)
               for k, std in enumerate(STDS)]
    ids = sym.op("slice_axis", "cls_ids", [prob], axis=-1, begin=1, end=None)
    nms = sym.op("_contrib_box_nms", "nms", [sym.op("Concat", "result", [ids, *decoded, anchors],
                                                    dim=-1)],
                 overlap_thresh=0.45, topk=50, valid_thresh=0.01, id_index=0, score_index=1,
                 coord_start=2, force_suppress=False)
    sym.save(folder / "gssd-symbol.json", [
        sym.op("slice_axis", f"out{k}", [nms], axis=2, begin=b, end=e)
        for k, (b, e) in enumerate(((0, 1), (1, 2), (2, 6)))])
    write_ndarray_file(folder / "gssd-0000.params", {f"arg:{k}": v for k, v in weights.items()})
    return folder / "gssd-0000.params"


def test_gluoncv_ssd_becomes_one_detection_output(tmp_path) -> None:
    params = _gluoncv_ssd(tmp_path)
    flags = ["--input_shape", "[1,3,8,8]", "--compress_to_fp16=False"]
    assert main(["convert", str(params), "-o", str(tmp_path / "ir"), "--enable_ssd_gluoncv",
                 *flags]) == 0
    # the three tensors the rewrite starts from, from the model cut before the decoders
    assert main(["convert", str(params), "-o", str(tmp_path / "cut"), "--output",
                 "cls_prob,box_c,anchors", *flags]) == 0
    data = _w(1, 3, 8, 8)
    prob, loc, centre = run_both(tmp_path / "cut" / "gssd-0000.xml", {"data": data},
                                 ["cls_prob", "box_c", "anchors"])[0]
    corners = np.concatenate([centre[..., :2] - centre[..., 2:] / 2,
                              centre[..., :2] + centre[..., 2:] / 2], axis=-1)
    want = mxnet_multibox_detection(prob.transpose(0, 2, 1), loc, corners, 0.01, 0.45, 50,
                                    STDS, clip=False)
    want.sort(key=lambda k: (k[0], -k[1]))
    xml = tmp_path / "ir" / "gssd-0000.xml"
    assert "box_nms" not in xml.read_text()
    for (det,) in run_both(xml, {"data": data}, ["ssd_gluoncv/DetectionOutput"]):
        rows = det[0, 0][:list(det[0, 0, :, 0]).index(-1)]
        assert len(want) > 3 and len(rows) == len(want)
        for row, (label, score, box) in zip(rows, want):
            assert row[1] == label
            np.testing.assert_allclose(row[2:], [score, *box], rtol=1e-4, atol=1e-4)


def test_enable_ssd_gluoncv_on_another_model_says_what_is_missing(tmp_path, capsys) -> None:
    params, _ = _ssd(tmp_path)  # the symbol API's SSD: no box_nms
    code = main(["convert", str(params), "-o", str(tmp_path / "ir"), "--enable_ssd_gluoncv",
                 "--input_shape", "[1,3,8,8]"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "found 0 _contrib_box_nms nodes, expected one; is this a GluonCV SSD export" in err[0]
