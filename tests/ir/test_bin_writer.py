"""The .bin writer streams each Const in chunks (float16 conversion included), stores equal
contents once, and drops the pages of memory-mapped weights after writing them."""

from __future__ import annotations

import io
import mmap

import numpy as np

from converter.ir import writer


def test_chunks_dedup_and_f16(monkeypatch, tmp_path):
    monkeypatch.setattr(writer, "_CHUNK", 5)  # several chunks per value
    rng = np.random.default_rng(0)
    big = (rng.standard_normal(23) * 1e5).astype(np.float32)  # past float16's range
    small = rng.standard_normal((3, 4)).astype(np.float32)
    f = io.BytesIO()
    bins = writer._BinWriter(f)
    first = bins.add(big, as_f16=True)
    second = bins.add(small)
    again = bins.add(big.copy(), as_f16=True)  # the same bytes: stored once, nothing appended
    assert again == first == (0, 46) and second == (46, 48)
    data = f.getvalue()
    assert len(data) == 94
    want = np.clip(big, -65504, 65504).astype(np.float16)
    np.testing.assert_array_equal(np.frombuffer(data[:46], np.float16), want)
    np.testing.assert_array_equal(np.frombuffer(data[46:], np.float32).reshape(3, 4), small)


def test_memory_mapped_weights_are_released_and_still_readable(tmp_path):
    path = tmp_path / "w.bin"
    np.arange(1 << 16, dtype=np.float32).tofile(path)
    mapped = np.memmap(path, np.float32, "r", offset=4096, shape=(64, 240))
    advice = []

    class Recorder:  # the mapping, with its madvise calls recorded
        def __init__(self, real):
            self.real = real

        def madvise(self, *args):
            advice.append(args)
            return self.real.madvise(*args)

    mapped._mmap = Recorder(mapped._mmap)
    f = io.BytesIO()
    writer._BinWriter(f).add(mapped.T)  # a view of the mapping, as passes leave them
    assert advice == [(mmap.MADV_DONTNEED,)]
    assert np.frombuffer(f.getvalue(), np.float32)[0] == 1024.0
    assert mapped[0, 0] == 1024.0  # dropped pages come back from the file
