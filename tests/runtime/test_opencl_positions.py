"""Build-log positions point at the user's .cl file whichever compiler wrote the log."""

from converter.runtime.opencl.positions import user_positions

SOURCE = '// preamble\n#define A 1\n#line 1 "broken.cl"\nx\ny\nz\n#line 1 "two.cl"\nq\n'


def test_raw_kernel_position_maps_to_the_user_file() -> None:
    """NVIDIA's compiler ignores #line and counts lines of the assembled source."""
    assert user_positions("<kernel>:6:58: error: bad", SOURCE) == "broken.cl:3:58: error: bad"
    assert user_positions("<kernel>:8:1: error: x", SOURCE) == "two.cl:1:1: error: x"


def test_preamble_and_mapped_positions_stay() -> None:
    assert user_positions("<kernel>:1:1: error", SOURCE) == "<kernel>:1:1: error"
    assert user_positions("broken.cl:3:5: error", SOURCE) == "broken.cl:3:5: error"
