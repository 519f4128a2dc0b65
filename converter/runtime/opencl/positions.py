"""Build-log positions mapped back to the user's files. The kernel source is assembled from
generated preamble lines and the user's `.cl` files, each behind a `#line 1 "name.cl"`
directive; PoCL reports positions through those directives, NVIDIA's compiler reports
`<kernel>:LINE:COL` in the assembled text. Both end up as `name.cl:LINE`."""

from __future__ import annotations

import re

__all__ = ["user_files", "user_positions"]

_LINE = re.compile(r'\s*#\s*line\s+(\d+)(?:\s+"([^"]*)")?')
_RAW = re.compile(r"<(?:kernel|source|input)>:(\d+)(?=:)")


def _origins(source: str) -> list[tuple[str, int] | None]:
    """For each line of `source` (0-based), its (file, line) behind a #line, or None."""
    out: list[tuple[str, int] | None] = []
    where: tuple[str, int] | None = None
    for text in source.splitlines():
        found = _LINE.match(text)
        if found:
            name = found.group(2) or (where[0] if where else "")
            where = (name, int(found.group(1)) - 1)
            out.append(None)
            continue
        if where is not None:
            where = (where[0], where[1] + 1)
        out.append(where)
    return out


def user_positions(log_text: str, source: str) -> str:
    """The log with raw `<kernel>:N` positions replaced by `file.cl:line` where N falls in a
    user's file."""
    origins = _origins(source)

    def swap(found: re.Match[str]) -> str:
        index = int(found.group(1)) - 1
        origin = origins[index] if 0 <= index < len(origins) else None
        return f"{origin[0]}:{origin[1]}" if origin and origin[0] else found.group(0)

    return _RAW.sub(swap, log_text)


def user_files(source: str) -> list[str]:
    """The names of the user's files in `source`, in order: those its #line directives give."""
    names = [m.group(2) for m in map(_LINE.match, source.splitlines()) if m and m.group(2)]
    return list(dict.fromkeys(names))
