"""Stand-ins for MO's own transformations, so legacy passes that name them find their place.

A user pass with `run_after = [InsertLayoutPropagationTranspose]` needs MO's position, not
MO's code. Each name in converter.legacy.mo_pass_order becomes an anchor of its phase that runs
nothing and keeps MO's order among these anchors, the phase separators and extgen's layout
change; extension code that calls one (`FuseReshapesSequence().find_and_replace_pattern(g)`)
is stopped with one line naming the name and the calling file and line. The anchors join a
conversion's passes once extension code resolves one of them (`register`), inside the
conversion's extension scope.

StridedSliceMasksNormalizer and BatchToSpaceNormalizer are no anchors: each runs at its place
and does what MO's did to the graph the passes after it see (the masks, and the inputs of TF's
SpaceToBatch and BatchToSpace, are the opset's from then on; extgen's already are).
"""

from __future__ import annotations

from typing import Any

from converter.back import replacement as _back
from converter.errors import ExtensionError
from converter.front import replacement as _front
from converter.legacy.fake_output_resolver import FakeOutputResolver
from converter.legacy.importer import caller
from converter.legacy.mo_ops.strided_slice_masks import MASKS_NORMALIZED
from converter.legacy.mo_pass_order import MO_PASSES
from converter.legacy.replacement import PostMiddleStart, PreMiddleStart
from converter.legacy.tf_space_batch import NORMALIZED as SPACE_BATCH_NORMALIZED
from converter.middle import replacement as _middle
from converter.middle.layout.transposes import LayoutChangeNHWCtoNCHW
from converter.passes import Anchor, ReplacementPattern

__all__ = ["BEHAVES", "STANDINS", "register"]

_PHASE_BASES = {
    "front": _front.FrontReplacementPattern,
    "load": _front.FrontReplacementPattern,  # MO's loading ended in front passes
    "middle": _middle.MiddleReplacementPattern,
    "back": _back.BackReplacementPattern,
}
# extgen's own passes that MO's order refers to
_POINTS: dict[str, type[ReplacementPattern]] = {
    cls.__name__: cls for cls in (
        _front.FrontStart, _front.FrontFinish, PreMiddleStart, _middle.MiddleStart,
        _middle.MiddleFinish, PostMiddleStart, _back.BackStart, _back.BackFinish,
        LayoutChangeNHWCtoNCHW, FakeOutputResolver,
    )
}


def _classes(names: str) -> list[type[ReplacementPattern]]:
    return [_POINTS.get(name) or STANDINS[name] for name in names.split()]


class _MissingAttr(ExtensionError, AttributeError):
    """A refusal that getattr(cls, name, default) still treats as a missing attribute."""


class _StandinType(type(Anchor)):  # type: ignore[misc]
    """A stand-in's attributes beyond the pass interface (MO's class-level tables and helper
    methods) refuse in one line naming the MO name and the extension line that used it."""

    def __getattr__(cls, attr: str) -> Any:
        _refuse_attr(cls, attr)


def _refuse_attr(cls: type, attr: str) -> Any:
    if attr.startswith("_"):
        raise AttributeError(attr)
    msg = (f"{caller()}uses MO's {cls.mo_phase} transformation {cls.__name__}.{attr}, which "
           "extgen does not implement (the name only orders passes around MO's position)")
    raise _MissingAttr(msg)


def _masks_normalized(self, graph: Any) -> None:
    """MO's StridedSliceMasksNormalizer: every later legacy pass sees the opset's masks."""
    graph.graph[MASKS_NORMALIZED] = True


def _space_batch_normalized(self, graph: Any) -> None:
    """MO's BatchToSpaceNormalizer: every later legacy pass sees the opset's SpaceToBatch and
    BatchToSpace inputs."""
    graph.graph[SPACE_BATCH_NORMALIZED] = True


# stand-ins that do what MO's pass did, where that is something the extension code sees
BEHAVES = {"StridedSliceMasksNormalizer": _masks_normalized,
           "BatchToSpaceNormalizer": _space_batch_normalized}


def _namesakes(name: str) -> list[type[ReplacementPattern]]:
    return [c for c in ReplacementPattern.registered_cls
            if c.__name__ == name and c.__module__ != __name__]


def _standin(name: str, phase: str, spec: str) -> type[ReplacementPattern]:
    after, _, before = spec.partition("|")
    if name in BEHAVES:
        # after an extension's copy of MO's pass (its namesake), which then does the work
        attrs = {"run_after": lambda self: _classes(after) + _namesakes(name),
                 "run_before": lambda self: _classes(before),
                 "find_and_replace_pattern": BEHAVES[name], "__module__": __name__,
                 "__qualname__": name, "mo_phase": phase, "__doc__": BEHAVES[name].__doc__}
        return type(name, (_PHASE_BASES[phase],), attrs)

    def run_after(self) -> list:
        return _classes(after)

    def run_before(self) -> list:
        return _classes(before)

    def find_and_replace_pattern(self, graph: Any) -> None:
        """Called by extension code (the pass list never runs an anchor): refuse, never a
        silent no-op."""
        msg = (f"{caller()}calls MO's {phase} transformation {name}, which extgen does not "
               "implement (the name only orders passes around MO's position); apply what it "
               "did in your own pass, or leave the call out")
        raise ExtensionError(msg)

    doc = f"Stand-in for MO's {phase} transformation {name}: only orders the passes around it."
    attrs = {"run_after": run_after, "run_before": run_before, "__doc__": doc,
             "find_and_replace_pattern": find_and_replace_pattern,
             "__getattr__": lambda self, attr: _refuse_attr(type(self), attr),
             "__module__": __name__, "__qualname__": name, "mo_phase": phase}
    return _StandinType(name, (Anchor, _PHASE_BASES[phase]), attrs)


STANDINS: dict[str, type[ReplacementPattern]] = {
    name: _standin(name, module.split(".", 1)[0], spec)
    for module, table in MO_PASSES.items() for name, spec in table.items()
}
# defined here, registered with a conversion's passes only when extension code names one
ReplacementPattern.registered_cls[:] = [
    c for c in ReplacementPattern.registered_cls if c not in STANDINS.values()
]


def register() -> None:
    """Put every stand-in into the current conversion's passes (once)."""
    present = set(ReplacementPattern.registered_cls)
    ReplacementPattern.registered_cls.extend(c for c in STANDINS.values() if c not in present)


def __getattr__(name: str) -> Any:
    if name in STANDINS:
        register()
        return STANDINS[name]
    raise AttributeError(name)
