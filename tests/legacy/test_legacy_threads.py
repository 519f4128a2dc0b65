"""The legacy import hook installs and removes itself while other threads import (OpenVINO's
telemetry thread did; the sweep over sys.modules died with 'dictionary changed size during
iteration')."""

from __future__ import annotations

import importlib
import sys
import threading

from converter.legacy import legacy_imports


def _churn(stop: threading.Event) -> None:
    """Import and forget modules as fast as possible, as a background thread's imports do."""
    names = [f"_extgen_churn_{i}" for i in range(50)]
    while not stop.is_set():
        for name in names:
            sys.modules[name] = sys  # what an import does to sys.modules, minus the disk
        for name in names:
            sys.modules.pop(name, None)


def _enter_and_leave(rounds: int, errors: list) -> None:
    try:
        for _ in range(rounds):
            with legacy_imports():
                importlib.import_module("mo.graph.graph")
                importlib.import_module("openvino.tools.mo.ops.op")
    except Exception as err:  # noqa: BLE001  (reported by the test)
        errors.append(err)


def test_hook_survives_concurrent_imports_and_blocks() -> None:
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as CPython allows
    stop, errors = threading.Event(), []
    churn = threading.Thread(target=_churn, args=(stop,))
    other = threading.Thread(target=_enter_and_leave, args=(300, errors))
    churn.start()
    other.start()
    try:
        _enter_and_leave(300, errors)
        other.join()
    finally:
        stop.set()
        churn.join()
        sys.setswitchinterval(interval)
    assert errors == []
    assert "mo" not in sys.modules and "openvino.tools.mo" not in sys.modules
