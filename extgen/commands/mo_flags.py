"""Model Optimizer / ovc flags of `extgen convert` beyond the basic ones, with MO's meaning, and
the argparse types they need (kept here so convert.py stays a short list)."""

from __future__ import annotations

import argparse

__all__ = ["add_mo_flags", "boolean"]

_TRUE = ("true", "t", "yes", "y", "1", "on")
_FALSE = ("false", "f", "no", "n", "0", "off")


def boolean(text: str | bool) -> bool:
    """MO's boolean flag values: True/False in any case, also yes/no, y/n, 1/0, on/off."""
    if isinstance(text, bool):
        return text
    word = text.strip().lower()
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    msg = f"expected True or False, got '{text}'"
    raise argparse.ArgumentTypeError(msg)


def _bool_flag(p: argparse._ActionsContainer, name: str, default: bool, help: str) -> None:
    """`--name`, `--name=False`, `--name False`: MO's nargs='?' boolean."""
    p.add_argument(name, type=boolean, nargs="?", const=True, default=default, metavar="BOOL",
                   help=f"{help} (default: {default})")


def add_mo_flags(p: argparse.ArgumentParser) -> None:
    """The MO flags that shape the IR beyond inputs and preprocessing."""
    _bool_flag(p, "--compress_to_fp16", True,
               "store float32 weights as float16, decompressed to f32 at load, as MO 2023 and "
               "ovc do; --compress_to_fp16=False keeps them float32")
