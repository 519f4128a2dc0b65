"""The TFLite front's own FlatBuffer and FlexBuffer readers: FlexBuffers written by the
flatbuffers package (a test oracle, installed with TensorFlow) read back as written; a
FlatBuffer whose offsets leave the file is one ModelFormatError naming it."""

from __future__ import annotations

import struct

import pytest
from flatbuffers import flexbuffers  # installed with TensorFlow, a test dependency

from converter.errors import ModelFormatError
from converter.front.tflite.flatbuffer import root
from converter.front.tflite.flexbuffer import FlexBufferError, read_flexbuffer


@pytest.mark.parametrize("value", [
    {"alpha": 0.5, "n": 3, "name": "abc", "ok": True, "neg": -7, "big": 1 << 40},
    {"ints": [1, 2, 3], "floats": [1.5, -2.5], "mixed": [1, "a", 2.0, False]},
    {"nested": {"x": [[1, 2], {"y": "z"}]}, "empty": [], "none": None},
    [1, 2, 3],
    "just a string",
    -123456789,
])
def test_flexbuffer_reads_what_the_flatbuffers_package_writes(value) -> None:
    assert read_flexbuffer(bytes(flexbuffers.Dumps(value))) == value


@pytest.mark.parametrize("data", [b"", b"\x01", b"\xff\xff\xff\xff\x24\x01",
                                  b"\x00\x00\x00\x00\x00\x00\x30\x08"])
def test_a_malformed_flexbuffer_raises_its_error(data: bytes) -> None:
    with pytest.raises(FlexBufferError):
        read_flexbuffer(data)


def test_an_offset_out_of_the_file_names_the_file() -> None:
    # root offset 8 -> a table whose vtable offset points 1000 bytes back
    data = struct.pack("<I4si", 8, b"TFL3", 1000)
    with pytest.raises(ModelFormatError, match=r"m\.tflite: .*\(truncated or corrupt file\)"):
        root(data, "m.tflite", b"TFL3", "TensorFlow Lite model")
