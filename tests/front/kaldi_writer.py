"""A Kaldi model writer for the tests (binary and text), from the published format: the tests
build their nnet1/nnet2/nnet3 models with it from numpy arrays.

A component is (type, items): items are tokens ("<Tag>"), I(int), F(float), bool, IV(ints),
numpy float arrays (vector or matrix), CM(matrix, kind) (a compressed matrix: compress()) and
Nested(components) (an nnet1 net inside a component).
nnet1 components carry their dims: (type, out, in, items).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np


@dataclass
class I:  # noqa: E742
    v: int


@dataclass
class F:
    v: float


@dataclass
class IV:
    v: list


@dataclass
class Nested:
    components: list


@dataclass
class CM:
    """A matrix Kaldi stores compressed (kind "CM", "CM2" or "CM3"): .data the bytes after the
    token, .values what Kaldi decodes them to (the text form writes these)."""

    data: bytes
    values: np.ndarray
    kind: str


def _code16(low: float, span: float, v: float) -> int:
    return int(min(max((v - low) / span, 0.0), 1.0) * 65535 + 0.499)


def _percentiles(low: float, span: float, column: np.ndarray) -> list[int]:
    """A column's header: the 16-bit codes of its 0/25/75/100th percentiles, kept increasing."""
    s, n = np.sort(column), len(column)
    picks = [s[0], s[n // 4], s[3 * (n // 4)], s[-1]] if n >= 5 else \
        [s[min(i, n - 1)] for i in range(4)]
    codes = [min(_code16(low, span, picks[0]), 65532)]
    for i, cap in ((1, 65533), (2, 65534), (3, 65535)):
        codes.append(min(max(_code16(low, span, picks[i]), codes[-1] + 1), cap))
    return codes


def _byte(p: list[float], v: float) -> int:
    for lo, hi, base, steps in ((p[0], p[1], 0, 64), (p[1], p[2], 64, 128), (p[2], p[3], 192, 63)):
        if v < hi or base == 192:
            return base + min(max(int((v - lo) / (hi - lo) * steps + 0.5), 0), steps)
    raise AssertionError


def _unbyte(p: list[float], b: int) -> float:
    if b <= 64:
        return p[0] + (p[1] - p[0]) * b / 64
    if b <= 192:
        return p[1] + (p[2] - p[1]) * (b - 64) / 128
    return p[2] + (p[3] - p[2]) * (b - 192) / 63


def compress(m: np.ndarray, kind: str = "CM") -> CM:
    """m compressed as Kaldi's CompressedMatrix does, value by value."""
    rows, cols = m.shape
    low, span = float(m.min()), float(m.max() - m.min()) or 1.0
    low, span = float(np.float32(low)), float(np.float32(span))
    head = struct.pack("<ffii", low, span, rows, cols)
    values = np.zeros(m.shape)
    if kind in ("CM2", "CM3"):
        top = 65535 if kind == "CM2" else 255
        codes = [[int(min(max((v - low) / span, 0), 1) * top + 0.499) for v in r] for r in m]
        values = low + span / top * np.array(codes, np.float64)
        fmt = "<u2" if kind == "CM2" else "u1"
        return CM(head + np.array(codes, fmt).tobytes(), values.astype(np.float32), kind)
    headers, data = [], []
    for c in range(cols):
        codes = _percentiles(low, span, m[:, c])
        headers += codes
        p = [low + span / 65535 * k for k in codes]
        column = [_byte(p, float(v)) for v in m[:, c]]
        data += column
        values[:, c] = [_unbyte(p, b) for b in column]
    body = np.array(headers, "<u2").tobytes() + bytes(data)
    return CM(head + body, values.astype(np.float32), kind)


class Writer:
    def __init__(self, binary: bool) -> None:
        self.binary = binary
        self.out = bytearray(b"\0B" if binary else b"")

    def token(self, t: str) -> None:
        self.out += t.encode() + b" "

    def text(self, s: str) -> None:
        self.out += s.encode()

    def item(self, v) -> None:
        b = self.binary
        if isinstance(v, str):
            self.token(v)
        elif isinstance(v, bool):
            self.out += (b"T" if v else b"F") + (b"" if b else b" ")
        elif isinstance(v, I):
            self.out += (b"\x04" + struct.pack("<i", v.v)) if b else f"{v.v} ".encode()
        elif isinstance(v, F):
            self.out += (b"\x04" + struct.pack("<f", v.v)) if b else f"{v.v!r} ".encode()
        elif isinstance(v, IV):
            if b:
                self.out += b"\x04" + struct.pack("<i", len(v.v))
                self.out += np.asarray(v.v, "<i4").tobytes()
            else:
                self.text("[ " + "".join(f"{x} " for x in v.v) + "]\n")
        elif isinstance(v, Nested):
            self.nnet1(v.components)
        elif isinstance(v, CM) and self.binary:
            self.token(v.kind)
            self.out += v.data
        elif isinstance(v, CM):
            self.array(v.values)
        else:
            self.array(np.asarray(v, np.float32))

    def array(self, a: np.ndarray) -> None:
        if self.binary:
            self.out += b"FM " if a.ndim == 2 else b"FV "
            for d in a.shape:
                self.item(I(d))
            self.out += a.astype("<f4").tobytes()
        elif a.ndim == 2:
            rows = "".join("\n  " + " ".join(repr(float(x)) for x in r) for r in a)
            self.text(f" [{rows} ]\n")
        else:
            self.text(" [ " + "".join(f"{float(x)!r} " for x in a) + "]\n")

    def nnet1(self, components: list) -> None:
        self.token("<Nnet>")
        for ctype, out, inp, items in components:
            self.token(f"<{ctype}>")
            self.item(I(out))
            self.item(I(inp))
            for v in items:
                self.item(v)
            self.token("<!EndOfComponent>")
        self.token("</Nnet>")

    def counted(self, components: list, named: bool) -> None:
        self.token("<NumComponents>")
        self.item(I(len(components)))
        if not named:
            self.token("<Components>")
        for comp in components:
            if named:
                name, ctype, items = comp
                self.token("<ComponentName>")
                self.token(name)
            else:
                ctype, items = comp
            self.token(f"<{ctype}>")
            for v in items:
                self.item(v)
            self.token(f"</{ctype}>")


def transition_model(w: Writer) -> None:
    """A stand-in <TransitionModel> (the converter skips it)."""
    w.token("<TransitionModel>")
    w.token("<Topology>")
    w.item(IV([1, 2, 3]))
    w.token("</Topology>")
    w.token("<Triples>")
    w.item(I(0))
    w.token("</Triples>")
    w.token("<LogProbs>")
    w.item(np.zeros(3, np.float32))
    w.token("</LogProbs>")
    w.token("</TransitionModel>")


def nnet1(components: list, binary: bool) -> bytes:
    w = Writer(binary)
    w.nnet1(components)
    return bytes(w.out)


def nnet2(components: list, binary: bool, mdl: bool = False) -> bytes:
    w = Writer(binary)
    if mdl:
        transition_model(w)
    w.token("<Nnet>")
    w.counted(components, named=False)
    w.token("</Components>")
    w.token("</Nnet>")
    return bytes(w.out)


def nnet3(config: list[str], components: list, binary: bool, mdl: bool = False,
          priors: np.ndarray | None = None) -> bytes:
    w = Writer(binary)
    if mdl:
        transition_model(w)
    w.token("<Nnet3>")
    w.text("\n" + "".join(line + "\n" for line in config) + "\n")
    w.counted(components, named=True)
    w.token("</Nnet3>")
    if mdl:
        for tag, v in (("<LeftContext>", 0), ("<RightContext>", 0)):
            w.token(tag)
            w.item(I(v))
        w.token("<Priors>")
        w.item(np.asarray(priors if priors is not None else [], np.float32))
    return bytes(w.out)
