"""Small TensorFlow graphs of single ops (detection, indexing, NLP, Fourier, TF-specific
arithmetic) for the TF front's op tests, written by TensorFlow in a child process (`run_tf`) once
per machine into ~/.cache/extgen/tf-<ver>/ops-<digest of this file>/<name>/ (an edited graph
is written again, never read stale):

- frozen.pb: a TF1 graph of placeholders with static shapes, the op, and one Identity `out<i>`
  per output,
- inputs.npz: the placeholders' values, by name; expected.npz: TF's outputs, by Identity name.

    folder = op_graph("crop_bilinear")
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from tests.cache_folder import write_once
from tests.tf_corpus import cache_dir, run_tf

__all__ = ["FAMILIES", "op_graph"]

FAMILIES = {
    "detection": ("nms_v2", "nms_v3", "nms_v4_pad", "nms_v5_soft", "nms_combined", "top_k",
                  "crop_bilinear", "crop_nearest"),
    "indexing": ("where", "select_rows", "gather_batch_dims", "gather_nd", "scatter_nd",
                 "one_hot", "cumsum", "bucketize", "range_float", "tensor_scatter", "arg_max",
                 "segments", "sparse_dense"),
    "reshaping": ("shape_ops", "lin_space", "roll_reverse", "space_batch", "band_part"),
    "image": ("patches", "pool_argmax", "bicubic"),
    "arithmetic": ("floor_mod", "round", "floor_div_int", "resize_flags", "math_unary",
                   "no_nan", "bitwise", "fake_quant"),
    "spectral": ("rfft_abs", "fft_parts", "irfft", "rfft2d", "complex_math"),
    "audio": ("spectrogram", "mfcc", "stft_mel"),
}


def _boxes(rng: np.random.Generator, count: int) -> np.ndarray:
    """[count, 4] boxes [y1, x1, y2, x2] around a few centres, some with flipped corners."""
    centre = rng.uniform(0.2, 0.8, (count, 2)) // 0.15 * 0.15 + rng.normal(0, 0.03, (count, 2))
    half = rng.uniform(0.05, 0.2, (count, 2))
    boxes = np.concatenate([centre - half, centre + half], axis=1)
    flip = rng.random(count) < 0.2
    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    return boxes.astype(np.float32)


def _inputs(name: str, rng: np.random.Generator) -> dict[str, np.ndarray]:
    f32 = np.float32
    if name == "nms_combined":  # two images, 30 boxes shared by 3 classes
        boxes = np.stack([_boxes(rng, 30) * 1.2 - 0.1 for _ in range(2)])[:, :, None]
        return {"boxes": boxes, "scores": rng.permutation(180).astype(f32).reshape(2, 30, 3) / 180}
    if name.startswith("nms"):
        return {"boxes": _boxes(rng, 40), "scores": rng.permutation(40).astype(f32) / 40}
    if name.startswith("crop"):
        return {"image": rng.standard_normal((2, 9, 11, 3)).astype(f32),
                "boxes": rng.uniform(-0.2, 1.2, (5, 4)).astype(f32)}
    shapes = {"where": (3, 4), "select_rows": (4, 3), "gather_batch_dims": (2, 5, 6),
              "gather_nd": (4, 5, 3), "scatter_nd": (6, 3), "one_hot": (5,), "cumsum": (3, 5),
              "bucketize": (4, 6), "range_float": (), "floor_mod": (4, 5), "round": (4, 5),
              "floor_div_int": (4, 5), "resize_flags": (1, 5, 7, 2), "top_k": (3, 10),
              "bicubic": (2, 5, 7, 2),
              "rfft_abs": (2, 16), "fft_parts": (3, 8), "irfft": (2, 9), "rfft2d": (2, 6, 8),
              "spectrogram": (400, 2), "mfcc": (1000, 1), "tensor_scatter": (3, 4),
              "arg_max": (4, 6), "shape_ops": (3, 1, 4), "lin_space": (), "roll_reverse": (3, 6, 2),
              "space_batch": (2, 6, 4, 3), "math_unary": (5, 6), "no_nan": (4, 5),
              "bitwise": (4, 5), "segments": (6, 3), "fake_quant": (4, 3),
              "sparse_dense": (4,), "band_part": (2, 4, 5), "patches": (1, 7, 8, 2),
              "pool_argmax": (2, 7, 8, 3), "stft_mel": (2, 2000),
              "complex_math": (3, 6)}
    x = rng.standard_normal(shapes[name]).astype(f32)
    if name in ("round", "floor_mod"):
        x = np.round(x * 4) / 2  # many exact halves and integers
    if name in ("floor_div_int", "bitwise"):
        x = np.round(x * 7).astype(np.int32)
    if name == "math_unary":
        x = np.tanh(x) * 0.9
    if name == "no_nan":
        x[0, :2] = 0.0
        x[1, 1] = np.nan
        x[2, 3] = -np.inf
    if name == "arg_max":
        x = np.round(x)  # ties
    return {"x": x}


def _build(name: str, ph: dict) -> list:
    """The op (or ops) under test on the placeholders; their outputs."""
    import tensorflow as tf

    raw, x = tf.raw_ops, ph.get("x")
    if name.startswith("nms"):
        b, s = ph["boxes"], ph["scores"]
        if name == "nms_combined":
            return [*raw.CombinedNonMaxSuppression(
                boxes=b, scores=s, max_output_size_per_class=4, max_total_size=20,
                iou_threshold=0.4, score_threshold=0.3),
                *raw.CombinedNonMaxSuppression(
                boxes=b, scores=s, max_output_size_per_class=3, max_total_size=30,
                iou_threshold=0.5, score_threshold=0.1, pad_per_class=True, clip_boxes=False)]
        if name == "nms_v2":
            return [raw.NonMaxSuppressionV2(boxes=b, scores=s - 0.5, max_output_size=40,
                                            iou_threshold=0.3)]
        if name == "nms_v3":
            return [raw.NonMaxSuppressionV3(boxes=b, scores=s, max_output_size=12,
                                            iou_threshold=0.3, score_threshold=0.1)]
        if name == "nms_v4_pad":
            return list(raw.NonMaxSuppressionV4(boxes=b, scores=s, max_output_size=30,
                                                iou_threshold=0.4, score_threshold=0.2,
                                                pad_to_max_output_size=True))
        return list(raw.NonMaxSuppressionV5(boxes=b, scores=s, max_output_size=10,
                                            iou_threshold=0.6, score_threshold=0.05,
                                            soft_nms_sigma=0.5, pad_to_max_output_size=False))
    if name.startswith("crop"):
        return [raw.CropAndResize(image=ph["image"], boxes=ph["boxes"],
                                  box_ind=tf.constant([0, 1, 1, 0, 1]), crop_size=[4, 5],
                                  method=name[5:], extrapolation_value=-2.5)]
    return _build_other(name, x)


def _build_other(name: str, x) -> list:
    import tensorflow as tf

    raw = tf.raw_ops
    ops = {
        "top_k": lambda: list(raw.TopKV2(input=tf.round(x * 2), k=4, sorted=True)),
        "where": lambda: [raw.Where(condition=x > 0.3)],
        "select_rows": lambda: [raw.Select(condition=tf.reduce_sum(x, 1) > 0, x=x, y=-x * 2)],
        "gather_batch_dims": lambda: [raw.GatherV2(
            params=x, indices=[[4, 0, 2], [1, 1, 3]], axis=2, batch_dims=1)],
        "gather_nd": lambda: [raw.GatherNd(params=x, indices=[[1, 4], [3, 0], [1, 4]])],
        "scatter_nd": lambda: [raw.ScatterNd(indices=[[2], [5], [2], [0], [3], [1]],
                                             updates=x, shape=[7, 3])],
        "one_hot": lambda: [raw.OneHot(indices=tf.cast(tf.abs(x) * 3, tf.int32), depth=4,
                                       on_value=2.5, off_value=-1.0, axis=0)],
        "cumsum": lambda: [raw.Cumsum(x=x, axis=1, exclusive=e, reverse=r)
                           for e in (False, True) for r in (False, True)],
        "bucketize": lambda: [raw.Bucketize(input=x, boundaries=[-1.0, -0.25, 0.0, 0.5, 1.5])],
        "range_float": lambda: [raw.Range(start=x, limit=4.5, delta=0.7)],
        "floor_mod": lambda: [raw.FloorMod(x=x, y=tf.constant([1.5, -1.5, 2.0, -0.5, 0.75]))],
        "round": lambda: [raw.Round(x=x)],
        "floor_div_int": lambda: [op(x=x, y=tf.constant([3, -3, 2, -4, 5])) for op in (
            raw.FloorDiv, raw.FloorMod, raw.TruncateDiv, raw.TruncateMod)],
        "resize_flags": lambda: _resize_flags(x),
        "bicubic": lambda: _resize_bicubic(x),
        "rfft_abs": lambda: [raw.ComplexAbs(x=raw.RFFT(input=x, fft_length=[16]))],
        "fft_parts": lambda: _fft_parts(x),
        "irfft": lambda: [raw.IRFFT(input=raw.RFFT(input=x, fft_length=[9]), fft_length=[9])],
        "rfft2d": lambda: _rfft2d(x),
        "tensor_scatter": lambda: [op(tensor=x, indices=[[2, 1], [0, 3], [2, 1]],
                                      updates=[5.0, -2.0, 1.5]) for op in (
            raw.TensorScatterUpdate, raw.TensorScatterAdd, raw.TensorScatterMax)],
        "arg_max": lambda: [raw.ArgMax(input=x, dimension=1), raw.ArgMin(input=x, dimension=0),
                            raw.ArgMax(input=x, dimension=-1, output_type=tf.int32)],
        "shape_ops": lambda: [raw.BroadcastTo(input=x, shape=[2, 3, 5, 4]), raw.Size(input=x),
                              raw.Rank(input=x), raw.Size(input=x, out_type=tf.int64)],
        "lin_space": lambda: [raw.LinSpace(start=x, stop=2.5, num=7),
                              raw.LinSpace(start=x, stop=x + 1.0, num=1)],
        "roll_reverse": lambda: [raw.Roll(input=x, shift=[2, -1], axis=[1, 2]),
                                 raw.ReverseSequence(input=x, seq_lengths=[4, 0, 6],
                                                     seq_dim=1, batch_dim=0)],
        "space_batch": lambda: _space_batch(x),
        "segments": lambda: _segments(x),
        "sparse_dense": lambda: [
            raw.SparseToDense(sparse_indices=[[0, 1], [1, 3], [2, 0], [2, 2]],
                              output_shape=[3, 4], sparse_values=x, default_value=-1.0),
            raw.SparseToDense(sparse_indices=[1, 4], output_shape=[6], sparse_values=7.0,
                              default_value=0.5),
            raw.InvertPermutation(x=tf.cast(tf.argsort(x), tf.int32))],
        "pool_argmax": lambda: [
            *raw.MaxPoolWithArgmax(input=x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                                   padding="VALID"),
            *raw.MaxPoolWithArgmax(input=x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1],
                                   padding="SAME", include_batch_in_index=True),
            raw.MaxPoolV2(input=x, ksize=[1, 3, 2, 1], strides=[1, 2, 1, 1], padding="SAME")],
        "band_part": lambda: [raw.MatrixBandPart(input=x, num_lower=lo, num_upper=up)
                              for lo, up in ((1, 0), (-1, 2), (0, -1), (2, 1))],
        "patches": lambda: [raw.ExtractImagePatches(images=x, ksizes=[1, 3, 2, 1],
                                                    strides=[1, 2, 3, 1], rates=[1, r, 1, 1],
                                                    padding=p)
                            for r, p in ((1, "VALID"), (2, "SAME"))],
        "fake_quant": lambda: [
            raw.FakeQuantWithMinMaxArgs(inputs=x, min=-1.3, max=2.1),
            raw.FakeQuantWithMinMaxArgs(inputs=x, min=0.2, max=1.1, num_bits=4,
                                        narrow_range=True),
            raw.FakeQuantWithMinMaxVars(inputs=x, min=-0.7, max=0.9, num_bits=5),
            # a zero point of 127.5 in float64 and just under it in TF's float32
            raw.FakeQuantWithMinMaxVars(inputs=x, min=-1.0, max=1.0),
            raw.FakeQuantWithMinMaxVarsPerChannel(inputs=x, min=[-1.0, -0.3, 0.1],
                                                  max=[1.0, 0.8, 1.7], narrow_range=True)],
        "math_unary": lambda: [op(x=x) for op in (
            raw.Tan, raw.Asin, raw.Acos, raw.Atan, raw.Sinh, raw.Cosh, raw.Asinh, raw.Atanh,
            raw.Log1p, raw.Expm1)] + [raw.Acosh(x=1.0 + tf.abs(x)),
                                      raw.ClipByValue(t=x, clip_value_min=-0.5,
                                                      clip_value_max=0.7),
                                      raw.Atan2(y=x, x=tf.reverse(x, [1]) * [1, 0, 1, 0, 1, 1]),
                                      raw.Atan2(y=x * [0, 1, 1, 1, 1, 1], x=-x),
                                      raw.L2Loss(t=x)],
        "no_nan": lambda: [raw.IsNan(x=x), raw.IsInf(x=x), raw.IsFinite(x=x),
                           raw.DivNoNan(x=tf.ones_like(x), y=x), raw.Xlogy(x=x, y=tf.abs(x))],
        "bitwise": lambda: [op(x=x, y=tf.constant([3, 5, 6, 1, 12])) for op in (
            raw.BitwiseAnd, raw.BitwiseOr, raw.BitwiseXor, raw.Mod)] + [
            raw.LeftShift(x=x, y=tf.constant([0, 1, 2, 3, 4])),
            raw.RightShift(x=x, y=tf.constant([0, 1, 2, 3, 4])), raw.Invert(x=x)],
        "spectrogram": lambda: [raw.AudioSpectrogram(input=x, window_size=60, stride=24,
                                                     magnitude_squared=m) for m in (False, True)],
        "mfcc": lambda: _mfcc(x),
        "stft_mel": lambda: _stft_mel(x),
        "complex_math": lambda: _complex_math(x),
    }
    return ops[name]()


def _resize_flags(x) -> list:
    """Both resizes, up and down, under each of TF's three coordinate conventions."""
    import tensorflow as tf

    flags = [{"align_corners": True}, {"half_pixel_centers": True}, {}]
    return [op(images=x, size=size, **f) for op in (
        tf.raw_ops.ResizeBilinear, tf.raw_ops.ResizeNearestNeighbor)
        for size in ([8, 12], [3, 4]) for f in flags]


def _resize_bicubic(x) -> list:
    """ResizeBicubic up, down and to one row, under each of TF's three coordinate conventions."""
    import tensorflow as tf

    flags = [{"align_corners": True}, {"half_pixel_centers": True}, {}]
    return [tf.raw_ops.ResizeBicubic(images=x, size=size, **f)
            for size in ([8, 12], [3, 4], [1, 9]) for f in flags]


def _segments(x) -> list:
    """The unsorted segment reductions (segment 3 empty), SegmentSum, and Unique."""
    import tensorflow as tf

    raw = tf.raw_ops
    ids = tf.constant([4, 0, 2, 0, 4, 4])
    return [op(data=x, segment_ids=ids, num_segments=5) for op in (
        raw.UnsortedSegmentSum, raw.UnsortedSegmentProd, raw.UnsortedSegmentMax,
        raw.UnsortedSegmentMin)] + [
        raw.SegmentSum(data=x, segment_ids=[0, 0, 1, 3, 3, 3]),
        *raw.Unique(x=tf.cast(tf.round(x[:, 0] * 2), tf.int32))]


def _space_batch(x) -> list:
    """SpaceToBatchND with padding, and BatchToSpaceND with crops, as dilated convolutions."""
    import tensorflow as tf

    raw = tf.raw_ops
    spread = raw.SpaceToBatchND(input=x, block_shape=[2, 3], paddings=[[1, 1], [0, 2]])
    return [spread, raw.BatchToSpaceND(input=spread, block_shape=[2, 3], crops=[[1, 1], [0, 2]])]


def _complex_math(x) -> list:
    """Products, Exp, casts and slices of complex tensors."""
    import tensorflow as tf

    raw = tf.raw_ops
    c = raw.Complex(real=x, imag=tf.reverse(x, [1]))
    mixed = c * c - raw.Exp(x=c * tf.constant(0.3 - 0.2j, tf.complex64))
    return [raw.Real(input=mixed), raw.Imag(input=mixed),
            raw.ComplexAbs(x=tf.cast(x[:, :3], tf.complex64) + c[:, 1:4]),
            raw.Cast(x=mixed, DstT=tf.float32)]


def _stft_mel(x) -> list:
    """The TF2 way: tf.signal.stft, magnitudes, a mel matrix, log; and the MFCCs of those."""
    import tensorflow as tf

    spectrum = tf.signal.stft(x, frame_length=200, frame_step=80, fft_length=256)
    mel = tf.signal.linear_to_mel_weight_matrix(40, 129, 16000, 20.0, 7600.0)
    log_mel = tf.math.log(tf.matmul(tf.abs(spectrum), mel) + 1e-6)
    return [log_mel, tf.signal.mfccs_from_log_mel_spectrograms(log_mel)[..., :13]]


def _mfcc(x) -> list:
    """Mfcc on a squared-magnitude spectrogram, with TF's defaults and with other bands."""
    import tensorflow as tf

    raw = tf.raw_ops
    power = raw.AudioSpectrogram(input=x, window_size=256, stride=128, magnitude_squared=True)
    return [raw.Mfcc(spectrogram=power, sample_rate=16000),
            raw.Mfcc(spectrogram=power, sample_rate=8000, upper_frequency_limit=3500.0,
                     lower_frequency_limit=100.0, filterbank_channel_count=24,
                     dct_coefficient_count=10)]


def _fft_parts(x) -> list:
    import tensorflow as tf

    raw = tf.raw_ops
    spectrum = raw.FFT(input=raw.Complex(real=x, imag=tf.reverse(x, [1])))
    back = raw.IFFT(input=spectrum)
    return [raw.Real(input=spectrum), raw.Imag(input=spectrum), raw.Real(input=back)]


def _rfft2d(x) -> list:
    import tensorflow as tf

    spectrum = tf.raw_ops.RFFT2D(input=x, fft_length=[6, 8])
    return [tf.raw_ops.Imag(input=spectrum),
            tf.raw_ops.IRFFT2D(input=spectrum, fft_length=[6, 8])]


def _write(name: str, out: Path) -> None:
    import tensorflow as tf

    v1 = tf.compat.v1
    feed = _inputs(name, np.random.default_rng(sum(map(ord, name))))
    graph = tf.Graph()
    with graph.as_default():
        ph = {k: v1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k) for k, v in feed.items()}
        outs = [tf.identity(y, name=f"out{i}") for i, y in enumerate(_build(name, ph))]
        with v1.Session(graph=graph) as sess:
            got = sess.run(outs, {ph[k]: v for k, v in feed.items()})
    (out / "frozen.pb").write_bytes(graph.as_graph_def().SerializeToString())
    np.savez(out / "inputs.npz", **feed)
    np.savez(out / "expected.npz", **{f"out{i}": y for i, y in enumerate(got)})


def _ops_dir() -> Path:
    return cache_dir() / f"ops-{hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]}"


def _write_here(name: str) -> None:
    """Write one graph's folder (in the child that imports TensorFlow)."""
    write_once(_ops_dir() / name, lambda tmp: _write(name, tmp))


def _write_missing() -> None:
    """Write every graph not in the cache yet, in this one process (TensorFlow loads once)."""
    for names in FAMILIES.values():
        for name in names:
            _write_here(name)


def op_graph(name: str) -> Path:
    """The cache folder of one graph; on first use, all graphs are written by one child."""
    folder = _ops_dir() / name
    if not folder.is_dir():
        run_tf("from tests.tf_op_graphs import _write_missing; _write_missing()", Path.cwd())
    return folder
