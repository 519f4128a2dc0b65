"""The corpus's segmentation, detection and audio models (tests/tf_corpus.py builds and writes
them like the others; these functions run in the child that imports TensorFlow):

- deeplab: DeepLabV3 in small: a strided trunk, dilated convolutions (a dilated depthwise one
  is SpaceToBatchND/BatchToSpaceND in the graph), ASPP with a global-pooling branch resized
  back up bilinearly, and a final bilinear resize to the input size. Keras layers only.
- ssd: an SSD in the TF Object Detection API's style: a conv backbone, box and class heads on
  two feature maps, anchor decoding, a pre-NMS TopKV2 and batched GatherV2, then
  CombinedNonMaxSuppression, and per-class NonMaxSuppressionV5 with padding in a
  tf.map_fn over the images (a While). The post-processing
  is a Lambda layer (TF code): no .keras form. One output: rows [y1, x1, y2, x2, score, class].
- speech_mel: keras.layers.MelSpectrogram (STFT, mel filterbank, decibels) on a waveform, then
  convolutions over time and a dense classifier.
"""

from __future__ import annotations

import numpy as np

__all__ = ["deeplab", "speech_mel", "ssd"]


def _conv_bn(x, filters: int, kernel: int = 3, strides: int = 1, dilation: int = 1):
    from keras import layers

    x = layers.Conv2D(filters, kernel, strides=strides, padding="same", dilation_rate=dilation,
                      use_bias=False)(x)
    return layers.ReLU()(layers.BatchNormalization()(x))


def deeplab():
    import keras
    from keras import layers

    x = inp = layers.Input((64, 64, 3))
    x = _conv_bn(_conv_bn(x, 16, strides=2), 24, strides=2)  # 16 x 16
    x = layers.DepthwiseConv2D(3, padding="same", dilation_rate=2)(x)
    x = _conv_bn(x, 32, dilation=2)
    branches = [_conv_bn(x, 16, kernel=1), _conv_bn(x, 16, dilation=4)]
    atrous = layers.DepthwiseConv2D(3, padding="same", dilation_rate=6, use_bias=False)(x)
    branches.append(_conv_bn(atrous, 16, kernel=1))
    pooled = _conv_bn(layers.GlobalAveragePooling2D(keepdims=True)(x), 16, kernel=1)
    branches.append(layers.UpSampling2D((16, 16), interpolation="bilinear")(pooled))
    y = _conv_bn(layers.Concatenate()(branches), 16, kernel=1)
    y = layers.Conv2D(5, 1)(y)
    return keras.Model(inp, layers.Resizing(64, 64, interpolation="bilinear")(y))


def _anchors(sides: tuple[int, ...], scales: tuple[float, ...]) -> np.ndarray:
    """[N, 4] anchors (y, x, h, w), per cell of each map then per aspect ratio, as the heads
    order their outputs."""
    rows = []
    for side, scale in zip(sides, scales, strict=True):
        centres = (np.arange(side) + 0.5) / side
        cy, cx = np.meshgrid(centres, centres, indexing="ij")
        for y, x in zip(cy.ravel(), cx.ravel(), strict=True):
            for ratio in (0.5, 1.0, 2.0):
                rows.append([y, x, scale / np.sqrt(ratio), scale * np.sqrt(ratio)])
    return np.array(rows, np.float32)


def _postprocess(box, cls, anchors: np.ndarray, classes: int):
    import tensorflow as tf

    t = box / tf.constant([10.0, 10.0, 5.0, 5.0])
    yc = t[..., 0] * anchors[:, 2] + anchors[:, 0]
    xc = t[..., 1] * anchors[:, 3] + anchors[:, 1]
    h, w = tf.exp(t[..., 2]) * anchors[:, 2], tf.exp(t[..., 3]) * anchors[:, 3]
    boxes = tf.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], axis=-1)
    scores = tf.sigmoid(cls)
    _, top = tf.math.top_k(tf.reduce_max(scores, axis=-1), k=64)  # TopKV2
    boxes = tf.gather(boxes, top, batch_dims=1)
    scores = tf.gather(scores, top, batch_dims=1)
    nms = tf.image.combined_non_max_suppression(
        boxes[:, :, None, :], scores, max_output_size_per_class=6, max_total_size=12,
        iou_threshold=0.5, score_threshold=0.3)
    rows = [tf.concat([nms.nmsed_boxes, nms.nmsed_scores[..., None],
                       nms.nmsed_classes[..., None]], axis=-1)]
    rows.append(tf.map_fn(lambda bs: _per_class(bs[0], bs[1], classes), (boxes, scores),
                          fn_output_signature=tf.float32))  # a While over the images
    return tf.concat(rows, axis=1)


def _per_class(boxes, scores, classes: int):
    """One image's detections by per-class NonMaxSuppressionV5, each padded to 4."""
    import tensorflow as tf

    rows = []
    for c in range(classes):
        keep, valid = tf.raw_ops.NonMaxSuppressionV5(
            boxes=boxes, scores=scores[:, c], max_output_size=4, iou_threshold=0.5,
            score_threshold=0.3, soft_nms_sigma=0.0, pad_to_max_output_size=True)[::2]
        live = tf.cast(tf.range(4) < valid, tf.float32)[:, None]
        picked = tf.concat([tf.gather(boxes, keep), tf.gather(scores[:, c], keep)[:, None],
                            tf.fill([4, 1], float(c))], axis=-1)
        rows.append(picked * live)
    return tf.concat(rows, axis=0)


def ssd():
    import keras
    from keras import layers

    classes, per_cell = 3, 3
    x = inp = layers.Input((64, 64, 3))
    x = _conv_bn(_conv_bn(x, 16, strides=2), 24, strides=2)
    maps = [_conv_bn(x, 32)]  # 16 x 16
    maps.append(_conv_bn(maps[0], 48, strides=2))  # 8 x 8
    boxes, logits = [], []
    for f in maps:
        boxes.append(layers.Reshape((-1, 4))(layers.Conv2D(per_cell * 4, 3, padding="same")(f)))
        logits.append(layers.Reshape((-1, classes))(
            layers.Conv2D(per_cell * classes, 3, padding="same")(f)))
    box, cls = layers.Concatenate(axis=1)(boxes), layers.Concatenate(axis=1)(logits)
    anchors = _anchors((16, 8), (0.15, 0.35))
    out = layers.Lambda(lambda t: _postprocess(t[0], t[1], anchors, classes))([box, cls])
    return keras.Model(inp, out)


def speech_mel():
    import keras
    from keras import layers

    x = inp = layers.Input((4000,))
    x = layers.MelSpectrogram(fft_length=256, sequence_stride=128, sequence_length=200,
                              num_mel_bins=32, sampling_rate=8000)(x)  # [B, mels, frames]
    x = layers.Permute((2, 1))(x)
    x = layers.Conv1D(16, 3, activation="relu")(x)
    x = layers.Conv1D(16, 3, strides=2, activation="relu")(x)
    x = layers.GlobalAveragePooling1D()(x)
    return keras.Model(inp, layers.Dense(6)(x))
