"""Built-in ONNX translators, one module per op family; importing registers them."""

from converter.front.onnx.ops import (
    affine_grid,
    attention,
    causal_conv,
    col2im,
    control,
    core,
    crop,
    det,
    elementwise,
    linear_attention,
    loss,
    microsoft,
    microsoft_attention,
    microsoft_gqa,
    ml,
    movement,
    nn,
    optional,
    quantization,
    recurrent,
    reduce,
    rotary,
    sampling,
    scatter,
    windows,
)

__all__ = ["affine_grid", "attention", "causal_conv", "col2im", "control", "core", "crop", "det",
           "elementwise", "linear_attention", "loss", "microsoft", "microsoft_attention",
           "microsoft_gqa", "ml", "movement", "nn", "optional", "quantization", "recurrent",
           "reduce", "rotary", "sampling", "scatter", "windows"]
