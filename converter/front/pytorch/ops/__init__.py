"""The built-in ATen (and TorchScript prim) translators, one module per op family."""

from converter.front.pytorch.ops import (  # noqa: F401  (importing registers the translators)
    attention,
    creation,
    elementwise,
    movement,
    nn,
    normalization,
    recurrent,
    reduce,
    resize,
    scalars,
)
