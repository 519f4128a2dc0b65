"""onnxruntime as a test oracle across its releases. Python 3.10's newest is 1.23:

- it reads ONNX IR versions up to 11, while onnx 1.19 and later write newer ones by default: a
  test model it refuses for its IR version alone is handed to it again marked with the newest
  IR version it reads (the test models use nothing of the later versions), by `install()`, once
  per process (tests/conftest.py);
- it lacks, crashes on or miscomputes a few op forms that later releases run (com.microsoft
  Attention with an attention_bias, GroupQueryAttention's prompt forms, SkipLayerNormalization,
  opset 23 Attention and RotaryEmbedding forms, dilated AveragePool) and fuses fewer BERT ops:
  tests of those forms are marked `needs_recent`, and run wherever a newer one installs
  (Python 3.11 and later, CI among them).
"""

from __future__ import annotations

import re
from importlib import metadata
from typing import Any

import pytest

_VERSION = tuple(int(part) for part in metadata.version("onnxruntime").split(".")[:2])
needs_recent = pytest.mark.skipif(
    _VERSION < (1, 24), reason=f"onnxruntime {'.'.join(map(str, _VERSION))} (the newest for "
    "Python 3.10) mis-runs this op form; the test runs where onnxruntime 1.24+ installs")
_REFUSED = re.compile(r"Unsupported model IR version: \d+, max supported IR version: (\d+)")


def install() -> None:
    import onnxruntime as ort

    if getattr(ort.InferenceSession, "reads_newer_ir", False):
        return

    class InferenceSession(ort.InferenceSession):
        reads_newer_ir = True

        def __init__(self, model: Any, *args: Any, **kwargs: Any) -> None:
            try:
                super().__init__(model, *args, **kwargs)
            except Exception as err:  # onnxruntime's Fail: its class differs between releases
                newest = _REFUSED.search(str(err))
                if not newest:
                    raise
                super().__init__(_marked(model, int(newest[1])), *args, **kwargs)

    ort.InferenceSession = InferenceSession


def _marked(model: Any, ir_version: int) -> bytes:
    import onnx

    proto = onnx.load_from_string(model) if isinstance(model, bytes) else onnx.load(str(model))
    proto.ir_version = ir_version
    return proto.SerializeToString()
