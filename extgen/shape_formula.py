"""A generator config's shape formula from the shapes a model declares around an unknown op:
the output's dims as dims of the input that explains most of them, the rest as constants."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["declared_formula"]

Shape = Sequence[int]


def _matches(source: Shape, out: Shape) -> list[int | None]:
    """For each output dim, the first unused dim of source with its value (None: none)."""
    used: set[int] = set()
    found: list[int | None] = []
    for d in out:
        k = next((k for k, s in enumerate(source) if s == d and k not in used), None)
        if k is not None:
            used.add(k)
        found.append(k)
    return found


def declared_formula(inputs: list[Shape | None], output: Shape | None,
                     taken: set[str]) -> dict | None:
    """A ShapeRule (kind formula) giving `output`, or None when a dim of it is dynamic or no
    input shape is known. taken: lower-cased names in use (ports, attributes), updated."""
    if output is None or any(d < 0 for d in output):
        return None
    known = [(i, s) for i, s in enumerate(inputs) if s is not None and all(d >= 0 for d in s)]
    if not known:
        return None

    def explained(item: tuple[int, Shape]) -> int:  # size-1 dims say little about the op
        return sum(k is not None and d != 1 for k, d in zip(_matches(item[1], output), output))

    index, source = max(known, key=lambda item: (explained(item), -item[0]))
    names = []
    for k in range(len(source)):
        name, n = f"D{k}", 1
        while name.lower() in taken:
            n += 1
            name = f"D{k}_{n}"
        taken.add(name.lower())
        names.append(name)
    dims = [names[k] if k is not None else str(d)
            for k, d in zip(_matches(source, output), output)]
    return {"kind": "formula", "input": index, "names": names, "dims": dims}
