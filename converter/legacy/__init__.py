"""Run legacy Model Optimizer extensions unmodified: `mo.*`, `extensions.*` and
`openvino.tools.mo.*` imports resolve onto the converter while extensions load and run
(`legacy_imports`). The name mapping is data, in converter.legacy.names; docs/migration.md
lists what is supported."""

from converter.legacy import replacement as _replacement  # noqa: F401  (anchors register here)
from converter.legacy.importer import LegacyImportError, legacy_imports

__all__ = ["LegacyImportError", "legacy_imports"]
