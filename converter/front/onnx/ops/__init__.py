"""Built-in ONNX translators, one module per op family; importing registers them."""

from converter.front.onnx.ops import (
    core,
    elementwise,
    movement,
    nn,
    quantization,
    recurrent,
    reduce,
    sampling,
)

__all__ = ["core", "elementwise", "movement", "nn", "quantization", "recurrent", "reduce",
           "sampling"]
