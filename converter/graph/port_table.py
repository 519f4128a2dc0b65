"""PortTable: a node's port bookkeeping (`_in_ports`/`_out_ports`) without a dict per node and
port while the ports hold nothing but tensor names."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from converter.errors import ConversionError

__all__ = ["PortTable"]

_NO_ATTRS: Mapping[str, Any] = MappingProxyType({})


class PortTable(Mapping):
    """A read-only port table: ports 0..count-1 without attributes, plus `extra` entries for
    ports that have only tensor names or lie past count: port, debug info (a tuple of (op name,
    tensor name)) or None, ... in one flat tuple (no tuple per entry).
    Shared by every node with the same count while it has no extra entries (one table instead
    of a dict per node and port); Node._ports turns it into the node's own dicts before a port
    is written, and Port keeps tensor names here without that."""

    __slots__ = ("count", "extra")
    _shared: dict[int, PortTable] = {}

    def __init__(self, count: int, extra: tuple = ()) -> None:
        self.count, self.extra = count, extra

    def _entries(self) -> Iterator[tuple[int, tuple | None]]:
        return zip(self.extra[::2], self.extra[1::2])

    @classmethod
    def of(cls, count: int) -> PortTable:
        table = cls._shared.get(count)
        if table is None:
            table = cls._shared[count] = cls(count)
        return table

    def _entry(self, idx: object) -> tuple[bool, tuple | None]:
        if self.extra:
            for i, info in self._entries():
                if i == idx:
                    return True, info
        try:
            return 0 <= operator.index(idx) < self.count, None  # type: ignore[arg-type]
        except TypeError:
            return False, None

    def __getitem__(self, idx: int) -> Mapping[str, Any]:
        found, info = self._entry(idx)
        if not found:
            raise KeyError(idx)
        return _NO_ATTRS if info is None else MappingProxyType(_info_dict(info))

    def __contains__(self, idx: object) -> bool:
        if not self.extra and type(idx) is int:
            return 0 <= idx < self.count
        return self._entry(idx)[0]

    def __iter__(self) -> Iterator[int]:
        past = [i for i, _ in self._entries() if not 0 <= i < self.count] if self.extra else []
        return itertools.chain(range(self.count), past)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return repr(dict(self))

    def info(self, idx: int) -> tuple:
        """The (op name, tensor name) pairs of port idx."""
        return self._entry(idx)[1] or ()

    def with_info(self, idx: int, info: tuple | None) -> PortTable:
        """This table with port idx registered and its debug info set (None: removed)."""
        keep = info is not None or not 0 <= idx < self.count
        extra, seen = [], False
        for i, old in self._entries():
            if i == idx:
                seen = True
                if keep:
                    extra += (idx, info)
            else:
                extra += (i, old)
        if keep and not seen:
            extra += (idx, info)
        return PortTable(self.count, tuple(extra)) if extra else PortTable.of(self.count)

    def grown(self, count: int) -> PortTable | None:
        """MO's update_node: ports 0..count-1 added, none dropped; None where the order of
        the ports would differ from that dict's (a port past count came first)."""
        if count <= self.count:
            return self
        if not self.extra:
            return PortTable.of(count)
        if any(i >= self.count for i, _ in self._entries()):
            return None
        return PortTable(count, self.extra)

    def update(self, ports: Mapping) -> None:
        """MO's RestorePorts (`_in_ports.update({port: {...}})`) on ports already here: nothing
        to do; a port not here cannot be added to a shared table."""
        missing = [p for p in ports if p not in self]
        if missing:
            msg = (f"MO's port restoration adds ports {missing} to a port table; extgen's "
                   "frontends give each node its ports when they load the model")
            raise ConversionError(msg)

    def as_dicts(self) -> dict[int, dict]:
        """The node's own table: a dict per port."""
        table = {i: {} for i in self}
        for i, info in self._entries():
            if info is not None:
                table[i] = _info_dict(info)
        return table


def _info_dict(info: tuple) -> dict[str, Any]:
    return {"fw_tensor_debug_info": list(info)}
