"""`numpy_only`: a test run with the native kernels switched off (EXTGEN_NATIVE=0), so the
ops' numpy plan paths stay covered where a compiler is present."""

from __future__ import annotations

import pytest

from converter.ops.native import kernels


@pytest.fixture
def numpy_only(monkeypatch):
    monkeypatch.setenv("EXTGEN_NATIVE", "0")
    kernels.cache_clear()
    yield
    monkeypatch.undo()
    kernels.cache_clear()


@pytest.fixture(params=["native", "numpy"])
def either_path(request):
    """Run once with the native kernels (where built) and once with numpy's paths."""
    if request.param == "numpy":
        request.getfixturevalue("numpy_only")
    return request.param
