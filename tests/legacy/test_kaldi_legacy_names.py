"""MO's Kaldi names outside its readers: the affine extractor that MO's own affine extractors
subclass converts a net when a user folder subclasses it the same way, and the small helpers."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest

from converter.legacy.kaldi_helpers import read_binary_vector_of_pairs, unique_id
from converter.runtime.engines import open_engine
from extgen.cli import main
from tests.front import kaldi_nets as kn

# MO's own front/kaldi/extractors/affine_component_ext.py, in a 2021-style folder
AFFINE_EXT = '''
from extensions.front.kaldi.extractors.fixed_affine_component_ext import \\
    FixedAffineComponentFrontExtractor


class AffineComponentFrontExtractor(FixedAffineComponentFrontExtractor):
    op = 'affinecomponent'
    enabled = True
'''
MARK = '''

    @classmethod
    def extract(cls, node):
        open(MARK_FILE, "a").write("ran ")
        return super().extract(node)
'''


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "text"])
def test_subclassed_fixed_affine_extractor_converts(tmp_path, binary):
    first, second = kn.affine(6, 5), kn.affine(5, 4, "FixedAffineComponent")
    model = tmp_path / "net.raw"
    model.write_bytes(kn.nnet3_chain([first, second], 6, binary))
    ext = tmp_path / "ext"
    (ext / "front" / "kaldi").mkdir(parents=True)
    mark = tmp_path / "ran.txt"
    (ext / "front" / "kaldi" / "affine_component_ext.py").write_text(
        f"MARK_FILE = {str(mark)!r}\n{AFFINE_EXT}{MARK}")
    assert main(["convert", "--input_model", str(model), "--output_dir", str(tmp_path / "ir"),
                 "--extensions", str(ext), "--compress_to_fp16=False"]) == 0
    x = kn.RNG.standard_normal((1, 6)).astype(np.float32)
    got = open_engine("shim", tmp_path / "ir/net.xml", "CPU").run({"input": x})
    np.testing.assert_allclose(next(iter(got.values())), second[2](first[2](x)), rtol=1e-5)
    assert mark.read_text() == "ran "  # the folder's extractor, not the built-in, read it


def test_read_binary_vector_of_pairs():
    pairs = np.array([[-1, 0], [0, 2], [3, -4]], np.int32)
    body = b"\x04" + struct.pack("<i", 3) + pairs.astype("<i4").tobytes()
    got = read_binary_vector_of_pairs(io.BytesIO(body), read_token=False, dtype=np.int32)
    np.testing.assert_array_equal(got, pairs.reshape(-1))


def test_unique_id_never_repeats():
    names = [unique_id("lstm") for _ in range(3)] + [unique_id("other")]
    assert len(set(names)) == 4 and all(n.startswith(("lstm", "other")) for n in names)
