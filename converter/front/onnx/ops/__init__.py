"""Built-in ONNX translators, one module per op family; importing registers them."""

from converter.front.onnx.ops import (
    affine_grid,
    attention,
    causal_conv,
    col2im,
    control,
    core,
    crop,
    elementwise,
    linear_attention,
    loss,
    microsoft,
    microsoft_attention,
    microsoft_gqa,
    movement,
    nn,
    quantization,
    recurrent,
    reduce,
    rotary,
    sampling,
    windows,
)

__all__ = ["affine_grid", "attention", "causal_conv", "col2im",
           "control", "core", "crop", "elementwise",
           "linear_attention", "loss",
           "microsoft", "microsoft_attention", "microsoft_gqa", "movement", "nn",
           "quantization", "recurrent", "reduce", "rotary", "sampling", "windows"]
