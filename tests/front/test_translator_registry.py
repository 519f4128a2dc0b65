"""A framework's translator registry imports its modules on first use; two threads converting
at once (the Python API in a server) both find every translator."""

from __future__ import annotations

import sys
import threading
import types

from converter.front.translator import NodeContext, TranslatorRegistry


def test_a_lookup_during_the_first_import_waits_for_it(tmp_path, monkeypatch) -> None:
    registry = TranslatorRegistry(NodeContext, ["_extgen_slow_translators"])
    gate = types.SimpleNamespace(entered=threading.Event(), release=threading.Event(),
                                 registry=registry)
    monkeypatch.setitem(sys.modules, "_extgen_gate", gate)
    (tmp_path / "_extgen_slow_translators.py").write_text(
        "import _extgen_gate as g\n"
        "g.entered.set()\n"
        "g.release.wait(30)\n"
        "@g.registry.op('Foo')\n"
        "def foo(context):\n"
        "    return None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "_extgen_slow_translators", raising=False)
    found: dict[str, object] = {}
    first = threading.Thread(target=lambda: found.update(first=registry.find("Foo")))
    first.start()
    assert gate.entered.wait(30)
    second = threading.Thread(target=lambda: found.update(second=registry.find("Foo")))
    second.start()
    second.join(1)  # an unguarded registry answers at once, and wrongly
    gate.release.set()
    first.join()
    second.join()
    assert found["first"] is found["second"] is not None
    sys.modules.pop("_extgen_slow_translators", None)
