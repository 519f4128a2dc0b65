"""Built-in ONNX translators, one module per op family; importing registers them."""

from converter.front.onnx.ops import (
    attention,
    control,
    core,
    crop,
    elementwise,
    loss,
    movement,
    nn,
    quantization,
    recurrent,
    reduce,
    rotary,
    sampling,
    windows,
)

__all__ = ["attention", "control", "core", "crop", "elementwise", "loss", "movement", "nn",
           "quantization", "recurrent", "reduce", "rotary", "sampling", "windows"]
