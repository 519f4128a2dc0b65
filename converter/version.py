"""The version of the installed extgen distribution (pyproject.toml is its one source), read
on first use: the metadata lookup costs ~40 ms, which start-up should not pay."""

from __future__ import annotations

import functools
from importlib.metadata import PackageNotFoundError, version

__all__ = ["installed_version"]


@functools.cache
def installed_version() -> str:
    try:
        return version("extgen")
    except PackageNotFoundError:  # a source tree on sys.path, never installed
        return "0+unknown"


def __getattr__(name: str) -> str:  # `converter.version.__version__`, computed when asked for
    if name == "__version__":
        return installed_version()
    raise AttributeError(name)
