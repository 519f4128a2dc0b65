"""`python _paddle_custom_op.py FOLDER`: a real PaddlePaddle custom op, extgen_scaled_cosh
(PD_BUILD_OP, compiled by paddle.utils.cpp_extension), in a static program that Paddle runs and
saves: FOLDER/net.pdmodel, the input x.npy and Paddle's own output y.npy. Run apart: paddle
crashes when imported after tensorflow, which other tests import."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

SOURCE = r"""
#include <cmath>
#include "paddle/extension.h"

std::vector<paddle::Tensor> ScaledCosh(const paddle::Tensor& x, float scale) {
    auto out = paddle::empty_like(x);
    const float* in = x.data<float>();
    float* y = out.data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) y[i] = scale * std::cosh(in[i]);
    return {out};
}

PD_BUILD_OP(extgen_scaled_cosh)
    .Inputs({"X"})
    .Outputs({"Out"})
    .Attrs({"scale: float"})
    .SetKernelFn(PD_KERNEL(ScaledCosh));
"""


def main(folder: Path) -> None:
    import paddle
    from paddle.pir_utils import OldIrGuard  # OpenVINO reads ProgramDesc, not PIR
    from paddle.utils.cpp_extension import load

    (folder / "build").mkdir(parents=True, exist_ok=True)
    (folder / "scaled_cosh.cc").write_text(SOURCE)
    ops = load(name="extgen_paddle_ops", sources=[str(folder / "scaled_cosh.cc")],
               build_directory=str(folder / "build"))
    x = np.linspace(-2, 2, 24, dtype=np.float32).reshape(2, 3, 4)
    with OldIrGuard():
        paddle.enable_static()
        main_program, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main_program, startup):
            data = paddle.static.data("x", list(x.shape), "float32")
            out = paddle.nn.functional.relu(ops.extgen_scaled_cosh(data - 1.0, 0.25)) * 2
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        (y,) = exe.run(main_program, feed={"x": x}, fetch_list=[out])
        paddle.static.save_inference_model(str(folder / "net"), [data], [out], exe,
                                           program=main_program)
    np.save(folder / "x.npy", x)
    np.save(folder / "y.npy", y)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
